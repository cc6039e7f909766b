//! One connection: a request line in, progress while a wait is long, one
//! answer out. A client that hangs up ends its wait, never the program.

use std::{path::Path, sync::Arc, time::Duration};

use nix::sys::signal::Signal;
use switchboard_model::{
    ErrorCode, ErrorPayload,
    program::{self, Controller, EndReason, ProgramSession},
};
use tokio::{
    io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader},
    net::{
        UnixStream,
        unix::{OwnedReadHalf, OwnedWriteHalf},
    },
};

use super::{Host, hosted::HostedSession, waits};
use crate::protocol::{
    AttachMessage, Envelope, Input, Output, Progress, Reply, Request, Response, StartRequest,
    VERSION,
};
use switchboard_store::clock;

/// The longest request line taken (a start carries the caller's
/// environment).
const MAX_REQUEST: u64 = 4 * 1024 * 1024;
/// How often a long wait reports progress.
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

type Answer = Result<Response, ErrorPayload>;

fn invalid(message: impl Into<String>) -> ErrorPayload {
    ErrorPayload::new(ErrorCode::InvalidRequest, message)
}

/// Serves one connection.
pub async fn connection(host: &Arc<Host>, stream: UnixStream) {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    let mut line = String::new();
    let request = match (&mut reader).take(MAX_REQUEST).read_line(&mut line).await {
        Ok(0) | Err(_) => return,
        Ok(_) => serde_json::from_str::<Envelope>(&line),
    };
    let answer = match request {
        Err(error) => Err(invalid(format!("not a request: {error}"))),
        Ok(envelope) if envelope.version != VERSION => Err(ErrorPayload::new(
            ErrorCode::Unavailable,
            format!(
                "the session host speaks protocol {VERSION}, this client {}; end the host (`switchboard session list --all` shows its sessions) and try again",
                envelope.version
            ),
        )),
        Ok(envelope) => answer(host, envelope.request, reader, &mut write).await,
    };
    let reply = match answer {
        Ok(response) => Reply::Done(Box::new(response)),
        Err(error) => Reply::Failed(error),
    };
    let _ = send(&mut write, &reply).await;
}

async fn send(write: &mut OwnedWriteHalf, reply: &Reply) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(reply).map_err(std::io::Error::other)?;
    line.push(b'\n');
    write.write_all(&line).await
}

fn find(host: &Host, reference: &str) -> Result<Arc<HostedSession>, ErrorPayload> {
    let sessions = host.sessions();
    let matches = |session: &&Arc<HostedSession>| {
        let core = session.core();
        core.info.id == reference || core.info.name.as_deref() == Some(reference)
    };
    // A live session first, else the newest ended one of that name.
    sessions
        .iter()
        .filter(matches)
        .find(|session| !session.core().ended())
        .or_else(|| sessions.iter().rev().find(matches))
        .cloned()
        .ok_or_else(|| {
            if let Some(lost) = host
                .lost
                .iter()
                .find(|info| info.id == reference || info.name.as_deref() == Some(reference))
            {
                return ErrorPayload::new(
                    ErrorCode::Unavailable,
                    format!(
                        "session {} was lost: the host that held it was killed, and its program ended with it",
                        lost.label()
                    ),
                );
            }
            ErrorPayload::new(
                ErrorCode::NotFound,
                format!("no session {reference:?} (see `switchboard session list --all`)"),
            )
        })
}

async fn answer(
    host: &Arc<Host>,
    request: Request,
    read: BufReader<OwnedReadHalf>,
    write: &mut OwnedWriteHalf,
) -> Answer {
    match request {
        Request::Hello => Ok(Response::Hello {
            version: VERSION,
            pid: std::process::id(),
        }),
        Request::Start(start) => self::start(host, *start),
        Request::List { workspace } => Ok(Response::Sessions {
            sessions: host.listed(workspace.as_deref()),
        }),
        Request::Watch { workspace } => {
            host.watchers
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            watch(host, workspace.as_deref(), read, write).await;
            host.watchers
                .fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
            Err(cancelled())
        }
        Request::Attach {
            session,
            rows,
            cols,
        } => {
            let session = find(host, &session)?;
            attach(&session, rows, cols, read, write).await;
            Ok(Response::Session(session.core().snapshot()))
        }
        Request::History { session } => {
            let session = find(host, &session)?;
            let core = session.core();
            Ok(Response::History {
                session: core.snapshot(),
                steps: core.history.clone(),
            })
        }
        Request::Control {
            session,
            controller,
        } => {
            let session = find(host, &session)?;
            session.set_controller(controller);
            Ok(Response::Session(session.core().snapshot()))
        }
        Request::Send {
            session,
            input,
            secret,
            by_user,
        } => {
            let session = find(host, &session)?;
            {
                let core = session.core();
                if core.ended() {
                    return Err(invalid(format!(
                        "session {} has ended ({})",
                        core.info.label(),
                        core.info.state.as_str()
                    )));
                }
                if core.info.controller == Controller::User && !by_user {
                    return Err(ErrorPayload::new(
                        ErrorCode::Unavailable,
                        format!(
                            "the developer has taken session {} over; wait until they hand it back",
                            core.info.label()
                        ),
                    ));
                }
            }
            let bytes = match input {
                Input::Text(text) => text.into_bytes(),
                Input::Line(text) => {
                    let mut bytes = text.into_bytes();
                    bytes.push(b'\r');
                    bytes
                }
                Input::Key(key) => key.bytes(session.app_cursor()),
            };
            let typing = Arc::clone(&session);
            let cursor = tokio::task::spawn_blocking(move || typing.type_bytes(&bytes, secret))
                .await
                .map_err(|error| ErrorPayload::new(ErrorCode::Internal, error.to_string()))?
                .map_err(|error| ErrorPayload::new(ErrorCode::Io, error.to_string()))?;
            Ok(Response::Sent { cursor })
        }
        Request::Expect {
            session,
            patterns,
            timeout_ms,
        } => {
            let session = find(host, &session)?;
            if patterns.is_empty() {
                return Err(invalid("expect needs at least one pattern"));
            }
            let compiled = waits::compile(&patterns).map_err(invalid)?;
            let wait = waits::expect(
                Arc::clone(&session),
                compiled,
                Duration::from_millis(timeout_ms),
            );
            let outcome = long(wait, read, write, &session, timeout_ms)
                .await
                .unwrap_or(Err(cancelled()))?;
            tell_hand_back(&session, write).await;
            Ok(Response::Expected(outcome))
        }
        Request::Wait {
            session,
            until,
            timeout_ms,
        } => {
            let session = find(host, &session)?;
            let wait = waits::wait(
                Arc::clone(&session),
                until,
                Duration::from_millis(timeout_ms),
            );
            let outcome = long(wait, read, write, &session, timeout_ms)
                .await
                .unwrap_or(Err(cancelled()))?;
            tell_hand_back(&session, write).await;
            Ok(Response::Waited(outcome))
        }
        Request::Read {
            session,
            since,
            screen,
            wait_ms,
            tail,
            by_user,
        } => {
            let session = find(host, &session)?;
            if let (Some(wait_ms), Some(since)) = (wait_ms, since) {
                let wait = waits::output_after(
                    Arc::clone(&session),
                    since,
                    Duration::from_millis(wait_ms),
                );
                if long(wait, read, write, &session, wait_ms).await.is_none() {
                    return Err(cancelled());
                }
            }
            if !by_user {
                tell_hand_back(&session, write).await;
            }
            let mut core = session.core();
            let start = core.buffer.start();
            let end = core.buffer.end();
            let asked = since.unwrap_or(start);
            let mut from = asked.clamp(start, end);
            if let Some(tail) = tail {
                from = from.max(end.saturating_sub(tail));
            }
            let bytes = core.buffer.bytes_from(from);
            // A character split across reads waits for the next one; one
            // cut at the start of a tail is passed over.
            let skip = if from > asked.max(start) {
                bytes
                    .iter()
                    .take(3)
                    .take_while(|byte| (**byte & 0xC0) == 0x80)
                    .count()
            } else {
                0
            };
            let bytes = &bytes[skip..];
            let from = from + skip as u64;
            let complete = match std::str::from_utf8(bytes) {
                Ok(_) => bytes.len(),
                Err(error) if error.error_len().is_none() => error.valid_up_to(),
                Err(_) => bytes.len(),
            };
            Ok(Response::Output(Output {
                text: String::from_utf8_lossy(&bytes[..complete]).into_owned(),
                from,
                cursor: from + complete as u64,
                missed: from.saturating_sub(asked),
                screen: screen.then(|| core.screen_text()),
                session: core.snapshot(),
            }))
        }
        Request::Kill { session, signal } => {
            let session = find(host, &session)?;
            let signal = parse_signal(signal.as_deref())?;
            session.kill(
                signal,
                Duration::from_secs(host.limits.kill_grace_secs),
                EndReason::Killed,
            );
            // Answered once it has ended (or the grace and KILL did it).
            let grace = Duration::from_secs(host.limits.kill_grace_secs + 5);
            let _ = waits::wait(Arc::clone(&session), crate::protocol::WaitFor::Exit, grace).await;
            Ok(Response::Session(session.core().snapshot()))
        }
        Request::Resize {
            session,
            rows,
            cols,
        } => {
            let session = find(host, &session)?;
            if rows == 0 || cols == 0 {
                return Err(invalid("rows and columns must be at least 1"));
            }
            session.resize(rows, cols);
            Ok(Response::Session(session.core().snapshot()))
        }
    }
}

/// How often a watcher hears of changes at most.
const WATCH_EVERY: Duration = Duration::from_millis(50);

/// Sends the sessions now and after each change (at most every
/// [`WATCH_EVERY`]), until the client hangs up.
async fn watch(
    host: &Host,
    workspace: Option<&str>,
    mut read: BufReader<OwnedReadHalf>,
    write: &mut OwnedWriteHalf,
) {
    let mut changes = host.changed.subscribe();
    let mut probe = [0_u8; 1];
    loop {
        changes.borrow_and_update();
        if send(write, &Reply::Changed(host.listed(workspace)))
            .await
            .is_err()
        {
            return;
        }
        // A change after a quiet spell is told at once; changes in a
        // stream (a program printing) at most every WATCH_EVERY.
        let sent = tokio::time::Instant::now();
        tokio::select! {
            _ = read.read(&mut probe) => return,
            changed = changes.changed() => {
                if changed.is_err() {
                    return;
                }
                tokio::time::sleep_until(sent + WATCH_EVERY).await;
            }
        }
    }
}

/// The developer's terminal on `session` until they detach, hang up or
/// the program ends; agents have it back afterwards.
async fn attach(
    session: &Arc<HostedSession>,
    rows: u16,
    cols: u16,
    read: BufReader<OwnedReadHalf>,
    write: &mut OwnedWriteHalf,
) {
    use base64::{Engine, engine::general_purpose::STANDARD};
    session.set_controller(Controller::User);
    if rows > 0 && cols > 0 {
        session.resize(rows, cols);
    }
    let mut changes = session.subscribe();
    let (repaint, mut cursor) = {
        let mut core = session.core();
        let mut repaint = String::from("\x1b[H\x1b[2J");
        repaint.push_str(&core.screen_text().join("\r\n"));
        (repaint, core.buffer.end())
    };
    let mut lines = read.lines();
    if send(write, &Reply::Output(STANDARD.encode(repaint)))
        .await
        .is_ok()
    {
        loop {
            let (fresh, ended) = {
                let core = session.core();
                let fresh = core.buffer.bytes_from(cursor);
                cursor = core.buffer.end();
                (fresh, core.ended() && core.eof)
            };
            if !fresh.is_empty()
                && send(write, &Reply::Output(STANDARD.encode(&fresh)))
                    .await
                    .is_err()
            {
                break;
            }
            if ended {
                break;
            }
            tokio::select! {
                changed = changes.changed() => {
                    if changed.is_err() {
                        break;
                    }
                }
                line = lines.next_line() => {
                    let Ok(Some(line)) = line else { break };
                    match serde_json::from_str::<AttachMessage>(&line) {
                        Ok(AttachMessage::Input(data)) => {
                            let Ok(bytes) = STANDARD.decode(data) else { continue };
                            let typing = Arc::clone(session);
                            let typed = tokio::task::spawn_blocking(move || {
                                typing.type_bytes(&bytes, false)
                            })
                            .await;
                            if !matches!(typed, Ok(Ok(_))) {
                                break;
                            }
                        }
                        Ok(AttachMessage::Resize { rows, cols }) if rows > 0 && cols > 0 => {
                            session.resize(rows, cols);
                        }
                        Ok(AttachMessage::Resize { .. }) => {}
                        Ok(AttachMessage::Detach) | Err(_) => break,
                    }
                }
            }
        }
    }
    session.set_controller(Controller::Agent);
}

/// Tells the agent what the developer did in their last turn, if it has
/// not heard yet (a line before the answer). A note that cannot be sent is
/// kept for the next request.
async fn tell_hand_back(session: &HostedSession, write: &mut OwnedWriteHalf) {
    if let Some(note) = session.take_hand_back() {
        let reply = Reply::HandedBack(Box::new(note));
        if send(write, &reply).await.is_err()
            && let Reply::HandedBack(note) = reply
        {
            session.core().handed_back.get_or_insert(*note);
        }
    }
}

fn cancelled() -> ErrorPayload {
    ErrorPayload::new(ErrorCode::Unavailable, "the client hung up")
}

/// Runs a wait, reporting progress each second; `None` when the client
/// hung up first.
async fn long<T>(
    wait: impl Future<Output = T>,
    mut read: BufReader<OwnedReadHalf>,
    write: &mut OwnedWriteHalf,
    session: &HostedSession,
    timeout_ms: u64,
) -> Option<Result<T, ErrorPayload>> {
    let began = tokio::time::Instant::now();
    let start_bytes = session.core().buffer.end();
    let mut ticks = tokio::time::interval_at(began + PROGRESS_EVERY, PROGRESS_EVERY);
    let mut wait = std::pin::pin!(wait);
    let mut probe = [0_u8; 1];
    loop {
        tokio::select! {
            outcome = &mut wait => return Some(Ok(outcome)),
            // Anything (or nothing: end of file) from the client now means
            // it is done with this request.
            _ = read.read(&mut probe) => return None,
            _ = ticks.tick() => {
                let progress = Progress {
                    waited_ms: u64::try_from(began.elapsed().as_millis()).unwrap_or(u64::MAX),
                    timeout_ms,
                    output_bytes: session.core().buffer.end() - start_bytes,
                };
                if send(write, &Reply::Progress(progress)).await.is_err() {
                    return None;
                }
            }
        }
    }
}

fn parse_signal(name: Option<&str>) -> Result<Signal, ErrorPayload> {
    let Some(name) = name else {
        return Ok(Signal::SIGTERM);
    };
    let upper = name.trim().to_ascii_uppercase();
    let full = if upper.starts_with("SIG") {
        upper
    } else {
        format!("SIG{upper}")
    };
    if let Ok(number) = name.trim().parse::<i32>() {
        return Signal::try_from(number).map_err(|_| invalid(format!("{name:?} is not a signal")));
    }
    full.parse::<Signal>().map_err(|_| {
        invalid(format!(
            "{name:?} is not a signal (TERM, INT, HUP, KILL, …)"
        ))
    })
}

fn start(host: &Host, start: StartRequest) -> Answer {
    if let Some(name) = &start.name {
        program::check_name(name).map_err(|error| invalid(error.to_string()))?;
        if let Some(taken) = host.sessions().iter().find(|session| {
            let core = session.core();
            !core.ended() && core.info.name.as_deref() == Some(name)
        }) {
            return Err(invalid(format!(
                "a live session is already named {name:?} ({})",
                taken.core().info.id
            )));
        }
    }
    if start.program.is_empty() {
        return Err(invalid("no program to start"));
    }
    let words = std::iter::once(&start.program).chain(&start.args);
    if let Some(word) = words.into_iter().find(|word| word.contains('\0')) {
        return Err(invalid(format!(
            "{word:?} holds a NUL byte, which no program can be given"
        )));
    }
    if let Some((key, _)) = start
        .env
        .iter()
        .find(|(key, value)| key.is_empty() || key.contains(['=', '\0']) || value.contains('\0'))
    {
        return Err(invalid(format!(
            "{key:?} is not an environment variable (a name without '=' or NUL, a value without NUL)"
        )));
    }
    if start.record && start.workspace.is_none() {
        return Err(invalid(
            "a session is recorded into its workspace's tapes: start it from a workspace",
        ));
    }
    let cwd = Path::new(&start.cwd);
    if !cwd.is_absolute() || !cwd.is_dir() {
        return Err(invalid(format!("{:?} is not a folder", start.cwd)));
    }
    let running = host.running();
    if running >= host.limits.max_sessions {
        return Err(ErrorPayload::new(
            ErrorCode::LimitReached,
            format!(
                "{running} sessions are live, the most allowed (SWITCHBOARD_MAX_SESSIONS); kill one first"
            ),
        ));
    }
    let mut env = start.base_env;
    for (key, value) in start.env {
        env.retain(|(known, _)| *known != key);
        env.push((key, value));
    }
    let started = clock::now();
    let info = ProgramSession {
        name: start.name,
        workspace: start.workspace,
        recording: start.record,
        run: start.run,
        started_by: start.started_by,
        launch: start.launch,
        rows: start.rows.unwrap_or(24).max(1),
        cols: start.cols.unwrap_or(80).max(1),
        ..ProgramSession::starting(
            program::session_id(fastrand::u64(..)),
            start.program,
            start.args,
            start.cwd,
            started,
        )
    };
    let session = HostedSession::start(info, &env, &host.limits, Arc::clone(&host.changed))
        .map_err(|error| {
            let code = match error {
                crate::pty::PtyError::Spawn { .. } => ErrorCode::NotFound,
                _ => ErrorCode::Io,
            };
            ErrorPayload::new(code, error.to_string())
        })?;
    let info = {
        let mut core = session.core();
        for known in start.prompts.iter().take(program::prompt::MAX_PROMPTS) {
            core.prompts.learn(known);
        }
        core.snapshot()
    };
    host.sessions
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .push(session);
    host.changed.send_modify(|generation| *generation += 1);
    host.remember();
    Ok(Response::Session(info))
}
