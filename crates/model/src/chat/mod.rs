//! Chat with a model about the workspace, in Naide's data model: sessions
//! of messages (`.naide/chatsessions/`), the structured conversation summary
//! (mid-term memory), and the seven-step prompt assembly under a token
//! budget.

pub mod prompt;
pub mod summary;
pub mod transcript;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{
    Timestamp,
    sidecar::{ProposalOutcome, WriteEvent},
};

pub use self::summary::ConversationSummary;

/// The chat's mode: what the model is there to do, and what it may write.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ChatMode {
    /// Specs and plans: writes `.prompts/plan`, `.prompts/features`, learnings.
    /// (Naide's sessions may have no mode; they are read as Planning.)
    #[default]
    Planning,
    /// Code as well: adds the configured source globs.
    Building,
    /// Reads and searches; writes nothing.
    Analyzing,
}

impl ChatMode {
    /// The spelling on the command line and in prompt file names.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Planning => "planning",
            Self::Building => "building",
            Self::Analyzing => "analyzing",
        }
    }
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The developer.
    User,
    /// The model.
    Assistant,
    /// Output of a command run for the chat.
    Command,
}

/// One message of a chat session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// Unique within the session.
    pub id: String,
    /// Who wrote it.
    pub role: Role,
    /// The text.
    pub content: String,
    /// When it was written (ISO 8601).
    pub timestamp: Timestamp,
    /// The writes the model asked for in the turn this answer ended, in
    /// order (an answer's only; absent from Naide's files).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub writes: Vec<ChatWrite>,
    /// The developer stopped this answer: it is what had arrived (an
    /// answer's only; absent from Naide's files).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stopped: bool,
    /// Fields written by other tools that this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A write a turn asked for, kept with its answer so the chat shows it
/// when it is opened again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatWrite {
    /// What happened to it then: applied, refused or held for approval.
    pub event: WriteEvent,
    /// A held write's fate, once the developer settled it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settled: Option<ProposalOutcome>,
}

impl ChatSession {
    /// Records `outcome` for the held write `proposal` shown in this chat;
    /// the path it was for, when it was found (and not settled before).
    pub fn settle(&mut self, proposal: &str, outcome: &ProposalOutcome) -> Option<String> {
        let held = self
            .messages
            .iter_mut()
            .flat_map(|message| message.writes.iter_mut())
            .find(|write| {
                write.settled.is_none()
                    && matches!(&write.event, WriteEvent::Proposed { proposal: id, .. } if id == proposal)
            });
        let write = held?;
        write.settled = Some(outcome.clone());
        Some(write.event.path().to_owned())
    }
}

/// A chat session file (`chat-active.json` or an archive).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatSession {
    /// The session id.
    pub id: String,
    /// The workspace's name.
    #[serde(default)]
    pub project_name: String,
    /// The mode last used.
    #[serde(default)]
    pub mode: ChatMode,
    /// Every message, oldest first.
    #[serde(default)]
    pub messages: Vec<ChatMessage>,
    /// The mid-term memory, once there is one.
    #[serde(default)]
    pub summary: Option<ConversationSummary>,
    /// When the session began.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
    /// Fields written by other tools that this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Longest title shown for a chat in the history list, in characters.
pub const TITLE_CHARS: usize = 80;

impl ChatSession {
    /// The chat's title: its first message from the developer, shortened.
    pub fn title(&self) -> String {
        let first = self
            .messages
            .iter()
            .find(|message| message.role == Role::User)
            .map(|message| message.content.trim())
            .unwrap_or("");
        let line = first.lines().next().unwrap_or("");
        if line.is_empty() {
            return "Empty chat".to_owned();
        }
        let mut title: String = line.chars().take(TITLE_CHARS).collect();
        if line.chars().count() > TITLE_CHARS || first.lines().nth(1).is_some() {
            title.push('…');
        }
        title
    }

    /// Its entry in the history list.
    pub fn info(&self, file: String, active: bool) -> ChatSessionInfo {
        ChatSessionInfo {
            id: self.id.clone(),
            file,
            active,
            title: self.title(),
            mode: self.mode,
            messages: self.messages.len(),
            updated_at: self.updated_at,
        }
    }
}

/// One chat in the history list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatSessionInfo {
    /// The session id.
    pub id: String,
    /// Its file name in `.naide/chatsessions/`.
    pub file: String,
    /// Whether it is the active chat.
    pub active: bool,
    /// Its first message, shortened.
    pub title: String,
    /// The mode last used.
    #[serde(default)]
    pub mode: ChatMode,
    /// How many messages it has.
    pub messages: usize,
    /// When it last changed.
    pub updated_at: Timestamp,
}

/// The history list: every chat that is not in the trash.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ChatHistory {
    /// The active chat first, then the archives, newest first.
    pub sessions: Vec<ChatSessionInfo>,
    /// Files that could not be read, in words; they are left untouched.
    pub warnings: Vec<String>,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn naide_sessions_round_trip() {
        let session = serde_json::json!({
            "id": "chat-1738850400000",
            "projectName": "acme",
            "mode": "Planning",
            "messages": [
                {"id": "m1", "role": "user", "content": "Plan auth", "timestamp": "2026-02-06T14:00:00.000Z"},
                {"id": "m2", "role": "assistant", "content": "Sure", "timestamp": "2026-02-06T14:00:05.000Z"}
            ],
            "summary": {
                "decisions": ["Use OAuth"], "constraints": [], "acceptedDefaults": [],
                "rejectedOptions": ["Basic auth"], "openQuestions": ["Which IdP?"],
                "updatedAt": "2026-02-06T14:00:05.000Z"
            },
            "createdAt": "2026-02-06T14:00:00.000Z",
            "updatedAt": "2026-02-06T14:00:05.000Z",
            "favorite": true
        });
        let parsed: ChatSession = serde_json::from_value(session.clone()).unwrap();
        assert_eq!(parsed.mode, ChatMode::Planning);
        assert_eq!(parsed.messages[1].role, Role::Assistant);
        assert_eq!(
            serde_json::to_value(&parsed).unwrap(),
            session,
            "unknown fields survive"
        );
    }
}
