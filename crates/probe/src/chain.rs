//! Command chains run in **one** shell session, so `cd`, variables and
//! logins carry from step to step (ClaudeControl starts a process per
//! step). The shell shows a prompt carrying the last status
//! (`[chain:$?]$ `), so each step ends when the shell is back, with the
//! command's exit status; a step's `expect_pattern` is waited for (and
//! `send_text` typed once it shows), and which step runs is the model's
//! `decide`.

use std::time::Instant;

use regex::Regex;
use switchboard_model::{
    ErrorCode, ErrorPayload,
    probe::chain::{Chain, ChainCommand, ChainRun, StepResult, StepStatus, decide},
    program::Key,
};

use super::{ProbeError, Target};
use switchboard_session::{
    Client,
    protocol::{ExpectOutcome, Input, Pattern, StartRequest},
};

/// The prompt the chain's shell shows: the last status inside.
const PS1: &str = "[chain:$?]$ ";
/// What finds it.
const PROMPT: &str = r"\[chain:(\d+)\]\$ ";

fn status_of(matched: &str) -> Option<i32> {
    matched
        .strip_prefix("[chain:")?
        .split(']')
        .next()?
        .parse()
        .ok()
}

fn invalid(message: String) -> ErrorPayload {
    ErrorPayload::new(ErrorCode::InvalidRequest, message)
}

/// Runs `chain` of the workspace at `root` in a shell started in the
/// chain's `cwd` (relative to the workspace; the workspace by default),
/// with this process's environment; `progress` hears each step.
pub async fn run(
    client: &Client,
    chain: &Chain,
    root: &std::path::Path,
    progress: &mut (dyn FnMut(&str) + Send),
) -> Result<ChainRun, ProbeError> {
    let cwd = match &chain.cwd {
        Some(dir) => root.join(dir),
        None => root.to_owned(),
    };
    let base = Target {
        cwd: cwd.display().to_string(),
        env: std::env::vars().collect(),
        workspace: Some(root.display().to_string()),
        ..Target::default()
    };
    let steps = chain
        .ordered()
        .map_err(|error| invalid(error.to_string()))?;
    for step in &steps {
        if let Some(pattern) = &step.expect_pattern {
            Regex::new(pattern).map_err(|error| {
                invalid(format!(
                    "chain {:?}, step {}: expect_pattern {pattern:?} is not a regular expression: {error}",
                    chain.name, step.sequence_order
                ))
            })?;
        }
    }
    let shell = chain.shell.clone().unwrap_or_else(|| "bash".to_owned());
    let args: Vec<String> = if shell.rsplit('/').next() == Some("bash") {
        vec!["--noprofile".into(), "--norc".into(), "-i".into()]
    } else {
        vec!["-i".into()]
    };
    let env = vec![
        ("PS1".to_owned(), PS1.to_owned()),
        ("PS2".to_owned(), "> ".to_owned()),
        ("HISTFILE".to_owned(), String::new()),
        ("PROMPT_COMMAND".to_owned(), String::new()),
    ];
    let name = super::session_name("chain", &chain.name);
    let info = client
        .start(StartRequest {
            program: shell.clone(),
            args,
            name: Some(name.clone()),
            run: Some(name),
            cwd: base.cwd.clone(),
            base_env: base.env.clone(),
            env,
            rows: None,
            cols: Some(200),
            workspace: base.workspace.clone(),
            record: false,
            prompts: Vec::new(),
            started_by: None,
            launch: None,
        })
        .await
        .map_err(|error| error.payload())?;
    let id = info.id.clone();
    // A run dropped midway (a cancelled call) ends its shell.
    let guard = EndOnDrop(client, Some(id.clone()));
    let step_ms = chain.timeout_secs() * 1000;
    let result = async {
        let first = client
            .expect(&id, vec![Pattern::Regex(PROMPT.into())], step_ms, |_| {})
            .await
            .map_err(|error| error.payload())?;
        if !matches!(first, ExpectOutcome::Matched { .. }) {
            return Err(invalid(format!(
                "{shell} showed no prompt within {} s",
                chain.timeout_secs()
            )));
        }
        let mut done: Vec<StepResult> = Vec::new();
        for step in steps {
            let mut result = StepResult::of(step);
            let matches = |pattern: &str, text: &str| {
                Regex::new(pattern)
                    .map(|regex| regex.is_match(text))
                    .map_err(|error| format!("{pattern:?} is not a regular expression: {error}"))
            };
            if let Err(why) = decide(step, &done, matches) {
                progress(&format!("step {}: skipped ({why})", step.sequence_order));
                result.reason = Some(why);
                done.push(result);
                continue;
            }
            progress(&format!("step {}: {}", step.sequence_order, step.command));
            let (result, next) = run_step(client, &id, step, result, chain.timeout_secs()).await?;
            done.push(result);
            match next {
                Next::Go => {}
                Next::Interrupt => interrupt(client, &id, step_ms).await?,
                Next::Stop => break,
            }
        }
        Ok(done)
    }
    .await;
    drop(guard.disarm());
    let _ = client.kill(&id, Some("KILL".into())).await;
    let steps = result?;
    Ok(ChainRun {
        chain: chain.name.clone(),
        passed: steps.iter().all(|step| step.status != StepStatus::Failed),
        steps,
        session: id,
    })
}

/// What follows a step.
enum Next {
    /// The next step.
    Go,
    /// The step overran: interrupt it, then the next step.
    Interrupt,
    /// The shell ended: no more steps.
    Stop,
}

/// Types `step`'s command into shell session `id` and follows it to the
/// shell's next prompt: its `expect_pattern` waited for (and `send_text`
/// typed once it shows), its exit status read from the prompt.
async fn run_step(
    client: &Client,
    id: &str,
    step: &ChainCommand,
    mut result: StepResult,
    timeout_secs: u64,
) -> Result<(StepResult, Next), ProbeError> {
    let step_ms = timeout_secs * 1000;
    let began = Instant::now();
    client
        .send(id, Input::Line(step.command.clone()), false)
        .await
        .map_err(|error| error.payload())?;
    result.sent = true;
    let mut output = String::new();
    let ended = |result: StepResult, before: String| {
        (
            result.failed(before, "the shell ended".into(), elapsed(began)),
            Next::Stop,
        )
    };
    if let Some(pattern) = &step.expect_pattern {
        let outcome = client
            .expect(
                id,
                vec![
                    Pattern::Regex(pattern.clone()),
                    Pattern::Regex(PROMPT.into()),
                ],
                step_ms,
                |_| {},
            )
            .await
            .map_err(|error| error.payload())?;
        result.matched = Some(matches!(outcome, ExpectOutcome::Matched { index: 0, .. }));
        match outcome {
            ExpectOutcome::Matched {
                index: 0,
                before,
                matched,
                ..
            } => {
                output.push_str(&before);
                output.push_str(&matched);
                if let Some(text) = &step.send_text {
                    client
                        .send(id, Input::Line(text.clone()), false)
                        .await
                        .map_err(|error| error.payload())?;
                }
            }
            ExpectOutcome::Matched {
                before, matched, ..
            } => {
                // The shell came back first: the pattern never showed.
                result.exit_code = status_of(&matched);
                let reason = format!("{pattern:?} never showed");
                return Ok((result.failed(before, reason, elapsed(began)), Next::Go));
            }
            ExpectOutcome::Timeout { tail, .. } => {
                let reason = format!("{pattern:?} did not show within {timeout_secs} s");
                return Ok((result.failed(tail, reason, elapsed(began)), Next::Interrupt));
            }
            ExpectOutcome::Eof { before, .. } => return Ok(ended(result, before)),
        }
    }
    let outcome = client
        .expect(id, vec![Pattern::Regex(PROMPT.into())], step_ms, |_| {})
        .await
        .map_err(|error| error.payload())?;
    match outcome {
        ExpectOutcome::Matched {
            before, matched, ..
        } => {
            output.push_str(&before);
            result.exit_code = status_of(&matched);
            result.duration_ms = elapsed(began);
            result.output = output;
            match result.exit_code {
                Some(0) => result.status = StepStatus::Passed,
                Some(code) => {
                    let reason = format!("it exited with status {code}");
                    let output = std::mem::take(&mut result.output);
                    result = result.failed(output, reason, elapsed(began));
                }
                None => {
                    let output = std::mem::take(&mut result.output);
                    result = result.failed(output, "its status is unknown".into(), elapsed(began));
                }
            }
            Ok((result, Next::Go))
        }
        ExpectOutcome::Timeout { tail, .. } => {
            let reason = format!("it did not finish within {timeout_secs} s (interrupted)");
            Ok((result.failed(tail, reason, elapsed(began)), Next::Interrupt))
        }
        ExpectOutcome::Eof { before, .. } => Ok(ended(result, before)),
    }
}

/// Ends the chain's shell when dropped before the run's own end.
struct EndOnDrop<'a>(&'a Client, Option<String>);

impl EndOnDrop<'_> {
    fn disarm(mut self) -> Option<String> {
        self.1.take()
    }
}

impl Drop for EndOnDrop<'_> {
    fn drop(&mut self) {
        super::end_on_drop(self.0, self.1.take());
    }
}

fn elapsed(began: Instant) -> u64 {
    u64::try_from(began.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// A step that overran: Ctrl-C, then the shell's prompt.
async fn interrupt(client: &Client, id: &str, step_ms: u64) -> Result<(), ProbeError> {
    client
        .send(id, Input::Key(Key::Ctrl(3)), false)
        .await
        .map_err(|error| error.payload())?;
    let _ = client
        .expect(id, vec![Pattern::Regex(PROMPT.into())], step_ms, |_| {})
        .await;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn the_prompt_carries_the_status() {
        assert_eq!(status_of("[chain:0]$ "), Some(0));
        assert_eq!(status_of("[chain:127]$ "), Some(127));
        assert_eq!(status_of("$ "), None);
        assert!(Regex::new(PROMPT).unwrap().is_match("x\r\n[chain:2]$ "));
    }
}
