//! The sidecar protocol: newline-delimited JSON over the sidecar's stdio.
//!
//! Each request carries an `id` the response echoes, so requests may be
//! pipelined. Versioned by [`PROTOCOL_VERSION`]; a peer seeing another
//! version refuses to talk rather than guess.

use serde::{Deserialize, Serialize};

use crate::{
    ErrorCode,
    chat::{ChatMode, prompt::PromptPart, summary::SummaryChange},
};

/// The code of an error line from a sidecar that sent none (an older one).
fn unknown_code() -> ErrorCode {
    ErrorCode::Internal
}

/// The protocol version both ends must agree on.
pub const PROTOCOL_VERSION: u32 = 2;

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
    /// Continue this chat (resuming it if it is archived) instead of the
    /// active one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// Propose writes for approval instead of applying them, whatever the
    /// settings say.
    #[serde(default)]
    pub dry_run: bool,
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
    /// The models the server offers.
    ListModels,
    /// Apply a write proposed in a dry-run turn (the allow-list is checked
    /// again).
    ApplyWrite {
        /// The proposal's id.
        proposal: String,
    },
    /// Drop a proposed write.
    DiscardWrite {
        /// The proposal's id.
        proposal: String,
    },
    /// Finish pending work and exit.
    Shutdown,
}

/// What became of a proposed write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum ProposalOutcome {
    /// Written.
    Applied {
        /// Bytes written.
        bytes: usize,
    },
    /// Refused when applied (e.g. the folder became a symlink).
    Refused {
        /// Why.
        reason: String,
    },
    /// The developer dropped it.
    Discarded,
    /// No longer held: the sidecar that held it ended before it was
    /// settled (found when the developer tried to, in a reopened chat).
    Expired,
}

/// A write the model asked for, as the sidecar's tools, its protocol and
/// the chat transcript all tell it: one shape, tagged `write`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "write", rename_all = "snake_case")]
pub enum WriteEvent {
    /// A file the model wrote, within the allow-list.
    Applied {
        /// Workspace-relative path.
        path: String,
        /// Bytes written.
        bytes: usize,
    },
    /// A write the allow-list or the file system refused.
    Refused {
        /// The path the model asked for.
        path: String,
        /// Why.
        reason: String,
    },
    /// A write held for the developer's approval (dry run).
    Proposed {
        /// The proposal's id, for [`RequestBody::ApplyWrite`].
        proposal: String,
        /// Workspace-relative path.
        path: String,
        /// The content's size.
        bytes: usize,
        /// The content (or its start, for large files).
        preview: String,
    },
}

impl WriteEvent {
    /// The path the write was for.
    pub fn path(&self) -> &str {
        match self {
            Self::Applied { path, .. }
            | Self::Refused { path, .. }
            | Self::Proposed { path, .. } => path,
        }
    }
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
    /// A write the model asked for: applied, refused or held for approval.
    Write(WriteEvent),
    /// A proposal was applied, refused or dropped.
    ProposalSettled {
        /// The proposal's id.
        proposal: String,
        /// The path it was for.
        path: String,
        /// What happened.
        #[serde(flatten)]
        outcome: ProposalOutcome,
    },
    /// Answer to [`RequestBody::ListModels`].
    Models {
        /// Model ids, as the server names them.
        models: Vec<String>,
        /// The backend the chat uses now, and why (the one set, or the
        /// first that works).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        backend: Option<crate::settings::ResolvedBackend>,
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
        /// What kind of failure, for the app and the CLI to act on.
        #[serde(default = "unknown_code")]
        code: ErrorCode,
        /// Why, in words.
        message: String,
    },
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn lines_round_trip_in_their_wire_shape() {
        let settled = SidecarResponse {
            id: 7,
            body: ResponseBody::ProposalSettled {
                proposal: "p3-1".into(),
                path: ".prompts/plan/a.md".into(),
                outcome: ProposalOutcome::Refused {
                    reason: "symlink".into(),
                },
            },
        };
        let line = serde_json::to_string(&settled).unwrap();
        assert_eq!(
            line,
            r#"{"id":7,"type":"proposal_settled","proposal":"p3-1","path":".prompts/plan/a.md","outcome":"refused","reason":"symlink"}"#
        );
        assert_eq!(
            serde_json::from_str::<SidecarResponse>(&line).unwrap(),
            settled
        );

        let wrote = SidecarResponse {
            id: 3,
            body: ResponseBody::Write(WriteEvent::Applied {
                path: "src/a.rs".into(),
                bytes: 12,
            }),
        };
        let line = serde_json::to_string(&wrote).unwrap();
        assert_eq!(
            line,
            r#"{"id":3,"type":"write","write":"applied","path":"src/a.rs","bytes":12}"#
        );
        assert_eq!(
            serde_json::from_str::<SidecarResponse>(&line).unwrap(),
            wrote
        );

        let old_client: SidecarRequest = serde_json::from_str(
            r#"{"id":1,"type":"chat","workspace":"/w","mode":"Planning","message":"hi"}"#,
        )
        .unwrap();
        let RequestBody::Chat(chat) = old_client.body else {
            panic!("not a chat request")
        };
        assert_eq!(
            (chat.session, chat.dry_run, chat.new_session),
            (None, false, false)
        );
    }
}
