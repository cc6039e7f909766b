//! What the probe tools take and give: their arguments and the views of
//! investigations, quick looks, test checks, fuzz findings and chain runs.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use switchboard_model::probe::{
    InvestigationReport, Probe,
    chain::{ChainRun, StepStatus},
    fuzz::{Finding, FuzzReport},
    testing::TestReport,
};

/// What to run, as every tool here takes it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TargetArgs {
    /// The program (exec'd, not run through a shell).
    pub program: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// The folder it runs in (default: the workspace).
    #[serde(default)]
    pub cwd: Option<String>,
    /// Seconds each answer may take (default 5).
    #[serde(default)]
    #[schemars(range(min = 0.1, max = 3600.0))]
    pub timeout: Option<f64>,
}

/// `investigate`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InvestigateArgs {
    /// What to run.
    #[serde(flatten)]
    pub target: TargetArgs,
    /// How many modes deep to explore (default 3).
    #[serde(default)]
    #[schemars(range(min = 1, max = 10))]
    pub max_depth: Option<usize>,
    /// At most this many commands sent in each mode (default 25).
    #[serde(default)]
    #[schemars(range(min = 0, max = 1000))]
    pub max_commands: Option<usize>,
    /// Also send commands whose name or description reads destructive
    /// (delete, wipe, drop, reset, kill, …). Off by default.
    #[serde(default, rename = "unsafe")]
    pub unsafe_mode: bool,
}

/// `fuzz`'s and `test_program`'s fuzzing arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FuzzArgs {
    /// What to run.
    #[serde(flatten)]
    pub target: TargetArgs,
    /// The seed the inputs come from (default: from the clock; the answer
    /// says which, so a run can be repeated).
    #[serde(default)]
    pub seed: Option<u64>,
    /// How many inputs (default 50).
    #[serde(default)]
    #[schemars(range(min = 1, max = 100000))]
    pub max_inputs: Option<usize>,
    /// Fuzz a shell too (it runs what it is sent).
    #[serde(default)]
    pub shell: bool,
}

/// `run_chain`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChainArgs {
    /// The chain's name (`.switchboard/chains/NAME.json`).
    pub name: String,
}

/// A state of the program.
#[derive(Debug, Serialize, JsonSchema)]
pub struct StateView {
    /// `initial`, `state_1`, …
    pub name: String,
    /// Its prompt.
    pub prompt: String,
    /// The state it was opened from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// The command that returns to the parent, if one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub way_back: Option<String>,
    /// Commands its help listed.
    pub commands: Vec<String>,
    /// `command → state`, one per line.
    pub transitions: Vec<String>,
}

/// A command found.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CommandView {
    /// Its name.
    pub name: String,
    /// Its description in the help.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether it was sent.
    pub tested: bool,
    /// Why it was not sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// An investigation.
#[derive(Debug, Serialize, JsonSchema)]
pub struct InvestigationView {
    /// The command line.
    pub program: String,
    /// Where the report was saved (ClaudeControl's investigations folder).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report_path: Option<String>,
    /// It stayed up and answered a line.
    pub interactive: bool,
    /// The states found.
    pub states: Vec<StateView>,
    /// The commands found.
    pub commands: Vec<CommandView>,
    /// Help requests that produced help.
    pub help_commands: Vec<String>,
    /// Inputs that really ended it.
    pub exit_commands: Vec<String>,
    /// Output formats seen.
    pub data_formats: Vec<String>,
    /// `command: kind` for each error seen.
    pub error_messages: Vec<String>,
    /// What was skipped or ended, and why.
    pub safety_notes: Vec<String>,
    /// Inputs sent.
    pub exchanges: usize,
    /// Milliseconds it took.
    pub duration_ms: u64,
}

impl InvestigationView {
    pub(super) fn of(report: InvestigationReport, path: Option<String>) -> Self {
        let facts = report.switchboard.clone().unwrap_or_default();
        Self {
            program: report.program,
            report_path: path,
            interactive: facts.interactive,
            states: report
                .states
                .into_values()
                .map(|state| StateView {
                    transitions: state
                        .transitions
                        .iter()
                        .map(|(command, to)| format!("{command} → {to}"))
                        .collect(),
                    name: state.name,
                    prompt: state.prompt,
                    parent: state.parent,
                    way_back: state.way_back,
                    commands: state.commands,
                })
                .collect(),
            commands: report
                .commands
                .into_iter()
                .map(|(name, info)| CommandView {
                    name,
                    description: info.description,
                    tested: info.tested.unwrap_or(false),
                    skipped: info.skipped,
                })
                .collect(),
            help_commands: report.help_commands,
            exit_commands: report.exit_commands,
            data_formats: report.data_formats,
            error_messages: report.error_messages,
            safety_notes: report.safety_notes,
            exchanges: facts.exchanges,
            duration_ms: facts.duration_ms,
        }
    }
}

/// A quick look.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ProbeView {
    /// The command line.
    pub program: String,
    /// It printed something or answered.
    pub responsive: bool,
    /// It stayed up and answered a line (measured).
    pub interactive: bool,
    /// Its prompt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// How it ended by itself, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ended: Option<String>,
    /// Commands its help listed.
    pub commands: Vec<String>,
    /// What it printed at start-up.
    pub startup_output: String,
}

impl From<Probe> for ProbeView {
    fn from(probe: Probe) -> Self {
        Self {
            program: probe.program,
            responsive: probe.responsive,
            interactive: probe.interactive,
            prompt: probe.prompt,
            ended: probe.ended,
            commands: probe.commands,
            startup_output: probe.startup_output,
        }
    }
}

/// One fuzz finding.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FindingView {
    /// Which input (0-based, in the seed's order).
    pub index: usize,
    /// The exact input (sent as a line).
    pub input: String,
    /// `crash`, `error`, `no_response` or `large_output`.
    #[serde(rename = "type")]
    pub kind: String,
    /// What it printed, cut.
    pub output: String,
    /// A crash's exit code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// A crash's signal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// The tape that replays a crash (`switchboard play` it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tape: Option<String>,
}

impl From<Finding> for FindingView {
    fn from(finding: Finding) -> Self {
        Self {
            index: finding.index,
            kind: finding.kind.as_str().to_owned(),
            exit_code: finding.exit.and_then(|exit| exit.code),
            signal: finding.exit.and_then(|exit| exit.signal),
            input: finding.input,
            output: finding.output,
            tape: finding.tape,
        }
    }
}

/// A fuzz run.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FuzzView {
    /// The command line.
    pub program: String,
    /// The seed (the same seed gives the same inputs).
    pub seed: u64,
    /// Inputs sent.
    pub inputs: usize,
    /// Times it was started again after ending.
    pub restarts: usize,
    /// Milliseconds it took.
    pub duration_ms: u64,
    /// What was found.
    pub findings: Vec<FindingView>,
    /// Where the report was saved (ClaudeControl's test-reports folder).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report_path: Option<String>,
}

impl FuzzView {
    pub(super) fn of(report: FuzzReport, path: Option<String>) -> Self {
        Self {
            program: report.program,
            seed: report.seed,
            inputs: report.inputs,
            restarts: report.restarts,
            duration_ms: report.duration_ms,
            findings: report.findings.into_iter().map(FindingView::from).collect(),
            report_path: path,
        }
    }
}

/// One check's result.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CheckView {
    /// Its name (`startup`, `help_system`, …).
    pub test: String,
    /// Its verdict.
    pub passed: bool,
    /// Why.
    pub verdict: String,
}

/// The seven checks.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TestView {
    /// The command line.
    pub program: String,
    /// Checks passed.
    pub passed: usize,
    /// Checks failed.
    pub failed: usize,
    /// Each check.
    pub results: Vec<CheckView>,
    /// The fuzz check's findings.
    pub findings: Vec<FindingView>,
    /// Where the report was saved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report_path: Option<String>,
}

impl TestView {
    pub(super) fn of(report: TestReport, path: Option<String>) -> Self {
        Self {
            program: report.program,
            passed: report.summary.passed,
            failed: report.summary.failed,
            results: report
                .test_results
                .into_iter()
                .map(|result| CheckView {
                    verdict: result.verdict.or(result.error).unwrap_or_default(),
                    test: result.test,
                    passed: result.passed,
                })
                .collect(),
            findings: report.findings.into_iter().map(FindingView::from).collect(),
            report_path: path,
        }
    }
}

/// One step of a chain.
#[derive(Debug, Serialize, JsonSchema)]
pub struct StepView {
    /// Its order.
    pub sequence_order: i64,
    /// The command.
    pub command: String,
    /// `passed`, `failed` or `skipped`.
    pub status: String,
    /// What it printed.
    pub output: String,
    /// Its exit status.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Whether its expect_pattern showed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched: Option<bool>,
    /// Why it was skipped or failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A chain's run.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ChainView {
    /// The chain.
    pub chain: String,
    /// No step failed.
    pub passed: bool,
    /// Each step.
    pub steps: Vec<StepView>,
    /// The session the steps ran in.
    pub session: String,
}

impl From<ChainRun> for ChainView {
    fn from(run: ChainRun) -> Self {
        Self {
            chain: run.chain,
            passed: run.passed,
            session: run.session,
            steps: run
                .steps
                .into_iter()
                .map(|step| StepView {
                    sequence_order: step.sequence_order,
                    command: step.command,
                    status: match step.status {
                        StepStatus::Passed => "passed",
                        StepStatus::Failed => "failed",
                        StepStatus::Skipped => "skipped",
                    }
                    .to_owned(),
                    output: step.output,
                    exit_code: step.exit_code,
                    matched: step.matched,
                    reason: step.reason,
                })
                .collect(),
        }
    }
}
