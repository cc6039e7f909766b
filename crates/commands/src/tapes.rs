//! The Tapes view's commands: each a few lines over the store's `tapes`
//! module on the workspace's `tapes/` folder.

use switchboard_model::tape::view::{
    self, TapeHit, TapeList, TapeNoteRequest, TapeProblemView, TapeRequest, TapeSearchRequest,
    TapeView,
};
use switchboard_store::{StoreError, Workspace, tapes::Tapes};

/// How many search hits are sent at most.
const HITS: usize = 200;

/// The tapes, and the files that did not load.
pub fn tapes(own: &Workspace) -> Result<TapeList, StoreError> {
    let loaded = Tapes::in_workspace(own).load()?;
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
}

/// One tape, laid out for the player.
pub fn tape(own: &Workspace, request: &TapeRequest) -> Result<TapeView, StoreError> {
    let tape = Tapes::in_workspace(own).get(&request.id)?;
    Ok(view::view(view::tape_id(&request.id), &tape))
}

/// The exchanges holding the query, across all tapes that load.
pub fn tapes_search(
    own: &Workspace,
    request: &TapeSearchRequest,
) -> Result<Vec<TapeHit>, StoreError> {
    let loaded = Tapes::in_workspace(own).load()?;
    Ok(view::search(
        loaded
            .tapes
            .iter()
            .map(|entry| (view::tape_id(&entry.path), &entry.tape)),
        &request.query,
        HITS,
    ))
}

/// Keeps a note on an exchange, in its `annotations`.
pub fn tape_note(own: &Workspace, request: &TapeNoteRequest) -> Result<(), StoreError> {
    Tapes::in_workspace(own).annotate(&request.id, request.exchange, &request.note)
}

/// Writes the tape as asciicast v3 beside it; answers the file's path.
pub fn tape_export_cast(own: &Workspace, request: &TapeRequest) -> Result<String, StoreError> {
    Tapes::in_workspace(own)
        .export_cast(&request.id)
        .map(|path| path.display().to_string())
}
