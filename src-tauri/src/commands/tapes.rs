//! Commands of the Tapes view: each one call of
//! `switchboard_commands::tapes` on the window's workspace.

use switchboard_commands::tapes;
use switchboard_model::{
    ErrorPayload,
    tape::view::{TapeHit, TapeList, TapeNoteRequest, TapeRequest, TapeSearchRequest, TapeView},
};
use tauri::State;

use super::on_workspace;
use crate::state::AppState;

/// The tapes, and the files that did not load.
#[tauri::command]
pub async fn tapes(state: State<'_, AppState>) -> Result<TapeList, ErrorPayload> {
    on_workspace(&state, tapes::tapes).await
}

/// One tape, laid out for the player.
#[tauri::command]
pub async fn tape(
    state: State<'_, AppState>,
    request: TapeRequest,
) -> Result<TapeView, ErrorPayload> {
    on_workspace(&state, move |workspace| tapes::tape(workspace, &request)).await
}

/// The exchanges holding the query, across all tapes that load.
#[tauri::command]
pub async fn tapes_search(
    state: State<'_, AppState>,
    request: TapeSearchRequest,
) -> Result<Vec<TapeHit>, ErrorPayload> {
    on_workspace(&state, move |workspace| {
        tapes::tapes_search(workspace, &request)
    })
    .await
}

/// Keeps a note on an exchange, in its `annotations`.
#[tauri::command]
pub async fn tape_note(
    state: State<'_, AppState>,
    request: TapeNoteRequest,
) -> Result<(), ErrorPayload> {
    on_workspace(&state, move |workspace| {
        tapes::tape_note(workspace, &request)
    })
    .await
}

/// Writes the tape as asciicast v3 beside it; answers the file's path.
#[tauri::command]
pub async fn tape_export_cast(
    state: State<'_, AppState>,
    request: TapeRequest,
) -> Result<String, ErrorPayload> {
    on_workspace(&state, move |workspace| {
        tapes::tape_export_cast(workspace, &request)
    })
    .await
}
