//! The Agents view's one command: the agents seen through hooks and MCP.

use switchboard_model::{ErrorPayload, agent::AgentRow};
use switchboard_store::{agents, clock};
use tauri::State;

use super::on_workspace;
use crate::state::AppState;

/// Every agent session, waiting ones first, each with its last messages.
#[tauri::command]
pub async fn list_agents(state: State<'_, AppState>) -> Result<Vec<AgentRow>, ErrorPayload> {
    on_workspace(&state, |workspace| agents::list(workspace, clock::now())).await
}
