//! `switchboard run`: a program run once on a pseudo-terminal of this
//! process (no host), answered through expect/send steps, its output and
//! exit status returned — and never left behind: past the time it is
//! ended, and it dies with this process (its terminal closes).

use std::{sync::Arc, time::Duration};

use nix::sys::signal::Signal;
use switchboard_model::program::{EndReason, ExitStatus, Limits, ProgramSession};
use tokio::time::Instant;

use crate::{
    host::{
        hosted::HostedSession,
        waits::{self, Compiled},
    },
    protocol::{ExpectOutcome, Pattern, WaitFor, WaitOutcome},
    pty::PtyError,
};

/// One step: wait for a pattern, then (maybe) type a line.
#[derive(Debug, Clone)]
pub struct Step {
    /// What to wait for.
    pub expect: Pattern,
    /// The line to type once it showed.
    pub send: Option<String>,
}

/// How a run ended.
#[derive(Debug, Clone)]
pub struct Ran {
    /// Everything the program printed (within the buffer's bounds).
    pub output: Vec<u8>,
    /// How it ended (`None` only when it could not be reaped).
    pub exit: Option<ExitStatus>,
    /// The step that was still waiting when time ran out or the output
    /// ended, if any (0-based).
    pub unmet: Option<usize>,
    /// Time ran out (the program was ended).
    pub timed_out: bool,
}

/// What to run.
#[derive(Debug, Clone)]
pub struct RunRequest {
    /// The program.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Its folder.
    pub cwd: String,
    /// Its whole environment.
    pub env: Vec<(String, String)>,
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// The whole run's time.
    pub timeout: Duration,
}

/// Runs `request` to its end.
pub async fn run(request: RunRequest) -> Result<Ran, RunError> {
    let patterns: Vec<Pattern> = request
        .steps
        .iter()
        .map(|step| step.expect.clone())
        .collect();
    let compiled = waits::compile(&patterns).map_err(RunError::Pattern)?;
    let limits = Limits::default();
    let started = switchboard_store::clock::now();
    let info = ProgramSession::starting(
        switchboard_model::program::session_id(fastrand::u64(..)),
        request.program,
        request.args,
        request.cwd,
        started,
    );
    let changes = Arc::new(tokio::sync::watch::Sender::new(0));
    let session = HostedSession::start(info, &request.env, &limits, changes)?;
    let deadline = Instant::now() + request.timeout;
    let mut unmet = None;
    let mut timed_out = false;
    for (index, (step, pattern)) in request.steps.iter().zip(compiled).enumerate() {
        let left = deadline.saturating_duration_since(Instant::now());
        match waits::expect(Arc::clone(&session), vec![pattern], left).await {
            ExpectOutcome::Matched { .. } => {}
            ExpectOutcome::Timeout { .. } => {
                unmet = Some(index);
                timed_out = true;
                break;
            }
            ExpectOutcome::Eof { .. } => {
                unmet = Some(index);
                break;
            }
        }
        if let Some(line) = &step.send {
            let mut bytes = line.clone().into_bytes();
            bytes.push(b'\r');
            let typing = Arc::clone(&session);
            tokio::task::spawn_blocking(move || typing.type_bytes(&bytes, false))
                .await
                .map_err(|error| RunError::Pty(PtyError::Open(error.to_string())))??;
        }
    }
    if !timed_out {
        let left = deadline.saturating_duration_since(Instant::now());
        timed_out = matches!(
            waits::wait(Arc::clone(&session), WaitFor::Exit, left).await,
            WaitOutcome::Timeout { .. }
        );
    }
    if timed_out || !session.core().ended() {
        session.kill(
            Signal::SIGTERM,
            Duration::from_secs(limits.kill_grace_secs),
            EndReason::Runtime,
        );
        let _ = waits::wait(
            Arc::clone(&session),
            WaitFor::Exit,
            Duration::from_secs(limits.kill_grace_secs + 5),
        )
        .await;
    }
    // What was still in flight when it ended.
    let _ = waits::expect(
        Arc::clone(&session),
        vec![Compiled::Eof],
        Duration::from_secs(1),
    )
    .await;
    let core = session.core();
    Ok(Ran {
        output: core.buffer.bytes_from(0),
        exit: core.info.exit,
        unmet,
        timed_out,
    })
}

/// Why a run could not happen.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A step's pattern is not a regular expression.
    #[error("{0}")]
    Pattern(String),
    /// The program could not be started or typed into.
    #[error(transparent)]
    Pty(#[from] PtyError),
}
