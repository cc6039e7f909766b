//! One program session the host holds ([`HostedSession`]): the program on its terminal, its output
//! read continuously on a thread of its own into the bounded buffer and
//! the screen, its end reaped on another, and every change announced to
//! the waits over a watch channel.

use std::{
    io::Read,
    path::Path,
    sync::{Arc, Mutex, MutexGuard, PoisonError},
    time::{Duration, Instant},
};

use nix::sys::signal::Signal;
use portable_pty::PtySize;
use switchboard_model::{
    Timestamp,
    program::{EndReason, ExitStatus, Limits, ProgramSession, SessionState, prompt},
};
use tokio::sync::watch;

use switchboard_model::program::cast::{self, CastEvent};
use switchboard_model::program::{
    Controller,
    handback::{self, HandBack, TypedLines},
    secret::SecretMask,
};
use switchboard_model::tape::record::RecordMode;
use switchboard_store::{
    session_log::{self, SessionLog},
    tapes::{TAPES_DIR, Tapes},
};

use super::buffer::OutputBuffer;
use crate::pty::{
    PtyError,
    live::{Live, Spawn},
};

/// What a session knows, under its lock.
pub struct Core {
    /// As `list` shows it.
    pub info: ProgramSession,
    /// The output kept.
    pub buffer: OutputBuffer,
    /// The screen as a person sees it.
    pub screen: avt::Terminal,
    /// Prompts seen before input.
    pub prompts: prompt::Prompts,
    /// Where the next expect searches from.
    pub expect_cursor: u64,
    /// The output position when input was last typed.
    pub last_input_at: u64,
    /// When output last came.
    pub last_output: Instant,
    /// When input was last typed.
    pub last_input: Instant,
    /// When anything last went in or came out.
    pub last_activity: Instant,
    /// The terminal's output ended.
    pub eof: bool,
    /// When the program was seen to end.
    pub ended_at: Option<Instant>,
    /// Bytes of a UTF-8 character split across reads, for the screen.
    partial: Vec<u8>,
    /// Output not yet put on the screen.
    unfed: Vec<u8>,
    /// The patterns expects matched, in order, each with the line sent
    /// after it (for `save-config`).
    pub history: Vec<(String, Option<String>)>,
    /// Every secret the session was sent, masked in its output before
    /// anything keeps or shows it.
    secrets: SecretMask,
    /// How many reads were taken: a flush of held output waits for a read
    /// count that did not move for [`HOLD_QUIET`].
    reads: u64,
    /// A flush of held output is scheduled.
    flush_scheduled: bool,
    /// The developer's turn, while they hold the session.
    turn: Option<Turn>,
    /// What the developer did in their last turn, for the agent's next
    /// read, expect or wait (taken once).
    pub handed_back: Option<HandBack>,
    /// The session's log in its workspace, while it can be written.
    log: Option<SessionLog>,
    /// When the last event was logged.
    last_event: Instant,
}

impl std::fmt::Debug for Core {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Core")
            .field("info", &self.info)
            .field("expect_cursor", &self.expect_cursor)
            .field("eof", &self.eof)
            .finish_non_exhaustive()
    }
}

impl Core {
    /// Logs `event` (a log that fails is dropped, once, with a warning).
    fn log(&mut self, event: &CastEvent<'_>) {
        let Some(log) = &mut self.log else {
            return;
        };
        let now = Instant::now();
        let after = u64::try_from(now.duration_since(self.last_event).as_millis()).unwrap_or(0);
        self.last_event = now;
        if let Err(error) = log.append(&cast::line(after, event)) {
            tracing::warn!(%error, session = %self.info.id, "the session's log stops here");
            self.log = None;
        }
    }

    /// Logs how the program ended and closes the log; whether there was a
    /// log to close.
    fn close_log(&mut self, exit: ExitStatus) -> bool {
        self.log(&CastEvent::Exit(exit));
        self.log.take().is_some()
    }

    /// Output whose secrets were masked: kept, queued for the screen and
    /// logged (the echo of typed input logged as typed).
    fn take_output(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let echoed = self.buffer.push(bytes);
        self.queue_screen(bytes);
        self.log(&CastEvent::Output {
            bytes,
            echoed: &echoed,
        });
    }

    /// The line the cursor is on, as text.
    pub fn cursor_line(&self) -> String {
        prompt::last_line(&self.buffer.tail(prompt::MAX_PROMPT_LEN * 4))
    }

    /// The session as `list` shows it, its last activity brought up to
    /// date.
    pub fn snapshot(&self) -> ProgramSession {
        let mut info = self.info.clone();
        let now = switchboard_store::clock::now();
        let ago = i64::try_from(self.last_activity.elapsed().as_millis()).unwrap_or(0);
        if let Some(at) = Timestamp::from_unix_millis(now.unix_millis() - ago) {
            info.last_activity = at.max(info.started);
        }
        info
    }

    /// Whether the program has ended (exited, killed, lost).
    pub fn ended(&self) -> bool {
        self.info.state != SessionState::Running
    }

    /// Notes that an expect matched `pattern`.
    pub fn matched(&mut self, pattern: &str) {
        if self.history.len() < MAX_HISTORY {
            self.history.push((pattern.to_owned(), None));
        }
    }

    /// Notes what was typed after the last match (once).
    fn typed(&mut self, bytes: &[u8], masked: bool) {
        if let Some((_, sent @ None)) = self.history.last_mut() {
            let text = if masked {
                "***".to_owned()
            } else {
                String::from_utf8_lossy(bytes)
                    .trim_end_matches(['\r', '\n'])
                    .to_owned()
            };
            *sent = Some(text);
        }
    }

    /// The screen's rows, trailing blanks trimmed (output not yet on the
    /// screen is put there first).
    pub fn screen_text(&mut self) -> Vec<String> {
        self.sync_screen();
        self.screen
            .screen()
            .visible_lines()
            .map(|line| line.text().trim_end().to_owned())
            .collect()
    }

    /// Whether the program asked for application cursor keys.
    pub fn app_cursor(&mut self) -> bool {
        self.sync_screen();
        self.screen.cursor_key_app_mode()
    }

    /// Output waits to be put on the screen until someone looks (the
    /// emulator costs more than reading does); of a flood nobody watched,
    /// only the last [`SCREEN_TAIL`] bytes are put there.
    fn queue_screen(&mut self, bytes: &[u8]) {
        self.unfed.extend_from_slice(bytes);
        if self.unfed.len() > SCREEN_BACKLOG {
            let mut cut = self.unfed.len() - SCREEN_TAIL;
            // From a line's start when one is near.
            if let Some(at) = self.unfed[cut..].iter().position(|&byte| byte == b'\n') {
                cut += at + 1;
            }
            self.unfed.drain(..cut);
            self.partial.clear();
        }
    }

    fn sync_screen(&mut self) {
        if self.unfed.is_empty() {
            return;
        }
        let bytes = std::mem::take(&mut self.unfed);
        self.partial.extend_from_slice(&bytes);
        let valid = match std::str::from_utf8(&self.partial) {
            Ok(text) => text.len(),
            Err(error) if error.error_len().is_none() => error.valid_up_to(),
            Err(_) => self.partial.len(),
        };
        let rest = self.partial.split_off(valid);
        let text = String::from_utf8_lossy(&self.partial).into_owned();
        self.screen.feed(text.as_str());
        self.partial = rest;
    }
}

/// The developer's turn at a session: since when, from where in the
/// output, and what they typed.
#[derive(Debug)]
struct Turn {
    taken_at: Timestamp,
    from: u64,
    lines: TypedLines,
    /// A note the agent had not read yet when the developer took the
    /// session again: this turn goes on from it.
    earlier: Option<HandBack>,
}

impl Core {
    /// The developer takes the session: their turn starts (or goes on
    /// from one the agent has not heard of yet).
    fn begin_turn(&mut self) {
        let earlier = self.handed_back.take();
        self.turn = Some(Turn {
            taken_at: earlier
                .as_ref()
                .map_or_else(switchboard_store::clock::now, |note| note.taken_at),
            from: earlier.as_ref().map_or(self.buffer.end(), |note| note.from),
            lines: TypedLines::new(),
            earlier,
        });
    }

    /// The developer hands the session back: the note of their turn waits
    /// for the agent.
    fn end_turn(&mut self) {
        let Some(turn) = self.turn.take() else {
            return;
        };
        let (mut typed, mut lines_left_out) = turn.lines.finish();
        if let Some(earlier) = turn.earlier {
            lines_left_out += earlier.lines_left_out;
            typed.splice(0..0, earlier.typed);
        }
        let from = turn.from.max(self.buffer.start());
        let end = self.buffer.end();
        let (output, cursor, more_bytes) =
            handback::note_output(&self.buffer.bytes_from(from), from, end);
        self.handed_back = Some(HandBack {
            taken_at: turn.taken_at,
            handed_back_at: switchboard_store::clock::now(),
            typed,
            lines_left_out,
            output,
            from,
            cursor,
            more_bytes,
        });
    }
}

/// How long output that could be the start of a secret is held back when
/// the program goes quiet part way through it.
const HOLD_QUIET: Duration = Duration::from_millis(100);

/// How many matches a session remembers for `save-config`.
const MAX_HISTORY: usize = 1_000;

/// How much output may wait for the screen.
const SCREEN_BACKLOG: usize = 1024 * 1024;
/// How much of a backlog that overflowed is put on the screen.
const SCREEN_TAIL: usize = 64 * 1024;

/// A session the host holds.
#[derive(Debug)]
pub struct HostedSession {
    core: Mutex<Core>,
    live: Mutex<Option<Live>>,
    changed: watch::Sender<u64>,
    /// The host's channel: told of every session's changes.
    host_changed: Arc<watch::Sender<u64>>,
    started: Instant,
}

impl HostedSession {
    /// Starts the program and the threads that read and reap it.
    pub fn start(
        mut info: ProgramSession,
        env: &[(String, String)],
        limits: &Limits,
        host_changed: Arc<watch::Sender<u64>>,
    ) -> Result<Arc<Self>, PtyError> {
        let size = PtySize {
            rows: info.rows,
            cols: info.cols,
            pixel_width: 0,
            pixel_height: 0,
        };
        let (live, reader) = Live::start(&Spawn {
            program: &info.program,
            args: &info.args,
            cwd: Path::new(&info.cwd),
            env,
            inherit_env: false,
            size,
        })?;
        info.pid = Some(live.pid());
        // The program has its arguments; everything after keeps them with
        // their secrets masked (lists, the window, the log, tapes).
        info.args = switchboard_model::program::command_mask::mask_args(&info.args);
        let screen = avt::Terminal::new(usize::from(info.cols), usize::from(info.rows))
            .or_else(|_| avt::Terminal::new(80, 24))
            .map_err(|error| PtyError::Open(error.to_string()))?;
        let waiter = live.waiter();
        let started = Instant::now();
        let log = info.workspace.as_deref().and_then(|workspace| {
            SessionLog::create(
                Path::new(workspace),
                &info.id,
                cast::header(&info),
                limits.log_rotate_bytes,
            )
            .map_err(|error| tracing::warn!(%error, "the session runs without a log"))
            .ok()
        });
        let session = Arc::new(Self {
            core: Mutex::new(Core {
                info,
                buffer: OutputBuffer::new(limits.buffer_bytes, limits.buffer_lines),
                screen,
                prompts: prompt::Prompts::default(),
                expect_cursor: 0,
                last_input_at: 0,
                last_output: started,
                last_input: started,
                last_activity: started,
                eof: false,
                ended_at: None,
                partial: Vec::new(),
                unfed: Vec::new(),
                history: Vec::new(),
                secrets: SecretMask::new(),
                reads: 0,
                flush_scheduled: false,
                turn: None,
                handed_back: None,
                log,
                last_event: started,
            }),
            live: Mutex::new(Some(live)),
            changed: watch::Sender::new(0),
            host_changed,
            started,
        });
        let reading = Arc::clone(&session);
        std::thread::Builder::new()
            .name("session-read".into())
            .spawn(move || reading.read_all(reader))
            .map_err(|error| PtyError::Open(error.to_string()))?;
        let reaping = Arc::clone(&session);
        std::thread::Builder::new()
            .name("session-reap".into())
            .spawn(move || {
                let exit = waiter.wait().ok();
                reaping.ended(exit);
            })
            .map_err(|error| PtyError::Open(error.to_string()))?;
        Ok(session)
    }

    /// The session's state, locked.
    pub fn core(&self) -> MutexGuard<'_, Core> {
        self.core.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A receiver told of each change (output, input, end).
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// How long it has run.
    pub fn age(&self) -> Duration {
        self.started.elapsed()
    }

    fn bump(&self) {
        self.changed.send_modify(|generation| *generation += 1);
        self.host_changed.send_modify(|generation| *generation += 1);
    }

    /// Hands the session to the developer (their turn begins) or back to
    /// agents (the agent's next read, expect or wait hears what they did).
    pub fn set_controller(&self, controller: Controller) {
        let mut core = self.core();
        match (core.info.controller, controller) {
            (Controller::Agent, Controller::User) => core.begin_turn(),
            (Controller::User, Controller::Agent) => core.end_turn(),
            _ => {}
        }
        core.info.controller = controller;
        drop(core);
        self.bump();
    }

    /// What the developer did in their last turn, once: for the agent.
    pub fn take_hand_back(&self) -> Option<HandBack> {
        self.core().handed_back.take()
    }

    fn read_all(self: &Arc<Self>, mut reader: Box<dyn Read + Send>) {
        let mut chunk = vec![0_u8; 16 * 1024];
        loop {
            match reader.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(read) => {
                    let mut core = self.core();
                    let released = core.secrets.push(&chunk[..read]);
                    core.take_output(&released);
                    core.reads += 1;
                    let flush = core.secrets.is_holding() && !core.flush_scheduled;
                    core.flush_scheduled |= flush;
                    let now = Instant::now();
                    core.last_output = now;
                    core.last_activity = now;
                    drop(core);
                    self.bump();
                    self.check_secret();
                    if flush {
                        self.flush_when_quiet();
                    }
                }
            }
        }
        let mut core = self.core();
        let held = core.secrets.flush();
        core.take_output(&held);
        core.eof = true;
        let closed = if core.ended()
            && let Some(exit) = core.info.exit
        {
            core.close_log(exit)
        } else {
            false
        };
        drop(core);
        self.bump();
        if closed {
            self.record();
        }
    }

    /// Releases output held back as a possible secret once no output came
    /// for [`HOLD_QUIET`] (on a thread of its own: the reading thread
    /// blocks on the terminal).
    fn flush_when_quiet(self: &Arc<Self>) {
        let session = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name("session-flush".into())
            .spawn(move || {
                let mut reads = session.core().reads;
                loop {
                    std::thread::sleep(HOLD_QUIET);
                    let mut core = session.core();
                    if core.reads != reads && core.secrets.is_holding() {
                        reads = core.reads;
                        continue;
                    }
                    core.flush_scheduled = false;
                    let held = core.secrets.flush();
                    core.take_output(&held);
                    drop(core);
                    session.bump();
                    return;
                }
            });
        if let Err(error) = spawned {
            tracing::warn!(%error, "held output is released with the next read");
            self.core().flush_scheduled = false;
        }
    }

    /// Records the ended session's log as a tape, when asked to, on a
    /// thread of its own; says where (or why not) in its `tape`.
    fn record(self: &Arc<Self>) {
        let (workspace, id) = {
            let core = self.core();
            if !core.info.recording {
                return;
            }
            let Some(workspace) = core.info.workspace.clone() else {
                return;
            };
            (workspace, core.info.id.clone())
        };
        let session = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name("session-record".into())
            .spawn(move || {
                let root = Path::new(&workspace);
                let tapes = Tapes::at(root.join(TAPES_DIR));
                let said = match session_log::record_tape(root, &id, &tapes, None, RecordMode::New)
                {
                    Ok(saved) => match saved.written {
                        Some((path, _)) => path
                            .strip_prefix(root)
                            .unwrap_or(&path)
                            .display()
                            .to_string(),
                        None => saved.to_string(),
                    },
                    Err(error) => {
                        tracing::warn!(%error, session = %id, "the session was not recorded");
                        format!("not recorded: {error}")
                    }
                };
                session.core().info.tape = Some(said);
                session.bump();
            });
        if let Err(error) = spawned {
            tracing::warn!(%error, "the session was not recorded");
        }
    }

    fn ended(self: &Arc<Self>, exit: Option<ExitStatus>) {
        let closed = {
            let mut core = self.core();
            core.info.exit = exit;
            core.ended_at.get_or_insert_with(Instant::now);
            if core.info.ended_by.is_none() {
                core.info.ended_by = Some(EndReason::Exited);
            }
            core.info.state = match core.info.ended_by {
                Some(EndReason::Exited) | None => SessionState::Exited,
                Some(_) => SessionState::Killed,
            };
            core.info.wants_secret = false;
            // Logged after the last output: now if it was all read.
            match exit {
                Some(exit) if core.eof => core.close_log(exit),
                _ => false,
            }
        };
        // Its terminal closes: no descriptor outlives the program.
        self.live
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        self.bump();
        if closed {
            self.record();
        }
    }

    /// Notes whether the program waits for a secret now — it hides what is
    /// typed (echo off while reading a line) and shows a prompt — and
    /// announces a change.
    pub fn check_secret(&self) {
        let hides = self
            .live
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .is_some_and(Live::hides_input);
        let mut core = self.core();
        let wants = hides && !core.ended() && !core.cursor_line().trim().is_empty();
        if core.info.wants_secret != wants {
            core.info.wants_secret = wants;
            drop(core);
            self.bump();
        }
    }

    /// Types `bytes`: a secret (sent as one, or a line typed while the
    /// program hides input) is masked wherever the program prints it from
    /// now on.
    pub fn type_bytes(&self, bytes: &[u8], secret: bool) -> Result<u64, PtyError> {
        let mut live = self.live.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(live) = live.as_mut() else {
            return Err(PtyError::Write(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "the program has ended",
            )));
        };
        // Typed while the program hides what is typed (a password prompt):
        // a secret too, and the terminal echoes none of it.
        let hidden = live.hides_input();
        let masked = secret || hidden;
        let cursor = {
            let mut core = self.core();
            core.secrets.learn(bytes, secret, hidden);
            if let Some(turn) = &mut core.turn {
                turn.lines.push(bytes, masked);
            }
            core.log(&CastEvent::Input { bytes, masked });
            core.typed(bytes, masked);
            let line = core.cursor_line();
            core.prompts.learn(&line);
            // No echo comes back: nothing is awaited (the program printing
            // the same text itself is output, not an echo to pass over).
            if !hidden {
                core.buffer.expect_echo(bytes, secret);
            }
            core.last_input_at = core.buffer.end();
            core.last_input = Instant::now();
            core.last_activity = core.last_input;
            core.buffer.end()
        };
        live.write(bytes)?;
        self.bump();
        Ok(cursor)
    }

    /// Whether the program asked for application cursor keys.
    pub fn app_cursor(&self) -> bool {
        self.core().app_cursor()
    }

    /// Sends `signal`; with `KILL` to follow after `grace` if it has not
    /// ended by then. `reason` is recorded as why it ended.
    pub fn kill(self: &Arc<Self>, signal: Signal, grace: Duration, reason: EndReason) {
        {
            let mut core = self.core();
            if core.ended() {
                return;
            }
            core.info.ended_by = Some(reason);
        }
        self.bump();
        if let Some(live) = self
            .live
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
        {
            let _ = live.signal(signal);
            if signal != Signal::SIGKILL {
                // Woken early when the program ends.
                let session = Arc::clone(self);
                let mut changes = self.subscribe();
                tokio::spawn(async move {
                    let _ = tokio::time::timeout(grace, async {
                        while !session.core().ended() {
                            if changes.changed().await.is_err() {
                                return;
                            }
                        }
                    })
                    .await;
                    if !session.core().ended()
                        && let Some(live) = session
                            .live
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .as_ref()
                    {
                        let _ = live.signal(Signal::SIGKILL);
                    }
                });
            }
        }
    }

    /// Changes the terminal's size (and the screen's).
    pub fn resize(&self, rows: u16, cols: u16) {
        if let Some(live) = self
            .live
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()
        {
            live.follow_size(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            });
        }
        let mut core = self.core();
        core.screen
            .resize(usize::from(cols.max(1)), usize::from(rows.max(1)));
        core.info.rows = rows;
        core.info.cols = cols;
    }
}
