//! `switchboard investigate`, `probe`, `test`, `fuzz` and `chain`: one
//! call each over `switchboard-session`'s `probe` drivers, reports saved in
//! ClaudeControl's folders through the store, progress on stderr.

use crate::failure::BadInput;
use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use serde_json::{Value, json};
use switchboard_model::probe::fuzz::{DEFAULT_MAX_INPUTS, FindingKind, FuzzReport};
use switchboard_probe::{self as probe, Target, Timing, blackbox, fuzz, investigate};
use switchboard_session::Client;
use switchboard_store::{Workspace, chains::Chains, clock, probe_reports::ProbeReports};

/// Options every look at a program shares.
#[derive(Debug, Args)]
pub struct TargetArgs {
    /// Seconds each answer may take.
    #[arg(long, default_value_t = 5.0)]
    pub timeout: f64,
    /// Milliseconds of quiet that end an answer with no prompt.
    #[arg(long, value_name = "MS", default_value_t = 300)]
    pub quiet_ms: u64,
    /// One JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// The program and its arguments.
    #[arg(last = true, required = true, value_name = "PROGRAM ARGS")]
    pub command: Vec<String>,
}

/// `switchboard investigate`.
#[derive(Debug, Args)]
pub struct InvestigateArgs {
    /// How many modes deep to explore.
    #[arg(long, default_value_t = 3)]
    pub max_depth: usize,
    /// At most this many commands sent in each mode (the rest are listed
    /// as not sent).
    #[arg(long, value_name = "N", default_value_t = 25)]
    pub max_commands: usize,
    /// Also send commands whose name or description reads destructive.
    #[arg(long = "unsafe")]
    pub unsafe_mode: bool,
    /// Print the report without saving it.
    #[arg(long)]
    pub no_save: bool,
    /// What to run.
    #[command(flatten)]
    pub target: TargetArgs,
}

/// `switchboard probe`.
#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// What to run.
    #[command(flatten)]
    pub target: TargetArgs,
}

/// Fuzzing's own options.
#[derive(Debug, Args)]
pub struct FuzzOptions {
    /// The seed the inputs come from (default: from the clock; the report
    /// says which, so a run can be repeated).
    #[arg(long)]
    pub seed: Option<u64>,
    /// How many inputs.
    #[arg(long, default_value_t = DEFAULT_MAX_INPUTS)]
    pub max_inputs: usize,
    /// Fuzz a shell too (it runs what it is sent).
    #[arg(long)]
    pub shell: bool,
}

/// `switchboard test`.
#[derive(Debug, Args)]
pub struct TestArgs {
    /// The fuzz check.
    #[command(flatten)]
    pub fuzz: FuzzOptions,
    /// Print the report without saving it.
    #[arg(long)]
    pub no_save: bool,
    /// What to run.
    #[command(flatten)]
    pub target: TargetArgs,
}

/// `switchboard fuzz`.
#[derive(Debug, Args)]
pub struct FuzzArgs {
    /// Fuzzing.
    #[command(flatten)]
    pub fuzz: FuzzOptions,
    /// Print the findings without saving a report.
    #[arg(long)]
    pub no_save: bool,
    /// What to run.
    #[command(flatten)]
    pub target: TargetArgs,
}

/// `switchboard chain …`.
#[derive(Debug, Subcommand)]
pub enum ChainCommand {
    /// Run a chain of `.switchboard/chains/NAME.json` in one shell session.
    Run {
        /// The chain's name.
        name: String,
        /// One JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// The workspace's chains.
    List {
        /// A JSON array instead of text.
        #[arg(long)]
        json: bool,
    },
}

impl ChainCommand {
    /// Whether the output is for a program.
    pub fn wants_json(&self) -> bool {
        match self {
            Self::Run { json, .. } | Self::List { json } => *json,
        }
    }
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("could not start the async runtime")
}

fn failed(error: switchboard_model::ErrorPayload) -> anyhow::Error {
    anyhow::Error::new(error)
}

fn target(workspace: &Workspace, command: &[String]) -> Result<Target> {
    let cwd = std::env::current_dir().context("could not read the current directory")?;
    Target::of(
        command,
        cwd.display().to_string(),
        Some(workspace.root().display().to_string()),
    )
    .bad_input("no program given")
}

fn timing(args: &TargetArgs) -> Result<Timing> {
    let answer_ms = switchboard_session::protocol::timeout_millis(args.timeout)
        .map_err(|error| crate::failure::invalid(format!("--{error}")))?;
    Ok(Timing {
        quiet_ms: args.quiet_ms.max(1),
        answer_ms,
        start_ms: answer_ms.max(10_000),
    })
}

/// Progress on stderr, unless it is JSON's turn and stderr is not watched.
fn progress(json: bool) -> impl FnMut(&str) {
    move |step: &str| {
        if !json {
            eprintln!("… {step}");
        }
    }
}

fn reports() -> Result<ProbeReports> {
    Ok(ProbeReports::located()?)
}

/// `switchboard investigate`.
pub fn investigate(workspace: &Workspace, args: InvestigateArgs) -> Result<u8> {
    let target = target(workspace, &args.target.command)?;
    let options = investigate::Options {
        timing: timing(&args.target)?,
        max_depth: args.max_depth.max(1),
        unsafe_mode: args.unsafe_mode,
        max_commands: args.max_commands,
    };
    let client = Client::new().map_err(|error| failed(error.payload()))?;
    let mut said = progress(args.target.json);
    let report = runtime()?
        .block_on(investigate::investigate(
            &client, &target, options, &mut said,
        ))
        .map_err(failed)?;
    let path = if args.no_save {
        None
    } else {
        Some(reports()?.save_investigation(&report, &target.program, clock::now())?)
    };
    print_report(args.target.json, &report, path.as_deref(), || {
        report.summary()
    })?;
    Ok(0)
}

/// `switchboard probe`.
pub fn probe(workspace: &Workspace, args: ProbeArgs) -> Result<u8> {
    let target = target(workspace, &args.target.command)?;
    let client = Client::new().map_err(|error| failed(error.payload()))?;
    let found = runtime()?
        .block_on(investigate::probe(&client, &target, timing(&args.target)?))
        .map_err(failed)?;
    if args.target.json {
        println!("{}", serde_json::to_string(&found)?);
    } else {
        println!("{}", found.program);
        println!("  responsive:  {}", found.responsive);
        println!("  interactive: {}", found.interactive);
        println!(
            "  prompt:      {}",
            found.prompt.as_deref().unwrap_or("none")
        );
        if let Some(ended) = &found.ended {
            println!("  ended:       {ended}");
        }
        println!(
            "  commands:    {}",
            if found.commands.is_empty() {
                "none found".to_owned()
            } else {
                found.commands.join(", ")
            }
        );
    }
    Ok(0)
}

/// `switchboard test`.
pub fn test(workspace: &Workspace, args: TestArgs) -> Result<u8> {
    let target = target(workspace, &args.target.command)?;
    let options = blackbox::Options {
        timing: timing(&args.target)?,
        seed: fuzz::seed_or_clock(args.fuzz.seed),
        max_inputs: args.fuzz.max_inputs,
        tapes_in: Some(workspace.root().to_owned()),
        allow_shell: args.fuzz.shell,
    };
    let client = Client::new().map_err(|error| failed(error.payload()))?;
    let mut said = progress(args.target.json);
    let report = runtime()?
        .block_on(blackbox::test(&client, &target, &options, &mut said))
        .map_err(failed)?;
    let path = if args.no_save {
        None
    } else {
        Some(reports()?.save_test_report(&report, &target.program, clock::now())?)
    };
    print_report(args.target.json, &report, path.as_deref(), || {
        report.summary_text()
    })?;
    Ok(u8::from(report.summary.failed > 0))
}

/// `switchboard fuzz`: exit status 1 when a crash was found.
pub fn fuzz(workspace: &Workspace, args: FuzzArgs) -> Result<u8> {
    let target = target(workspace, &args.target.command)?;
    let options = fuzz::Options {
        seed: fuzz::seed_or_clock(args.fuzz.seed),
        max_inputs: args.fuzz.max_inputs,
        timing: timing(&args.target)?,
        allow_shell: args.fuzz.shell,
        tapes_in: Some(workspace.root().to_owned()),
    };
    let client = Client::new().map_err(|error| failed(error.payload()))?;
    let mut said = progress(args.target.json);
    let found = runtime()?
        .block_on(fuzz::fuzz(&client, &target, &options, &mut said))
        .map_err(failed)?;
    let path = if args.no_save {
        None
    } else {
        Some(reports()?.save_fuzz_report(&found, &target.program, clock::now())?)
    };
    print_report(args.target.json, &found, path.as_deref(), || {
        fuzz_text(&found)
    })?;
    Ok(u8::from(found.count(FindingKind::Crash) > 0))
}

/// `report` as one JSON object with where it was saved (`report_path`),
/// or as `text` and where it was saved.
fn print_report(
    json: bool,
    report: &impl serde::Serialize,
    path: Option<&std::path::Path>,
    text: impl FnOnce() -> String,
) -> Result<()> {
    if json {
        let mut value: Value = serde_json::to_value(report)?;
        if let (Some(object), Some(path)) = (value.as_object_mut(), path) {
            object.insert("report_path".into(), json!(path));
        }
        println!("{value}");
    } else {
        println!("{}", text());
        if let Some(path) = path {
            println!("Report: {}", path.display());
        }
    }
    Ok(())
}

fn fuzz_text(found: &FuzzReport) -> String {
    let mut lines = vec![format!(
        "Fuzzed {} with {} inputs (seed {}) in {:.1} s: {} findings, {} restarts",
        found.program,
        found.inputs,
        found.seed,
        found.duration_ms as f64 / 1000.0,
        found.findings.len(),
        found.restarts
    )];
    for finding in &found.findings {
        let input: String = finding.input.chars().take(60).collect();
        let exit = finding
            .exit
            .map(|exit| format!(" ({exit})"))
            .unwrap_or_default();
        let tape = finding
            .tape
            .as_deref()
            .map(|tape| format!("  tape: {tape}"))
            .unwrap_or_default();
        lines.push(format!(
            "  #{:<4} {:<12} {input:?}{exit}{tape}",
            finding.index,
            finding.kind.as_str()
        ));
    }
    lines.join("\n")
}

/// `switchboard chain …`.
pub fn chain(workspace: &Workspace, command: ChainCommand) -> Result<u8> {
    let chains = Chains::of(workspace.root());
    match command {
        ChainCommand::List { json } => {
            let names = chains.names()?;
            if json {
                println!("{}", serde_json::to_string(&names)?);
            } else if names.is_empty() {
                println!("no chains in {}", chains.dir().display());
            } else {
                for name in names {
                    println!("{name}");
                }
            }
            Ok(0)
        }
        ChainCommand::Run { name, json } => {
            let chain = chains.get(&name)?;
            let client = Client::new().map_err(|error| failed(error.payload()))?;
            let mut said = progress(json);
            let ran = runtime()?
                .block_on(probe::chain::run(
                    &client,
                    &chain,
                    workspace.root(),
                    &mut said,
                ))
                .map_err(failed)?;
            if json {
                println!("{}", serde_json::to_string(&ran)?);
            } else {
                for step in &ran.steps {
                    let status = match step.status {
                        switchboard_model::probe::chain::StepStatus::Passed => "ok  ",
                        switchboard_model::probe::chain::StepStatus::Failed => "FAIL",
                        switchboard_model::probe::chain::StepStatus::Skipped => "skip",
                    };
                    let why = step
                        .reason
                        .as_deref()
                        .map(|why| format!("  ({why})"))
                        .unwrap_or_default();
                    println!("[{status}] {}. {}{why}", step.sequence_order, step.command);
                    for line in step.output.lines().filter(|line| !line.trim().is_empty()) {
                        println!("       {line}");
                    }
                }
                println!(
                    "{}",
                    if ran.passed {
                        "chain passed"
                    } else {
                        "chain failed"
                    }
                );
            }
            Ok(u8::from(!ran.passed))
        }
    }
}
