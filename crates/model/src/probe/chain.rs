//! Command chains: ClaudeControl's COMMAND_CHAIN with its CHAIN_COMMAND
//! steps as a file (`.switchboard/chains/NAME.json`), run in one shell
//! session so `cd`, variables and logins carry from step to step. A step's
//! `condition` is data — the previous step's status, its output matching
//! or lacking a pattern — never code; which step runs is [`decide`].

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Seconds a step may take when the chain names none (ClaudeControl's 30).
pub const DEFAULT_TIMEOUT_SECS: u64 = 30;

/// A chain. Keys it does not know are refused: a misspelt `on_failure`
/// must not silently run a step.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Chain {
    /// Its id (by default its name).
    #[serde(default)]
    pub id: String,
    /// Its name (the file's stem).
    #[serde(default)]
    pub name: String,
    /// The steps; run in `sequence_order`.
    #[serde(default)]
    pub commands: Vec<ChainCommand>,
    /// The folder the shell starts in, relative to the workspace (or
    /// absolute); the workspace by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Seconds each step may take.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
    /// The shell the steps are typed into (default `bash`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shell: Option<String>,
}

/// One step (unknown keys refused, as in [`Chain`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainCommand {
    /// The chain it belongs to (optional in a chain's own file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain_id: Option<String>,
    /// Its place (steps run in this order; ties in file order).
    #[serde(default)]
    pub sequence_order: i64,
    /// The command line typed into the shell.
    pub command: String,
    /// A pattern (regular expression) the command must show; with
    /// `send_text`, what to wait for before sending it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect_pattern: Option<String>,
    /// A line typed once `expect_pattern` showed (to the program the
    /// command started: a password, an answer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_text: Option<String>,
    /// When to run it, as data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<Condition>,
    /// Run only while every step so far succeeded.
    #[serde(default)]
    pub on_success: bool,
    /// Run only when the step before failed (a clean-up, a report); such a
    /// step also runs after a failure stopped the chain.
    #[serde(default)]
    pub on_failure: bool,
}

/// A step's condition: every part given must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Condition {
    /// The previous step that ran had this status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_status: Option<StepStatus>,
    /// The previous step's output matches this regular expression.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_output_matches: Option<String>,
    /// The previous step's output does not match it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_output_lacks: Option<String>,
}

/// How a step went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    /// It ran and succeeded (exit status 0, its pattern shown).
    Passed,
    /// It ran and failed.
    Failed,
    /// It did not run.
    Skipped,
}

/// One step's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepResult {
    /// Its `sequence_order`.
    pub sequence_order: i64,
    /// The command.
    pub command: String,
    /// How it went.
    pub status: StepStatus,
    /// Whether it was typed.
    pub sent: bool,
    /// What it printed (echo left out).
    #[serde(default)]
    pub output: String,
    /// The shell's exit status for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Whether its `expect_pattern` showed (absent without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matched: Option<bool>,
    /// Why it was skipped or failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Milliseconds it took.
    #[serde(default)]
    pub duration_ms: u64,
}

impl StepResult {
    /// `step`, not run (yet).
    pub fn of(step: &ChainCommand) -> Self {
        Self {
            sequence_order: step.sequence_order,
            command: step.command.clone(),
            status: StepStatus::Skipped,
            sent: false,
            output: String::new(),
            exit_code: None,
            matched: None,
            reason: None,
            duration_ms: 0,
        }
    }

    /// This step, failed for `reason` after `duration_ms`, having printed
    /// `output`.
    pub fn failed(mut self, output: String, reason: String, duration_ms: u64) -> Self {
        self.output = output;
        self.status = StepStatus::Failed;
        self.reason = Some(reason);
        self.duration_ms = duration_ms;
        self
    }
}

/// A chain's run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChainRun {
    /// The chain's name.
    pub chain: String,
    /// Every step passed or was skipped by its own condition, and none
    /// failed.
    pub passed: bool,
    /// Each step, in the order considered.
    pub steps: Vec<StepResult>,
    /// The session the steps ran in.
    pub session: String,
}

/// Why a chain cannot run.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ChainError {
    /// No steps.
    #[error("chain {0:?} has no commands")]
    Empty(String),
    /// A step's command is blank.
    #[error("chain {chain:?}, step {order}: the command is empty")]
    BlankCommand {
        /// The chain.
        chain: String,
        /// The step's order.
        order: i64,
    },
    /// `send_text` without `expect_pattern` to wait for.
    #[error("chain {chain:?}, step {order}: send_text needs an expect_pattern to wait for")]
    SendWithoutExpect {
        /// The chain.
        chain: String,
        /// The step's order.
        order: i64,
    },
    /// A step is both `on_success` and `on_failure`: it could never run.
    #[error("chain {chain:?}, step {order}: on_success and on_failure together never run")]
    Contradiction {
        /// The chain.
        chain: String,
        /// The step's order.
        order: i64,
    },
}

impl Chain {
    /// The steps in the order they run (by `sequence_order`, ties in file
    /// order), after checking the chain.
    pub fn ordered(&self) -> Result<Vec<&ChainCommand>, ChainError> {
        if self.commands.is_empty() {
            return Err(ChainError::Empty(self.name.clone()));
        }
        for step in &self.commands {
            let at = |order| (self.name.clone(), order);
            if step.command.trim().is_empty() {
                let (chain, order) = at(step.sequence_order);
                return Err(ChainError::BlankCommand { chain, order });
            }
            if step.send_text.is_some() && step.expect_pattern.is_none() {
                let (chain, order) = at(step.sequence_order);
                return Err(ChainError::SendWithoutExpect { chain, order });
            }
            if step.on_success && step.on_failure {
                let (chain, order) = at(step.sequence_order);
                return Err(ChainError::Contradiction { chain, order });
            }
        }
        let mut steps: Vec<&ChainCommand> = self.commands.iter().collect();
        steps.sort_by_key(|step| step.sequence_order);
        Ok(steps)
    }

    /// Seconds each step may take.
    pub fn timeout_secs(&self) -> u64 {
        self.timeout.unwrap_or(DEFAULT_TIMEOUT_SECS).max(1)
    }
}

/// Whether `step` runs after `done` (the results so far, in order): `Ok`,
/// or why it is skipped. A failure stops the chain: later steps are skipped
/// unless they are `on_failure`. `matches(pattern, text)` tests a regular
/// expression (the caller's engine); a pattern that is not one fails the
/// condition with its reason.
pub fn decide(
    step: &ChainCommand,
    done: &[StepResult],
    matches: impl Fn(&str, &str) -> Result<bool, String>,
) -> Result<(), String> {
    let failed_before = done
        .iter()
        .any(|result| result.status == StepStatus::Failed);
    let last_ran = done
        .iter()
        .rev()
        .find(|result| result.status != StepStatus::Skipped);
    let last_failed = last_ran.is_some_and(|result| result.status == StepStatus::Failed);
    if step.on_failure && !last_failed {
        return Err("on_failure, and the step before did not fail".to_owned());
    }
    if !step.on_failure && failed_before {
        return Err("an earlier step failed".to_owned());
    }
    if step.on_success && failed_before {
        return Err("on_success, and a step failed".to_owned());
    }
    if let Some(condition) = &step.condition {
        let previous = done.last();
        if let Some(status) = condition.previous_status {
            let actual = previous.map(|result| result.status);
            if actual != Some(status) {
                return Err(format!(
                    "condition: the previous step was {}, not {}",
                    actual.map_or("none", status_name),
                    status_name(status)
                ));
            }
        }
        let output = previous.map_or("", |result| result.output.as_str());
        if let Some(pattern) = &condition.previous_output_matches
            && !matches(pattern, output)?
        {
            return Err(format!(
                "condition: the previous output does not match {pattern:?}"
            ));
        }
        if let Some(pattern) = &condition.previous_output_lacks
            && matches(pattern, output)?
        {
            return Err(format!(
                "condition: the previous output matches {pattern:?}"
            ));
        }
    }
    Ok(())
}

fn status_name(status: StepStatus) -> &'static str {
    match status {
        StepStatus::Passed => "passed",
        StepStatus::Failed => "failed",
        StepStatus::Skipped => "skipped",
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    fn result(status: StepStatus, output: &str) -> StepResult {
        StepResult {
            status,
            sent: status != StepStatus::Skipped,
            output: output.to_owned(),
            ..StepResult::of(&ChainCommand::default())
        }
    }

    fn step(json: &str) -> ChainCommand {
        serde_json::from_str(json).unwrap()
    }

    fn contains(pattern: &str, text: &str) -> Result<bool, String> {
        Ok(text.contains(pattern))
    }

    #[test]
    fn a_failure_stops_the_chain_but_on_failure_steps_run() {
        let plain = step(r#"{"command": "ls"}"#);
        let cleanup = step(r#"{"command": "rm x", "on_failure": true}"#);
        let after_ok = step(r#"{"command": "deploy", "on_success": true}"#);
        let ok = [result(StepStatus::Passed, "")];
        let bad = [result(StepStatus::Failed, "")];
        assert_eq!(decide(&plain, &ok, contains), Ok(()));
        assert!(decide(&plain, &bad, contains).is_err());
        assert_eq!(decide(&cleanup, &bad, contains), Ok(()));
        assert!(decide(&cleanup, &ok, contains).is_err());
        assert_eq!(decide(&after_ok, &ok, contains), Ok(()));
        assert!(decide(&after_ok, &bad, contains).is_err());
    }

    #[test]
    fn conditions_are_data() {
        let when = step(
            r#"{"command": "npm install", "condition": {"previous_output_matches": "package.json"}}"#,
        );
        assert_eq!(
            decide(
                &when,
                &[result(StepStatus::Passed, "a package.json b")],
                contains
            ),
            Ok(())
        );
        assert!(decide(&when, &[result(StepStatus::Passed, "nothing")], contains).is_err());
        let status = step(r#"{"command": "x", "condition": {"previous_status": "skipped"}}"#);
        assert!(decide(&status, &[result(StepStatus::Passed, "")], contains).is_err());
        assert!(
            serde_json::from_str::<ChainCommand>(r#"{"command": "x", "condition": {"lambda": 1}}"#)
                .is_err()
        );
    }

    #[test]
    fn chains_are_checked_and_ordered() {
        let chain: Chain = serde_json::from_str(
            r#"{"id": "c", "name": "c", "commands": [
                {"sequence_order": 2, "command": "b"}, {"sequence_order": 1, "command": "a"}]}"#,
        )
        .unwrap();
        let order: Vec<&str> = chain
            .ordered()
            .unwrap()
            .iter()
            .map(|step| step.command.as_str())
            .collect();
        assert_eq!(order, ["a", "b"]);
        let bad: Chain = serde_json::from_str(
            r#"{"name": "c", "commands": [{"command": "a", "send_text": "x"}]}"#,
        )
        .unwrap();
        assert!(matches!(
            bad.ordered(),
            Err(ChainError::SendWithoutExpect { .. })
        ));
    }
}
