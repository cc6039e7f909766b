//! Receipts of the developer's answers that Switchboard acts on (a
//! permission request, a started agent's start-up screen): one
//! `<records>/answers/<session>.json` per waiting session answered —
//! outside the workspace ([`Workspace::records_dir`]), readable by its
//! owner only — written by the reply before the workspace's files say
//! anything, and taken (read and removed) by the one waiter that acts on
//! it. The answer in the inbox's files, which anything working in the
//! workspace can write, is acted on only as its receipt says
//! ([`switchboard_model::receipt::vouched`]).

use std::path::PathBuf;

use switchboard_model::{
    Delivery, EntityId, IdKind,
    blocking::AwaitOutcome,
    receipt::{AnswerReceipt, vouched},
};

use crate::{StoreError, Workspace, json_file};

/// The receipts folder's name in the workspace's records.
pub const RECEIPTS_DIR: &str = "answers";

/// The receipt file of session `session_id`, in the folder made (private)
/// when `make`; `NotFound` for an id that is no session's.
fn path_of(workspace: &Workspace, session_id: &str, make: bool) -> Result<PathBuf, StoreError> {
    if session_id.parse::<EntityId>().map(|id| id.kind) != Ok(IdKind::Session) {
        return Err(StoreError::NotFound {
            what: "session",
            id: session_id.to_owned(),
        });
    }
    Ok(workspace
        .records_folder(RECEIPTS_DIR, make)?
        .join(format!("{session_id}.json")))
}

/// Keeps `receipt` for its session (replacing one kept before).
pub fn write(workspace: &Workspace, receipt: &AnswerReceipt) -> Result<(), StoreError> {
    let path = path_of(workspace, &receipt.session_id, true)?;
    json_file::write_private(&path, receipt, "answer receipt")
}

/// The receipt kept for session `session_id`, removed (it vouches for one
/// answer, once); `None` when there is none.
pub fn take(workspace: &Workspace, session_id: &str) -> Result<Option<AnswerReceipt>, StoreError> {
    let path = path_of(workspace, session_id, false)?;
    let Some(dir) = path.parent() else {
        return Ok(None);
    };
    let receipt = match json_file::read::<AnswerReceipt>(dir, &path, "answer receipt", session_id) {
        Ok(receipt) => receipt,
        Err(StoreError::NotFound { .. }) => return Ok(None),
        Err(error) => return Err(error),
    };
    match std::fs::remove_file(&path) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
            return Err(StoreError::io("could not remove", path)(error));
        }
        _ => {}
    }
    Ok((receipt.session_id == session_id).then_some(receipt))
}

/// `outcome` of session `session_id`, waiting on `asked` (the question as
/// its asker wrote it), as Switchboard acts on it: an answer only as its
/// receipt says, to the question as it was asked, none without one (see
/// [`switchboard_model::receipt::vouched`]); a receipt that cannot be read
/// vouches for nothing.
pub fn vouched_outcome(
    workspace: &Workspace,
    session_id: &str,
    asked: &Delivery,
    outcome: AwaitOutcome,
) -> Option<AwaitOutcome> {
    let receipt = match &outcome {
        AwaitOutcome::Responded { .. } => take(workspace, session_id).unwrap_or_else(|error| {
            tracing::warn!(%error, "an answer's receipt could not be read: it vouches for nothing");
            None
        }),
        _ => None,
    };
    vouched(outcome, asked, receipt.as_ref())
}
