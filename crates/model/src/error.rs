//! The error shape that crosses the IPC boundary: a stable code plus a message.
//!
//! The UI decides what to do from `code` and shows `message`; nothing matches
//! on message text.

use serde::{Deserialize, Serialize};

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
}
