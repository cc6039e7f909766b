//! The program-session tools: `session_start`, `session_send`,
//! `session_expect`, `session_wait`, `session_read`, `session_list`,
//! `session_kill` — each a thin call over the session host's client, the
//! same words as `switchboard session …`. A long wait sends progress
//! notifications; a cancelled call hangs up, which stops the wait, never
//! the program. The first expect, wait or read after the developer handed
//! a session back carries what they did (`handed_back`).

mod views;

use rmcp::{
    Json, Peer, RoleServer, handler::server::wrapper::Parameters, model::RequestMetaObject, tool,
    tool_router,
};
use switchboard_session::protocol::{
    ArgumentError, Input, Pattern, Progress, StartRequest, WaitFor, timeout_millis, variables,
};
use tokio_util::sync::CancellationToken;

use super::{
    Server, ToolError, host_client,
    progress::{self, Bridge, Reporter, Step},
};
pub use views::*;

/// Seconds an expect or wait waits unless told.
pub(super) const DEFAULT_TIMEOUT_SECS: f64 = 30.0;

fn millis(timeout: Option<f64>) -> Result<u64, ToolError> {
    timeout_millis(timeout.unwrap_or(DEFAULT_TIMEOUT_SECS)).map_err(invalid)
}

/// An argument that does not say what it must, as a tool error.
fn invalid(error: ArgumentError) -> ToolError {
    ToolError::invalid(error.to_string())
}

/// A host wait's progress lines as the bridge's steps: seconds waited of
/// the timeout, and the output seen so far.
fn waiting(reporter: Reporter) -> impl FnMut(Progress) + Send + 'static {
    move |step: Progress| {
        reporter.step(Step {
            progress: step.waited_ms as f64 / 1000.0,
            total: Some(step.timeout_ms as f64 / 1000.0),
            message: format!("waiting; {} bytes of output so far", step.output_bytes),
        });
    }
}

impl Server {
    /// `session_expect`, its steps and cancellation through `bridge`.
    pub(super) async fn expecting(
        &self,
        args: ExpectArgs,
        bridge: Bridge<'_>,
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
        let client = host_client()?;
        let session = args.session;
        let (reporter, steps) = progress::channel();
        let (outcome, note) = bridge
            .run(
                client.expect_noted(&session, patterns, timeout, waiting(reporter)),
                steps,
                "the wait stopped; the program runs on",
            )
            .await?
            .map_err(|error| ToolError(error.payload()))?;
        Ok(Json(ExpectView {
            handed_back: note.map(HandBackView::from),
            ..outcome.into()
        }))
    }

    /// `session_wait`, its steps and cancellation through `bridge`.
    pub(super) async fn waiting_for(
        &self,
        args: WaitArgs,
        bridge: Bridge<'_>,
    ) -> Result<Json<WaitView>, ToolError> {
        let until = match args.until {
            WaitKind::Prompt => WaitFor::Prompt,
            WaitKind::Quiet => WaitFor::Quiet(args.quiet_ms.unwrap_or(500)),
            WaitKind::Exit => WaitFor::Exit,
        };
        let timeout = millis(args.timeout)?;
        let client = host_client()?;
        let session = args.session;
        let (reporter, steps) = progress::channel();
        let (outcome, note) = bridge
            .run(
                client.wait_noted(&session, until, timeout, waiting(reporter)),
                steps,
                "the wait stopped; the program runs on",
            )
            .await?
            .map_err(|error| ToolError(error.payload()))?;
        Ok(Json(WaitView {
            handed_back: note.map(HandBackView::from),
            ..outcome.into()
        }))
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
            run: None,
            started_by: super::caller(),
            launch: None,
        };
        let client = host_client()?;
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
        let cursor = host_client()?
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
        self.expecting(args, Bridge::new(&meta, &peer, &cancelled))
            .await
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
        self.waiting_for(args, Bridge::new(&meta, &peer, &cancelled))
            .await
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
        let (output, note) = host_client()?
            .read_noted(&args.session, args.since, args.screen)
            .await
            .map_err(|error| ToolError(error.payload()))?;
        Ok(Json(ReadView {
            text: output.text,
            from: output.from,
            cursor: output.cursor,
            missed: output.missed,
            screen: output.screen,
            session: output.session.into(),
            handed_back: note.map(HandBackView::from),
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
        let sessions = host_client()?
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
        let info = host_client()?
            .kill(&args.session, args.signal)
            .await
            .map_err(|error| ToolError(error.payload()))?;
        Ok(Json(info.into()))
    }
}
