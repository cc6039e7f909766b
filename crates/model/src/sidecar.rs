//! The sidecar protocol: newline-delimited JSON over the sidecar's stdio.
//!
//! Each request carries an `id` the response echoes, so requests may be
//! pipelined. Versioned by [`PROTOCOL_VERSION`]; a peer seeing another
//! version refuses to talk rather than guess.

use serde::{Deserialize, Serialize};

use crate::chat::{ChatMode, prompt::PromptPart, summary::SummaryChange};

/// The protocol version both ends must agree on.
pub const PROTOCOL_VERSION: u32 = 1;

/// A request from the app (or CLI) to the sidecar.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SidecarRequest {
    /// Chosen by the caller, echoed in the response.
    pub id: u64,
    /// What is asked.
    #[serde(flatten)]
    pub body: RequestBody,
}

/// One chat turn to run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The workspace folder (absolute).
    pub workspace: String,
    /// The mode of this turn.
    pub mode: ChatMode,
    /// The developer's message.
    pub message: String,
    /// Start a fresh chat (archiving the active one) instead of continuing.
    #[serde(default)]
    pub new_session: bool,
}

/// The kinds of request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RequestBody {
    /// Liveness and version check.
    Health,
    /// Run a chat turn; answered by a stream of chat events with this id.
    Chat(ChatRequest),
    /// Stop the chat turn that has id `chat` at once.
    Stop {
        /// The id of the chat request to stop.
        chat: u64,
    },
    /// Finish pending work and exit.
    Shutdown,
}

/// A response from the sidecar.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SidecarResponse {
    /// The id of the request answered, or 0 for a line that did not parse.
    pub id: u64,
    /// The answer.
    #[serde(flatten)]
    pub body: ResponseBody,
}

/// The kinds of response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResponseBody {
    /// Text streamed from the model.
    Delta {
        /// The new text.
        text: String,
    },
    /// A file the model wrote, within the allow-list.
    WriteApplied {
        /// Workspace-relative path.
        path: String,
        /// Bytes written.
        bytes: usize,
    },
    /// A write the allow-list or the file system refused.
    WriteRefused {
        /// The path the model asked for.
        path: String,
        /// Why.
        reason: String,
    },
    /// The turn is over.
    ChatDone {
        /// The chat session's id.
        session: String,
        /// The reply without its summary block.
        reply: String,
        /// Whether the developer stopped it.
        stopped: bool,
        /// What the summary gained or lost this turn.
        summary_change: SummaryChange,
        /// Every prompt part, for the context inspector.
        prompt: Vec<PromptPart>,
    },
    /// Answer to [`RequestBody::Health`].
    Health {
        /// The sidecar's protocol version.
        protocol: u32,
        /// The sidecar's package version.
        version: String,
    },
    /// Answer to [`RequestBody::Shutdown`]; the sidecar exits after it.
    ShuttingDown,
    /// The request could not be handled.
    Error {
        /// Why, in words.
        message: String,
    },
}
