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

/// A session's screen as a person sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionScreen {
    /// The session now.
    pub session: SessionInfo,
    /// The screen's rows, trailing blanks trimmed.
    pub rows: Vec<String>,
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
