//! Commands of the Team view: each a few lines over the store's `team`
//! module, on the workspace's opencode-teams folder (`Teams::locate`);
//! Claude Code's teams are only read.

use switchboard_model::{
    ErrorPayload,
    ipc::{
        TaskAdvanceRequest, TaskClaimRequest, TaskCreateRequest, TaskDepsRequest, TeamRequest,
        TeamSendRequest,
    },
    team::{Task, TeamBoard, TeamEntry, TeamSource},
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
        let entry = |source| move |name| TeamEntry { name, source };
        let mut teams: Vec<TeamEntry> = Teams::locate(workspace)
            .team_names()?
            .into_iter()
            .map(entry(TeamSource::OpencodeTeams))
            .collect();
        if let Some(claude) = claude {
            // Claude's folder is the user's, not the workspace's: a folder
            // that cannot be listed hides its teams, never the plugin's.
            match claude.team_names(workspace.root()) {
                Ok(names) => teams.extend(names.into_iter().map(entry(TeamSource::ClaudeCode))),
                Err(error) => tracing::warn!(%error, "Claude Code's teams not listed"),
            }
        }
        Ok(teams)
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
    on_workspace(&state, move |workspace| match (request.source, claude) {
        (TeamSource::OpencodeTeams, _) => Teams::locate(workspace).board(&request.team),
        (TeamSource::ClaudeCode, Some(claude)) => claude.board(&request.team),
        (TeamSource::ClaudeCode, None) => {
            Err(switchboard_model::team::TeamError::TeamMissing(request.team.clone()).into())
        }
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
