//! The Agents view's started agents: each command one call over
//! `switchboard-launch`, with the window's environment for the agents it
//! starts and the `switchboard` beside the app for their hooks.

use switchboard_launch::LaunchFailure;
use switchboard_model::{
    ErrorCode, ErrorPayload,
    agent::launch::{Launch, LaunchRequest, LaunchRow, WorktreeChanges},
    ipc::{LaunchDiscard, LaunchMerge, LaunchName, LaunchSend},
};
use switchboard_store::clock;
use tauri::State;

use super::program_sessions::client;
use crate::state::AppState;

fn failed(error: LaunchFailure) -> ErrorPayload {
    error.payload()
}

/// The started agents, newest first, each with its state.
#[tauri::command]
pub async fn launches(state: State<'_, AppState>) -> Result<Vec<LaunchRow>, ErrorPayload> {
    switchboard_commands::terminals::launches(&client(&state)?, &state.workspace).await
}

/// Starts an agent with the window's environment.
#[tauri::command]
pub async fn launch_start(
    state: State<'_, AppState>,
    request: LaunchRequest,
) -> Result<Launch, ErrorPayload> {
    let switchboard = crate::http_server::cli_beside_app().ok_or_else(|| {
        ErrorPayload::new(
            ErrorCode::Unavailable,
            "no `switchboard` is beside the app: the agent's hooks would have nothing to call",
        )
    })?;
    let client = client(&state)?;
    switchboard_commands::launches::start(
        &client,
        &state.workspace,
        &request,
        switchboard,
        state.config.config_dir.as_deref(),
    )
    .await
}

/// What a started agent changed in its worktree.
#[tauri::command]
pub async fn launch_diff(
    state: State<'_, AppState>,
    request: LaunchName,
) -> Result<WorktreeChanges, ErrorPayload> {
    let workspace = state.workspace.clone();
    tauri::async_runtime::spawn_blocking(move || {
        switchboard_launch::diff(&workspace, &request.name)
    })
    .await
    .map_err(|error| ErrorPayload::new(ErrorCode::Internal, error.to_string()))?
    .map_err(failed)
}

/// Merges a started agent's work into its base, and ends its program.
#[tauri::command]
pub async fn launch_merge(
    state: State<'_, AppState>,
    request: LaunchMerge,
) -> Result<Launch, ErrorPayload> {
    let client = client(&state)?;
    switchboard_launch::merge(
        &client,
        &state.workspace,
        &request.name,
        request.commit,
        clock::now(),
    )
    .await
    .map_err(failed)
}

/// Discards a started agent's work.
#[tauri::command]
pub async fn launch_discard(
    state: State<'_, AppState>,
    request: LaunchDiscard,
) -> Result<Launch, ErrorPayload> {
    let client = client(&state)?;
    switchboard_launch::discard(
        &client,
        &state.workspace,
        &request.name,
        request.confirmed,
        clock::now(),
    )
    .await
    .map_err(failed)
}

/// Types a follow-up into a started agent's prompt.
#[tauri::command]
pub async fn launch_send(
    state: State<'_, AppState>,
    request: LaunchSend,
) -> Result<Launch, ErrorPayload> {
    let client = client(&state)?;
    switchboard_launch::send(&client, &state.workspace, &request.name, &request.text)
        .await
        .map_err(failed)
}

/// Ends a started agent's program.
#[tauri::command]
pub async fn launch_stop(
    state: State<'_, AppState>,
    request: LaunchName,
) -> Result<Launch, ErrorPayload> {
    let client = client(&state)?;
    switchboard_launch::stop(&client, &state.workspace, &request.name)
        .await
        .map_err(failed)
}
