//! What the program-session tools take and give: their arguments and the
//! views of sessions, outcomes, output and the developer's hand-back.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use switchboard_model::program::{Controller, ProgramSession, handback::HandBack};
use switchboard_session::protocol::{ExpectOutcome, WaitOutcome};

/// A session as the tools show it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SessionView {
    /// `ps-…`.
    pub id: String,
    /// The name its starter gave.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The program and its arguments.
    pub command: String,
    /// The folder it runs in.
    pub cwd: String,
    /// Its process id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// `running`, `exited`, `killed` or `lost`.
    pub state: String,
    /// Its exit code, once it exited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that ended it, if one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// When it started.
    pub started: String,
    /// When something last went in or came out.
    pub last_activity: String,
    /// `agent`, or `user` while the developer has taken it over.
    pub controller: String,
    /// Whether it is recorded as a tape when it ends.
    pub recording: bool,
    /// The tape it was recorded to, once written (or why not).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tape: Option<String>,
    /// The agent whose token started it over HTTP.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_by: Option<String>,
}

impl From<ProgramSession> for SessionView {
    fn from(info: ProgramSession) -> Self {
        Self {
            command: info.command_line(),
            id: info.id,
            name: info.name,
            cwd: info.cwd,
            pid: info.pid,
            state: info.state.as_str().to_owned(),
            exit_code: info.exit.and_then(|exit| exit.code),
            signal: info.exit.and_then(|exit| exit.signal),
            started: info.started.to_string(),
            last_activity: info.last_activity.to_string(),
            controller: match info.controller {
                Controller::Agent => "agent",
                Controller::User => "user",
            }
            .to_owned(),
            recording: info.recording,
            tape: info.tape,
            started_by: info.started_by,
        }
    }
}

/// `session_start`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StartArgs {
    /// The program (exec'd, not run through a shell unless it is one);
    /// may be left out with `config`.
    #[serde(default)]
    pub program: Option<String>,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// A name to find it by, unique among live sessions.
    #[serde(default)]
    pub name: Option<String>,
    /// The folder it runs in (default: the workspace).
    #[serde(default)]
    pub cwd: Option<String>,
    /// Variables set over the server's environment, each `KEY=VALUE`.
    #[serde(default)]
    pub env: Vec<String>,
    /// Terminal rows (default 24).
    #[serde(default)]
    #[schemars(range(min = 1, max = 1000))]
    pub rows: Option<u16>,
    /// Terminal columns (default 80).
    #[serde(default)]
    #[schemars(range(min = 1, max = 1000))]
    pub cols: Option<u16>,
    /// Start from ClaudeControl's program configuration of this name: its
    /// command (unless `program` is given), then each step's pattern
    /// expected and its answer sent.
    #[serde(default)]
    pub config: Option<String>,
    /// Record the session as a ClaudeControl tape in the workspace's
    /// `tapes/` when it ends (`tapes/<program>/<name or id>.json5`).
    #[serde(default)]
    pub record: bool,
}

/// `session_send`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendArgs {
    /// The session's id or name.
    pub session: String,
    /// Text to type (give this or `key`).
    #[serde(default)]
    pub text: Option<String>,
    /// Press Enter after the text.
    #[serde(default)]
    pub line: bool,
    /// A key instead: ctrl-c, ctrl-d, esc, enter, tab, backspace, up, down,
    /// left, right, home, end, pageup, pagedown, delete.
    #[serde(default)]
    pub key: Option<String>,
    /// A password or token: kept out of every log, read and view (its echo
    /// shows as ***).
    #[serde(default)]
    pub secret: bool,
}

/// `session_send`'s result.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SentView {
    /// The output position when it was typed: `session_read` from here
    /// shows what it drew.
    pub cursor: u64,
}

/// `session_expect`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectArgs {
    /// The session's id or name.
    pub session: String,
    /// Regular expressions (`^` and `$` at line starts and ends), or exact
    /// text with `exact`; `eof` waits for the end of the output. The
    /// earliest match wins.
    pub patterns: Vec<String>,
    /// The patterns are plain text.
    #[serde(default)]
    pub exact: bool,
    /// Seconds to wait (default 30).
    #[serde(default)]
    #[schemars(range(min = 0, max = 86400))]
    pub timeout: Option<f64>,
}

/// How an expect ended.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ExpectView {
    /// `matched`, `timeout`, or `eof` (the output ended without a match).
    pub outcome: String,
    /// Which pattern matched (0-based).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<u64>,
    /// The output before the match (the echo of input left out), or all
    /// that came when the output ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// What matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched: Option<String>,
    /// The last of the output, after a timeout.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tail: Option<String>,
    /// The expect cursor now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<u64>,
    /// The program's exit code, when it ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that ended it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// What the developer did while they held the session, on the first
    /// expect, wait or read after they handed it back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handed_back: Option<HandBackView>,
}

impl From<ExpectOutcome> for ExpectView {
    fn from(outcome: ExpectOutcome) -> Self {
        let empty = Self {
            outcome: String::new(),
            index: None,
            before: None,
            matched: None,
            tail: None,
            cursor: None,
            exit_code: None,
            signal: None,
            handed_back: None,
        };
        match outcome {
            ExpectOutcome::Matched {
                index,
                before,
                matched,
                cursor,
            } => Self {
                outcome: "matched".into(),
                index: Some(index as u64),
                before: Some(before),
                matched: Some(matched),
                cursor: Some(cursor),
                ..empty
            },
            ExpectOutcome::Timeout { tail, cursor } => Self {
                outcome: "timeout".into(),
                tail: Some(tail),
                cursor: Some(cursor),
                ..empty
            },
            ExpectOutcome::Eof { before, exit } => Self {
                outcome: "eof".into(),
                before: Some(before),
                exit_code: exit.and_then(|exit| exit.code),
                signal: exit.and_then(|exit| exit.signal),
                ..empty
            },
        }
    }
}

/// `session_wait`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitArgs {
    /// The session's id or name.
    pub session: String,
    /// `prompt` (the program waits for input), `quiet` (no output for
    /// `quiet_ms`) or `exit`.
    #[serde(rename = "for")]
    #[schemars(rename = "for")]
    pub until: WaitKind,
    /// Milliseconds of quiet, for `quiet` (default 500).
    #[serde(default)]
    #[schemars(range(min = 1, max = 3600000))]
    pub quiet_ms: Option<u64>,
    /// Seconds to wait (default 30).
    #[serde(default)]
    #[schemars(range(min = 0, max = 86400))]
    pub timeout: Option<f64>,
}

/// What `session_wait` waits for.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WaitKind {
    /// A prompt after the last input.
    Prompt,
    /// No output for `quiet_ms`.
    Quiet,
    /// The program's end.
    Exit,
}

/// How a wait ended.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WaitView {
    /// `prompt`, `quiet`, `exit` or `timeout`.
    pub outcome: String,
    /// The prompt's line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// What the program printed since the last input (echo left out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// The last of the output, after a timeout.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tail: Option<String>,
    /// The end of the output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<u64>,
    /// The exit code, when it exited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that ended it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// What the developer did while they held the session, on the first
    /// expect, wait or read after they handed it back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handed_back: Option<HandBackView>,
}

impl From<WaitOutcome> for WaitView {
    fn from(outcome: WaitOutcome) -> Self {
        let empty = Self {
            outcome: String::new(),
            prompt: None,
            output: None,
            tail: None,
            cursor: None,
            exit_code: None,
            signal: None,
            handed_back: None,
        };
        match outcome {
            WaitOutcome::Prompt {
                prompt,
                output,
                cursor,
                ..
            } => Self {
                outcome: "prompt".into(),
                prompt: Some(prompt),
                output: Some(output),
                cursor: Some(cursor),
                ..empty
            },
            WaitOutcome::Quiet { cursor, output, .. } => Self {
                outcome: "quiet".into(),
                cursor: Some(cursor),
                output: Some(output),
                ..empty
            },
            WaitOutcome::Exit { exit, output } => Self {
                outcome: "exit".into(),
                output: Some(output),
                exit_code: exit.code,
                signal: exit.signal,
                ..empty
            },
            WaitOutcome::Timeout { tail, cursor } => Self {
                outcome: "timeout".into(),
                tail: Some(tail),
                cursor: Some(cursor),
                ..empty
            },
        }
    }
}

/// `session_read`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    /// The session's id or name.
    pub session: String,
    /// The `cursor` a previous read returned (default: the oldest output
    /// kept).
    #[serde(default)]
    pub since: Option<u64>,
    /// Also the screen as a person sees it (full-screen programs).
    #[serde(default)]
    pub screen: bool,
}

/// Output read.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ReadView {
    /// The output from `from` on.
    pub text: String,
    /// Where it starts.
    pub from: u64,
    /// Pass as `since` to read on from here.
    pub cursor: u64,
    /// Bytes that fell out of the buffer before this read came.
    pub missed: u64,
    /// The screen's rows, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screen: Option<Vec<String>>,
    /// The session now.
    pub session: SessionView,
    /// What the developer did while they held the session, on the first
    /// expect, wait or read after they handed it back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handed_back: Option<HandBackView>,
}

/// What the developer did while they held a session.
#[derive(Debug, Serialize, JsonSchema)]
pub struct HandBackView {
    /// When they took it over.
    pub taken_at: String,
    /// When they handed it back.
    pub handed_back_at: String,
    /// Each line they typed, in order (a secret as `***`).
    pub typed: Vec<String>,
    /// Lines typed past the first 200, not listed.
    #[serde(skip_serializing_if = "is_zero")]
    pub lines_left_out: u64,
    /// The output from when they took it over (its first 4 KiB at most).
    pub output: String,
    /// Where `output` starts.
    pub from: u64,
    /// Just past `output`: read from here (`since`) for what it left out.
    pub cursor: u64,
    /// Bytes after `cursor` produced before the hand-back.
    #[serde(skip_serializing_if = "is_zero")]
    pub more_bytes: u64,
}

fn is_zero(count: &u64) -> bool {
    *count == 0
}

impl From<HandBack> for HandBackView {
    fn from(note: HandBack) -> Self {
        Self {
            taken_at: note.taken_at.to_string(),
            handed_back_at: note.handed_back_at.to_string(),
            typed: note.typed,
            lines_left_out: note.lines_left_out as u64,
            output: note.output,
            from: note.from,
            cursor: note.cursor,
            more_bytes: note.more_bytes,
        }
    }
}

/// `session_list`'s arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    /// Every session of the user, not only this workspace's.
    #[serde(default)]
    pub all: bool,
}

/// Sessions.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SessionList {
    /// Newest first.
    pub sessions: Vec<SessionView>,
}

/// `session_kill`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KillArgs {
    /// The session's id or name.
    pub session: String,
    /// The signal (default TERM, then KILL after a grace): TERM, INT, HUP,
    /// KILL, … or a number.
    #[serde(default)]
    pub signal: Option<String>,
}
