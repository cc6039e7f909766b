//! Commands about the open workspace.

use switchboard_model::ipc::WorkspaceInfo;
use tauri::State;

use crate::state::AppState;

/// The workspace folder this window shows.
#[tauri::command]
pub fn workspace_info(state: State<'_, AppState>) -> WorkspaceInfo {
    switchboard_commands::inbox::workspace_info(&state.workspace)
}
