//! The tools that find out what a program is: `investigate`, `probe`,
//! `test_program`, `fuzz` and `run_chain` — each one call over
//! `switchboard-session`'s `probe` drivers (the same as `switchboard
//! investigate`, `probe`, `test`, `fuzz`, `chain run`), reports saved in
//! ClaudeControl's folders through the store, each step of the work a
//! progress notification, a cancelled call ending its program.

mod views;

use rmcp::{
    Json, Peer, RoleServer, handler::server::wrapper::Parameters, model::RequestMetaObject, tool,
    tool_router,
};
use switchboard_model::probe::fuzz::DEFAULT_MAX_INPUTS;
use switchboard_probe::{Target, Timing, blackbox, chain, fuzz, investigate};
use switchboard_session::protocol::timeout_millis;
use switchboard_store::{chains::Chains, clock, probe_reports::ProbeReports};
use tokio_util::sync::CancellationToken;

use super::{
    Server, ToolError, host_client,
    progress::{self, Bridge},
};
pub use views::*;

fn reports() -> Result<ProbeReports, ToolError> {
    ProbeReports::located().map_err(store_error)
}

fn store_error(error: switchboard_store::StoreError) -> ToolError {
    ToolError(switchboard_model::ErrorPayload::new(
        error.code(),
        error.to_string(),
    ))
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

impl Server {
    /// `investigate`, its steps and cancellation through `bridge`.
    pub(super) async fn investigating(
        &self,
        args: InvestigateArgs,
        bridge: Bridge<'_>,
    ) -> Result<Json<InvestigationView>, ToolError> {
        let (target, timing) = self.target(&args.target)?;
        let options = investigate::Options {
            timing,
            max_depth: args.max_depth.unwrap_or(3).max(1),
            unsafe_mode: args.unsafe_mode,
            max_commands: args.max_commands.unwrap_or(25),
        };
        let client = host_client()?;
        let (reporter, steps) = progress::channel();
        let mut said = reporter.counting();
        let report = bridge
            .run(
                investigate::investigate(&client, &target, options, &mut said),
                steps,
                "the program it ran was ended",
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

    /// `test_program`, its steps and cancellation through `bridge`.
    pub(super) async fn testing(
        &self,
        args: FuzzArgs,
        bridge: Bridge<'_>,
    ) -> Result<Json<TestView>, ToolError> {
        let (target, timing) = self.target(&args.target)?;
        let options = blackbox::Options {
            timing,
            seed: fuzz::seed_or_clock(args.seed),
            max_inputs: args.max_inputs.unwrap_or(DEFAULT_MAX_INPUTS),
            tapes_in: Some(self.workspace().root().to_owned()),
            allow_shell: args.shell,
        };
        let client = host_client()?;
        let (reporter, steps) = progress::channel();
        let mut said = reporter.counting();
        let report = bridge
            .run(
                blackbox::test(&client, &target, &options, &mut said),
                steps,
                "the program it ran was ended",
            )
            .await?
            .map_err(ToolError)?;
        let path = reports()?
            .save_test_report(&report, &target.program, clock::now())
            .map_err(store_error)?;
        Ok(Json(TestView::of(report, Some(path.display().to_string()))))
    }

    /// `fuzz`, its steps and cancellation through `bridge`.
    pub(super) async fn fuzzing(
        &self,
        args: FuzzArgs,
        bridge: Bridge<'_>,
    ) -> Result<Json<FuzzView>, ToolError> {
        let (target, timing) = self.target(&args.target)?;
        let options = fuzz::Options {
            seed: fuzz::seed_or_clock(args.seed),
            max_inputs: args.max_inputs.unwrap_or(DEFAULT_MAX_INPUTS),
            timing,
            allow_shell: args.shell,
            tapes_in: Some(self.workspace().root().to_owned()),
        };
        let client = host_client()?;
        let (reporter, steps) = progress::channel();
        let mut said = reporter.counting();
        let found = bridge
            .run(
                fuzz::fuzz(&client, &target, &options, &mut said),
                steps,
                "the program it ran was ended",
            )
            .await?
            .map_err(ToolError)?;
        let path = reports()?
            .save_fuzz_report(&found, &target.program, clock::now())
            .map_err(store_error)?;
        Ok(Json(FuzzView::of(found, Some(path.display().to_string()))))
    }

    /// `run_chain`, its steps and cancellation through `bridge`.
    pub(super) async fn running_chain(
        &self,
        args: ChainArgs,
        bridge: Bridge<'_>,
    ) -> Result<Json<ChainView>, ToolError> {
        let root = self.workspace().root().to_owned();
        let found = Chains::of(&root).get(&args.name).map_err(store_error)?;
        let client = host_client()?;
        let (reporter, steps) = progress::channel();
        let mut said = reporter.counting();
        let ran = bridge
            .run(
                chain::run(&client, &found, &root, &mut said),
                steps,
                "the program it ran was ended",
            )
            .await?
            .map_err(ToolError)?;
        Ok(Json(ran.into()))
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
        self.investigating(args, Bridge::new(&meta, &peer, &cancelled))
            .await
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
        let found = investigate::probe(&host_client()?, &target, timing)
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
        self.testing(args, Bridge::new(&meta, &peer, &cancelled))
            .await
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
        self.fuzzing(args, Bridge::new(&meta, &peer, &cancelled))
            .await
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
        self.running_chain(args, Bridge::new(&meta, &peer, &cancelled))
            .await
    }
}
