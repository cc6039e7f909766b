//! Claude Code's agent teams, read only: `teams/<team>/config.json`,
//! `teams/<team>/inboxes/<name>.json` and `tasks/<team>/<id>.json` under
//! Claude's config folder (`~/.claude`, or `CLAUDE_CONFIG_DIR`), mapped onto
//! the board's types so the Team view shows them beside opencode-teams'.
//!
//! Claude Code's own agents are the only writers of these files (their
//! lock protocol is not published), so Switchboard never changes them.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Member, Message, MessageType, Priority, Task, TaskStatus, TeamConfig};
use crate::Timestamp;

/// Which system a team's files belong to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TeamSource {
    /// opencode-teams, in the workspace; read and written.
    #[default]
    OpencodeTeams,
    /// Claude Code's agent teams, in Claude's config folder; read only.
    ClaudeCode,
}

impl TeamSource {
    /// Whether Switchboard may change this source's files.
    pub fn writable(self) -> bool {
        self == Self::OpencodeTeams
    }

    /// The name the window shows.
    pub fn label(self) -> &'static str {
        match self {
            Self::OpencodeTeams => "opencode-teams",
            Self::ClaudeCode => "Claude Code",
        }
    }
}

/// A team as the picker lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamEntry {
    /// The team's name (its folder's name).
    pub name: String,
    /// Whose files it is.
    pub source: TeamSource,
}

/// One member of a Claude Code team.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaudeMember {
    /// `name@team`.
    #[serde(default)]
    pub agent_id: String,
    /// The member's name; its inbox is `inboxes/<name>.json`.
    pub name: String,
    /// Its kind, e.g. `team-lead`, `general-purpose`.
    #[serde(default)]
    pub agent_type: String,
    /// When it joined, in Unix milliseconds.
    #[serde(default)]
    pub joined_at: Option<i64>,
    /// The folder it works in.
    #[serde(default)]
    pub cwd: Option<String>,
    /// Everything else (model, prompt, color, pane, backend).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A Claude Code team's `config.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaudeConfig {
    /// The team's name.
    pub name: String,
    /// What it is for.
    #[serde(default)]
    pub description: Option<String>,
    /// When it was created, in Unix milliseconds.
    pub created_at: i64,
    /// The lead's `agentId` (`name@team`).
    pub lead_agent_id: String,
    /// Its members, the lead included.
    #[serde(default)]
    pub members: Vec<ClaudeMember>,
    /// Everything else (the lead's session id, …).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ClaudeConfig {
    /// Whether a member works in `folder` or below it; a team whose members
    /// name no folder belongs everywhere.
    pub fn works_in(&self, folder: &str) -> bool {
        let folders: Vec<&str> = self
            .members
            .iter()
            .filter_map(|member| member.cwd.as_deref())
            .collect();
        let folder = folder.trim_end_matches('/');
        folders.is_empty()
            || folders.iter().any(|cwd| {
                cwd.trim_end_matches('/') == folder
                    || cwd
                        .strip_prefix(folder)
                        .is_some_and(|rest| rest.starts_with('/'))
            })
    }

    /// The board's view of this team: members by name (their inboxes'
    /// names), the lead found by its `agentId`.
    pub fn to_team(&self) -> Result<TeamConfig, String> {
        let created = millis(self.created_at, "createdAt")?;
        let mut members = Vec::with_capacity(self.members.len());
        for member in &self.members {
            if member.name.is_empty() {
                return Err("a member has an empty name".to_owned());
            }
            let mut extra = member.extra.clone();
            if let Some(cwd) = &member.cwd {
                extra.insert("cwd".to_owned(), Value::String(cwd.clone()));
            }
            members.push(Member {
                agent_id: member.name.clone(),
                agent_name: member.name.clone(),
                agent_type: member.agent_type.clone(),
                joined_at: match member.joined_at {
                    Some(at) => millis(at, "joinedAt")?,
                    None => created,
                },
                extra,
            });
        }
        let leader = self
            .members
            .iter()
            .find(|member| member.agent_id == self.lead_agent_id)
            .map(|member| member.name.clone())
            .unwrap_or_else(|| {
                let name = self.lead_agent_id.split('@').next().unwrap_or_default();
                name.to_owned()
            });
        let mut extra = Map::new();
        if let Some(description) = &self.description {
            extra.insert("description".to_owned(), Value::String(description.clone()));
        }
        Ok(TeamConfig {
            name: self.name.clone(),
            created,
            leader,
            members,
            shutdown_approvals: None,
            dispatch_rules: Vec::new(),
            dispatch_log: Vec::new(),
            extra,
        })
    }
}

fn millis(value: i64, field: &str) -> Result<Timestamp, String> {
    Timestamp::from_unix_millis(value).ok_or_else(|| format!("{field} {value} is not a time"))
}

/// One of a Claude Code team's task files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaudeTask {
    /// A number as text; the file is `<id>.json`.
    pub id: String,
    /// What to do.
    pub subject: String,
    /// Details.
    #[serde(default)]
    pub description: Option<String>,
    /// What the owner shows while working on it ("Running tests").
    #[serde(default)]
    pub active_form: Option<String>,
    /// `pending`, `in_progress` or `completed`.
    pub status: String,
    /// Who works on it.
    #[serde(default)]
    pub owner: Option<String>,
    /// Tasks waiting for this one.
    #[serde(default)]
    pub blocks: Vec<String>,
    /// Tasks that must be completed first (completed ones stay listed).
    #[serde(default)]
    pub blocked_by: Vec<String>,
    /// Everything else (metadata).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ClaudeTask {
    /// The board's view of this task. Claude Code's tasks carry no times,
    /// so `written` (the file's modification time) stands for creation.
    pub fn to_task(&self, written: Timestamp) -> Result<Task, String> {
        let status = TaskStatus::parse(&self.status)
            .ok_or_else(|| format!("status {:?} is not one Claude Code writes", self.status))?;
        if self.id.is_empty() {
            return Err("the task id is empty".to_owned());
        }
        let mut extra = self.extra.clone();
        if let Some(active) = &self.active_form {
            extra.insert("activeForm".to_owned(), Value::String(active.clone()));
        }
        Ok(Task {
            id: self.id.clone(),
            title: self.subject.clone(),
            description: self.description.clone().filter(|text| !text.is_empty()),
            priority: Priority::Normal,
            status,
            created_at: written,
            updated_at: None,
            owner: self.owner.clone().filter(|owner| !owner.is_empty()),
            claimed_at: None,
            completed_at: None,
            dependencies: self.blocked_by.clone(),
            blocks: self.blocks.clone(),
            warning: None,
            extra,
        })
    }
}

/// One message in a Claude Code inbox.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaudeMessage {
    /// The sender's name.
    pub from: String,
    /// The text; protocol messages (idle, shutdown, assignment) are JSON
    /// objects with a `type`.
    pub text: String,
    /// When it was sent (ISO 8601).
    pub timestamp: String,
    /// Whether the recipient has read it.
    #[serde(default)]
    pub read: bool,
    /// A short summary.
    #[serde(default)]
    pub summary: Option<String>,
    /// Everything else (color, …).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ClaudeMessage {
    /// The board's view of this message, addressed to `to`. A protocol
    /// message gets its type and its most telling field as text.
    pub fn to_message(&self, to: &str) -> Result<Message, String> {
        let timestamp = Timestamp::parse(&self.timestamp)
            .map_err(|error| format!("{:?} is not an ISO 8601 time: {error}", self.timestamp))?;
        let (kind, text) =
            protocol(&self.text).unwrap_or_else(|| (MessageType::Plain, self.text.clone()));
        let mut message = Message::new(&self.from, to, &text, kind, timestamp);
        message.read = self.read;
        message.summary = self.summary.clone();
        Ok(message)
    }
}

/// The type and readable text of a protocol message, if `text` is one.
fn protocol(text: &str) -> Option<(MessageType, String)> {
    let Value::Object(fields) = serde_json::from_str::<Value>(text).ok()? else {
        return None;
    };
    let kind = match fields.get("type")?.as_str()? {
        "idle_notification" => MessageType::Idle,
        "task_assignment" => MessageType::TaskAssignment,
        "shutdown_request" => MessageType::ShutdownRequest,
        "shutdown_approved" => MessageType::ShutdownApproved,
        "shutdown_response" if fields.get("approve") == Some(&Value::Bool(true)) => {
            MessageType::ShutdownApproved
        }
        _ => return None,
    };
    let said = ["content", "reason", "subject", "idleReason"]
        .into_iter()
        .find_map(|key| fields.get(key).and_then(Value::as_str))
        .map(str::to_owned);
    Some((
        kind,
        said.unwrap_or_else(|| kind.as_str().replace('_', " ")),
    ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use super::*;

    fn config() -> ClaudeConfig {
        serde_json::from_value(serde_json::json!({
            "name": "refactor", "description": "Split the parser",
            "createdAt": 1_771_000_000_000_i64, "leadAgentId": "team-lead@refactor",
            "leadSessionId": "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee",
            "members": [
                {"agentId": "team-lead@refactor", "name": "team-lead", "agentType": "team-lead",
                 "joinedAt": 1_771_000_000_000_i64, "cwd": "/work/app", "tmuxPaneId": ""},
                {"agentId": "tester@refactor", "name": "tester", "agentType": "general-purpose",
                 "model": "sonnet", "joinedAt": 1_771_000_060_000_i64, "cwd": "/work/app/crates"}
            ]
        }))
        .unwrap()
    }

    #[test]
    fn a_claude_team_becomes_a_board_team_led_by_its_lead() {
        let team = config().to_team().unwrap();
        assert_eq!(team.leader, "team-lead");
        assert_eq!(team.role_of("team-lead"), Some("leader"));
        assert_eq!(team.role_of("tester"), Some("general-purpose"));
        assert_eq!(team.created.unix_millis(), 1_771_000_000_000);
        assert_eq!(team.members[1].extra["model"], "sonnet");
        assert_eq!(team.extra["description"], "Split the parser");
    }

    #[test]
    fn a_team_belongs_to_the_folders_its_members_work_in() {
        let config = config();
        assert!(config.works_in("/work/app"));
        assert!(config.works_in("/work/app/"));
        assert!(config.works_in("/work/app/crates"));
        assert!(!config.works_in("/work/ap"));
        assert!(!config.works_in("/work/other"));
        let nowhere = ClaudeConfig {
            members: Vec::new(),
            ..config
        };
        assert!(nowhere.works_in("/anywhere"));
    }

    #[test]
    fn tasks_keep_their_blockers_and_refuse_unknown_statuses() {
        let task: ClaudeTask = serde_json::from_value(serde_json::json!({
            "id": "2", "subject": "Write tests", "description": "", "activeForm": "Writing tests",
            "status": "in_progress", "owner": "tester", "blocks": ["3"], "blockedBy": ["1"]
        }))
        .unwrap();
        let mapped = task.to_task(Timestamp::EPOCH).unwrap();
        assert_eq!(mapped.status, TaskStatus::InProgress);
        assert_eq!(mapped.dependencies, ["1"]);
        assert_eq!(mapped.blocks, ["3"]);
        assert_eq!(mapped.description, None);
        assert_eq!(mapped.extra["activeForm"], "Writing tests");
        let done = ClaudeTask {
            status: "done".into(),
            ..task
        };
        assert_eq!(
            done.to_task(Timestamp::EPOCH).unwrap_err(),
            "status \"done\" is not one Claude Code writes"
        );
    }

    #[test]
    fn protocol_messages_get_their_type() {
        let idle = ClaudeMessage {
            from: "tester".into(),
            text: r#"{"type":"idle_notification","from":"tester","idleReason":"available"}"#.into(),
            timestamp: "2026-02-10T10:00:00.000Z".into(),
            read: false,
            summary: None,
            extra: Map::new(),
        };
        let message = idle.to_message("team-lead").unwrap();
        assert_eq!(message.kind, MessageType::Idle);
        assert_eq!(message.message, "available");
        assert_eq!(message.to, "team-lead");
        let plain = ClaudeMessage {
            text: "{not json".into(),
            read: true,
            ..idle.clone()
        };
        let message = plain.to_message("team-lead").unwrap();
        assert_eq!(
            (message.kind, message.message.as_str(), message.read),
            (MessageType::Plain, "{not json", true)
        );
        let bad_time = ClaudeMessage {
            timestamp: "yesterday".into(),
            ..idle
        };
        assert!(bad_time.to_message("x").is_err());
    }
}
