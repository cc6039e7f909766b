//! `switchboard play -- PROGRAM ARGS…`: stands in for a program from its
//! tapes, on the terminal it is given (an expect-style client's
//! pseudo-terminal, or a person's): the recorded start-up banner first,
//! then each input answered with the recorded output at the recorded pace
//! (or `--latency`), and the recorded exit status. The prompt an input is
//! looked up under is what the program last printed after a newline — the
//! text actually on screen, so exchanges recorded at a prompt are found.
//! A miss fails with the key it looked for. On exit, a summary of the tapes
//! used and unused goes to stderr.

use std::{
    collections::BTreeSet,
    io::{Read, Write},
    path::PathBuf,
    time::Duration,
};

use anyhow::{Context, Result, bail};
use base64::Engine as _;
use clap::Args;
use serde_json::Value;
use switchboard_model::tape::{
    Chunk,
    index::{Context as Lookup, TapeIndex},
};
use switchboard_store::{Workspace, tapes::Tapes};

/// `switchboard play`.
#[derive(Debug, Args)]
pub struct PlayArgs {
    /// The tapes folder (default: `tapes/` in the workspace).
    #[arg(long, value_name = "DIR")]
    pub tapes: Option<PathBuf>,
    /// Milliseconds before each output read instead of the recorded
    /// delays: one number, or MIN,MAX to pick from.
    #[arg(long, value_name = "MS|MIN,MAX")]
    pub latency: Option<String>,
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
    fn parse(text: Option<&str>) -> Result<Self> {
        let Some(text) = text else {
            return Ok(Self::Recorded);
        };
        let number = |part: &str| {
            part.trim().parse::<u64>().with_context(|| {
                format!("--latency {text:?}: {part:?} is not a whole number of ms")
            })
        };
        match text.split_once(',') {
            None => Ok(Self::Fixed(number(text)?)),
            Some((low, high)) => {
                let (low, high) = (number(low)?, number(high)?);
                if low > high {
                    bail!("--latency {text:?}: the minimum is above the maximum");
                }
                Ok(Self::Between(low, high))
            }
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

/// The terminal in raw mode while the guard lives (when stdin is one), so
/// the recorded echo is the only echo and each key arrives as typed.
struct RawMode {
    saved: Option<nix::sys::termios::Termios>,
}

impl RawMode {
    fn enter() -> Self {
        use nix::sys::termios::{SetArg, cfmakeraw, tcgetattr, tcsetattr};
        let stdin = std::io::stdin();
        let Ok(saved) = tcgetattr(&stdin) else {
            return Self { saved: None };
        };
        let mut raw = saved.clone();
        cfmakeraw(&mut raw);
        if tcsetattr(&stdin, SetArg::TCSANOW, &raw).is_err() {
            return Self { saved: None };
        }
        Self { saved: Some(saved) }
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        use nix::sys::termios::{SetArg, tcsetattr};
        if let Some(saved) = &self.saved {
            let _ = tcsetattr(std::io::stdin(), SetArg::TCSANOW, saved);
        }
    }
}

fn decode(encoded: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .unwrap_or_default()
}

/// Plays; returns the exit status the recording ended with.
pub fn run(workspace: &Workspace, args: PlayArgs) -> Result<u8> {
    let pace = Pace::parse(args.latency.as_deref())?;
    let tapes = match &args.tapes {
        Some(dir) => Tapes::at(workspace.root().join(dir)),
        None => Tapes::in_workspace(workspace),
    };
    let loaded = tapes.load()?;
    for problem in &loaded.problems {
        eprintln!(
            "switchboard play: {}:{}:{}: {} (skipped)",
            problem.path, problem.line, problem.column, problem.reason
        );
    }
    let (program, rest) = args
        .command
        .split_first()
        .context("name the program to play after --")?;
    let cwd = std::env::current_dir()
        .context("could not read the current folder")?
        .display()
        .to_string();
    // The tapes by position, and their paths for the summary.
    let (paths, tape_list): (Vec<String>, Vec<_>) = loaded
        .tapes
        .into_iter()
        .map(|entry| (entry.path, entry.tape))
        .unzip();
    let index = TapeIndex::build(&tape_list);
    let mut lookup = Lookup {
        program: program.clone(),
        args: rest.to_vec(),
        cwd: cwd.clone(),
        env: std::env::vars().collect(),
        prompt: None,
    };
    let mine: Vec<usize> = tape_list
        .iter()
        .enumerate()
        .filter(|(_, tape)| {
            tape.meta.program == *program && tape.meta.args == rest && tape.meta.cwd == cwd
        })
        .map(|(n, _)| n)
        .collect();
    let mut used = BTreeSet::new();
    let mut out = std::io::stdout().lock();
    let mut screen = Vec::<u8>::new();
    let show =
        |out: &mut std::io::StdoutLock<'_>, bytes: &[u8], screen: &mut Vec<u8>| -> Result<()> {
            out.write_all(bytes)?;
            out.flush()?;
            screen.extend_from_slice(bytes);
            if let Some(newline) = screen.iter().rposition(|byte| *byte == b'\n') {
                screen.drain(..=newline);
            }
            Ok(())
        };
    let _raw = RawMode::enter();
    // The start-up banner, from the first tape of this command that has one.
    if let Some((n, banner)) = mine.iter().find_map(|n| {
        let chunks = tape_list[*n]
            .meta
            .extra
            .get("banner")?
            .get("chunks")?
            .as_array()?;
        Some((*n, chunks.clone()))
    }) {
        used.insert(n);
        for chunk in banner {
            let chunk: Chunk = serde_json::from_value(chunk).unwrap_or(Chunk {
                delay_ms: 0,
                data_b64: String::new(),
                is_utf8: true,
                extra: serde_json::Map::new(),
            });
            std::thread::sleep(pace.delay(&chunk));
            show(&mut out, &decode(&chunk.data_b64), &mut screen)?;
        }
    }
    let mut input = Vec::new();
    let mut stdin = std::io::stdin().lock();
    let mut byte = [0_u8; 1];
    let status = loop {
        match stdin.read(&mut byte) {
            Ok(0) | Err(_) => break 0,
            Ok(_) => input.push(byte[0]),
        }
        let submitted = matches!(byte[0], b'\r' | b'\n');
        lookup.prompt = Some(String::from_utf8_lossy(&screen).into_owned());
        let found = index.lookup(&tape_list, &lookup, &input).filter(|(t, e)| {
            // A raw send matches as soon as its bytes are typed; a line on
            // its terminator.
            submitted
                || tape_list[*t].exchanges[*e].input.kind == switchboard_model::tape::InputKind::Raw
        });
        let Some((t, e)) = found else {
            if submitted {
                drop(_raw);
                bail!(
                    "no tape for {:?} at prompt {:?} (program {program:?}, args {rest:?}, cwd {cwd:?}; tapes in {})",
                    String::from_utf8_lossy(&input),
                    lookup.prompt.as_deref().unwrap_or(""),
                    tapes.root().display()
                );
            }
            continue;
        };
        input.clear();
        used.insert(t);
        let exchange = &tape_list[t].exchanges[e];
        for chunk in &exchange.output.chunks {
            std::thread::sleep(pace.delay(chunk));
            show(&mut out, &decode(&chunk.data_b64), &mut screen)?;
        }
        if let Some(exit) = &exchange.exit {
            let code = match (&exit.code, &exit.signal) {
                (Some(code), _) => u8::try_from(*code).unwrap_or(1),
                (None, Some(Value::Number(signal))) => {
                    u8::try_from(128 + signal.as_u64().unwrap_or(0).min(127)).unwrap_or(1)
                }
                _ => 0,
            };
            break code;
        }
    };
    drop(out);
    let unused: Vec<&str> = mine
        .iter()
        .filter(|n| !used.contains(*n))
        .map(|n| paths[*n].as_str())
        .collect();
    let used: Vec<&str> = used.iter().map(|n| paths[*n].as_str()).collect();
    eprintln!(
        "\r\nswitchboard play: used {}; unused {}",
        if used.is_empty() {
            "none".to_owned()
        } else {
            used.join(", ")
        },
        if unused.is_empty() {
            "none".to_owned()
        } else {
            unused.join(", ")
        }
    );
    Ok(status)
}
