//! "All workspaces": what waits in every running workspace on this
//! machine, and opening another one's window.

use switchboard_model::{
    ErrorCode, ErrorPayload, ipc::WorkspaceRequest, registry::WorkspaceAttention,
};
use switchboard_store::{clock, everywhere, registry};
use tauri::State;

use super::on_workspace;
use crate::state::AppState;

/// Every running workspace's waiting questions and agents, this one first.
#[tauri::command]
pub async fn everywhere(
    state: State<'_, AppState>,
) -> Result<Vec<WorkspaceAttention>, ErrorPayload> {
    on_workspace(&state, |workspace| {
        Ok(everywhere::attention(
            &registry::list(),
            workspace,
            clock::now(),
        ))
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
    let app = std::env::current_exe().map_err(|error| {
        ErrorPayload::new(ErrorCode::Io, format!("could not find this app: {error}"))
    })?;
    let mut command = std::process::Command::new(app);
    if let Some(dir) = &state.config.config_dir {
        command.arg("--config-dir").arg(dir);
    }
    let mut child = command.arg(&root).spawn().map_err(|error| {
        ErrorPayload::new(
            ErrorCode::Io,
            format!("could not open a window on {}: {error}", root.display()),
        )
    })?;
    // Reaped when it ends; it outlives this window otherwise.
    std::thread::spawn(move || child.wait());
    Ok(())
}
