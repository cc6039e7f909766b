//! What the Terminals view and the shell say to each other about program
//! sessions.

use serde::{Deserialize, Serialize};

use super::SessionInfo;

/// Names a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionRequest {
    /// Its id.
    pub session: String,
}

/// A session's output since a cursor (the view's own emulator draws it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionOutputRequest {
    /// Its id.
    pub session: String,
    /// The cursor the last read returned (none: all that is kept).
    #[serde(default)]
    pub since: Option<u64>,
    /// Follow: when nothing came since the cursor, wait up to this long
    /// (ms) for output or the end before answering.
    #[serde(default)]
    pub wait_ms: Option<u64>,
    /// At most this many of the newest bytes (older ones are counted as
    /// missed): a screen far behind a flood catches up with its end.
    #[serde(default)]
    pub tail: Option<u64>,
}

/// What a session printed since a cursor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionOutput {
    /// The session now.
    pub session: SessionInfo,
    /// The output (secrets masked).
    pub text: String,
    /// Where the next read starts.
    pub cursor: u64,
    /// Bytes that fell out of the buffer before this read: the view starts
    /// its screen over.
    pub missed: u64,
}

/// What the developer types.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionTypeRequest {
    /// The session's id.
    pub session: String,
    /// Text to type.
    #[serde(default)]
    pub text: Option<String>,
    /// Press Enter after the text.
    #[serde(default)]
    pub line: bool,
    /// A named key instead ([`super::Key`]'s names).
    #[serde(default)]
    pub key: Option<String>,
    /// A password: masked wherever it would show.
    #[serde(default)]
    pub secret: bool,
}

/// Take a session over, or hand it back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionControlRequest {
    /// The session's id.
    pub session: String,
    /// `true`: the developer types, agents wait; `false`: back to agents.
    pub take: bool,
}
