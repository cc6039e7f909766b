//! Agents' own sessions as Switchboard sees them: Claude Code and Codex
//! through their hooks, MCP clients through `switchboard mcp`. One
//! [`AgentRecord`] per agent session (`.switchboard/agents/<key>.json`),
//! the states a person reads, and the rules that move between them.

pub mod announce;
pub mod codex_hooks;
pub mod hook;
pub mod launch;
pub mod permission;
pub mod review;
pub mod screen_prompt;
pub mod transcript;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{
    Timestamp,
    process::{Liveness, ProcessMark},
};

/// Which kind of agent a session belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AgentKind {
    /// Anthropic's Claude Code, through its hooks.
    ClaudeCode,
    /// OpenAI's Codex CLI, through its hooks.
    Codex,
    /// Any MCP client of `switchboard mcp`.
    Mcp,
}

impl AgentKind {
    /// The spelling on the command line and in files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ClaudeCode => "claude-code",
            Self::Codex => "codex",
            Self::Mcp => "mcp",
        }
    }

    /// The kind spelt `text`.
    pub fn parse(text: &str) -> Option<Self> {
        [Self::ClaudeCode, Self::Codex, Self::Mcp]
            .into_iter()
            .find(|kind| kind.as_str() == text)
    }

    /// The name a person knows it by.
    pub fn label(self) -> &'static str {
        match self {
            Self::ClaudeCode => "Claude Code",
            Self::Codex => "Codex",
            Self::Mcp => "MCP client",
        }
    }
}

/// What an agent session is doing, as the Agents view says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentState {
    /// It asks the developer's permission for a tool call.
    NeedsPermission,
    /// Its turn is over and it waits for the developer's next message.
    WaitingForInput,
    /// It is working on a turn.
    Working,
    /// Its turn finished.
    TurnFinished,
    /// It ended, or was not heard from for [`GONE_AFTER_MS`].
    Gone,
}

impl AgentState {
    /// Whether the developer is who it waits on.
    pub fn waits(self) -> bool {
        matches!(self, Self::NeedsPermission | Self::WaitingForInput)
    }

    /// The spelling in files and pages (`needs_permission`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NeedsPermission => "needs_permission",
            Self::WaitingForInput => "waiting_for_input",
            Self::Working => "working",
            Self::TurnFinished => "turn_finished",
            Self::Gone => "gone",
        }
    }

    /// The state as the end of a sentence naming the agent: "Claude Code
    /// needs your permission", "… is waiting for your input".
    pub fn notice(self) -> &'static str {
        match self {
            Self::NeedsPermission => "needs your permission",
            Self::WaitingForInput => "is waiting for your input",
            Self::Working => "is working",
            Self::TurnFinished => "finished its turn",
            Self::Gone => "has ended",
        }
    }

    /// The words the view shows.
    pub fn label(self) -> &'static str {
        match self {
            Self::NeedsPermission => "needs permission",
            Self::WaitingForInput => "waiting for input",
            Self::Working => "working",
            Self::TurnFinished => "turn finished",
            Self::Gone => "gone",
        }
    }
}

/// How long an agent whose process cannot be checked stays shown as it
/// was after its last word: 30 minutes.
pub const GONE_AFTER_MS: i64 = 30 * 60 * 1000;

/// How long an agent reached over HTTP stays shown as working after its
/// last request: 5 minutes (each request notes it, at most once a
/// minute). HTTP keeps no connection to tell its end by; a revoked token
/// is heard from no more.
pub const HTTP_GONE_AFTER_MS: i64 = 5 * 60 * 1000;

/// The session id an agent reaching the workspace over HTTP with the
/// token named `token` is kept under: one row per token.
pub fn http_session_id(token: &str) -> String {
    format!("http-{token}")
}

/// One agent session, as `.switchboard/agents/<key>.json` holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentRecord {
    /// Which agent.
    pub agent: AgentKind,
    /// The agent's own session id (an MCP client: its process and start).
    pub session_id: String,
    /// Who it is to a person: "Claude Code", an MCP client's name.
    pub name: String,
    /// The folder it works in.
    pub cwd: String,
    /// Its transcript, when it keeps one (read, never written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript_path: Option<String>,
    /// What it does now.
    pub state: AgentState,
    /// Since when it does that.
    pub since: Timestamp,
    /// When it was last heard from.
    pub seen_at: Timestamp,
    /// When it first appeared.
    pub started_at: Timestamp,
    /// What it says it waits for (a notification's message).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The inbox question it waits on, while one is open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting_on: Option<String>,
    /// The agent's process, when known, with its start time (so a reused
    /// process id is not taken for it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process: Option<ProcessMark>,
    /// The name of the started agent this session is (`switchboard agent
    /// start`), when it is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch: Option<String>,
    /// Fields written by newer versions that this one does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl AgentRecord {
    /// A session first seen at `now`, in `state`.
    pub fn new(
        agent: AgentKind,
        session_id: &str,
        name: &str,
        cwd: &str,
        state: AgentState,
        now: Timestamp,
    ) -> Self {
        Self {
            agent,
            session_id: session_id.to_owned(),
            name: name.to_owned(),
            cwd: cwd.to_owned(),
            transcript_path: None,
            state,
            since: now,
            seen_at: now,
            started_at: now,
            reason: None,
            waiting_on: None,
            process: None,
            launch: None,
            extra: Map::new(),
        }
    }

    /// Who it is to a person: a started agent by its name and its kind
    /// ("tidy (Claude Code)"), so two of one kind are told apart wherever
    /// it is named; else its name ("Claude Code", an MCP client's).
    pub fn who(&self) -> String {
        named(self.launch.as_deref(), &self.name)
    }

    /// The file name this session is kept under: its kind and its id,
    /// with anything but letters, digits, `-` and `_` replaced, so no id
    /// names a path.
    pub fn key(agent: AgentKind, session_id: &str) -> String {
        let safe: String = session_id
            .chars()
            .take(96)
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        format!("{}-{safe}", agent.as_str())
    }

    /// Moves to `state` at `now` (its `since` kept when the state is the
    /// same), having been heard from.
    pub fn enter(&mut self, state: AgentState, now: Timestamp) {
        if self.state != state {
            self.state = state;
            self.since = now;
        }
        if !state.waits() {
            self.reason = None;
        }
        if state != AgentState::NeedsPermission {
            self.waiting_on = None;
        }
        self.seen_at = now;
    }

    /// The state to show at `now`: gone once its process ended, or — when
    /// the process cannot be checked — once it was not heard from for
    /// [`GONE_AFTER_MS`] (a question it waits on keeps it).
    pub fn shown_state(&self, now: Timestamp, liveness: Liveness) -> AgentState {
        let over_http = self.agent == AgentKind::Mcp && self.session_id.starts_with("http-");
        let after = if over_http {
            HTTP_GONE_AFTER_MS
        } else {
            GONE_AFTER_MS
        };
        let silent = now.unix_millis() - self.seen_at.unix_millis() > after;
        match liveness {
            Liveness::Ended => AgentState::Gone,
            Liveness::Unknown if silent && self.waiting_on.is_none() => AgentState::Gone,
            _ => self.state,
        }
    }
}

/// An agent as a person reads its name: the started agent `launch`'s
/// name with who it is (`name`, the agent's label) — "tidy (Claude
/// Code)" —, else `name` alone.
pub fn named(launch: Option<&str>, name: &str) -> String {
    match launch {
        Some(launch) => format!("{launch} ({name})"),
        None => name.to_owned(),
    }
}

/// One row of the Agents view: a record and what it shows now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentRow {
    /// The stored record.
    pub record: AgentRecord,
    /// The state shown now ([`AgentRecord::shown_state`]).
    pub shown: AgentState,
    /// Its last messages, oldest first.
    #[serde(default)]
    pub last_messages: Vec<transcript::TranscriptMessage>,
}

impl AgentRow {
    /// Whether the row folds away in the view (one line, under the live
    /// ones): the agent is gone.
    pub fn folds(&self) -> bool {
        self.shown == AgentState::Gone
    }
}

/// Orders rows for the view: those waiting on the developer first (the
/// longest waiting first), then working, finished and gone (the most
/// recently heard first).
pub fn arrange(rows: &mut [AgentRow]) {
    rows.sort_by(|a, b| {
        let waits = |row: &AgentRow| !row.shown.waits();
        waits(a)
            .cmp(&waits(b))
            .then(a.shown.cmp(&b.shown))
            .then_with(|| {
                if a.shown.waits() {
                    a.record.since.cmp(&b.record.since)
                } else {
                    b.record.seen_at.cmp(&a.record.seen_at)
                }
            })
    });
}

/// The agents that wait on the developer at their own prompt, to be
/// announced as such: not those waiting on a question in the inbox, which
/// announces itself. (A hook that asks moves its agent with its question,
/// in one change: an agent is never seen waiting meanwhile.)
pub fn waiting_at_own_prompt(rows: &[AgentRow]) -> Vec<&AgentRow> {
    rows.iter()
        .filter(|row| row.shown.waits() && row.record.waiting_on.is_none())
        .collect()
}

/// A session id's first eight characters: enough to tell two sessions of
/// one agent apart where a line is short.
pub fn short_session(session_id: &str) -> String {
    session_id.chars().take(8).collect()
}

/// The index of the next row after `current` (wrapping) whose agent waits
/// on the developer, for the jump-to-next shortcut.
pub fn next_waiting(rows: &[AgentRow], current: Option<usize>) -> Option<usize> {
    let count = rows.len();
    let start = current.map_or(0, |index| index + 1);
    (0..count)
        .map(|step| (start + step) % count)
        .find(|&index| rows[index].shown.waits())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    fn at(seconds: i64) -> Timestamp {
        Timestamp::from_unix_millis(1_700_000_000_000 + seconds * 1000).unwrap()
    }

    fn row(id: &str, state: AgentState, since: i64) -> AgentRow {
        let record = AgentRecord::new(
            AgentKind::ClaudeCode,
            id,
            "Claude Code",
            "/w",
            state,
            at(since),
        );
        AgentRow {
            shown: state,
            record,
            last_messages: Vec::new(),
        }
    }

    #[test]
    fn states_are_spelt_as_serde_writes_them() {
        for state in [
            AgentState::NeedsPermission,
            AgentState::WaitingForInput,
            AgentState::Working,
            AgentState::TurnFinished,
            AgentState::Gone,
        ] {
            assert_eq!(serde_json::to_value(state).unwrap(), state.as_str());
        }
    }

    #[test]
    fn a_key_never_names_a_path() {
        assert_eq!(
            AgentRecord::key(AgentKind::Codex, "../../etc/passwd"),
            "codex-______etc_passwd"
        );
        assert_eq!(
            AgentRecord::key(AgentKind::ClaudeCode, "5c23-de_ce"),
            "claude-code-5c23-de_ce"
        );
        assert!(AgentRecord::key(AgentKind::Mcp, &"x".repeat(500)).len() < 110);
    }

    #[test]
    fn entering_the_same_state_keeps_since_and_leaving_a_wait_forgets_it() {
        let mut record = AgentRecord::new(
            AgentKind::ClaudeCode,
            "s",
            "Claude Code",
            "/w",
            AgentState::Working,
            at(0),
        );
        record.enter(AgentState::Working, at(10));
        assert_eq!((record.since, record.seen_at), (at(0), at(10)));
        record.enter(AgentState::NeedsPermission, at(20));
        record.waiting_on = Some("d_1".into());
        record.reason = Some("needs your permission".into());
        record.enter(AgentState::Working, at(30));
        assert_eq!(record.since, at(30));
        assert_eq!((record.waiting_on, record.reason), (None, None));
    }

    #[test]
    fn an_agent_waiting_on_a_question_is_announced_by_it_alone() {
        let idle = row("s-2", AgentState::WaitingForInput, 0);
        let mut waiting_on = row("s-3", AgentState::NeedsPermission, 0);
        waiting_on.record.waiting_on = Some("d_1".into());
        let at_prompt = row("s-4", AgentState::NeedsPermission, 0);
        let working = row("s-5", AgentState::Working, 0);
        let rows = [idle, waiting_on, at_prompt, working];
        let announced: Vec<&str> = waiting_at_own_prompt(&rows)
            .into_iter()
            .map(|row| row.record.session_id.as_str())
            .collect();
        assert_eq!(announced, ["s-2", "s-4"]);
        assert_eq!(
            format!("Claude Code {}", AgentState::NeedsPermission.notice()),
            "Claude Code needs your permission"
        );
        assert_eq!(
            AgentState::WaitingForInput.notice(),
            "is waiting for your input"
        );
        assert_eq!(short_session("5c23dece-f566-4434"), "5c23dece");
    }

    #[test]
    fn an_agent_over_http_is_gone_minutes_after_its_last_request() {
        let mut record = AgentRecord::new(
            AgentKind::Mcp,
            &http_session_id("laptop"),
            "Claude Code (laptop)",
            "/w",
            AgentState::Working,
            at(0),
        );
        let shown =
            |record: &AgentRecord, seconds| record.shown_state(at(seconds), Liveness::Unknown);
        assert_eq!(shown(&record, 4 * 60), AgentState::Working);
        assert_eq!(shown(&record, 6 * 60), AgentState::Gone);
        // A local client of the same kind keeps the longer rule.
        record.session_id = "pid-42".into();
        assert_eq!(shown(&record, 6 * 60), AgentState::Working);
    }

    #[test]
    fn an_agent_is_gone_when_its_process_ended_or_after_long_silence() {
        let record = AgentRecord::new(
            AgentKind::ClaudeCode,
            "s",
            "Claude Code",
            "/w",
            AgentState::Working,
            at(0),
        );
        assert_eq!(record.shown_state(at(5), Liveness::Ended), AgentState::Gone);
        assert_eq!(
            record.shown_state(at(5), Liveness::Unknown),
            AgentState::Working
        );
        let late = at(GONE_AFTER_MS / 1000 + 1);
        assert_eq!(
            record.shown_state(late, Liveness::Unknown),
            AgentState::Gone
        );
        assert_eq!(
            record.shown_state(late, Liveness::Alive),
            AgentState::Working
        );
        let mut asking = record.clone();
        asking.enter(AgentState::NeedsPermission, at(0));
        asking.waiting_on = Some("d_1".into());
        assert_eq!(
            asking.shown_state(late, Liveness::Unknown),
            AgentState::NeedsPermission
        );
    }

    #[test]
    fn waiting_agents_come_first_longest_waiting_first_and_the_shortcut_cycles_through_them() {
        let mut rows = vec![
            row("gone", AgentState::Gone, 50),
            row("working", AgentState::Working, 40),
            row("input", AgentState::WaitingForInput, 30),
            row("permission-late", AgentState::NeedsPermission, 20),
            row("permission-early", AgentState::NeedsPermission, 10),
        ];
        arrange(&mut rows);
        let order: Vec<&str> = rows
            .iter()
            .map(|row| row.record.session_id.as_str())
            .collect();
        assert_eq!(
            order,
            [
                "permission-early",
                "permission-late",
                "input",
                "working",
                "gone"
            ]
        );
        assert_eq!(next_waiting(&rows, None), Some(0));
        assert_eq!(next_waiting(&rows, Some(0)), Some(1));
        assert_eq!(next_waiting(&rows, Some(2)), Some(0));
        assert_eq!(next_waiting(&rows[3..], Some(0)), None);
        assert_eq!(next_waiting(&[], None), None);
    }
}
