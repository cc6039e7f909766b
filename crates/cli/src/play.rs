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
    collections::BTreeSet,
    io::Write,
    sync::mpsc::{self, Receiver, RecvTimeoutError, Sender},
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use switchboard_model::{
    ErrorCode, ErrorPayload,
    tape::{
        Chunk, InputKind, Spread, Tape,
        index::{self, TapeIndex, strip_ansi},
        record::{Recorder, SCREEN_LIMIT, follow_screen},
        redact,
    },
};
use switchboard_store::Workspace;

use crate::rec::{self, RecordArgs, RecordMode, Target};
use switchboard_session::pty::{
    Event,
    live::Live,
    terminal::{self, RawMode},
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

/// How long to wait before each output read.
#[derive(Debug, Clone, Copy)]
enum Pace {
    Recorded,
    Fixed(u64),
    Between(u64, u64),
}

impl Pace {
    fn parse(text: Option<&str>) -> Result<Option<Self>> {
        let Some(text) = text else {
            return Ok(None);
        };
        let number = |part: &str| {
            part.trim().parse::<u64>().bad_input(format!(
                "--latency {text:?}: {part:?} is not a whole number of ms"
            ))
        };
        match text.split_once(',') {
            None => Ok(Some(Self::Fixed(number(text)?))),
            Some((low, high)) => {
                let (low, high) = (number(low)?, number(high)?);
                if low > high {
                    refuse!("--latency {text:?}: the minimum is above the maximum");
                }
                Ok(Some(Self::Between(low, high)))
            }
        }
    }

    /// A tape's own latency: its recorded delays when it is 0.
    fn of(tape: &Tape) -> Self {
        let whole = |number: &serde_json::Number| number.as_f64().unwrap_or(0.0).max(0.0) as u64;
        match &tape.meta.latency {
            Spread::One(ms) if whole(ms) > 0 => Self::Fixed(whole(ms)),
            Spread::Range([low, high]) if whole(high) > 0 => {
                Self::Between(whole(low).min(whole(high)), whole(high))
            }
            _ => Self::Recorded,
        }
    }

    fn delay(self, chunk: &Chunk) -> Duration {
        Duration::from_millis(match self {
            Self::Recorded => chunk.delay_ms,
            Self::Fixed(ms) => ms,
            Self::Between(low, high) => fastrand::u64(low..=high),
        })
    }
}

/// A tape's error rate, in percent.
fn error_rate(tape: &Tape) -> f64 {
    match &tape.meta.error_rate {
        Spread::One(rate) => rate.as_f64().unwrap_or(0.0),
        Spread::Range([low, high]) => {
            let (low, high) = (low.as_f64().unwrap_or(0.0), high.as_f64().unwrap_or(0.0));
            low + fastrand::f64() * (high - low).max(0.0)
        }
    }
}

/// How long the real program must be quiet, at the prompt an input was
/// recorded at, before the proxy types that input; and how long it waits
/// for that prompt at most.
const QUIET: Duration = Duration::from_millis(100);
const PROMPT_WAIT: Duration = Duration::from_secs(5);

/// The replay in progress.
struct Player {
    target: Target,
    tapes: Vec<Tape>,
    paths: Vec<String>,
    index: TapeIndex,
    pace: Option<Pace>,
    error_rate: Option<f64>,
    fallback: Fallback,
    /// This command's tapes, by position.
    mine: Vec<usize>,
    used: BTreeSet<usize>,
    /// The end of everything shown (its last [`SCREEN_LIMIT`] bytes), which
    /// recorded prompts are fitted to.
    shown: Vec<u8>,
    /// The exchange played last.
    last: Option<(usize, usize)>,
    /// The inputs played, each with the prompt it answered.
    played: Vec<(String, Vec<u8>)>,
    proxied: Option<String>,
}

impl Player {
    fn show(&mut self, out: &mut impl Write, bytes: &[u8]) -> Result<()> {
        out.write_all(bytes)
            .and_then(|()| out.flush())
            .context("could not write to the terminal")?;
        self.shown.extend_from_slice(bytes);
        if self.shown.len() > SCREEN_LIMIT {
            self.shown.drain(..self.shown.len() - SCREEN_LIMIT);
        }
        Ok(())
    }

    /// The line on screen: what was shown after the last newline (as
    /// `follow_screen` keeps it, both bounded by [`SCREEN_LIMIT`]).
    fn screen(&self) -> String {
        let start = self
            .shown
            .iter()
            .rposition(|byte| *byte == b'\n')
            .map_or(0, |newline| newline + 1);
        String::from_utf8_lossy(&self.shown[start..]).into_owned()
    }

    /// What this command's tapes say the program showed before its first
    /// input: the first recorded start-up banner, else (a tape that begins
    /// at the first send, as ClaudeControl's do) the prompt its first
    /// exchange was recorded at, unless that is only a line ending.
    fn opening(&self) -> Option<(usize, Vec<Chunk>)> {
        self.mine.iter().find_map(|t| {
            let tape = &self.tapes[*t];
            let banner = tape.meta.banner();
            if !banner.is_empty() {
                return Some((*t, banner));
            }
            let prompt = tape.exchanges.first()?.pre.prompt.as_deref()?;
            (!prompt.trim().is_empty()).then(|| (*t, vec![Chunk::of(0, prompt.as_bytes())]))
        })
    }

    fn stream(&mut self, out: &mut impl Write, t: usize, chunks: &[Chunk]) -> Result<()> {
        let pace = self.pace.unwrap_or_else(|| Pace::of(&self.tapes[t]));
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
        if let Some((t, opening)) = self.opening() {
            self.used.insert(t);
            self.stream(&mut out, t, &opening)?;
        }
        let mut lookup = self.target.lookup();
        let mut input = Vec::new();
        for event in events {
            let Event::Typed(bytes, _) = event else {
                continue;
            };
            if bytes.is_empty() {
                return Ok(0);
            }
            for (at, byte) in bytes.iter().enumerate() {
                input.push(*byte);
                let submitted = matches!(byte, b'\r' | b'\n');
                let prompt = self.screen();
                lookup.prompt = Some(String::from_utf8_lossy(&self.shown).into_owned());
                let found = self
                    .index
                    .lookup(&self.tapes, &lookup, &input, self.last)
                    .filter(|(t, e)| {
                        // A raw send matches once all its bytes are typed
                        // (a line end it recorded too: `/wo=`, 0xff and a
                        // line feed, is found by its 0xff but not played
                        // before the line feed); a line on its terminator.
                        let exchange = &self.tapes[*t].exchanges[*e];
                        submitted
                            || (exchange.input.kind == InputKind::Raw
                                && input.len() >= index::input_bytes(exchange).len())
                    });
                let Some((t, e)) = found else {
                    if !submitted {
                        continue;
                    }
                    if self.fallback == Fallback::NotFound {
                        return Err(ErrorPayload::new(
                            ErrorCode::NotFound,
                            format!(
                                "no tape for {:?} at prompt {prompt:?} (program {:?}, args {:?}, cwd {:?}; tapes in {})",
                                String::from_utf8_lossy(&input),
                                self.target.program,
                                self.target.args,
                                lookup.cwd,
                                self.target.tapes.root().display()
                            ),
                        )
                        .into());
                    }
                    drop(out);
                    input.extend_from_slice(&bytes[at + 1..]);
                    return self.proxy(sender, events, input);
                };
                self.played.push((prompt, std::mem::take(&mut input)));
                self.used.insert(t);
                self.last = Some((t, e));
                let chunks = self.tapes[t].exchanges[e].output.chunks.clone();
                self.stream(&mut out, t, &chunks)?;
                let rate = self
                    .error_rate
                    .unwrap_or_else(|| error_rate(&self.tapes[t]));
                if rate > 0.0 && fastrand::f64() * 100.0 < rate {
                    return Err(ErrorPayload::new(
                        ErrorCode::Unavailable,
                        format!(
                            "a synthetic error after exchange {} of {} (error rate {rate} %)",
                            e + 1,
                            self.paths[t]
                        ),
                    )
                    .into());
                }
                if let Some(exit) = &self.tapes[t].exchanges[e].exit {
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
        for (prompt, input) in &self.played {
            settle(events, prompt, &mut screen, &mut early)?;
            live.write(input)?;
        }
        settle(events, &self.screen(), &mut screen, &mut early)?;
        let size = live.size();
        let started = Instant::now();
        let mut recorder = Recorder::at_prompt(&self.screen());
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
        let used = list(self.used.iter().map(|t| self.paths[*t].as_str()).collect());
        let unused = list(
            self.mine
                .iter()
                .filter(|t| !self.used.contains(*t))
                .map(|t| self.paths[*t].as_str())
                .collect(),
        );
        let mut said = format!("used {used}; unused {unused}");
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
    let pace = Pace::parse(args.latency.as_deref())?;
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
    let (paths, tapes): (Vec<String>, Vec<Tape>) = loaded
        .tapes
        .into_iter()
        .map(|entry| (entry.path, entry.tape))
        .unzip();
    let cwd = target.cwd.display().to_string();
    let mine = tapes
        .iter()
        .enumerate()
        .filter(|(_, tape)| {
            tape.meta.program == target.program
                && tape.meta.args == target.args
                && tape.meta.cwd == cwd
        })
        .map(|(t, _)| t)
        .collect();
    let mut player = Player {
        index: TapeIndex::build(&tapes),
        target,
        tapes,
        paths,
        pace,
        error_rate: args.error_rate,
        fallback: args.fallback,
        mine,
        used: BTreeSet::new(),
        shown: Vec::new(),
        last: None,
        played: Vec::new(),
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
