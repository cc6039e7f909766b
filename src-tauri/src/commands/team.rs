//! Commands of the Team view: each a few lines over the store's `team`
//! module, on the workspace's opencode-teams folder (`Teams::locate`);
//! Claude Code's teams are only read.

use switchboard_model::{
    ErrorPayload,
    ipc::{
        TaskAdvanceRequest, TaskClaimRequest, TaskCreateRequest, TaskDepsRequest, TeamRequest,
        TeamSendRequest,
    },
    team::{Task, TeamBoard, TeamEntry},
};
use switchboard_store::{
    clock,
    team::{self, NewTask, Teams},
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
        team::all_teams(workspace, claude.as_ref())
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
        team::board_of(workspace, claude.as_ref(), request.source, &request.team)
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
        let new = NewTask {
            title: request.title,
            description: request.description,
            priority: request.priority,
            dependencies: request.dependencies,
        };
        team::create_task(&Teams::locate(workspace), &request.team, new, clock::now())
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
        let teams = Teams::locate(workspace);
        team::claim_task(
            &teams,
            &request.team,
            &request.id,
            &request.agent,
            clock::now(),
        )
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
        let teams = Teams::locate(workspace);
        team::advance_task(
            &teams,
            &request.team,
            &request.id,
            request.status,
            clock::now(),
        )
        .map(|(task, _)| task)
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
        let teams = Teams::locate(workspace);
        team::edit_dependencies(
            &teams,
            &request.team,
            &request.id,
            &request.add,
            &request.remove,
            clock::now(),
        )
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
        let teams = Teams::locate(workspace);
        let now = clock::now();
        match &request.to {
            Some(to) => team::send_message(
                &teams,
                &request.team,
                &request.from,
                to,
                request.kind,
                &request.text,
                now,
            )
            .map(drop),
            None => team::send_broadcast(&teams, &request.team, &request.from, &request.text, now)
                .map(drop),
        }
    })
    .await
}
