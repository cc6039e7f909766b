//! Starting an agent (the Agents view's "New agent"), with the caller's
//! environment for the agent and the `switchboard` its hooks call.

use std::path::{Path, PathBuf};

use switchboard_launch::Caller;
use switchboard_model::{
    ErrorPayload,
    agent::launch::{Launch, LaunchRequest},
    settings::Settings,
};
use switchboard_session::Client;
use switchboard_store::{Workspace, clock, settings};

/// Starts the agent `request` asks for in `own`: with this process's
/// environment (and `SWITCHBOARD_CONFIG_DIR` when `config_dir` is given,
/// whose settings are read too), its hooks calling `switchboard`.
pub async fn start(
    client: &Client,
    own: &Workspace,
    request: &LaunchRequest,
    switchboard: PathBuf,
    config_dir: Option<&Path>,
) -> Result<Launch, ErrorPayload> {
    let settings_dir = config_dir
        .map(Path::to_path_buf)
        .or_else(settings::config_dir);
    let settings: Settings = settings_dir
        .and_then(|dir| settings::load(&dir).ok())
        .unwrap_or_default();
    let mut env: Vec<(String, String)> = std::env::vars().collect();
    if let Some(dir) = config_dir {
        env.push(("SWITCHBOARD_CONFIG_DIR".into(), dir.display().to_string()));
    }
    let caller = Caller::new(env, switchboard, &settings);
    switchboard_launch::start(client, own, request, &caller, clock::now())
        .await
        .map_err(|error| error.payload())
}
