//! The Agents view's commands: the agents seen through hooks and MCP, and
//! whether Codex runs the hooks installed for it.

use switchboard_model::{
    ErrorPayload,
    agent::{AgentRow, codex_hooks::CodexHooksTrust},
};
use tauri::State;

use super::on_workspace;
use crate::state::AppState;

/// Every agent session, waiting ones first, each with its last messages.
#[tauri::command]
pub async fn list_agents(state: State<'_, AppState>) -> Result<Vec<AgentRow>, ErrorPayload> {
    on_workspace(&state, switchboard_commands::agents::list_agents).await
}

/// Whether Codex runs Switchboard's hooks in the workspace (`None`: none
/// installed), read from Codex's own files.
#[tauri::command]
pub async fn codex_hooks_trust(
    state: State<'_, AppState>,
) -> Result<Option<CodexHooksTrust>, ErrorPayload> {
    on_workspace(&state, switchboard_commands::agents::codex_hooks_trust).await
}
