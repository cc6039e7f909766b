//! The error shape that crosses the IPC boundary: a stable code plus a message.
//!
//! The UI decides what to do from `code` and shows `message`; nothing matches
//! on message text.

use serde::{Deserialize, Serialize};

use crate::feedback::FieldError;

/// A stable, machine-readable error class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    /// The request itself is wrong (bad argument, bad schema).
    InvalidRequest,
    /// The named record does not exist.
    NotFound,
    /// A feedback answer came for a delivery that already has one.
    AlreadyResponded,
    /// A file in the workspace could not be parsed.
    CorruptFile,
    /// Reading or writing the workspace failed.
    Io,
    /// A symlink in the workspace leads outside it; the file was not read.
    OutsideWorkspace,
    /// The model server failed or misbehaved (unreachable, refused the key,
    /// no such model, stalled, over a limit).
    Model,
    /// The sidecar or the session host is not running or did not answer.
    Unavailable,
    /// A limit was reached (e.g. the number of live program sessions).
    LimitReached,
    /// The caller cancelled the call (an MCP client's `notifications/
    /// cancelled`); what it started was stopped or withdrawn.
    Cancelled,
    /// Another process holds what this needs (a tape's lock) for longer
    /// than it waits; trying again later may work.
    Busy,
    /// The caller may not do this: its token was not granted the scope
    /// the call needs.
    Forbidden,
    /// A browser is not paired with `switchboard serve`, or its pairing
    /// no longer holds (revoked, made by an older version, or its page
    /// lost the key it was given): it pairs again with `switchboard pair`.
    NotPaired,
    /// The change would conflict with other work (a merge with
    /// conflicting edits); nothing was changed.
    Conflict,
    /// Anything else; a bug.
    Internal,
}

/// An error as the UI receives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorPayload {
    /// What kind of failure.
    pub code: ErrorCode,
    /// A sentence for the developer.
    pub message: String,
    /// Field-level problems of a rejected form answer, shown beside the
    /// fields; empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldError>,
}

impl std::fmt::Display for ErrorPayload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ErrorPayload {}

impl ErrorPayload {
    /// An error with no field details.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            fields: Vec::new(),
        }
    }
}
