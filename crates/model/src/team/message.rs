//! `teams/<team>/inboxes/<agent>.json`: each agent's messages.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{TeamConfig, TeamError, time};
use crate::Timestamp;

/// What a message is about.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageType {
    /// Free text.
    #[default]
    Plain,
    /// The sender has nothing to do.
    Idle,
    /// A task was given to the recipient.
    TaskAssignment,
    /// The leader asks the team to stop.
    ShutdownRequest,
    /// A member agrees to stop.
    ShutdownApproved,
}

impl MessageType {
    /// Every type, in the plugin's order.
    pub const ALL: [Self; 5] = [
        Self::Plain,
        Self::Idle,
        Self::TaskAssignment,
        Self::ShutdownRequest,
        Self::ShutdownApproved,
    ];

    /// The name the files use.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Plain => "plain",
            Self::Idle => "idle",
            Self::TaskAssignment => "task_assignment",
            Self::ShutdownRequest => "shutdown_request",
            Self::ShutdownApproved => "shutdown_approved",
        }
    }

    /// The type named `name`.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == name)
    }
}

impl fmt::Display for MessageType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One message in an inbox. Fields are in the plugin's order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// The sender's agent id.
    pub from: String,
    /// The recipient, or `broadcast` for a copy of a broadcast.
    pub to: String,
    /// The text.
    pub message: String,
    /// What it is about.
    #[serde(default, rename = "type")]
    pub kind: MessageType,
    /// When it was sent.
    #[serde(with = "time::required")]
    pub timestamp: Timestamp,
    /// Whether the recipient has read it.
    #[serde(default)]
    pub read: bool,
    /// A short summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// For a broadcast: every member, the sender included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipients: Option<Vec<String>>,
    /// Fields this version does not know, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Message {
    /// A new, unread message.
    pub fn new(from: &str, to: &str, text: &str, kind: MessageType, now: Timestamp) -> Self {
        Self {
            from: from.to_owned(),
            to: to.to_owned(),
            message: text.to_owned(),
            kind,
            timestamp: now,
            read: false,
            summary: None,
            recipients: None,
            extra: Map::new(),
        }
    }

    /// Checks what the plugin's schema requires beyond the JSON's shape.
    pub fn validate(&self) -> Result<(), TeamError> {
        if self.from.is_empty() {
            return Err(TeamError::Empty("Sender"));
        }
        if self.to.is_empty() {
            return Err(TeamError::Empty("Recipient"));
        }
        Ok(())
    }
}

/// A broadcast as the plugin sends it: one copy for every member but the
/// sender, each addressed `broadcast`, type plain, the same time, and
/// `recipients` naming every member (the sender too). Returns each
/// recipient with its copy.
pub fn broadcast(
    team: &TeamConfig,
    from: &str,
    text: &str,
    now: Timestamp,
) -> Vec<(String, Message)> {
    let everyone: Vec<String> = team
        .members
        .iter()
        .map(|member| member.agent_id.clone())
        .collect();
    everyone
        .iter()
        .filter(|agent| agent.as_str() != from)
        .map(|agent| {
            let mut copy = Message::new(from, "broadcast", text, MessageType::Plain, now);
            copy.recipients = Some(everyone.clone());
            (agent.clone(), copy)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use super::*;

    #[test]
    fn messages_keep_the_plugins_key_order_and_defaults() {
        let old = r#"{"from":"a","to":"b","message":"hi","timestamp":"2026-02-10T10:00:00.000Z"}"#;
        let message: Message = serde_json::from_str(old).unwrap();
        assert_eq!(message.kind, MessageType::Plain);
        assert!(!message.read);
        assert_eq!(
            serde_json::to_string(&message).unwrap(),
            r#"{"from":"a","to":"b","message":"hi","type":"plain","timestamp":"2026-02-10T10:00:00.000Z","read":false}"#
        );
        let offset = old.replace(".000Z", ".000+00:00");
        assert!(serde_json::from_str::<Message>(&offset).is_err());
    }

    #[test]
    fn a_broadcast_reaches_everyone_but_the_sender() {
        let team: TeamConfig = serde_json::from_value(serde_json::json!({
            "name": "t", "created": "2026-02-10T10:00:00.000Z", "leader": "a",
            "members": [
                {"agentId": "a", "agentName": "A", "agentType": "leader", "joinedAt": "2026-02-10T10:00:00.000Z"},
                {"agentId": "b", "agentName": "B", "agentType": "worker", "joinedAt": "2026-02-10T10:00:00.000Z"},
                {"agentId": "c", "agentName": "C", "agentType": "worker", "joinedAt": "2026-02-10T10:00:00.000Z"}
            ]
        }))
        .unwrap();
        let copies = broadcast(&team, "a", "stand-up", Timestamp::EPOCH);
        let to: Vec<&str> = copies.iter().map(|(agent, _)| agent.as_str()).collect();
        assert_eq!(to, ["b", "c"]);
        assert!(copies.iter().all(|(_, copy)| copy.to == "broadcast"
            && copy.recipients.as_deref() == Some(&["a".into(), "b".into(), "c".into()][..])));
    }
}
