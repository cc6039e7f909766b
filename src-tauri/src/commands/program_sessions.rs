//! Commands of the Terminals view: each one call of
//! `switchboard_commands::terminals`, over the session host's client or
//! the store's session logs. The sessions themselves are followed by the
//! shell for the window's whole life (`crate::program_sessions`).

use switchboard_commands::terminals;
use switchboard_model::{
    ErrorPayload,
    program::{
        ProgramSession,
        view::{
            SessionControlRequest, SessionOutput, SessionOutputRequest, SessionRequest,
            SessionTypeRequest,
        },
    },
    tape::view::TapeView,
};
use switchboard_session::Client;
use tauri::State;

use super::on_workspace;
use crate::state::AppState;

/// A client of the user's host; one it starts reads the settings the app
/// reads (`--config-dir`).
pub(super) fn client(state: &AppState) -> Result<Client, ErrorPayload> {
    terminals::client(state.config.config_dir.as_deref())
}

/// The workspace's sessions now (see [`crate::program_sessions`]).
#[tauri::command]
pub async fn sessions(state: State<'_, AppState>) -> Result<Vec<ProgramSession>, ErrorPayload> {
    Ok(state.sessions.now())
}

/// A session's log as a tape, to play it back.
#[tauri::command]
pub async fn session_replay(
    state: State<'_, AppState>,
    request: SessionRequest,
) -> Result<TapeView, ErrorPayload> {
    on_workspace(&state, move |workspace| {
        terminals::session_replay(workspace, &request)
    })
    .await
}

/// A session's output since a cursor.
#[tauri::command]
pub async fn session_output(
    state: State<'_, AppState>,
    request: SessionOutputRequest,
) -> Result<SessionOutput, ErrorPayload> {
    terminals::session_output(&client(&state)?, &request).await
}

/// The developer types into a session (see
/// [`terminals::session_type`]).
#[tauri::command]
pub async fn session_type(
    state: State<'_, AppState>,
    request: SessionTypeRequest,
) -> Result<(), ErrorPayload> {
    terminals::session_type(&client(&state)?, &state.workspace, request).await
}

/// Takes a session over, or hands it back to agents.
#[tauri::command]
pub async fn session_control(
    state: State<'_, AppState>,
    request: SessionControlRequest,
) -> Result<(), ErrorPayload> {
    terminals::session_control(&client(&state)?, &request).await
}

/// Ends a session (TERM, then KILL after the grace).
#[tauri::command]
pub async fn session_end(
    state: State<'_, AppState>,
    request: SessionRequest,
) -> Result<(), ErrorPayload> {
    terminals::session_end(&client(&state)?, &request).await
}
