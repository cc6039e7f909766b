//! Fuzzing: the seed's inputs sent one by one as lines, each answer judged
//! (`switchboard_model::probe::fuzz::finding`), the program started again
//! after it ends so fuzzing goes on, and each crash replayed alone in a
//! session of its own and saved as a tape that shows it (`switchboard play`
//! of the tape ends as the program did).
//!
//! An answer ends at the program's prompt; a program with no prompt is
//! judged done after a quiet spell the conversation fits to how fast it
//! answers, and an answer that brought nothing is waited for the full
//! quiet before it counts as none.

use std::{path::PathBuf, time::Instant};

use switchboard_model::{
    ErrorCode, ErrorPayload,
    probe::{
        fuzz::{Answer, FindingKind, FuzzReport, finding, inputs},
        reading,
    },
    tape::record::RecordMode,
};
use switchboard_store::tapes::{TAPES_DIR, Tapes};

use super::{Conversation, ProbeError, Reply, Target, Timing, is_shell};
use switchboard_session::Client;

/// How a fuzz run goes.
#[derive(Debug, Clone)]
pub struct Options {
    /// The seed the inputs come from.
    pub seed: u64,
    /// How many inputs.
    pub max_inputs: usize,
    /// Timing of each answer (its quiet is the longest quiet waited).
    pub timing: Timing,
    /// Fuzz a shell anyway.
    pub allow_shell: bool,
    /// Save each crash as a tape in this workspace's `tapes/`.
    pub tapes_in: Option<PathBuf>,
}

/// The seed asked for, else one from the clock (a report says which, so
/// the run can be repeated).
pub fn seed_or_clock(seed: Option<u64>) -> u64 {
    seed.unwrap_or_else(|| switchboard_store::clock::now().unix_millis().unsigned_abs())
}

/// Fuzzes `target`.
pub async fn fuzz(
    client: &Client,
    target: &Target,
    options: &Options,
    progress: &mut (dyn FnMut(&str) + Send),
) -> Result<FuzzReport, ProbeError> {
    if is_shell(&target.program) && !options.allow_shell {
        return Err(ErrorPayload::new(
            ErrorCode::InvalidRequest,
            format!(
                "{} is a shell: fuzzing it runs random commands on this machine; ask for it explicitly (--shell) if that is what you want",
                target.program
            ),
        ));
    }
    let began = Instant::now();
    let mut talk = Conversation::new(client, "fuzz", target, options.timing);
    let mut report = FuzzReport {
        program: target.command_line(),
        seed: options.seed,
        workspace: target.workspace.clone(),
        ..FuzzReport::default()
    };
    let outcome = run(&mut talk, target, options, &mut report, progress).await;
    talk.stop().await;
    outcome?;
    report.run = target.run();
    report.restarts = talk.starts.saturating_sub(1);
    report.duration_ms = u64::try_from(began.elapsed().as_millis()).unwrap_or(u64::MAX);
    Ok(report)
}

async fn run(
    talk: &mut Conversation<'_>,
    target: &Target,
    options: &Options,
    report: &mut FuzzReport,
    progress: &mut (dyn FnMut(&str) + Send),
) -> Result<(), ProbeError> {
    let all = inputs(options.seed, options.max_inputs);
    let mut running = false;
    for (index, input) in all.iter().enumerate() {
        if !running {
            match talk.start().await? {
                Reply::Ended { exit, .. } => {
                    return Err(ErrorPayload::new(
                        ErrorCode::InvalidRequest,
                        format!(
                            "{} ended at start-up ({exit}): nothing to fuzz",
                            target.program
                        ),
                    ));
                }
                _ => running = true,
            }
        }
        if index % 50 == 0 {
            progress(&format!("input {} of {}", index + 1, all.len()));
        }
        let reply = talk.ask_line(input).await?;
        report.inputs += 1;
        let answer = match &reply {
            Reply::Prompt { output, .. } | Reply::Secret { output, .. } => {
                Answer::Output(output.clone())
            }
            Reply::Quiet { output } if output.is_empty() => Answer::Silent,
            Reply::Quiet { output } => Answer::Output(output.clone()),
            Reply::Ended { output, exit } => Answer::Ended(output.clone(), *exit),
            Reply::Hung { .. } => Answer::Silent,
        };
        let errors = match &answer {
            Answer::Output(output) => reading::errors(output)
                .into_iter()
                .map(|(kind, _)| kind.to_owned())
                .collect(),
            _ => Vec::new(),
        };
        if let Some(mut found) = finding(index, input, &answer, errors) {
            if found.kind == FindingKind::Crash {
                let how = found
                    .exit
                    .map_or_else(|| "ended".to_owned(), |exit| exit.to_string());
                progress(&format!("input {} crashed it ({how})", index + 1));
                if let Some(root) = &options.tapes_in {
                    let crashed = talk.sessions.last().cloned();
                    found.tape = crash_tape(talk, root, options.seed, index, input, crashed)
                        .await
                        .ok()
                        .flatten();
                }
            }
            report.findings.push(found);
        }
        match reply {
            Reply::Ended { .. } => running = false,
            Reply::Hung { .. } | Reply::Secret { .. } => {
                talk.stop().await;
                running = false;
            }
            Reply::Quiet { ref output } if output.is_empty() => {
                talk.stop().await;
                running = false;
            }
            _ => {}
        }
    }
    Ok(())
}

/// Replays the crashing input alone in a session of its own and saves that
/// session as a tape (`tapes/<program>/fuzz-<seed>-<index>.json5`); when
/// it does not crash alone, the session that crashed is saved instead
/// (every input since its start). Where the tape is, relative to the
/// workspace.
async fn crash_tape(
    talk: &mut Conversation<'_>,
    root: &std::path::Path,
    seed: u64,
    index: usize,
    input: &str,
    crashed: Option<String>,
) -> Result<Option<String>, ProbeError> {
    let name = format!("fuzz-{seed}-{index}");
    let quiet = talk.timing.quiet_ms;
    talk.timing.quiet_ms = quiet.max(50);
    let mut alone = None;
    if !matches!(talk.start().await?, Reply::Ended { .. }) {
        let id = talk.sessions.last().cloned();
        if let Reply::Ended { exit, .. } = talk.ask_line(input).await?
            && switchboard_model::probe::fuzz::abnormal(&exit)
        {
            alone = id;
        }
    }
    talk.stop().await;
    talk.timing.quiet_ms = quiet;
    let Some(session) = alone.or(crashed) else {
        return Ok(None);
    };
    let root = root.to_owned();
    let saved = tokio::task::spawn_blocking(move || {
        let tapes = Tapes::at(root.join(TAPES_DIR));
        switchboard_store::session_log::record_tape(
            &root,
            &session,
            &tapes,
            Some(&name),
            RecordMode::Overwrite,
        )
        .map(|saved| {
            saved
                .written
                .map(|(path, _)| path)
                .or_else(|| saved.replaced.first().map(|(path, _)| PathBuf::from(path)))
                .map(|path| {
                    path.strip_prefix(&root)
                        .unwrap_or(&path)
                        .display()
                        .to_string()
                })
        })
    })
    .await
    .map_err(|error| ErrorPayload::new(ErrorCode::Internal, error.to_string()))?;
    saved.map_err(|error| ErrorPayload::new(error.code(), error.to_string()))
}
