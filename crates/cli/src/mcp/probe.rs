//! The tools that find out what a program is: `investigate`, `probe`,
//! `test_program`, `fuzz` and `run_chain` — each one call over
//! `switchboard-session`'s `probe` drivers (the same as `switchboard
//! investigate`, `probe`, `test`, `fuzz`, `chain run`), reports saved in
//! ClaudeControl's folders through the store, each step of the work a
//! progress notification, a cancelled call ending its program.

use rmcp::{
    Json, Peer, RoleServer,
    handler::server::wrapper::Parameters,
    model::{ProgressNotificationParam, RequestMetaObject},
    tool, tool_router,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use switchboard_model::probe::{
    InvestigationReport, Probe,
    chain::{ChainRun, StepStatus},
    fuzz::{DEFAULT_MAX_INPUTS, Finding, FuzzReport},
    testing::TestReport,
};
use switchboard_session::{
    Client,
    probe::{Target, Timing, blackbox, chain, fuzz, investigate},
    protocol::timeout_millis,
};
use switchboard_store::{chains::Chains, clock, probe_reports::ProbeReports};
use tokio_util::sync::CancellationToken;

use super::{Server, ToolError};

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
    fn of(report: InvestigationReport, path: Option<String>) -> Self {
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
    fn of(report: FuzzReport, path: Option<String>) -> Self {
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
    fn of(report: TestReport, path: Option<String>) -> Self {
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

fn client() -> Result<Client, ToolError> {
    Client::new().map_err(|error| ToolError(error.payload()))
}

fn reports() -> Result<ProbeReports, ToolError> {
    ProbeReports::located().map_err(store_error)
}

fn store_error(error: switchboard_store::StoreError) -> ToolError {
    ToolError(switchboard_model::ErrorPayload::new(
        error.code(),
        error.to_string(),
    ))
}

/// Runs a driver while its steps become progress notifications (numbered,
/// with the step as the message); a cancelled call drops the driver, which
/// ends the program it was running.
async fn working<T>(
    work: impl Future<Output = T>,
    mut steps: tokio::sync::mpsc::UnboundedReceiver<String>,
    meta: &RequestMetaObject,
    peer: &Peer<RoleServer>,
    cancelled: &CancellationToken,
) -> Result<T, ToolError> {
    let token = meta.get_progress_token();
    let mut work = std::pin::pin!(work);
    let mut count = 0_u32;
    loop {
        tokio::select! {
            done = &mut work => return Ok(done),
            Some(step) = steps.recv() => {
                count += 1;
                if let Some(token) = &token {
                    let notification = ProgressNotificationParam::new(token.clone(), f64::from(count))
                        .with_message(step);
                    if let Err(error) = peer.notify_progress(notification).await {
                        tracing::debug!(%error, "progress notification not sent");
                    }
                }
            }
            () = cancelled.cancelled() => {
                return Err(ToolError::invalid("the call was cancelled"));
            }
        }
    }
}

/// A progress reporter for a driver, and its other end.
fn reporter() -> (
    impl FnMut(&str) + Send,
    tokio::sync::mpsc::UnboundedReceiver<String>,
) {
    let (sender, receiver) = tokio::sync::mpsc::unbounded_channel();
    (
        move |step: &str| {
            let _ = sender.send(step.to_owned());
        },
        receiver,
    )
}

impl Server {
    fn target(&self, args: &TargetArgs) -> Result<(Target, Timing), ToolError> {
        let root = self.workspace().root().to_owned();
        let cwd = match &args.cwd {
            Some(dir) if std::path::Path::new(dir).is_absolute() => dir.clone(),
            Some(dir) => root.join(dir).display().to_string(),
            None => root.display().to_string(),
        };
        let mut command = vec![args.program.clone()];
        command.extend(args.args.iter().cloned());
        let target = Target::of(&command, cwd, Some(root.display().to_string()))
            .ok_or_else(|| ToolError::invalid("give the program to run"))?;
        let answer_ms = timeout_millis(args.timeout.unwrap_or(5.0))
            .map_err(|error| ToolError::invalid(error.to_string()))?;
        Ok((
            target,
            Timing {
                answer_ms,
                start_ms: answer_ms.max(10_000),
                ..Timing::default()
            },
        ))
    }
}

#[tool_router(router = probe_tools, vis = "pub(super)")]
impl Server {
    /// Investigates a program.
    #[tool(
        description = "Find out what an unknown interactive program is: its prompts, the commands \
                       its help lists (asked as --help/-h and inside it), the modes a command \
                       opens (each explored, with the way back), output formats (JSON, XML, \
                       table, CSV, key-value), error messages and the inputs that really end it. \
                       Safe by default: commands whose name or description reads destructive are \
                       never sent (listed in safety_notes with the reason); a password prompt or \
                       a hang ends that branch. Saves ClaudeControl's report. Progress \
                       notifications name each step."
    )]
    pub async fn investigate(
        &self,
        Parameters(args): Parameters<InvestigateArgs>,
        meta: RequestMetaObject,
        peer: Peer<RoleServer>,
        cancelled: CancellationToken,
    ) -> Result<Json<InvestigationView>, ToolError> {
        let (target, timing) = self.target(&args.target)?;
        let options = investigate::Options {
            timing,
            max_depth: args.max_depth.unwrap_or(3).max(1),
            unsafe_mode: args.unsafe_mode,
            max_commands: args.max_commands.unwrap_or(25),
        };
        let client = client()?;
        let (mut said, steps) = reporter();
        let report = working(
            investigate::investigate(&client, &target, options, &mut said),
            steps,
            &meta,
            &peer,
            &cancelled,
        )
        .await?
        .map_err(ToolError)?;
        let path = reports()?
            .save_investigation(&report, &target.program, clock::now())
            .map_err(store_error)?;
        Ok(Json(InvestigationView::of(
            report,
            Some(path.display().to_string()),
        )))
    }

    /// A quick look at a program.
    #[tool(
        description = "A quick look at a program: does it answer, is it interactive (measured: \
                       it stayed up and answered a line), its prompt, the commands its help \
                       lists, what it printed at start-up."
    )]
    pub async fn probe(
        &self,
        Parameters(args): Parameters<TargetArgs>,
    ) -> Result<Json<ProbeView>, ToolError> {
        let (target, timing) = self.target(&args)?;
        let found = investigate::probe(&client()?, &target, timing)
            .await
            .map_err(ToolError)?;
        Ok(Json(found.into()))
    }

    /// ClaudeControl's seven black-box checks.
    #[tool(
        description = "Run ClaudeControl's seven black-box checks of a program (startup, \
                       help_system, invalid_input, exit_behavior, resource_usage, \
                       concurrent_sessions, fuzzing), each with a verdict: a crash is an \
                       abnormal end (signal or non-zero status), help is only what the question \
                       produced. Saves ClaudeControl's test report with the fuzz findings; each \
                       crash is saved as a tape that replays it."
    )]
    pub async fn test_program(
        &self,
        Parameters(args): Parameters<FuzzArgs>,
        meta: RequestMetaObject,
        peer: Peer<RoleServer>,
        cancelled: CancellationToken,
    ) -> Result<Json<TestView>, ToolError> {
        let (target, timing) = self.target(&args.target)?;
        let options = blackbox::Options {
            timing,
            seed: fuzz::seed_or_clock(args.seed),
            max_inputs: args.max_inputs.unwrap_or(DEFAULT_MAX_INPUTS),
            tapes_in: Some(self.workspace().root().to_owned()),
            allow_shell: args.shell,
        };
        let client = client()?;
        let (mut said, steps) = reporter();
        let report = working(
            blackbox::test(&client, &target, &options, &mut said),
            steps,
            &meta,
            &peer,
            &cancelled,
        )
        .await?
        .map_err(ToolError)?;
        let path = reports()?
            .save_test_report(&report, &target.program, clock::now())
            .map_err(store_error)?;
        Ok(Json(TestView::of(report, Some(path.display().to_string()))))
    }

    /// Fuzzes a program.
    #[tool(
        description = "Fuzz a program's input: ClaudeControl's fixed inputs, then inputs \
                       generated from `seed` (the same seed, the same inputs), `max_inputs` of \
                       them. Each finding (crash with its exit code or signal, error, \
                       no_response, large_output) keeps the exact input; the program is started \
                       again after a crash, and each crash is saved as a tape that replays it. A \
                       shell is refused unless `shell` is set."
    )]
    pub async fn fuzz(
        &self,
        Parameters(args): Parameters<FuzzArgs>,
        meta: RequestMetaObject,
        peer: Peer<RoleServer>,
        cancelled: CancellationToken,
    ) -> Result<Json<FuzzView>, ToolError> {
        let (target, timing) = self.target(&args.target)?;
        let options = fuzz::Options {
            seed: fuzz::seed_or_clock(args.seed),
            max_inputs: args.max_inputs.unwrap_or(DEFAULT_MAX_INPUTS),
            timing,
            allow_shell: args.shell,
            tapes_in: Some(self.workspace().root().to_owned()),
        };
        let client = client()?;
        let (mut said, steps) = reporter();
        let found = working(
            fuzz::fuzz(&client, &target, &options, &mut said),
            steps,
            &meta,
            &peer,
            &cancelled,
        )
        .await?
        .map_err(ToolError)?;
        let path = reports()?
            .save_fuzz_report(&found, &target.program, clock::now())
            .map_err(store_error)?;
        Ok(Json(FuzzView::of(found, Some(path.display().to_string()))))
    }

    /// Runs a command chain.
    #[tool(
        description = "Run a command chain of the workspace (`.switchboard/chains/NAME.json`: \
                       steps with sequence_order, command, expect_pattern, send_text, condition, \
                       on_success, on_failure) in one shell session, so each step sees the last \
                       one's cd, variables and logins. Reports each step: passed, failed (with \
                       why) or skipped (with why); a failure stops the chain except for \
                       on_failure steps."
    )]
    pub async fn run_chain(
        &self,
        Parameters(args): Parameters<ChainArgs>,
        meta: RequestMetaObject,
        peer: Peer<RoleServer>,
        cancelled: CancellationToken,
    ) -> Result<Json<ChainView>, ToolError> {
        let root = self.workspace().root().to_owned();
        let found = Chains::of(&root).get(&args.name).map_err(store_error)?;
        let client = client()?;
        let (mut said, steps) = reporter();
        let ran = working(
            chain::run(&client, &found, &root, &mut said),
            steps,
            &meta,
            &peer,
            &cancelled,
        )
        .await?
        .map_err(ToolError)?;
        Ok(Json(ran.into()))
    }
}
