//! What clients and the session host say to each other: one JSON object
//! per line over the host's socket. A client sends one [`Request`]; the
//! host answers with any number of [`Reply::Progress`] lines while a wait
//! is long, then one [`Reply::Done`] or [`Reply::Failed`]. A client that
//! hangs up stops its wait, never the program.

use serde::{Deserialize, Serialize};
use switchboard_model::{
    ErrorPayload,
    program::{Controller, ExitStatus, Key, ProgramSession, handback::HandBack},
};

/// The protocol's version; the host refuses a client of another.
pub const VERSION: u32 = 1;

/// A request, with the version of the client that sent it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Envelope {
    /// [`VERSION`] of the client.
    pub version: u32,
    /// What is asked.
    pub request: Request,
}

/// What a client asks the host.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// Is the host there? Answered with [`Response::Hello`].
    Hello,
    /// Start a program.
    Start(Box<StartRequest>),
    /// Type into a session.
    Send {
        /// Id or name.
        session: String,
        /// What to type.
        input: Input,
        /// Keep it out of every log, tape and view (`***` instead).
        #[serde(default)]
        secret: bool,
        /// Typed by the developer (who may type while they control it).
        #[serde(default)]
        by_user: bool,
    },
    /// Wait for the first of several patterns after the expect cursor.
    Expect {
        /// Id or name.
        session: String,
        /// Tried in order at each place; the earliest match wins.
        patterns: Vec<Pattern>,
        /// Milliseconds to wait.
        timeout_ms: u64,
    },
    /// Wait for a prompt, for quiet or for the program's end.
    Wait {
        /// Id or name.
        session: String,
        /// What to wait for.
        until: WaitFor,
        /// Milliseconds to wait.
        timeout_ms: u64,
    },
    /// Output since a cursor, and/or the screen.
    Read {
        /// Id or name.
        session: String,
        /// The cursor a previous read returned (default: the oldest
        /// output kept).
        #[serde(default)]
        since: Option<u64>,
        /// Also the screen as a person sees it.
        #[serde(default)]
        screen: bool,
        /// When nothing came since the cursor, wait up to this long (ms)
        /// for output or the end before answering.
        #[serde(default)]
        wait_ms: Option<u64>,
        /// At most this many of the newest bytes; older ones are passed
        /// over and counted as missed (a watcher far behind a flood).
        #[serde(default)]
        tail: Option<u64>,
        /// Read for the developer (the window): leaves the note of their
        /// last turn for the agent.
        #[serde(default)]
        by_user: bool,
    },
    /// The sessions of a workspace, or every session.
    List {
        /// The workspace (absolute); `None`: every session of the user.
        #[serde(default)]
        workspace: Option<String>,
    },
    /// End a session: the signal (default `TERM`), then `KILL` after the
    /// grace.
    Kill {
        /// Id or name.
        session: String,
        /// `TERM`, `INT`, `HUP`, `KILL`, … (with or without `SIG`).
        #[serde(default)]
        signal: Option<String>,
    },
    /// Hand a session to the developer (`user`), whose input alone it
    /// takes then, or back to agents.
    Control {
        /// Id or name.
        session: String,
        /// Who controls it from now on.
        controller: Controller,
    },
    /// Follow the sessions: the host answers with the list now and again
    /// after each change (output, input, start, end), until the client
    /// hangs up.
    Watch {
        /// The workspace (absolute); `None`: every session of the user.
        #[serde(default)]
        workspace: Option<String>,
    },
    /// The developer's terminal on a session: the host takes it over for
    /// them, answers with [`Reply::Output`] (a repaint of the screen, then
    /// the output as it comes), and reads [`AttachMessage`] lines from the
    /// client until it detaches or hangs up; then agents have it back.
    Attach {
        /// Id or name.
        session: String,
        /// The developer's terminal's rows.
        rows: u16,
        /// Its columns.
        cols: u16,
    },
    /// The patterns a session's expects matched, with what was sent
    /// after each (for `save-config`).
    History {
        /// Id or name.
        session: String,
    },
    /// Change the terminal's size.
    Resize {
        /// Id or name.
        session: String,
        /// Rows.
        rows: u16,
        /// Columns.
        cols: u16,
    },
}

/// What an attached client sends after [`Request::Attach`], one per line.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttachMessage {
    /// Keys typed, base64.
    Input(String),
    /// The developer's terminal changed size.
    Resize {
        /// Rows.
        rows: u16,
        /// Columns.
        cols: u16,
    },
    /// Detach: agents have the session back.
    Detach,
}

/// `session start`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StartRequest {
    /// The program (exec'd, not run through a shell).
    pub program: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// A name, unique among live sessions.
    #[serde(default)]
    pub name: Option<String>,
    /// The folder it starts in (absolute).
    pub cwd: String,
    /// The caller's environment: the program's, under `env`.
    #[serde(default)]
    pub base_env: Vec<(String, String)>,
    /// Variables set over the caller's environment.
    #[serde(default)]
    pub env: Vec<(String, String)>,
    /// Rows (default 24).
    #[serde(default)]
    pub rows: Option<u16>,
    /// Columns (default 80).
    #[serde(default)]
    pub cols: Option<u16>,
    /// The workspace it belongs to (absolute).
    #[serde(default)]
    pub workspace: Option<String>,
    /// Record it as a tape in the workspace's `tapes/` when it ends.
    #[serde(default)]
    pub record: bool,
    /// Prompts the program is known to show (learnt in an earlier session
    /// of it), so a wait knows them at once instead of letting a line that
    /// only looks like a prompt settle first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prompts: Vec<String>,
    /// The investigation, test, fuzz run or chain it is part of
    /// (`ProgramSession::run`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// The agent whose token started it over HTTP
    /// (`ProgramSession::started_by`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_by: Option<String>,
    /// The started agent it runs (`ProgramSession::launch`): no idle or
    /// runtime limit ends it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch: Option<String>,
}

/// What a send types.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Input {
    /// Text as given.
    Text(String),
    /// Text and Enter.
    Line(String),
    /// A named key.
    Key(Key),
}

/// One thing an expect waits for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pattern {
    /// A regular expression (Rust's syntax, over bytes).
    Regex(String),
    /// These exact characters.
    Exact(String),
    /// The program's output ended.
    Eof,
}

/// What a wait waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WaitFor {
    /// The program shows a prompt (one learnt from what it showed before
    /// input, else one that looks like a prompt) after the last input.
    Prompt,
    /// No output for this many milliseconds.
    Quiet(u64),
    /// The program answered the last input: it shows a prompt (one it
    /// showed before input at once, any line that looks like one once it
    /// settles — so a new mode's prompt counts), was quiet this many
    /// milliseconds, or ended. What an investigator waits for after each
    /// question.
    Answer(u64),
    /// The program ended.
    Exit,
}

/// One line from the host.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reply {
    /// Still waiting.
    Progress(Progress),
    /// The sessions after a change (to [`Request::Watch`]).
    Changed(Vec<ProgramSession>),
    /// Output for an attached terminal, base64 (to [`Request::Attach`]).
    Output(String),
    /// What the developer did while they held the session, sent before
    /// the answer to the agent's first read, expect or wait after they
    /// handed it back.
    HandedBack(Box<HandBack>),
    /// The answer.
    Done(Box<Response>),
    /// The request failed.
    Failed(ErrorPayload),
}

/// How a long wait is going.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Progress {
    /// Milliseconds waited so far.
    pub waited_ms: u64,
    /// Of how many.
    pub timeout_ms: u64,
    /// Output bytes seen since the wait began.
    pub output_bytes: u64,
}

/// The host's answers.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Response {
    /// To [`Request::Hello`].
    Hello {
        /// The host's protocol version.
        version: u32,
        /// The host's process id.
        pid: u32,
    },
    /// A session, as it is now.
    Session(ProgramSession),
    /// Sessions.
    Sessions {
        /// Newest first.
        sessions: Vec<ProgramSession>,
    },
    /// Input was typed.
    Sent {
        /// The output position when it was typed: a read from here shows
        /// what it drew.
        cursor: u64,
    },
    /// An expect ended.
    Expected(ExpectOutcome),
    /// A wait ended.
    Waited(WaitOutcome),
    /// Output read.
    Output(Output),
    /// A session's expect history, oldest first.
    History {
        /// The session.
        session: ProgramSession,
        /// `(pattern, sent after it)`.
        steps: Vec<(String, Option<String>)>,
    },
}

/// How an expect ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum ExpectOutcome {
    /// A pattern matched.
    Matched {
        /// Which (0-based, in the order given).
        index: usize,
        /// The output between the cursor and the match (echo of input
        /// left out).
        before: String,
        /// What matched (empty for `eof`).
        matched: String,
        /// The expect cursor now: just past the match.
        cursor: u64,
    },
    /// Nothing matched in time.
    Timeout {
        /// The last of the output, to see where it stands.
        tail: String,
        /// The expect cursor (unchanged).
        cursor: u64,
    },
    /// The output ended without a match (and `eof` was not asked for).
    Eof {
        /// What came after the cursor.
        before: String,
        /// How the program ended, if known yet.
        exit: Option<ExitStatus>,
    },
}

/// How a wait ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum WaitOutcome {
    /// At a prompt.
    Prompt {
        /// The prompt's line.
        prompt: String,
        /// What the program printed since the last input (echo left out).
        output: String,
        /// The end of the output.
        cursor: u64,
        /// The program hides what is typed at it (a password prompt).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        wants_secret: bool,
    },
    /// Quiet for the time asked.
    Quiet {
        /// The end of the output.
        cursor: u64,
        /// What the program printed since the last input (echo left out).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        output: String,
        /// Microseconds from the last input to the last output after it (0
        /// when none came): how long the program took to answer.
        #[serde(default)]
        answered_us: u64,
    },
    /// The program ended.
    Exit {
        /// How.
        exit: ExitStatus,
        /// What it printed since the last input (echo left out).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        output: String,
    },
    /// Not in time.
    Timeout {
        /// The last of the output.
        tail: String,
        /// The end of the output.
        cursor: u64,
    },
}

/// Output read from a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Output {
    /// The output from the cursor on (as UTF-8, invalid bytes replaced;
    /// secrets masked).
    pub text: String,
    /// Where this read started (at least the `since` asked).
    pub from: u64,
    /// Where the next read starts.
    pub cursor: u64,
    /// Bytes that fell out of the buffer before this reader came back.
    pub missed: u64,
    /// The screen, one string per row, when asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen: Option<Vec<String>>,
    /// The session as it is now.
    pub session: ProgramSession,
}

/// An argument of a request that does not say what it must.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ArgumentError {
    /// Both text and a key, or neither.
    #[error("give exactly one of the text to type and a key")]
    Input,
    /// A key name that is not one.
    #[error(transparent)]
    Key(#[from] switchboard_model::program::key::KeyError),
    /// A variable not written `KEY=VALUE`.
    #[error("{0:?} is not KEY=VALUE")]
    Variable(String),
    /// A time that is not a number of seconds.
    #[error("a timeout is a number of seconds, not {0}")]
    Timeout(f64),
}

impl Input {
    /// What a send types: a named key, or text (with Enter after it when
    /// `line`); exactly one of the two.
    pub fn of(text: Option<String>, line: bool, key: Option<&str>) -> Result<Self, ArgumentError> {
        let key = key.map(str::parse::<Key>).transpose()?;
        match (key, text) {
            (Some(key), None) => Ok(Self::Key(key)),
            (None, Some(text)) if line => Ok(Self::Line(text)),
            (None, Some(text)) => Ok(Self::Text(text)),
            _ => Err(ArgumentError::Input),
        }
    }
}

impl Pattern {
    /// A pattern as given on a command line or to a tool: `eof` (or
    /// `EOF`) for the end of the output, else a regular expression, or
    /// exact text with `exact`.
    pub fn of(word: String, exact: bool) -> Self {
        match word.as_str() {
            "eof" | "EOF" => Self::Eof,
            _ if exact => Self::Exact(word),
            _ => Self::Regex(word),
        }
    }
}

/// `KEY=VALUE` pairs as variables.
pub fn variables(pairs: &[String]) -> Result<Vec<(String, String)>, ArgumentError> {
    pairs
        .iter()
        .map(|pair| {
            pair.split_once('=')
                .map(|(key, value)| (key.to_owned(), value.to_owned()))
                .ok_or_else(|| ArgumentError::Variable(pair.clone()))
        })
        .collect()
}

/// Seconds as whole milliseconds (a time too long for them: the longest).
pub fn timeout_millis(secs: f64) -> Result<u64, ArgumentError> {
    if !secs.is_finite() || secs < 0.0 {
        return Err(ArgumentError::Timeout(secs));
    }
    Ok(std::time::Duration::from_secs_f64(secs)
        .as_millis()
        .try_into()
        .unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn arguments_read_as_every_edge_reads_them() {
        assert!(
            matches!(Input::of(Some("ls".into()), true, None), Ok(Input::Line(text)) if text == "ls")
        );
        assert!(matches!(
            Input::of(None, false, Some("ctrl-c")),
            Ok(Input::Key(_))
        ));
        assert_eq!(
            Input::of(None, false, None).unwrap_err(),
            ArgumentError::Input
        );
        assert_eq!(
            Input::of(Some("x".into()), false, Some("esc")).unwrap_err(),
            ArgumentError::Input
        );
        assert!(matches!(
            Input::of(None, false, Some("hyper")),
            Err(ArgumentError::Key(_))
        ));
        assert_eq!(Pattern::of("eof".into(), false), Pattern::Eof);
        assert_eq!(
            Pattern::of("a.b".into(), true),
            Pattern::Exact("a.b".into())
        );
        assert_eq!(
            variables(&["A=b=c".into()]).unwrap(),
            [("A".to_owned(), "b=c".to_owned())]
        );
        assert!(variables(&["A".into()]).is_err());
        assert_eq!(timeout_millis(1.5), Ok(1_500));
        assert!(timeout_millis(-1.0).is_err() && timeout_millis(f64::NAN).is_err());
    }
}
