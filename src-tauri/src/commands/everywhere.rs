//! "All workspaces": what waits in every running workspace on this
//! machine, and opening another one's window.

use switchboard_model::{
    ErrorCode, ErrorPayload, ipc::WorkspaceRequest, registry::WorkspaceAttention,
};
use switchboard_store::{everywhere, registry};
use tauri::State;

use super::on_workspace;
use crate::state::AppState;

/// Every running workspace's waiting questions and agents, this one first.
#[tauri::command]
pub async fn everywhere(
    state: State<'_, AppState>,
) -> Result<Vec<WorkspaceAttention>, ErrorPayload> {
    on_workspace(&state, |own| {
        Ok(switchboard_commands::agents::everywhere(own))
    })
    .await
}

/// Opens the window of a running workspace (one already open comes
/// forward: one window per workspace), with this window's settings folder.
#[tauri::command]
pub async fn open_workspace(
    state: State<'_, AppState>,
    request: WorkspaceRequest,
) -> Result<(), ErrorPayload> {
    let root = on_workspace(&state, move |own| {
        everywhere::reachable(&registry::list(), own, &request.workspace)
    })
    .await?
    .root()
    .to_owned();
    crate::instance::open_window(state.config.config_dir.as_deref(), &root)
        .map_err(|message| ErrorPayload::new(ErrorCode::Io, message))
}
