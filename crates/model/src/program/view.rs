//! What the Terminals view and the shell say to each other about program
//! sessions.

use serde::{Deserialize, Serialize};

use super::ProgramSession;

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
    pub session: ProgramSession,
    /// The output (secrets masked).
    pub text: String,
    /// Where the next read starts.
    pub cursor: u64,
    /// Bytes that fell out of the buffer before this read: the view starts
    /// its screen over.
    pub missed: u64,
}

/// What the developer types into a session: each piece sent after the one
/// before it was typed, in order (the view sends what was typed while the
/// previous request was under way as the next one: `super::typing`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionTypeRequest {
    /// The session's id.
    pub session: String,
    /// What was typed, in order.
    pub typed: Vec<Typing>,
}

/// One thing the developer types: text (with Enter after it when `line`)
/// or a named key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Typing {
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

impl Typing {
    /// Text typed as it is (a character typed on the screen).
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: Some(text.into()),
            line: false,
            key: None,
            secret: false,
        }
    }

    /// A line: the text, then Enter; masked everywhere when `secret`.
    pub fn line(text: impl Into<String>, secret: bool) -> Self {
        Self {
            text: Some(text.into()),
            line: true,
            key: None,
            secret,
        }
    }

    /// A named key ([`super::Key`]'s names).
    pub fn key(name: impl Into<String>) -> Self {
        Self {
            text: None,
            line: false,
            key: Some(name.into()),
            secret: false,
        }
    }

    /// Plain text, which the text typed right after it may join.
    pub fn is_plain_text(&self) -> bool {
        self.text.is_some() && self.key.is_none() && !self.line && !self.secret
    }
}

/// Take a session over, or hand it back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionControlRequest {
    /// The session's id.
    pub session: String,
    /// `true`: the developer types, agents wait; `false`: back to agents.
    pub take: bool,
}

/// One row of the Terminals list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListEntry {
    /// A session of its own.
    Session(ProgramSession),
    /// The sessions one investigation, test, fuzz run or chain started.
    Run(RunRow),
}

/// A run's sessions, as one row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunRow {
    /// The run (`investigate-toy-4242-1`).
    pub run: String,
    /// What it was: `investigate`, `test`, `fuzz`, `probe` or `chain`.
    pub purpose: String,
    /// The program it ran (its file name).
    pub program: String,
    /// Its sessions, newest first.
    pub sessions: Vec<ProgramSession>,
    /// How many still run.
    pub live: usize,
}

impl RunRow {
    /// One line: what it was and how many sessions it took.
    pub fn headline(&self) -> String {
        let count = self.sessions.len();
        let plural = if count == 1 { "" } else { "s" };
        let live = if self.live > 0 {
            format!(", {} running", self.live)
        } else {
            String::new()
        };
        format!(
            "{} {} · {count} session{plural}{live}",
            self.purpose, self.program
        )
    }

    /// When something last happened in any of its sessions.
    pub fn last_activity(&self) -> Option<crate::Timestamp> {
        self.sessions
            .iter()
            .map(|session| session.last_activity)
            .max()
    }
}

/// The Terminals list in the order that matters: live sessions first (one
/// waiting for a secret, then one the developer holds, then the newest),
/// then each run's sessions as one row (a run still going first, then the
/// latest), then ended sessions, the latest first.
pub fn arrange(sessions: &[ProgramSession]) -> Vec<ListEntry> {
    use std::cmp::Reverse;

    use super::{Controller, SessionState};

    let mut live: Vec<&ProgramSession> = Vec::new();
    let mut ended: Vec<&ProgramSession> = Vec::new();
    let mut runs: Vec<RunRow> = Vec::new();
    for session in sessions {
        match &session.run {
            Some(run) => {
                let at = match runs.iter().position(|row| &row.run == run) {
                    Some(at) => at,
                    None => {
                        runs.push(RunRow {
                            run: run.clone(),
                            purpose: run.split('-').next().unwrap_or(run).to_owned(),
                            program: session
                                .program
                                .rsplit('/')
                                .next()
                                .unwrap_or(&session.program)
                                .to_owned(),
                            sessions: Vec::new(),
                            live: 0,
                        });
                        runs.len() - 1
                    }
                };
                let row = &mut runs[at];
                row.live += usize::from(session.state == SessionState::Running);
                row.sessions.push(session.clone());
            }
            None if session.state == SessionState::Running => live.push(session),
            None => ended.push(session),
        }
    }
    live.sort_by_key(|session| {
        (
            Reverse(session.wants_secret),
            Reverse(session.controller == Controller::User),
            Reverse(session.started),
        )
    });
    ended.sort_by_key(|session| Reverse(session.last_activity));
    for row in &mut runs {
        row.sessions
            .sort_by_key(|session| Reverse((session.started, session.last_activity)));
    }
    runs.sort_by_key(|row| (Reverse(row.live > 0), Reverse(row.last_activity())));
    live.into_iter()
        .map(|session| ListEntry::Session(session.clone()))
        .chain(runs.into_iter().map(ListEntry::Run))
        .chain(
            ended
                .into_iter()
                .map(|session| ListEntry::Session(session.clone())),
        )
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use super::*;
    use crate::{
        Timestamp,
        program::{Controller, SessionState},
    };

    fn session(id: &str, at: i64, state: SessionState, run: Option<&str>) -> ProgramSession {
        let started = Timestamp::from_unix_millis(1_700_000_000_000 + at * 1000).unwrap();
        let mut info = ProgramSession::starting(
            id.into(),
            "/usr/bin/python3".into(),
            vec![],
            "/w".into(),
            started,
        );
        info.state = state;
        info.run = run.map(str::to_owned);
        info
    }

    fn ids(entries: &[ListEntry]) -> Vec<String> {
        entries
            .iter()
            .map(|entry| match entry {
                ListEntry::Session(session) => session.id.clone(),
                ListEntry::Run(row) => format!("run {}", row.run),
            })
            .collect()
    }

    #[test]
    fn live_sessions_come_first_then_runs_as_one_row_then_ended_ones() {
        use SessionState::{Exited, Running};
        let run = Some("investigate-python3-4242-1");
        let mut sessions: Vec<ProgramSession> = (0..7)
            .map(|n| session(&format!("ps-run{n}"), 10 + n, Exited, run))
            .collect();
        sessions.push(session("ps-agent", 5, Running, None));
        sessions.push(session("ps-old-live", 1, Running, None));
        sessions.push(session("ps-ended", 30, Exited, None));
        sessions.push(session("ps-fuzzing", 40, Running, Some("fuzz-toy-4242-9")));
        sessions.push(session("ps-fuzzed", 39, Exited, Some("fuzz-toy-4242-9")));
        let entries = arrange(&sessions);
        assert_eq!(
            ids(&entries),
            [
                "ps-agent",
                "ps-old-live",
                "run fuzz-toy-4242-9",
                "run investigate-python3-4242-1",
                "ps-ended"
            ],
            "live first, the run still going before the finished one, ended last"
        );
        let ListEntry::Run(row) = &entries[3] else {
            panic!("a run row")
        };
        assert_eq!(row.sessions.len(), 7);
        assert_eq!(row.sessions[0].id, "ps-run6", "newest first");
        assert_eq!(row.headline(), "investigate python3 · 7 sessions");
        let ListEntry::Run(going) = &entries[2] else {
            panic!("a run row")
        };
        assert_eq!(going.headline(), "fuzz python3 · 2 sessions, 1 running");
    }

    #[test]
    fn a_session_that_wants_the_developer_comes_before_newer_ones() {
        let mut waiting = session("ps-secret", 1, SessionState::Running, None);
        waiting.wants_secret = true;
        let mut held = session("ps-held", 2, SessionState::Running, None);
        held.controller = Controller::User;
        let newest = session("ps-new", 3, SessionState::Running, None);
        assert_eq!(
            ids(&arrange(&[newest, held, waiting])),
            ["ps-secret", "ps-held", "ps-new"]
        );
    }
}
