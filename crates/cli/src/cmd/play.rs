//! `switchboard play -- PROGRAM ARGS…`: stands in for a program from its
//! tapes, on the terminal it is given (an expect-style client's
//! pseudo-terminal, or a person's): the recorded start-up banner first,
//! (or, for a tape ClaudeControl recorded, which starts at the first send,
//! the first exchange's prompt), then each input answered with the
//! recorded output at the recorded pace (or `--latency`, or the tape's own
//! latency), and the recorded exit status. An input is looked up under the
//! end of what the screen shows, which a recorded prompt must fit as its
//! recorder meant it (`model::tape::index::prompt_fits`: the line on
//! screen, what an expect matched, or "at the start of a line"); the same
//! input twice plays the tape's exchanges in their order.
//!
//! A miss fails with the key it looked for (`--fallback not-found`), or
//! (`--fallback proxy`) starts the real program, brings it to where the
//! replay was by typing the inputs played so far — each once the program
//! shows the prompt it was recorded at and has been quiet for a moment —
//! and hands the terminal over to it, recording what follows unless
//! `--record disabled` (the default here). `--error-rate P` fails P % of
//! the exchanges on purpose after their output, as ClaudeControl's does.
//! On exit, a summary of the tapes used and unused goes to stderr.

use crate::failure::{BadInput, refuse};
use std::{
    io::Write,
    sync::mpsc::{self, Receiver, RecvTimeoutError, Sender},
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use switchboard_model::{
    ErrorCode, ErrorPayload,
    tape::{
        Chunk,
        index::strip_ansi,
        record::{Recorder, follow_screen},
        redact,
    },
};
use switchboard_store::Workspace;

use crate::cmd::rec::{self, RecordArgs, RecordMode, Target};
use switchboard_session::{
    pty::{
        Event,
        live::Live,
        terminal::{self, RawMode},
    },
    replay::{self, Pace, Replay, Step},
};

/// What a miss does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Fallback {
    /// Fail with the key looked for.
    #[value(name = "not-found", alias = "not_found")]
    NotFound,
    /// Hand over to the real program.
    Proxy,
}

/// `switchboard play`.
#[derive(Debug, Args)]
pub struct PlayArgs {
    #[command(flatten)]
    pub record: RecordArgs,
    /// Milliseconds before each output read instead of the recorded
    /// delays: one number, or MIN,MAX to pick from.
    #[arg(long, value_name = "MS|MIN,MAX")]
    pub latency: Option<String>,
    /// The percentage of exchanges that fail on purpose after their output
    /// (default: the tape's `errorRate`).
    #[arg(long, value_name = "P")]
    pub error_rate: Option<f64>,
    /// What a miss does: not-found (fail) or proxy (run the real program).
    #[arg(long, value_name = "MODE", default_value = "not-found")]
    pub fallback: Fallback,
    /// The program played, and its arguments.
    #[arg(last = true, required = true, num_args = 1..)]
    pub command: Vec<String>,
}

/// `--latency MS|MIN,MAX`: how long to wait before each output read.
fn parse_pace(text: Option<&str>) -> Result<Option<Pace>> {
    let Some(text) = text else {
        return Ok(None);
    };
    let number = |part: &str| {
        part.trim().parse::<u64>().bad_input(format!(
            "--latency {text:?}: {part:?} is not a whole number of ms"
        ))
    };
    match text.split_once(',') {
        None => Ok(Some(Pace::Fixed(number(text)?))),
        Some((low, high)) => {
            let (low, high) = (number(low)?, number(high)?);
            if low > high {
                refuse!("--latency {text:?}: the minimum is above the maximum");
            }
            Ok(Some(Pace::Between(low, high)))
        }
    }
}

/// How long the real program must be quiet, at the prompt an input was
/// recorded at, before the proxy types that input; and how long it waits
/// for that prompt at most.
const QUIET: Duration = Duration::from_millis(100);
const PROMPT_WAIT: Duration = Duration::from_secs(5);

/// The replay in progress, on this process's terminal.
struct Player {
    target: Target,
    replay: Replay,
    pace: Option<Pace>,
    error_rate: Option<f64>,
    fallback: Fallback,
    proxied: Option<String>,
}

impl Player {
    fn show(&mut self, out: &mut impl Write, bytes: &[u8]) -> Result<()> {
        out.write_all(bytes)
            .and_then(|()| out.flush())
            .context("could not write to the terminal")?;
        self.replay.shown(bytes);
        Ok(())
    }

    fn stream(&mut self, out: &mut impl Write, t: usize, chunks: &[Chunk]) -> Result<()> {
        let pace = self.pace.unwrap_or_else(|| Pace::of(self.replay.tape(t)));
        for chunk in chunks {
            std::thread::sleep(pace.delay(chunk));
            self.show(out, &chunk.bytes())?;
        }
        Ok(())
    }

    /// Plays the banner, then answers what is typed until an exchange
    /// ends the program; returns its status.
    fn play(&mut self, sender: &Sender<Event>, events: &Receiver<Event>) -> Result<u8> {
        let mut out = std::io::stdout().lock();
        if let Some((t, opening)) = self.replay.opening() {
            self.stream(&mut out, t, &opening)?;
        }
        for event in events {
            let Event::Typed(bytes, _) = event else {
                continue;
            };
            if bytes.is_empty() {
                return Ok(0);
            }
            for (at, byte) in bytes.iter().enumerate() {
                let (t, e) = match self.replay.key(*byte) {
                    Step::Typing => continue,
                    Step::Play { tape, exchange } => (tape, exchange),
                    Step::Missed { input, prompt } if self.fallback == Fallback::NotFound => {
                        return Err(ErrorPayload::new(
                            ErrorCode::NotFound,
                            format!(
                                "no tape for {:?} at prompt {prompt:?} (program {:?}, args {:?}, cwd {:?}; tapes in {})",
                                String::from_utf8_lossy(&input),
                                self.target.program,
                                self.target.args,
                                self.target.cwd.display().to_string(),
                                self.target.tapes.root().display()
                            ),
                        )
                        .into());
                    }
                    Step::Missed { mut input, .. } => {
                        drop(out);
                        input.extend_from_slice(&bytes[at + 1..]);
                        return self.proxy(sender, events, input);
                    }
                };
                let chunks = self.replay.exchange(t, e).output.chunks.clone();
                self.stream(&mut out, t, &chunks)?;
                let rate = self
                    .error_rate
                    .unwrap_or_else(|| replay::error_rate(self.replay.tape(t)));
                if rate > 0.0 && fastrand::f64() * 100.0 < rate {
                    return Err(ErrorPayload::new(
                        ErrorCode::Unavailable,
                        format!(
                            "a synthetic error after exchange {} of {} (error rate {rate} %)",
                            e + 1,
                            self.replay.path(t)
                        ),
                    )
                    .into());
                }
                if let Some(exit) = &self.replay.exchange(t, e).exit {
                    return Ok(rec::exit_status(exit));
                }
            }
        }
        Ok(0)
    }

    /// Hands the terminal over to the real program, brought to where the
    /// replay was; `typed` is the input that missed (and what followed it).
    fn proxy(
        &mut self,
        sender: &Sender<Event>,
        events: &Receiver<Event>,
        typed: Vec<u8>,
    ) -> Result<u8> {
        let mut live = Live::spawn(
            &self.target.program,
            &self.target.args,
            &self.target.cwd,
            terminal::size(),
            sender.clone(),
        )?;
        terminal::forward_resizes(sender.clone());
        self.proxied = Some(format!(
            "the real program took over at input {:?}",
            String::from_utf8_lossy(&typed)
        ));
        let mut early = Vec::new();
        let mut screen = Vec::new();
        for (prompt, input) in self.replay.played() {
            settle(events, prompt, &mut screen, &mut early)?;
            live.write(input)?;
        }
        settle(events, &self.replay.screen(), &mut screen, &mut early)?;
        let size = live.size();
        let started = Instant::now();
        let mut recorder = Recorder::at_prompt(&self.replay.screen());
        recorder.input(&typed, Duration::ZERO);
        live.write(&typed)?;
        let exit = rec::pass_through(
            live,
            early.into_iter().chain(events),
            &mut recorder,
            started,
        )?;
        let status = rec::exit_status(&exit);
        let redacting = !redact::disabled_by(std::env::var(redact::REDACT_ENV).ok().as_deref());
        let said = rec::save(
            &self.target,
            switchboard_model::tape::Pty {
                rows: size.rows,
                cols: size.cols,
            },
            recorder.finish(Some(exit), redacting),
        )?;
        if self.target.mode != RecordMode::Disabled
            && let Some(proxied) = &mut self.proxied
        {
            proxied.push_str(&format!("; {said}"));
        }
        Ok(status)
    }

    fn summary(&self) -> String {
        let list = |paths: Vec<&str>| {
            if paths.is_empty() {
                "none".to_owned()
            } else {
                paths.join(", ")
            }
        };
        let (used, unused) = self.replay.used_and_unused();
        let mut said = format!("used {}; unused {}", list(used), list(unused));
        if let Some(proxied) = &self.proxied {
            said.push_str("; ");
            said.push_str(proxied);
        }
        said
    }
}

/// Swallows what the real program prints until it shows `prompt` (ANSI
/// aside) and has been quiet for [`QUIET`], or [`PROMPT_WAIT`] passed;
/// keystrokes arriving meanwhile are kept in `early`.
fn settle(
    events: &Receiver<Event>,
    prompt: &str,
    screen: &mut Vec<u8>,
    early: &mut Vec<Event>,
) -> Result<()> {
    let deadline = Instant::now() + PROMPT_WAIT;
    let prompt = strip_ansi(prompt);
    loop {
        let wait = QUIET.min(deadline.saturating_duration_since(Instant::now()));
        match events.recv_timeout(wait) {
            Ok(Event::Printed(bytes, _)) => follow_screen(screen, &bytes),
            Ok(typed @ Event::Typed(..)) => early.push(typed),
            Ok(Event::Resized) => {}
            Ok(Event::Ended) => bail!("the real program ended while being brought to the prompt"),
            Err(RecvTimeoutError::Timeout) => {
                if strip_ansi(&String::from_utf8_lossy(screen)) == prompt
                    || Instant::now() >= deadline
                {
                    return Ok(());
                }
            }
            Err(RecvTimeoutError::Disconnected) => bail!("the session's events stopped"),
        }
    }
}

/// Plays; returns the exit status the recording (or the real program)
/// ended with.
pub fn run(workspace: &Workspace, args: PlayArgs) -> Result<u8> {
    let pace = parse_pace(args.latency.as_deref())?;
    if let Some(rate) = args.error_rate
        && !(0.0..=100.0).contains(&rate)
    {
        refuse!("--error-rate {rate}: give a percentage from 0 to 100");
    }
    let target = Target::new(workspace, &args.record, RecordMode::Disabled, &args.command)?;
    let loaded = target.tapes.load()?;
    for problem in &loaded.problems {
        eprintln!(
            "switchboard play: {}:{}:{}: {} (skipped)",
            problem.path, problem.line, problem.column, problem.reason
        );
    }
    let context = target.lookup();
    let tapes = loaded
        .tapes
        .into_iter()
        .map(|entry| (entry.path, entry.tape))
        .collect();
    let mut player = Player {
        replay: Replay::new(tapes, context),
        target,
        pace,
        error_rate: args.error_rate,
        fallback: args.fallback,
        proxied: None,
    };
    let (sender, events) = mpsc::channel();
    let raw = RawMode::enter();
    terminal::forward_stdin(sender.clone());
    let status = player.play(&sender, &events);
    drop(raw);
    eprintln!("\r\nswitchboard play: {}", player.summary());
    status
}
