//! Commands of the Team view: each one call of `switchboard_commands::team`
//! on the window's workspace.

use switchboard_commands::team;
use switchboard_model::{
    ErrorPayload,
    ipc::{
        TaskAdvanceRequest, TaskClaimRequest, TaskCreateRequest, TaskDepsRequest,
        TeamCreateRequest, TeamRequest, TeamSendRequest,
    },
    team::{Task, TeamBoard, TeamConfig, TeamEntry},
};
use tauri::State;

use super::on_workspace;
use crate::state::AppState;

/// The teams with a folder: opencode-teams' by name, then Claude Code's
/// working in the workspace.
#[tauri::command]
pub async fn teams(state: State<'_, AppState>) -> Result<Vec<TeamEntry>, ErrorPayload> {
    let claude = state.config.claude_teams();
    on_workspace(&state, move |workspace| {
        team::teams(workspace, claude.as_ref())
    })
    .await
}

/// One team's board.
#[tauri::command]
pub async fn team_board(
    state: State<'_, AppState>,
    request: TeamRequest,
) -> Result<TeamBoard, ErrorPayload> {
    let claude = state.config.claude_teams();
    on_workspace(&state, move |workspace| {
        team::team_board(workspace, claude.as_ref(), &request)
    })
    .await
}

/// Creates a team.
#[tauri::command]
pub async fn team_create(
    state: State<'_, AppState>,
    request: TeamCreateRequest,
) -> Result<TeamConfig, ErrorPayload> {
    on_workspace(&state, move |workspace| {
        team::team_create(workspace, &request)
    })
    .await
}

/// Creates a task.
#[tauri::command]
pub async fn task_create(
    state: State<'_, AppState>,
    request: TaskCreateRequest,
) -> Result<Task, ErrorPayload> {
    on_workspace(&state, move |workspace| {
        team::task_create(workspace, request)
    })
    .await
}

/// Claims a task for a member.
#[tauri::command]
pub async fn task_claim(
    state: State<'_, AppState>,
    request: TaskClaimRequest,
) -> Result<Task, ErrorPayload> {
    on_workspace(&state, move |workspace| {
        team::task_claim(workspace, &request)
    })
    .await
}

/// Moves a task forward; completion cascades.
#[tauri::command]
pub async fn task_advance(
    state: State<'_, AppState>,
    request: TaskAdvanceRequest,
) -> Result<Task, ErrorPayload> {
    on_workspace(&state, move |workspace| {
        team::task_advance(workspace, &request)
    })
    .await
}

/// Edits a task's dependencies.
#[tauri::command]
pub async fn task_deps(
    state: State<'_, AppState>,
    request: TaskDepsRequest,
) -> Result<Task, ErrorPayload> {
    on_workspace(&state, move |workspace| {
        team::task_deps(workspace, &request)
    })
    .await
}

/// Sends a message, or broadcasts it.
#[tauri::command]
pub async fn team_send(
    state: State<'_, AppState>,
    request: TeamSendRequest,
) -> Result<(), ErrorPayload> {
    on_workspace(&state, move |workspace| {
        team::team_send(workspace, &request)
    })
    .await
}
