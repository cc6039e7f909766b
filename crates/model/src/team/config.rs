//! `teams/<team>/config.json`: the team, its leader and members.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{TeamError, time};
use crate::Timestamp;

/// One member of a team.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Member {
    /// The agent's id (its inbox is `inboxes/<agentId>.json`).
    pub agent_id: String,
    /// Its display name.
    pub agent_name: String,
    /// Its kind, e.g. `leader`, `worker`.
    pub agent_type: String,
    /// When it joined.
    #[serde(with = "time::required")]
    pub joined_at: Timestamp,
    /// Fields this version does not know, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A team's `config.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TeamConfig {
    /// The team's name (its folder's name).
    pub name: String,
    /// When it was created.
    #[serde(with = "time::required")]
    pub created: Timestamp,
    /// The leader's agent id.
    pub leader: String,
    /// Its members, the leader included.
    pub members: Vec<Member>,
    /// Agents that approved a shutdown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shutdown_approvals: Option<Vec<String>>,
    /// The plugin's dispatch rules, kept as written.
    #[serde(default)]
    pub dispatch_rules: Vec<Value>,
    /// The plugin's dispatch log, kept as written.
    #[serde(default)]
    pub dispatch_log: Vec<Value>,
    /// Fields this version does not model (`topology`, `roles`,
    /// `description`, `workflowConfig`, …), kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The leader the plugin gives a team created without one: `leader`,
/// named "Leader".
pub const DEFAULT_LEADER: &str = "leader";

impl TeamConfig {
    /// A new team `name` led by `leader` (its id; its display name
    /// `leader_name`), created at `now`, as the plugin's `spawn-team`
    /// writes it: the leader its one member, no dispatch rules yet. The
    /// name is checked as the plugin checks it.
    pub fn new(
        name: &str,
        leader: &str,
        leader_name: &str,
        now: Timestamp,
    ) -> Result<Self, TeamError> {
        check_team_name(name)?;
        let config = Self {
            name: name.to_owned(),
            created: now,
            leader: leader.to_owned(),
            members: vec![Member {
                agent_id: leader.to_owned(),
                agent_name: leader_name.to_owned(),
                agent_type: "leader".to_owned(),
                joined_at: now,
                extra: Map::new(),
            }],
            shutdown_approvals: None,
            dispatch_rules: Vec::new(),
            dispatch_log: Vec::new(),
            extra: Map::new(),
        };
        config.validate()?;
        Ok(config)
    }

    /// Checks what the plugin's schema requires beyond the JSON's shape.
    pub fn validate(&self) -> Result<(), TeamError> {
        check_team_name(&self.name)?;
        if self.leader.is_empty() {
            return Err(TeamError::Empty("leader"));
        }
        if self.members.is_empty() {
            return Err(TeamError::Empty("members"));
        }
        for member in &self.members {
            for (field, value) in [
                ("agentId", &member.agent_id),
                ("agentName", &member.agent_name),
                ("agentType", &member.agent_type),
            ] {
                if value.is_empty() {
                    return Err(TeamError::Empty(field));
                }
            }
        }
        Ok(())
    }

    /// Whether `agent` is a member.
    pub fn has_member(&self, agent: &str) -> bool {
        self.members.iter().any(|member| member.agent_id == agent)
    }

    /// The role the team gives `agent`: `leader` for the leader, else the
    /// member's `agentType`.
    pub fn role_of(&self, agent: &str) -> Option<&str> {
        if agent == self.leader {
            return Some("leader");
        }
        self.members
            .iter()
            .find(|member| member.agent_id == agent)
            .map(|member| member.agent_type.as_str())
    }
}

/// Checks a team name against the plugin's `^[A-Za-z0-9_-]+$`.
pub fn check_team_name(name: &str) -> Result<(), TeamError> {
    let valid = !name.is_empty()
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_');
    if valid {
        Ok(())
    } else {
        Err(TeamError::InvalidTeamName(name.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use super::*;

    #[test]
    fn a_plugin_config_round_trips_with_its_dispatch_data() {
        let written = serde_json::json!({
            "name": "alpha", "created": "2026-02-10T10:00:00.000Z", "leader": "lead",
            "members": [{"agentId": "lead", "agentName": "Lead", "agentType": "leader",
                         "joinedAt": "2026-02-10T10:00:00.000Z"}],
            "shutdownApprovals": [], "topology": "flat",
            "dispatchRules": [{"id": "r1", "eventType": "task.created",
                               "action": {"type": "log"}, "priority": 0, "enabled": true}],
            "dispatchLog": []
        });
        let config: TeamConfig = serde_json::from_value(written.clone()).unwrap();
        config.validate().unwrap();
        assert_eq!(serde_json::to_value(&config).unwrap(), written);
        assert_eq!(config.role_of("lead"), Some("leader"));
    }

    #[test]
    fn a_new_team_is_written_as_the_plugin_writes_one() {
        let now = Timestamp::parse("2026-02-10T10:00:00.000Z").unwrap();
        let config = TeamConfig::new("web", DEFAULT_LEADER, "Leader", now).unwrap();
        assert_eq!(
            serde_json::to_value(&config).unwrap(),
            serde_json::json!({
                "name": "web", "created": "2026-02-10T10:00:00.000Z", "leader": "leader",
                "members": [{"agentId": "leader", "agentName": "Leader", "agentType": "leader",
                             "joinedAt": "2026-02-10T10:00:00.000Z"}],
                "dispatchRules": [], "dispatchLog": []
            })
        );
        assert_eq!(
            TeamConfig::new("a b", "leader", "Leader", now)
                .unwrap_err()
                .to_string(),
            "Invalid team name \"a b\": Team name must be alphanumeric with hyphens/underscores"
        );
        assert!(TeamConfig::new("web", "", "Leader", now).is_err());
    }

    #[test]
    fn team_names_follow_the_plugin() {
        assert!(check_team_name("alpha_2-b").is_ok());
        assert_eq!(
            check_team_name("../x").unwrap_err().to_string(),
            "Invalid team name \"../x\": Team name must be alphanumeric with hyphens/underscores"
        );
    }
}
