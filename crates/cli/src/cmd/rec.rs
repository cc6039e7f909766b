//! `switchboard rec -- PROGRAM ARGS…`: runs the program on a real
//! pseudo-terminal with the user's terminal passed through in raw mode, so
//! the session is used as it normally is, and records it as a tape in
//! ClaudeControl's format: the start-up banner, then one exchange per
//! submitted line or raw send (see `switchboard_model::tape::record`), and
//! how the program ended. Secrets are masked unless `CLAUDECONTROL_REDACT`
//! is `0` or `false`.
//!
//! Record modes, as ClaudeControl's: `new` keeps what is already on tape
//! (an exchange `play` would find is not recorded again) and writes the
//! rest to a new tape; `overwrite` replaces those exchanges where they are
//! (and a tape of the same `--name` whole); `disabled` records nothing.

use crate::failure::BadInput;
use std::{io::Write, path::PathBuf, sync::mpsc, time::Instant};

use anyhow::{Context, Result};
use clap::Args;
pub use switchboard_model::tape::record::RecordMode;
use switchboard_model::{
    ErrorCode, ErrorPayload,
    tape::{
        Pty,
        index::Context as Lookup,
        record::{Recorder, Recording},
        redact,
    },
};
use switchboard_store::{
    Workspace,
    tapes::{RecordTarget, Tapes},
};

use switchboard_session::pty::{
    Event,
    live::Live,
    terminal::{self, RawMode},
};

/// Where and how a session is recorded (shared by `rec` and `play`).
#[derive(Debug, Args)]
pub struct RecordArgs {
    /// The tapes folder (default: `tapes/` in the workspace).
    #[arg(long, value_name = "DIR")]
    pub tapes: Option<PathBuf>,
    /// The tape's name: `<program>/<NAME>.json5` (default
    /// `unnamed-<8 hex digits>`).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// new (default for rec), overwrite, or disabled (default for play).
    #[arg(long, value_name = "MODE")]
    pub record: Option<RecordMode>,
}

impl RecordArgs {
    /// The tapes folder these arguments name.
    pub fn folder(&self, workspace: &Workspace) -> Tapes {
        match &self.tapes {
            Some(dir) => Tapes::at(workspace.root().join(dir)),
            None => Tapes::in_workspace(workspace),
        }
    }
}

/// `switchboard rec`.
#[derive(Debug, Args)]
pub struct RecArgs {
    #[command(flatten)]
    pub record: RecordArgs,
    /// The program recorded, and its arguments.
    #[arg(last = true, required = true, num_args = 1..)]
    pub command: Vec<String>,
}

/// Where a session's new tape goes, decided before the program starts so
/// a name that cannot be used is refused first.
pub struct Target {
    /// The folder.
    pub tapes: Tapes,
    /// The new tape's file.
    pub path: PathBuf,
    /// What is recorded.
    pub mode: RecordMode,
    /// The command as typed.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// The folder it runs in.
    pub cwd: PathBuf,
}

impl Target {
    /// The target for `command` with `record`'s options, `mode` when none
    /// is given.
    pub fn new(
        workspace: &Workspace,
        record: &RecordArgs,
        default: RecordMode,
        command: &[String],
    ) -> Result<Self> {
        let (program, args) = command
            .split_first()
            .bad_input("name the program after --")?;
        let tapes = record.folder(workspace);
        let mode = record.record.unwrap_or(default);
        let name = record.name.clone().unwrap_or_else(unnamed);
        let path = tapes.path_for(program, &name)?;
        if mode == RecordMode::New && path.exists() {
            return Err(ErrorPayload::new(
                ErrorCode::InvalidRequest,
                format!(
                    "{} exists: choose another --name, or --record overwrite to replace it",
                    path.display()
                ),
            )
            .into());
        }
        Ok(Self {
            tapes,
            path,
            mode,
            program: program.clone(),
            args: args.to_vec(),
            cwd: std::env::current_dir().context("could not read the current folder")?,
        })
    }

    /// The lookup context of this command now (`prompt` unset).
    pub fn lookup(&self) -> Lookup {
        Lookup {
            program: self.program.clone(),
            args: self.args.clone(),
            cwd: self.cwd.display().to_string(),
            env: std::env::vars().collect(),
            prompt: None,
        }
    }
}

/// `unnamed-` and 8 random hex digits, as ClaudeControl names a tape
/// it was given no name for.
fn unnamed() -> String {
    format!("unnamed-{:08x}", fastrand::u32(..))
}

/// Passes the session through until the program ends: what the user types
/// goes to the program, what it prints to the user's terminal, and both
/// into `recorder`. Returns how the program ended.
pub fn pass_through(
    mut live: Live,
    events: impl IntoIterator<Item = Event>,
    recorder: &mut Recorder,
    started: Instant,
) -> Result<switchboard_model::tape::Exit> {
    let mut out = std::io::stdout().lock();
    for event in events {
        match event {
            // Their input closed: the program goes on until it ends.
            Event::Typed(bytes, _) if bytes.is_empty() => {}
            Event::Resized => live.follow_size(terminal::size()),
            Event::Typed(bytes, at) => {
                recorder.input(&bytes, at.saturating_duration_since(started));
                live.write(&bytes)?;
            }
            Event::Printed(bytes, at) => {
                out.write_all(&bytes)
                    .and_then(|()| out.flush())
                    .context("could not write to the terminal")?;
                recorder.output(&bytes, at.saturating_duration_since(started));
            }
            Event::Ended => break,
        }
    }
    Ok(live.wait()?.into())
}

/// Records; returns the program's exit status.
pub fn run(workspace: &Workspace, args: RecArgs) -> Result<u8> {
    let target = Target::new(workspace, &args.record, RecordMode::New, &args.command)?;
    let (sender, events) = mpsc::channel();
    let size = terminal::size();
    // Raw before the program starts: keys typed ahead reach it unechoed.
    let raw = RawMode::enter();
    let live = Live::spawn(
        &target.program,
        &target.args,
        &target.cwd,
        size,
        sender.clone(),
    );
    let live = match live {
        Ok(live) => live,
        Err(error) => {
            drop(raw);
            return Err(error.into());
        }
    };
    let started = Instant::now();
    terminal::forward_stdin(sender.clone());
    terminal::forward_resizes(sender);
    let mut recorder = Recorder::new();
    let exit = pass_through(live, &events, &mut recorder, started);
    drop(raw);
    let exit = exit?;
    let status = exit_status(&exit);
    let redacting = !redact::disabled_by(std::env::var(redact::REDACT_ENV).ok().as_deref());
    let summary = save(
        &target,
        Pty {
            rows: size.rows,
            cols: size.cols,
        },
        recorder.finish(Some(exit), redacting),
    )?;
    eprintln!("\r\nswitchboard rec: {summary}");
    Ok(status)
}

/// The process status that stands for `exit` (128 + the signal's number
/// when a signal ended it).
pub fn exit_status(exit: &switchboard_model::tape::Exit) -> u8 {
    match (&exit.code, &exit.signal) {
        (Some(code), _) => u8::try_from(*code).unwrap_or(1),
        (None, Some(signal)) => {
            u8::try_from(128 + signal.as_u64().unwrap_or(0).min(127)).unwrap_or(1)
        }
        _ => 0,
    }
}

/// Writes `recording` as `target` says; returns what was done, in words.
pub fn save(target: &Target, pty: Pty, recording: Recording) -> Result<String> {
    let saved = target.tapes.save_recording(
        &RecordTarget {
            path: target.path.clone(),
            mode: target.mode,
            context: target.lookup(),
            pty: Some(pty),
        },
        recording,
    )?;
    Ok(saved.to_string())
}
