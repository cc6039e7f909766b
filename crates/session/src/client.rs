//! The one way to reach the session host, for the CLI, the MCP server and
//! the shell: connect to its socket, starting the host first when none
//! listens, and ask.

use std::{
    io::{BufRead, BufReader as StdBufReader},
    path::PathBuf,
    process::{Command, Stdio},
};

use switchboard_model::{
    ErrorCode, ErrorPayload,
    program::{Controller, ProgramSession, handback::HandBack},
};
use thiserror::Error;
use tokio::{
    io::{AsyncBufReadExt, AsyncWriteExt, BufReader},
    net::UnixStream,
};

use crate::{
    protocol::{
        AttachMessage, Envelope, ExpectOutcome, Input, Output, Pattern, Progress, Reply, Request,
        Response, StartRequest, VERSION, WaitFor, WaitOutcome,
    },
    runtime::{RuntimeDir, RuntimeError},
};

/// The host binary: `$SWITCHBOARD_SESSION_HOST`, else
/// `switchboard-session-host` beside the running binary.
pub fn host_path() -> PathBuf {
    if let Some(path) = std::env::var_os("SWITCHBOARD_SESSION_HOST") {
        return PathBuf::from(path);
    }
    std::env::current_exe()
        .map(|exe| exe.with_file_name("switchboard-session-host"))
        .unwrap_or_else(|_| PathBuf::from("switchboard-session-host"))
}

/// Why a request did not get its answer.
#[derive(Debug, Error)]
pub enum ClientError {
    /// The private folder is missing or not private.
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    /// The host could not be started.
    #[error("could not start the session host {path}: {reason}")]
    Start {
        /// The binary tried.
        path: PathBuf,
        /// Why (its log's last line when it ran and failed).
        reason: String,
    },
    /// The socket failed.
    #[error("could not reach the session host: {0}")]
    Io(#[from] std::io::Error),
    /// No host is running, and this client does not start one
    /// ([`Client::without_starting`]).
    #[error("no session host is running")]
    NotRunning,
    /// The host answered something this client does not understand.
    #[error("the session host answered out of protocol: {0}")]
    Protocol(String),
    /// The host refused or failed the request.
    #[error("{}", .0.message)]
    Refused(ErrorPayload),
}

impl ClientError {
    /// The error as every edge reports it: the host's own code, else
    /// `UNAVAILABLE`.
    pub fn payload(&self) -> ErrorPayload {
        match self {
            Self::Refused(payload) => payload.clone(),
            other => ErrorPayload::new(ErrorCode::Unavailable, other.to_string()),
        }
    }
}

/// How many times a follower tries a socket that does not accept yet, 20 ms
/// apart.
const STARTING_TRIES: u32 = 100;

/// A client of the session host.
#[derive(Debug, Clone)]
pub struct Client {
    runtime: RuntimeDir,
    host: PathBuf,
    host_env: Vec<(String, String)>,
    starts_host: bool,
}

impl Client {
    /// A client of this user's host (which starts at the first request).
    pub fn new() -> Result<Self, ClientError> {
        Ok(Self::at(RuntimeDir::locate()?, host_path()))
    }

    /// A client of the host listening in `runtime`, started from `host`
    /// when none does.
    pub fn at(runtime: RuntimeDir, host: PathBuf) -> Self {
        Self {
            runtime,
            host,
            host_env: Vec::new(),
            starts_host: true,
        }
    }

    /// A client that only talks to a host already running (one that
    /// follows the sessions, say, without keeping a host up).
    pub fn without_starting(mut self) -> Self {
        self.starts_host = false;
        self
    }

    /// Variables a host this client starts gets (its limits, say).
    pub fn with_host_env(mut self, env: Vec<(String, String)>) -> Self {
        self.host_env = env;
        self
    }

    /// The private folder the host listens in.
    pub fn runtime(&self) -> &RuntimeDir {
        &self.runtime
    }

    async fn connect(&self) -> Result<UnixStream, ClientError> {
        let socket = self.runtime.socket();
        match UnixStream::connect(&socket).await {
            Ok(stream) => return Ok(stream),
            Err(error)
                if matches!(
                    error.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused
                ) => {}
            Err(error) => return Err(error.into()),
        }
        if !self.starts_host {
            return Err(ClientError::NotRunning);
        }
        let client = self.clone();
        tokio::task::spawn_blocking(move || start_host(&client))
            .await
            .map_err(|error| ClientError::Protocol(error.to_string()))??;
        Ok(UnixStream::connect(&socket).await?)
    }

    /// Sends `request`; `progress` hears each progress line while the host
    /// waits. Dropping the future hangs up, which ends the host's wait.
    pub async fn call(
        &self,
        request: Request,
        progress: impl FnMut(Progress),
    ) -> Result<Response, ClientError> {
        Ok(self.call_noted(request, progress).await?.0)
    }

    /// [`call`](Self::call), with the note of the developer's last turn
    /// when the host sent one before its answer.
    async fn call_noted(
        &self,
        request: Request,
        mut progress: impl FnMut(Progress),
    ) -> Result<(Response, Option<HandBack>), ClientError> {
        let stream = self.connect().await?;
        let (read, mut write) = stream.into_split();
        let mut line = serde_json::to_vec(&Envelope {
            version: VERSION,
            request,
        })
        .map_err(|error| ClientError::Protocol(error.to_string()))?;
        line.push(b'\n');
        write.write_all(&line).await?;
        let mut lines = BufReader::new(read).lines();
        let mut noted = None;
        loop {
            let Some(line) = lines.next_line().await? else {
                return Err(ClientError::Protocol(
                    "the host closed the connection without an answer".into(),
                ));
            };
            match serde_json::from_str::<Reply>(&line) {
                Ok(Reply::Progress(step)) => progress(step),
                Ok(Reply::Changed(_) | Reply::Output(_)) => {}
                Ok(Reply::HandedBack(note)) => noted = Some(*note),
                Ok(Reply::Done(response)) => return Ok((*response, noted)),
                Ok(Reply::Failed(error)) => return Err(ClientError::Refused(error)),
                Err(error) => return Err(ClientError::Protocol(error.to_string())),
            }
        }
    }

    /// Whether a host answers (starting one if none does); its pid.
    pub async fn hello(&self) -> Result<u32, ClientError> {
        match self.call(Request::Hello, |_| {}).await? {
            Response::Hello { pid, .. } => Ok(pid),
            other => Err(unexpected(&other)),
        }
    }

    /// Starts a program.
    pub async fn start(&self, start: StartRequest) -> Result<ProgramSession, ClientError> {
        session(self.call(Request::Start(Box::new(start)), |_| {}).await?)
    }

    /// Types into a session (as an agent); the output position at that
    /// moment.
    pub async fn send(
        &self,
        session: &str,
        input: Input,
        secret: bool,
    ) -> Result<u64, ClientError> {
        self.send_as(session, input, secret, false).await
    }

    /// Types into a session, as the developer when `by_user` (accepted
    /// while they control it).
    pub async fn send_as(
        &self,
        session: &str,
        input: Input,
        secret: bool,
        by_user: bool,
    ) -> Result<u64, ClientError> {
        let request = Request::Send {
            session: session.to_owned(),
            input,
            secret,
            by_user,
        };
        match self.call(request, |_| {}).await? {
            Response::Sent { cursor } => Ok(cursor),
            other => Err(unexpected(&other)),
        }
    }

    /// Waits for the first of `patterns`.
    pub async fn expect(
        &self,
        session: &str,
        patterns: Vec<Pattern>,
        timeout_ms: u64,
        progress: impl FnMut(Progress),
    ) -> Result<ExpectOutcome, ClientError> {
        Ok(self
            .expect_noted(session, patterns, timeout_ms, progress)
            .await?
            .0)
    }

    /// [`expect`](Self::expect), with what the developer did if they
    /// handed the session back since the agent last heard.
    pub async fn expect_noted(
        &self,
        session: &str,
        patterns: Vec<Pattern>,
        timeout_ms: u64,
        progress: impl FnMut(Progress),
    ) -> Result<(ExpectOutcome, Option<HandBack>), ClientError> {
        let request = Request::Expect {
            session: session.to_owned(),
            patterns,
            timeout_ms,
        };
        match self.call_noted(request, progress).await? {
            (Response::Expected(outcome), note) => Ok((outcome, note)),
            (other, _) => Err(unexpected(&other)),
        }
    }

    /// Waits for a prompt, quiet or the end.
    pub async fn wait(
        &self,
        session: &str,
        until: WaitFor,
        timeout_ms: u64,
        progress: impl FnMut(Progress),
    ) -> Result<WaitOutcome, ClientError> {
        Ok(self
            .wait_noted(session, until, timeout_ms, progress)
            .await?
            .0)
    }

    /// [`wait`](Self::wait), with what the developer did if they handed
    /// the session back since the agent last heard.
    pub async fn wait_noted(
        &self,
        session: &str,
        until: WaitFor,
        timeout_ms: u64,
        progress: impl FnMut(Progress),
    ) -> Result<(WaitOutcome, Option<HandBack>), ClientError> {
        let request = Request::Wait {
            session: session.to_owned(),
            until,
            timeout_ms,
        };
        match self.call_noted(request, progress).await? {
            (Response::Waited(outcome), note) => Ok((outcome, note)),
            (other, _) => Err(unexpected(&other)),
        }
    }

    /// Output since a cursor, and the screen when asked.
    pub async fn read(
        &self,
        session: &str,
        since: Option<u64>,
        screen: bool,
    ) -> Result<Output, ClientError> {
        Ok(self.read_noted(session, since, screen).await?.0)
    }

    /// [`read`](Self::read), with what the developer did if they handed
    /// the session back since the agent last heard.
    pub async fn read_noted(
        &self,
        session: &str,
        since: Option<u64>,
        screen: bool,
    ) -> Result<(Output, Option<HandBack>), ClientError> {
        let request = Request::Read {
            session: session.to_owned(),
            since,
            screen,
            wait_ms: None,
            tail: None,
            by_user: false,
        };
        match self.call_noted(request, |_| {}).await? {
            (Response::Output(output), note) => Ok((output, note)),
            (other, _) => Err(unexpected(&other)),
        }
    }

    /// The developer's view following a session: when nothing came since
    /// `since`, it waits up to `wait_ms` for output; with `tail`, at most
    /// that many of the newest bytes (older ones counted as missed). It
    /// leaves the note of the developer's turn for the agent.
    pub async fn read_following(
        &self,
        session: &str,
        since: Option<u64>,
        screen: bool,
        wait_ms: Option<u64>,
        tail: Option<u64>,
    ) -> Result<Output, ClientError> {
        let request = Request::Read {
            session: session.to_owned(),
            since,
            screen,
            wait_ms,
            tail,
            by_user: true,
        };
        match self.call(request, |_| {}).await? {
            Response::Output(output) => Ok(output),
            other => Err(unexpected(&other)),
        }
    }

    /// The sessions of `workspace`, or all of the user's.
    pub async fn list(
        &self,
        workspace: Option<String>,
    ) -> Result<Vec<ProgramSession>, ClientError> {
        match self.call(Request::List { workspace }, |_| {}).await? {
            Response::Sessions { sessions } => Ok(sessions),
            other => Err(unexpected(&other)),
        }
    }

    /// Ends a session; answered once it has ended.
    pub async fn kill(
        &self,
        session: &str,
        signal: Option<String>,
    ) -> Result<ProgramSession, ClientError> {
        let request = Request::Kill {
            session: session.to_owned(),
            signal,
        };
        self::session(self.call(request, |_| {}).await?)
    }

    /// The patterns a session's expects matched, each with what was sent
    /// after it, and the session.
    pub async fn history(
        &self,
        session: &str,
    ) -> Result<(ProgramSession, Vec<(String, Option<String>)>), ClientError> {
        let request = Request::History {
            session: session.to_owned(),
        };
        match self.call(request, |_| {}).await? {
            Response::History { session, steps } => Ok((session, steps)),
            other => Err(unexpected(&other)),
        }
    }

    /// Hands a session to the developer or back to agents.
    pub async fn control(
        &self,
        session: &str,
        controller: Controller,
    ) -> Result<ProgramSession, ClientError> {
        let request = Request::Control {
            session: session.to_owned(),
            controller,
        };
        self::session(self.call(request, |_| {}).await?)
    }

    /// Follows the sessions of `workspace` (all with `None`): `changed`
    /// hears the list now and after each change. Returns when the host
    /// goes away; dropping the future stops following.
    pub async fn watch(
        &self,
        workspace: Option<String>,
        mut changed: impl FnMut(Vec<ProgramSession>),
    ) -> Result<(), ClientError> {
        let stream = self.connect().await?;
        let (read, mut write) = stream.into_split();
        let mut line = serde_json::to_vec(&Envelope {
            version: VERSION,
            request: Request::Watch { workspace },
        })
        .map_err(|error| ClientError::Protocol(error.to_string()))?;
        line.push(b'\n');
        write.write_all(&line).await?;
        let mut lines = BufReader::new(read).lines();
        while let Some(line) = lines.next_line().await? {
            match serde_json::from_str::<Reply>(&line) {
                Ok(Reply::Changed(sessions)) => changed(sessions),
                Ok(Reply::Failed(error)) => return Err(ClientError::Refused(error)),
                Ok(_) => {}
                Err(error) => return Err(ClientError::Protocol(error.to_string())),
            }
        }
        Ok(())
    }

    /// Follows the sessions (of `workspace`, or all) for as long as the
    /// caller awaits it, without ever starting or keeping up a host:
    /// `changed` hears `Some(sessions)` now and after each change while a
    /// host runs, `None` when it goes; meanwhile the runtime folder is
    /// watched for the next host's socket. Ends only when the folder
    /// cannot be watched.
    pub async fn follow(
        &self,
        workspace: Option<String>,
        mut changed: impl FnMut(Option<Vec<ProgramSession>>),
    ) -> Result<(), ClientError> {
        let follower = self.clone().without_starting();
        let (poke, mut poked) = tokio::sync::mpsc::unbounded_channel();
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                if event.is_ok() {
                    let _ = poke.send(());
                }
            })
            .map_err(|error| ClientError::Io(std::io::Error::other(error)))?;
        notify::Watcher::watch(
            &mut watcher,
            self.runtime.path(),
            notify::RecursiveMode::NonRecursive,
        )
        .map_err(|error| ClientError::Io(std::io::Error::other(error)))?;
        // Tries left to reach a host whose socket exists but does not
        // accept yet (bound, not listening: starting), before waiting for
        // the folder to change again (a stale socket never answers).
        let mut starting = STARTING_TRIES;
        loop {
            while poked.try_recv().is_ok() {}
            let mut heard = false;
            match follower
                .watch(workspace.clone(), |sessions| {
                    heard = true;
                    changed(Some(sessions));
                })
                .await
            {
                Err(ClientError::NotRunning) if starting > 0 && self.runtime.socket().exists() => {
                    starting -= 1;
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                    continue;
                }
                Ok(()) | Err(ClientError::NotRunning | ClientError::Io(_)) => {}
                Err(error) => tracing::warn!(%error, "following the sessions"),
            }
            if heard {
                changed(None);
            }
            if poked.recv().await.is_none() {
                return Ok(());
            }
            starting = STARTING_TRIES;
        }
    }

    /// Attaches the developer's terminal to a session: `output` hears what
    /// to show (a repaint, then the output as it comes); `input` carries
    /// keys, resizes and the detach. Ends when they detach, the program
    /// ends or the host goes; the session as it is then.
    pub async fn attach(
        &self,
        session: &str,
        rows: u16,
        cols: u16,
        mut output: impl FnMut(&[u8]),
        mut input: tokio::sync::mpsc::UnboundedReceiver<AttachMessage>,
    ) -> Result<ProgramSession, ClientError> {
        use base64::{Engine, engine::general_purpose::STANDARD};
        let stream = self.connect().await?;
        let (read, mut write) = stream.into_split();
        let request = Request::Attach {
            session: session.to_owned(),
            rows,
            cols,
        };
        write_line(
            &mut write,
            &Envelope {
                version: VERSION,
                request,
            },
        )
        .await?;
        let mut lines = BufReader::new(read).lines();
        let mut detached = false;
        loop {
            tokio::select! {
                line = lines.next_line() => {
                    let Some(line) = line? else {
                        return Err(ClientError::Protocol("the host closed the connection".into()));
                    };
                    match serde_json::from_str::<Reply>(&line) {
                        Ok(Reply::Output(data)) => {
                            if let Ok(bytes) = STANDARD.decode(data) {
                                output(&bytes);
                            }
                        }
                        Ok(Reply::Done(response)) => return self::session(*response),
                        Ok(Reply::Failed(error)) => return Err(ClientError::Refused(error)),
                        Ok(_) => {}
                        Err(error) => return Err(ClientError::Protocol(error.to_string())),
                    }
                }
                message = input.recv(), if !detached => {
                    let message = message.unwrap_or(AttachMessage::Detach);
                    detached = matches!(message, AttachMessage::Detach);
                    write_line(&mut write, &message).await?;
                }
            }
        }
    }

    /// Changes a session's terminal size.
    pub async fn resize(
        &self,
        session: &str,
        rows: u16,
        cols: u16,
    ) -> Result<ProgramSession, ClientError> {
        let request = Request::Resize {
            session: session.to_owned(),
            rows,
            cols,
        };
        self::session(self.call(request, |_| {}).await?)
    }
}

async fn write_line(
    write: &mut tokio::net::unix::OwnedWriteHalf,
    value: &impl serde::Serialize,
) -> Result<(), ClientError> {
    let mut line =
        serde_json::to_vec(value).map_err(|error| ClientError::Protocol(error.to_string()))?;
    line.push(b'\n');
    write.write_all(&line).await?;
    Ok(())
}

fn session(response: Response) -> Result<ProgramSession, ClientError> {
    match response {
        Response::Session(info) => Ok(info),
        other => Err(unexpected(&other)),
    }
}

fn unexpected(response: &Response) -> ClientError {
    ClientError::Protocol(format!("unexpected answer {response:?}"))
}

/// Starts the host and waits for its `ready` line (it prints one too when
/// another host was first). It leaves the caller's process group and
/// terminal; its stderr goes to its log.
fn start_host(client: &Client) -> Result<(), ClientError> {
    let (host, runtime) = (&client.host, &client.runtime);
    let failed = |reason: String| ClientError::Start {
        path: host.to_owned(),
        reason,
    };
    // The host's own log, in its private runtime folder (checked: ours,
    // 0700, no link).
    #[allow(
        clippy::disallowed_methods,
        reason = "appended to, in the private runtime folder"
    )]
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(runtime.log());
    let log =
        log.map_err(|error| failed(format!("its log {}: {error}", runtime.log().display())))?;
    let mut child = Command::new(host)
        .env("SWITCHBOARD_RUNTIME_DIR", runtime.path())
        .envs(client.host_env.iter().map(|(key, value)| (key, value)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .map_err(|error| failed(error.to_string()))?;
    let mut line = String::new();
    if let Some(stdout) = child.stdout.take() {
        let _ = StdBufReader::new(stdout).read_line(&mut line);
    }
    // Reaped when it ends, so a long-lived client leaves no zombie.
    std::thread::spawn(move || child.wait());
    if line.trim() == "ready" {
        return Ok(());
    }
    let last = switchboard_store::regular::read_to_string_in(
        runtime.path(),
        &runtime.log(),
        switchboard_store::regular::DATA_LIMIT,
    )
    .ok()
    .and_then(|log| log.lines().last().map(str::to_owned))
    .unwrap_or_else(|| "it ended without a word".into());
    Err(failed(last))
}
