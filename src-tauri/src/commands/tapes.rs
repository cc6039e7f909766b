//! Commands of the Tapes view: each a few lines over the store's `tapes`
//! module on the workspace's `tapes/` folder.

use switchboard_model::{
    ErrorPayload,
    tape::view::{
        self, TapeHit, TapeList, TapeNoteRequest, TapeProblemView, TapeRequest, TapeSearchRequest,
        TapeView,
    },
};
use switchboard_store::tapes::Tapes;
use tauri::State;

use super::on_workspace;
use crate::state::AppState;

/// How many search hits are sent at most.
const HITS: usize = 200;

/// The tapes, and the files that did not load.
#[tauri::command]
pub async fn tapes(state: State<'_, AppState>) -> Result<TapeList, ErrorPayload> {
    on_workspace(&state, |workspace| {
        let loaded = Tapes::in_workspace(workspace).load()?;
        Ok(TapeList {
            tapes: loaded
                .tapes
                .iter()
                .map(|entry| view::summary(view::tape_id(&entry.path), &entry.tape))
                .collect(),
            problems: loaded
                .problems
                .into_iter()
                .map(|problem| TapeProblemView {
                    path: problem.path,
                    line: problem.line,
                    column: problem.column,
                    reason: problem.reason,
                })
                .collect(),
        })
    })
    .await
}

/// One tape, laid out for the player.
#[tauri::command]
pub async fn tape(
    state: State<'_, AppState>,
    request: TapeRequest,
) -> Result<TapeView, ErrorPayload> {
    on_workspace(&state, move |workspace| {
        let tape = Tapes::in_workspace(workspace).get(&request.id)?;
        Ok(view::view(view::tape_id(&request.id), &tape))
    })
    .await
}

/// The exchanges holding the query, across all tapes that load.
#[tauri::command]
pub async fn tapes_search(
    state: State<'_, AppState>,
    request: TapeSearchRequest,
) -> Result<Vec<TapeHit>, ErrorPayload> {
    on_workspace(&state, move |workspace| {
        let loaded = Tapes::in_workspace(workspace).load()?;
        Ok(view::search(
            loaded
                .tapes
                .iter()
                .map(|entry| (view::tape_id(&entry.path), &entry.tape)),
            &request.query,
            HITS,
        ))
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
        Tapes::in_workspace(workspace).annotate(&request.id, request.exchange, &request.note)
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
        Tapes::in_workspace(workspace)
            .export_cast(&request.id)
            .map(|path| path.display().to_string())
    })
    .await
}
