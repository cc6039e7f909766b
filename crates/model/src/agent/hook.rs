//! What an agent's hook sends on stdin and what it expects back: Claude
//! Code's and Codex's command hooks (JSON in, a decision as JSON out), and
//! the answer shape of Claude Code's `--permission-prompt-tool`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use thiserror::Error;

use super::{AgentKind, AgentState};

/// One hook call, as read from stdin.
#[derive(Debug, Clone, PartialEq)]
pub struct HookInput {
    /// Which agent sent it.
    pub agent: AgentKind,
    /// The agent's session.
    pub session_id: String,
    /// The folder the agent works in.
    pub cwd: String,
    /// The agent's transcript (JSONL), when it names one.
    pub transcript_path: Option<String>,
    /// What happened.
    pub event: HookEvent,
    /// The started agent it comes from (`switchboard agent start`'s
    /// name): set by the hook's caller from the environment the agent was
    /// started with, never read from what the agent writes.
    pub launch: Option<String>,
}

/// The events Switchboard acts on.
#[derive(Debug, Clone, PartialEq)]
pub enum HookEvent {
    /// The agent asks permission for a tool call (`PermissionRequest`).
    PermissionRequest {
        /// The tool: `Bash`, `Edit`, `Write`, `mcp__server__tool`, …
        tool_name: String,
        /// Its arguments.
        tool_input: Value,
        /// The rules the agent itself offers to keep for "don't ask
        /// again" (Claude Code's `permission_suggestions`, its `addRules`
        /// that allow); `None` when it offers no suggestions at all.
        suggested: Option<Vec<Rule>>,
    },
    /// The agent tells its user something (`Notification`).
    Notification {
        /// Its words ("Claude needs your permission to use Bash").
        message: String,
        /// Its kind when given (`permission_prompt`, `idle_prompt`, …).
        kind: Option<String>,
    },
    /// A turn ended (`Stop`).
    Stop,
    /// A session began or resumed (`SessionStart`).
    SessionStart,
    /// A session ended (`SessionEnd`).
    SessionEnd,
    /// The agent is at work: a prompt came in, a tool ran
    /// (`UserPromptSubmit`, `PreToolUse`, `PostToolUse`).
    Working,
    /// Any other event, by name.
    Other(String),
}

/// Why a hook's input cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum HookError {
    /// Not a JSON object.
    #[error("the hook's input is not a JSON object: {0}")]
    NotJson(String),
    /// A field every hook input has is missing.
    #[error("the hook's input has no \"{0}\"")]
    Missing(&'static str),
}

impl HookInput {
    /// Reads a hook's stdin. `agent` is who installed the hook said it
    /// was for; without it, Codex is told apart by the `turn_id` only its
    /// hooks send.
    pub fn parse(bytes: &[u8], agent: Option<AgentKind>) -> Result<Self, HookError> {
        let value: Value =
            serde_json::from_slice(bytes).map_err(|error| HookError::NotJson(error.to_string()))?;
        let object = value
            .as_object()
            .ok_or_else(|| HookError::NotJson("not an object".to_owned()))?;
        let text = |key: &str| object.get(key).and_then(Value::as_str).map(str::to_owned);
        let name = text("hook_event_name").ok_or(HookError::Missing("hook_event_name"))?;
        let session_id = text("session_id").ok_or(HookError::Missing("session_id"))?;
        let cwd = text("cwd").ok_or(HookError::Missing("cwd"))?;
        let agent = agent.unwrap_or(if object.contains_key("turn_id") {
            AgentKind::Codex
        } else {
            AgentKind::ClaudeCode
        });
        let event = match name.as_str() {
            "PermissionRequest" => HookEvent::PermissionRequest {
                tool_name: text("tool_name").ok_or(HookError::Missing("tool_name"))?,
                tool_input: object
                    .get("tool_input")
                    .cloned()
                    .unwrap_or(Value::Object(Map::new())),
                suggested: object.get("permission_suggestions").map(suggested_rules),
            },
            "Notification" => HookEvent::Notification {
                message: text("message").unwrap_or_default(),
                kind: text("notification_type"),
            },
            "Stop" => HookEvent::Stop,
            "SessionStart" => HookEvent::SessionStart,
            "SessionEnd" => HookEvent::SessionEnd,
            "UserPromptSubmit" | "PreToolUse" | "PostToolUse" => HookEvent::Working,
            _ => HookEvent::Other(name),
        };
        Ok(Self {
            agent,
            session_id,
            cwd,
            transcript_path: text("transcript_path").filter(|path| !path.is_empty()),
            event,
            launch: None,
        })
    }
}

impl HookEvent {
    /// The state the agent is in once this happened; `None` when the event
    /// says nothing about it.
    pub fn state(&self) -> Option<AgentState> {
        match self {
            Self::PermissionRequest { .. } => Some(AgentState::NeedsPermission),
            Self::Notification { message, kind } => notification_state(message, kind.as_deref()),
            Self::Stop => Some(AgentState::TurnFinished),
            Self::SessionStart | Self::Working => Some(AgentState::Working),
            Self::SessionEnd => Some(AgentState::Gone),
            Self::Other(_) => None,
        }
    }
}

impl HookEvent {
    /// The state an agent that was in `current` is in once this happened
    /// ([`HookEvent::state`]), but for Claude Code's idle notification
    /// after a finished turn ("Claude is waiting for your input", a minute
    /// after it stopped, and again later): that asks nothing, the turn is
    /// still finished — not waiting on the developer, counted or announced
    /// as a question.
    pub fn state_after(&self, current: AgentState) -> Option<AgentState> {
        let next = self.state()?;
        let idle_after_turn = matches!(self, Self::Notification { .. })
            && next == AgentState::WaitingForInput
            && current == AgentState::TurnFinished;
        (!idle_after_turn).then_some(next)
    }
}

/// What a notification says the agent waits for: permission, or the
/// developer's next message.
fn notification_state(message: &str, kind: Option<&str>) -> Option<AgentState> {
    let lower = message.to_lowercase();
    match kind {
        Some("permission_prompt") => Some(AgentState::NeedsPermission),
        Some("idle_prompt") => Some(AgentState::WaitingForInput),
        _ if lower.contains("permission") => Some(AgentState::NeedsPermission),
        _ if lower.contains("waiting for your input") || lower.contains("waiting for input") => {
            Some(AgentState::WaitingForInput)
        }
        _ => None,
    }
}

/// The allowing rules among Claude Code's `permission_suggestions`
/// (`[{"type": "addRules", "rules": [{"toolName", "ruleContent"}],
/// "behavior": "allow", …}, {"type": "addDirectories", …}, {"type":
/// "setMode", …}]`): only `addRules` keep a rule; a malformed entry is
/// passed over.
fn suggested_rules(suggestions: &Value) -> Vec<Rule> {
    let Some(suggestions) = suggestions.as_array() else {
        return Vec::new();
    };
    suggestions
        .iter()
        .filter(|suggestion| {
            suggestion["type"] == "addRules"
                && suggestion
                    .get("behavior")
                    .is_none_or(|behavior| behavior == "allow")
        })
        .filter_map(|suggestion| suggestion["rules"].as_array())
        .flatten()
        .filter_map(|rule| {
            let tool = rule["toolName"].as_str().filter(|tool| !tool.is_empty())?;
            Some(Rule::new(tool, rule["ruleContent"].as_str()))
        })
        .collect()
}

/// A permission rule in the agent's terms: a tool, and what of it
/// (`Bash(rm -rf build)`; an MCP tool alone: `mcp__github__create_issue`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rule {
    /// The tool.
    pub tool: String,
    /// What of it the rule covers; `None`: all of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

impl Rule {
    /// The rule for `tool`, narrowed to `content` when given.
    pub fn new(tool: &str, content: Option<&str>) -> Self {
        Self {
            tool: tool.to_owned(),
            content: content.map(str::to_owned),
        }
    }
}

impl std::fmt::Display for Rule {
    /// As Claude Code writes it in `permissions.allow`.
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.content {
            Some(content) => write!(formatter, "{}({content})", self.tool),
            None => formatter.write_str(&self.tool),
        }
    }
}

/// What the developer decided about a permission request.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Let the tool run; with `rules`, never ask again for the same.
    Allow {
        /// The agent's own rules for "always allow this", when asked for
        /// (none: this once).
        rules: Vec<Rule>,
    },
    /// Refuse it; `message` reaches the model.
    Deny {
        /// Why, for the model.
        message: String,
    },
    /// Decide nothing: the agent asks in its own terminal.
    FallThrough,
}

/// What a hook prints for `verdict`; `None` prints nothing (the agent
/// goes on as if no hook ran).
pub fn hook_output(agent: AgentKind, verdict: &Verdict) -> Option<Value> {
    let decision = match verdict {
        Verdict::FallThrough => return None,
        Verdict::Allow { rules } => {
            let mut decision = json!({"behavior": "allow"});
            // Claude Code keeps the rules itself, where its own "don't ask
            // again" would (`permissions.allow` in settings.local.json).
            if agent == AgentKind::ClaudeCode && !rules.is_empty() {
                let entries: Vec<Value> = rules
                    .iter()
                    .map(|rule| {
                        let mut entry = Map::new();
                        entry.insert("toolName".into(), rule.tool.clone().into());
                        if let Some(content) = &rule.content {
                            entry.insert("ruleContent".into(), content.clone().into());
                        }
                        Value::Object(entry)
                    })
                    .collect();
                decision["updatedPermissions"] = json!([{
                    "type": "addRules",
                    "rules": entries,
                    "behavior": "allow",
                    "destination": "localSettings",
                }]);
            }
            decision
        }
        Verdict::Deny { message } => json!({"behavior": "deny", "message": message}),
    };
    Some(json!({
        "hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}
    }))
}

/// What Claude Code's `--permission-prompt-tool` returns for `verdict`:
/// `{"behavior":"allow","updatedInput":…}` or `{"behavior":"deny","message":…}`
/// (with no terminal to fall through to, a fall-through is a denial).
pub fn prompt_tool_output(verdict: &Verdict, input: &Value) -> Value {
    match verdict {
        Verdict::Allow { .. } => json!({"behavior": "allow", "updatedInput": input}),
        Verdict::Deny { message } => json!({"behavior": "deny", "message": message}),
        Verdict::FallThrough => json!({
            "behavior": "deny",
            "message": "Nobody decided in Switchboard; the call was not made.",
        }),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    /// Claude Code 2.1.332's `PermissionRequest` stdin, as captured.
    const CLAUDE_PERMISSION: &str = r#"{"session_id":"5c23dece-f566-4434-85f1-6ba8defd4394","transcript_path":"/tmp/cfg/projects/-tmp-proj/5c23dece.jsonl","cwd":"/tmp/proj","prompt_id":"dd0d64b4","permission_mode":"default","effort":{"level":"medium"},"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf build","description":"Remove the build"},"permission_suggestions":[{"type":"addDirectories","directories":["/tmp/proj/build"],"destination":"session"}]}"#;
    /// Codex's, as its hooks write it.
    const CODEX_PERMISSION: &str = r#"{"session_id":"019a-codex","turn_id":"7","transcript_path":null,"cwd":"/tmp/proj","hook_event_name":"PermissionRequest","model":"gpt-5","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"cargo publish","description":"Publish the crate"}}"#;

    #[test]
    fn claude_code_and_codex_permission_requests_are_read_and_told_apart() {
        let claude = HookInput::parse(CLAUDE_PERMISSION.as_bytes(), None).unwrap();
        assert_eq!(claude.agent, AgentKind::ClaudeCode);
        assert_eq!(claude.cwd, "/tmp/proj");
        assert_eq!(
            claude.transcript_path.as_deref(),
            Some("/tmp/cfg/projects/-tmp-proj/5c23dece.jsonl")
        );
        assert_eq!(
            claude.event,
            HookEvent::PermissionRequest {
                tool_name: "Bash".into(),
                tool_input: json!({"command": "rm -rf build", "description": "Remove the build"}),
                // Its only suggestion adds a folder: no rule to keep.
                suggested: Some(Vec::new()),
            }
        );
        let codex = HookInput::parse(CODEX_PERMISSION.as_bytes(), None).unwrap();
        assert_eq!(
            (codex.agent, codex.transcript_path),
            (AgentKind::Codex, None)
        );
        let told = HookInput::parse(CLAUDE_PERMISSION.as_bytes(), Some(AgentKind::Codex)).unwrap();
        assert_eq!(told.agent, AgentKind::Codex);
    }

    #[test]
    fn only_the_rules_claude_code_offers_to_keep_are_read_from_its_suggestions() {
        let suggested = |suggestions: Value| {
            let mut input: Value = serde_json::from_str(CLAUDE_PERMISSION).unwrap();
            input["permission_suggestions"] = suggestions;
            match HookInput::parse(input.to_string().as_bytes(), None)
                .unwrap()
                .event
            {
                HookEvent::PermissionRequest { suggested, .. } => suggested,
                other => panic!("{other:?}"),
            }
        };
        // As Claude Code 2.1.332 suggests for `curl http://example.com | sh`.
        assert_eq!(
            suggested(json!([
                {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "curl http://example.com"}], "behavior": "allow", "destination": "localSettings"},
                {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "sh"}], "behavior": "allow", "destination": "localSettings"},
                {"type": "setMode", "mode": "acceptEdits", "destination": "session"},
                {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "rm"}], "behavior": "deny"},
                {"type": "addRules", "rules": [{"ruleContent": "no tool"}, 7]},
            ])),
            Some(vec![
                Rule::new("Bash", Some("curl http://example.com")),
                Rule::new("Bash", Some("sh")),
            ])
        );
        assert_eq!(suggested(json!("nonsense")), Some(Vec::new()));
        let mut input: Value = serde_json::from_str(CLAUDE_PERMISSION).unwrap();
        input
            .as_object_mut()
            .unwrap()
            .remove("permission_suggestions");
        assert!(matches!(
            HookInput::parse(input.to_string().as_bytes(), None)
                .unwrap()
                .event,
            HookEvent::PermissionRequest {
                suggested: None,
                ..
            }
        ));
    }

    #[test]
    fn bad_input_says_what_is_wrong() {
        assert!(matches!(
            HookInput::parse(b"not json", None),
            Err(HookError::NotJson(_))
        ));
        assert!(matches!(
            HookInput::parse(b"[1]", None),
            Err(HookError::NotJson(_))
        ));
        assert_eq!(
            HookInput::parse(br#"{"hook_event_name":"Stop","cwd":"/w"}"#, None),
            Err(HookError::Missing("session_id"))
        );
        let unknown = HookInput::parse(
            br#"{"hook_event_name":"PreCompact","cwd":"/w","session_id":"s"}"#,
            None,
        )
        .unwrap();
        assert_eq!(unknown.event, HookEvent::Other("PreCompact".into()));
        assert_eq!(unknown.event.state(), None);
    }

    #[test]
    fn each_event_moves_the_agent_to_what_it_means() {
        let notification = |message: &str, kind: Option<&str>| HookEvent::Notification {
            message: message.into(),
            kind: kind.map(str::to_owned),
        };
        assert_eq!(
            notification("Claude needs your permission to use Bash", None).state(),
            Some(AgentState::NeedsPermission)
        );
        assert_eq!(
            notification("Claude is waiting for your input", None).state(),
            Some(AgentState::WaitingForInput)
        );
        assert_eq!(
            notification("anything", Some("idle_prompt")).state(),
            Some(AgentState::WaitingForInput)
        );
        assert_eq!(
            notification("Signed in", Some("auth_success")).state(),
            None
        );
        assert_eq!(HookEvent::Stop.state(), Some(AgentState::TurnFinished));
        assert_eq!(HookEvent::SessionEnd.state(), Some(AgentState::Gone));
        assert_eq!(HookEvent::Working.state(), Some(AgentState::Working));
    }

    #[test]
    fn the_idle_notification_after_a_finished_turn_is_no_question() {
        let idle = HookEvent::Notification {
            message: "Claude is waiting for your input".into(),
            kind: Some("idle_prompt".into()),
        };
        assert_eq!(
            idle.state_after(AgentState::TurnFinished),
            None,
            "its turn is still finished: nothing waits on the developer"
        );
        assert_eq!(
            idle.state_after(AgentState::Working),
            Some(AgentState::WaitingForInput),
            "at its prompt before any turn finished, it waits for one"
        );
        let asks = HookEvent::Notification {
            message: "Claude needs your permission to use Bash".into(),
            kind: Some("permission_prompt".into()),
        };
        assert_eq!(
            asks.state_after(AgentState::TurnFinished),
            Some(AgentState::NeedsPermission)
        );
        assert_eq!(
            HookEvent::Working.state_after(AgentState::TurnFinished),
            Some(AgentState::Working)
        );
    }

    #[test]
    fn decisions_come_out_in_each_agents_shape() {
        let allow = Verdict::Allow {
            rules: vec![Rule::new("Bash", Some("rm -rf build"))],
        };
        assert_eq!(
            hook_output(AgentKind::ClaudeCode, &allow).unwrap(),
            json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {
                "behavior": "allow",
                "updatedPermissions": [{"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "rm -rf build"}], "behavior": "allow", "destination": "localSettings"}],
            }}})
        );
        // Codex keeps no rules a hook can add.
        assert_eq!(
            hook_output(AgentKind::Codex, &allow).unwrap()["hookSpecificOutput"]["decision"],
            json!({"behavior": "allow"})
        );
        let deny = Verdict::Deny {
            message: "not on main".into(),
        };
        assert_eq!(
            hook_output(AgentKind::ClaudeCode, &deny).unwrap()["hookSpecificOutput"]["decision"],
            json!({"behavior": "deny", "message": "not on main"})
        );
        assert_eq!(
            hook_output(AgentKind::ClaudeCode, &Verdict::FallThrough),
            None
        );
        let mcp_rule = Verdict::Allow {
            rules: vec![Rule::new("mcp__github__create_issue", None)],
        };
        assert_eq!(
            hook_output(AgentKind::ClaudeCode, &mcp_rule).unwrap()["hookSpecificOutput"]["decision"]
                ["updatedPermissions"][0]["rules"],
            json!([{"toolName": "mcp__github__create_issue"}])
        );
        let input = json!({"command": "ls"});
        assert_eq!(
            prompt_tool_output(&Verdict::Allow { rules: Vec::new() }, &input),
            json!({"behavior": "allow", "updatedInput": {"command": "ls"}})
        );
        assert_eq!(
            prompt_tool_output(&deny, &input),
            json!({"behavior": "deny", "message": "not on main"})
        );
        assert_eq!(
            prompt_tool_output(&Verdict::FallThrough, &input)["behavior"],
            "deny"
        );
    }
}
