//! The program-session tools: `session_start`, `session_send`,
//! `session_expect`, `session_wait`, `session_read`, `session_list`,
//! `session_kill` — each a thin call over the session host's client, the
//! same words as `switchboard session …`. A long wait sends progress
//! notifications; a cancelled call hangs up, which stops the wait, never
//! the program.

use rmcp::{
    Json, Peer, RoleServer,
    handler::server::wrapper::Parameters,
    model::{ProgressNotificationParam, RequestMetaObject},
    tool, tool_router,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use switchboard_model::program::{Controller, SessionInfo};
use switchboard_session::{
    Client,
    protocol::{
        ArgumentError, ExpectOutcome, Input, Pattern, Progress, StartRequest, WaitFor, WaitOutcome,
        timeout_millis, variables,
    },
};
use tokio_util::sync::CancellationToken;

use super::{Server, ToolError};

/// Seconds an expect or wait waits unless told.
const DEFAULT_TIMEOUT_SECS: f64 = 30.0;

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
}

impl From<SessionInfo> for SessionView {
    fn from(info: SessionInfo) -> Self {
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

fn client() -> Result<Client, ToolError> {
    Client::new().map_err(|error| ToolError(error.payload()))
}

fn millis(timeout: Option<f64>) -> Result<u64, ToolError> {
    timeout_millis(timeout.unwrap_or(DEFAULT_TIMEOUT_SECS)).map_err(invalid)
}

/// An argument that does not say what it must, as a tool error.
fn invalid(error: ArgumentError) -> ToolError {
    ToolError::invalid(error.to_string())
}

/// A progress channel: the reporter a client call takes, and its other end.
fn progress_channel() -> (
    impl FnMut(Progress) + Send + 'static,
    tokio::sync::mpsc::UnboundedReceiver<Progress>,
) {
    let (steps, stepped) = tokio::sync::mpsc::unbounded_channel();
    (
        move |step: Progress| {
            let _ = steps.send(step);
        },
        stepped,
    )
}

/// Runs a long call: its progress lines become progress notifications,
/// and a cancelled call hangs up (the host stops waiting).
async fn long<T>(
    call: impl Future<Output = T>,
    mut stepped: tokio::sync::mpsc::UnboundedReceiver<Progress>,
    meta: &RequestMetaObject,
    peer: &Peer<RoleServer>,
    cancelled: &CancellationToken,
) -> Result<T, ToolError> {
    let token = meta.get_progress_token();
    let mut call = std::pin::pin!(call);
    loop {
        tokio::select! {
            done = &mut call => return Ok(done),
            Some(step) = stepped.recv() => {
                if let Some(token) = &token {
                    let waited = step.waited_ms as f64 / 1000.0;
                    let total = step.timeout_ms as f64 / 1000.0;
                    let notification = ProgressNotificationParam::new(token.clone(), waited)
                        .with_total(total)
                        .with_message(format!("waiting; {} bytes of output so far", step.output_bytes));
                    if let Err(error) = peer.notify_progress(notification).await {
                        tracing::debug!(%error, "progress notification not sent");
                    }
                }
            }
            () = cancelled.cancelled() => {
                return Err(ToolError::invalid("the call was cancelled; the program runs on"));
            }
        }
    }
}

#[tool_router(router = session_tools, vis = "pub(super)")]
impl Server {
    /// Starts a program session.
    #[tool(
        description = "Start an interactive program on a pseudo-terminal that outlives this call \
                       (a REPL, a database shell, an installer): returns the session (its id, or \
                       the name you gave, is what the other session_ tools take). The program \
                       gets the server's environment plus `env`, and is not run through a shell \
                       unless you name one. The developer can watch it live in Switchboard."
    )]
    pub async fn session_start(
        &self,
        Parameters(args): Parameters<StartArgs>,
    ) -> Result<Json<SessionView>, ToolError> {
        let workspace = self.workspace().root().to_owned();
        let env = variables(&args.env).map_err(invalid)?;
        let cwd = match args.cwd {
            Some(dir) if std::path::Path::new(&dir).is_absolute() => dir,
            Some(dir) => workspace.join(dir).display().to_string(),
            None => workspace.display().to_string(),
        };
        let program = match (args.program, &args.config) {
            (Some(program), _) => program,
            (None, Some(_)) => String::new(),
            (None, None) => {
                return Err(ToolError::invalid("give the program to start, or a config"));
            }
        };
        let request = StartRequest {
            program,
            args: args.args,
            name: args.name,
            cwd,
            base_env: std::env::vars().collect(),
            env,
            rows: args.rows,
            cols: args.cols,
            workspace: Some(workspace.display().to_string()),
            record: args.record,
            prompts: Vec::new(),
        };
        let client = client()?;
        let info = match &args.config {
            Some(name) => switchboard_session::config::start_with(&client, name, request)
                .await
                .map_err(ToolError)?,
            None => client
                .start(request)
                .await
                .map_err(|error| ToolError(error.payload()))?,
        };
        Ok(Json(info.into()))
    }

    /// Types into a session.
    #[tool(
        description = "Type into a program session: text, a line (`line`: Enter after it), or a \
                       named key (`key`: ctrl-c, ctrl-d, esc, up, enter, tab, …). `secret` keeps \
                       a password out of every log, read and view. Returns the output cursor at \
                       the moment it was typed."
    )]
    pub async fn session_send(
        &self,
        Parameters(args): Parameters<SendArgs>,
    ) -> Result<Json<SentView>, ToolError> {
        let input = Input::of(args.text, args.line, args.key.as_deref()).map_err(invalid)?;
        let cursor = client()?
            .send(&args.session, input, args.secret)
            .await
            .map_err(|error| ToolError(error.payload()))?;
        Ok(Json(SentView { cursor }))
    }

    /// Waits for a pattern.
    #[tool(
        description = "Wait, in the server, for the first of several patterns in a session's \
                       output after its expect cursor (each match moves the cursor past it, so \
                       output is never matched twice; the echo of what was typed is never \
                       matched). Returns which matched and the text before it; a timeout is an \
                       outcome with the output's tail, not an error. Progress notifications are \
                       sent while waiting; cancelling stops the wait, not the program."
    )]
    pub async fn session_expect(
        &self,
        Parameters(args): Parameters<ExpectArgs>,
        meta: RequestMetaObject,
        peer: Peer<RoleServer>,
        cancelled: CancellationToken,
    ) -> Result<Json<ExpectView>, ToolError> {
        if args.patterns.is_empty() {
            return Err(ToolError::invalid("give at least one pattern"));
        }
        let patterns: Vec<Pattern> = args
            .patterns
            .into_iter()
            .map(|pattern| Pattern::of(pattern, args.exact))
            .collect();
        let timeout = millis(args.timeout)?;
        let client = client()?;
        let session = args.session;
        let (report, stepped) = progress_channel();
        let outcome = long(
            client.expect(&session, patterns, timeout, report),
            stepped,
            &meta,
            &peer,
            &cancelled,
        )
        .await?
        .map_err(|error| ToolError(error.payload()))?;
        Ok(Json(outcome.into()))
    }

    /// Waits for a prompt, quiet or the end.
    #[tool(
        description = "Wait, in the server, until a session's program shows a prompt after the \
                       last input (learnt from what it showed before earlier input), has been \
                       quiet for `quiet_ms`, or has exited (with its exit code or signal). A \
                       timeout is an outcome with the output's tail. Progress notifications are \
                       sent while waiting; cancelling stops the wait, not the program."
    )]
    pub async fn session_wait(
        &self,
        Parameters(args): Parameters<WaitArgs>,
        meta: RequestMetaObject,
        peer: Peer<RoleServer>,
        cancelled: CancellationToken,
    ) -> Result<Json<WaitView>, ToolError> {
        let until = match args.until {
            WaitKind::Prompt => WaitFor::Prompt,
            WaitKind::Quiet => WaitFor::Quiet(args.quiet_ms.unwrap_or(500)),
            WaitKind::Exit => WaitFor::Exit,
        };
        let timeout = millis(args.timeout)?;
        let client = client()?;
        let session = args.session;
        let (report, stepped) = progress_channel();
        let outcome = long(
            client.wait(&session, until, timeout, report),
            stepped,
            &meta,
            &peer,
            &cancelled,
        )
        .await?
        .map_err(|error| ToolError(error.payload()))?;
        Ok(Json(outcome.into()))
    }

    /// Reads output.
    #[tool(
        description = "Read a session's output since a cursor (no output is lost between reads \
                       while it is in the buffer; `missed` says how much fell out before a late \
                       read), and with `screen` the screen as a person sees it, for full-screen \
                       programs. Pass the returned `cursor` as `since` next time."
    )]
    pub async fn session_read(
        &self,
        Parameters(args): Parameters<ReadArgs>,
    ) -> Result<Json<ReadView>, ToolError> {
        let output = client()?
            .read(&args.session, args.since, args.screen)
            .await
            .map_err(|error| ToolError(error.payload()))?;
        Ok(Json(ReadView {
            text: output.text,
            from: output.from,
            cursor: output.cursor,
            missed: output.missed,
            screen: output.screen,
            session: output.session.into(),
        }))
    }

    /// Lists sessions.
    #[tool(
        description = "List the program sessions started from this workspace (`all`: every \
                       session of the user): name, command, pid, state (running, exited, \
                       killed, lost), start and last activity, and who controls it."
    )]
    pub async fn session_list(
        &self,
        Parameters(args): Parameters<ListArgs>,
    ) -> Result<Json<SessionList>, ToolError> {
        let filter = (!args.all).then(|| self.workspace().root().display().to_string());
        let sessions = client()?
            .list(filter)
            .await
            .map_err(|error| ToolError(error.payload()))?;
        Ok(Json(SessionList {
            sessions: sessions.into_iter().map(SessionView::from).collect(),
        }))
    }

    /// Ends a session.
    #[tool(
        description = "End a program session: the signal (default TERM), then KILL after a short \
                       grace if it is still running. Returns the ended session with its exit \
                       status."
    )]
    pub async fn session_kill(
        &self,
        Parameters(args): Parameters<KillArgs>,
    ) -> Result<Json<SessionView>, ToolError> {
        let info = client()?
            .kill(&args.session, args.signal)
            .await
            .map_err(|error| ToolError(error.payload()))?;
        Ok(Json(info.into()))
    }
}
