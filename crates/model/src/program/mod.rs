//! Program sessions: interactive programs that agents drive on
//! pseudo-terminals held by the session host, watched and taken over in the
//! window. The types every edge shares (what a session is, how it is named,
//! how it ended) and the pure rules over them (names, keys, prompts, limits).

#[cfg(feature = "patterns")]
pub mod cast;
pub mod command_mask;
pub mod config;
pub mod handback;
pub mod key;
pub mod limits;
pub mod prompt;
pub mod secret;
pub mod typing;
pub mod view;

use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use key::Key;
pub use limits::Limits;

use crate::time::Timestamp;

/// The longest name a session may be given.
pub const MAX_NAME_LEN: usize = 64;

/// Why a session could not be named or found as asked.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NameError {
    /// Empty, too long, or a character outside `A-Z a-z 0-9 . _ -`.
    #[error(
        "{0:?} is not a session name: use 1 to {MAX_NAME_LEN} letters, digits, '.', '_' or '-', starting with a letter or digit"
    )]
    Invalid(String),
    /// Of the form session ids take, so it could name another session.
    #[error("{0:?} looks like a session id; pick a name that does not start with \"ps-\"")]
    LooksLikeId(String),
}

/// Checks a name a starter gives a session: letters, digits, `.`, `_` and
/// `-`, starting with a letter or digit (so it is never `.`, `..`, a path
/// or an option), and never of the id form.
pub fn check_name(name: &str) -> Result<(), NameError> {
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphanumeric());
    let rest_ok = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if !first_ok || !rest_ok || name.len() > MAX_NAME_LEN {
        return Err(NameError::Invalid(name.to_owned()));
    }
    if name.starts_with(ID_PREFIX) {
        return Err(NameError::LooksLikeId(name.to_owned()));
    }
    Ok(())
}

/// What every session id starts with.
pub const ID_PREFIX: &str = "ps-";

/// A session id from 48 random bits: `ps-` and 12 lowercase hex digits.
pub fn session_id(random: u64) -> String {
    format!("{ID_PREFIX}{:012x}", random & 0xffff_ffff_ffff)
}

/// Whether `text` has the form of a session id (so it names no path).
pub fn is_session_id(text: &str) -> bool {
    text.strip_prefix(ID_PREFIX)
        .is_some_and(|hex| hex.len() == 12 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Where a session is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionState {
    /// The program runs.
    Running,
    /// The program ended by itself (or was told to by its input).
    Exited,
    /// Ended by `kill` or by a limit (idle, runtime).
    Killed,
    /// The host that held it is gone; what became of it is unknown.
    Lost,
}

impl SessionState {
    /// As `list` prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Exited => "exited",
            Self::Killed => "killed",
            Self::Lost => "lost",
        }
    }
}

/// How a program ended: its exit code, or the signal that ended it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExitStatus {
    /// The exit code, when it exited.
    pub code: Option<i32>,
    /// The signal's number, when one ended it.
    pub signal: Option<i32>,
}

impl std::fmt::Display for ExitStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.code, self.signal) {
            (_, Some(signal)) => write!(f, "signal {signal}"),
            (Some(code), None) => write!(f, "exit {code}"),
            (None, None) => f.write_str("ended"),
        }
    }
}

impl From<ExitStatus> for crate::tape::Exit {
    /// As a tape writes it (ClaudeControl's `{code, signal}`).
    fn from(exit: ExitStatus) -> Self {
        Self {
            code: exit.code.map(i64::from),
            signal: exit.signal.map(serde_json::Value::from),
            extra: serde_json::Map::new(),
        }
    }
}

/// Why a session ended when it was ended for the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// The program ended on its own.
    Exited,
    /// `kill` ended it.
    Killed,
    /// Nothing came in or out for the idle limit.
    Idle,
    /// It ran for the runtime limit.
    Runtime,
}

/// Who types into a session now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Controller {
    /// Agents (the CLI, MCP): the default.
    #[default]
    Agent,
    /// The developer took it over (attached or in the window); agents'
    /// sends are refused until they hand it back.
    User,
}

/// One session as `list` and the window show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgramSession {
    /// `ps-…`.
    pub id: String,
    /// The name its starter gave, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The program as started.
    pub program: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// The folder it runs in.
    pub cwd: String,
    /// The workspace it was started from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// Its process id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// Running, exited, killed or lost.
    pub state: SessionState,
    /// How it ended, once it has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<ExitStatus>,
    /// Why it ended, once it has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_by: Option<EndReason>,
    /// When it started.
    pub started: Timestamp,
    /// When something last went in or came out.
    pub last_activity: Timestamp,
    /// Who types into it.
    #[serde(default)]
    pub controller: Controller,
    /// The terminal's rows.
    pub rows: u16,
    /// The terminal's columns.
    pub cols: u16,
    /// Whether it is being recorded as a tape.
    #[serde(default)]
    pub recording: bool,
    /// The program waits for input it does not show (it turned the
    /// terminal's echo off at a prompt: a password): the developer's
    /// attention is wanted.
    #[serde(default)]
    pub wants_secret: bool,
    /// The tape it was recorded to, once written (relative to the
    /// workspace), or why it could not be.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tape: Option<String>,
    /// The investigation, test, fuzz run or chain that started it (named
    /// as its first session is: `investigate-toy-4242-1`); the window
    /// lists a run's sessions as one row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// The agent whose token started it over HTTP (`switchboard mcp token
    /// --name`, `ssh:HOST` for `switchboard connect`), shown beside it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_by: Option<String>,
    /// The started agent it runs (its launch's name, `switchboard agent
    /// start`): the idle and runtime limits never end it — it waits for
    /// the developer at its prompt as long as they take, and ends when its
    /// work lands or they stop it (the running-agents limit bounds them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch: Option<String>,
}

impl ProgramSession {
    /// A session about to start: running, controlled by agents, its size
    /// at least 1×1 (24×80 when not given).
    pub fn starting(
        id: String,
        program: String,
        args: Vec<String>,
        cwd: String,
        now: Timestamp,
    ) -> Self {
        Self {
            id,
            name: None,
            program,
            args,
            cwd,
            workspace: None,
            pid: None,
            state: SessionState::Running,
            exit: None,
            ended_by: None,
            started: now,
            last_activity: now,
            controller: Controller::Agent,
            rows: 24,
            cols: 80,
            recording: false,
            wants_secret: false,
            tape: None,
            run: None,
            started_by: None,
            launch: None,
        }
    }

    /// The name, else the id: what a person calls it.
    pub fn label(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.id)
    }

    /// The program and its arguments as one line (arguments with spaces
    /// quoted, secrets masked: [`command_mask`]).
    pub fn command_line(&self) -> String {
        std::iter::once(&self.program)
            .chain(&command_mask::mask_args(&self.args))
            .map(|word| {
                if word.is_empty() || word.contains(char::is_whitespace) {
                    format!("{word:?}")
                } else {
                    word.clone()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn names_are_never_paths_options_or_ids() {
        for good in ["py", "build-1", "db.main", "A_b"] {
            assert_eq!(check_name(good), Ok(()), "{good}");
        }
        for bad in ["", ".", "..", "../x", "a/b", "-rf", ".hidden", "a b", "é"] {
            assert!(
                matches!(check_name(bad), Err(NameError::Invalid(_))),
                "{bad}"
            );
        }
        assert!(check_name(&"x".repeat(MAX_NAME_LEN)).is_ok());
        assert!(check_name(&"x".repeat(MAX_NAME_LEN + 1)).is_err());
        assert!(matches!(
            check_name("ps-abc"),
            Err(NameError::LooksLikeId(_))
        ));
    }

    #[test]
    fn ids_have_one_form() {
        let id = session_id(0xdead_beef_cafe_f00d);
        assert_eq!(id, "ps-beefcafef00d");
        assert!(is_session_id(&id));
        assert!(!is_session_id("ps-../../etc"));
        assert!(!is_session_id("ps-beefcafef00"));
    }

    #[test]
    fn exit_status_reads_as_people_say_it() {
        let exit = |code, signal| ExitStatus { code, signal }.to_string();
        assert_eq!(exit(Some(3), None), "exit 3");
        assert_eq!(exit(None, Some(9)), "signal 9");
    }
}
