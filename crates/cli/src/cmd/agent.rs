//! `switchboard agent …`: agents started from Switchboard — Claude Code
//! or Codex in its own interactive interface, in a program session, in
//! the workspace or a git worktree — listed, followed up, stopped, and
//! their work reviewed, merged or discarded. Each a few lines over
//! `switchboard-launch`.

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use switchboard_launch::{Caller, LaunchFailure};
use switchboard_model::{
    age_label,
    agent::launch::{Launch, LaunchRequest, WorktreeChoice},
};
use switchboard_session::Client;
use switchboard_store::{StoreError, Workspace, clock, settings};

/// `switchboard agent …`.
#[derive(Debug, Subcommand)]
pub enum AgentCommand {
    /// Start Claude Code or Codex in its own interactive interface, in a
    /// program session (watch it and take it over in the window's
    /// Terminals, or `switchboard session attach NAME`), with
    /// Switchboard's hooks for this run: its questions come to the inbox.
    /// Prints its name.
    Start(StartArgs),
    /// The agents started here: name, state, since when, where.
    List(JsonArgs),
    /// What an agent changed in its worktree since its base.
    Diff(NameArgs),
    /// Merge an agent's worktree branch into its base branch.
    Merge(MergeArgs),
    /// Remove an agent's worktree and branch.
    Discard(DiscardArgs),
    /// Type a follow-up into an agent's own prompt.
    Send(SendArgs),
    /// End an agent's program (its worktree and branch are kept).
    Stop(NameArgs),
    /// Mind a started agent's terminal until it ends (started with it):
    /// what it asks on its screen becomes a question in the inbox.
    #[command(hide = true)]
    Mind(NameArgs),
}

impl AgentCommand {
    /// Whether failures are printed as JSON.
    pub fn wants_json(&self) -> bool {
        match self {
            Self::Start(args) => args.json,
            Self::List(args) => args.json,
            Self::Diff(args) | Self::Stop(args) | Self::Mind(args) => args.json,
            Self::Merge(args) => args.name.json,
            Self::Discard(args) => args.name.json,
            Self::Send(args) => args.name.json,
        }
    }
}

/// `agent start`.
#[derive(Debug, Args)]
pub struct StartArgs {
    /// Which agent: claude-code or codex.
    #[arg(value_parser = ["claude-code", "codex"])]
    pub agent: String,
    /// What it should do.
    pub prompt: String,
    /// Its name (letters, digits, '-', '_', '.'): what every other
    /// command takes. Default: its worktree's name, else made from the
    /// prompt.
    #[arg(long)]
    pub name: Option<String>,
    /// Work in a new git worktree on the branch `switchboard/NAME`
    /// (`--worktree=NAME`: named so): Claude Code's under
    /// `.claude/worktrees/`, Codex's under `.switchboard/worktrees/`.
    #[arg(long, num_args = 0..=1, default_missing_value = "", require_equals = true)]
    pub worktree: Option<String>,
    /// The worktree's base (default: the current HEAD's branch).
    #[arg(long, requires = "worktree")]
    pub base: Option<String>,
    /// The team task it works on, as TEAM/ID.
    #[arg(long)]
    pub task: Option<String>,
    /// The agent's permission mode (Claude Code: default, acceptEdits,
    /// plan, bypassPermissions; Codex: on-request, untrusted, never).
    /// Default: the one whose questions come to the inbox.
    #[arg(long)]
    pub permission_mode: Option<String>,
    /// The agent's model.
    #[arg(long)]
    pub model: Option<String>,
    /// Print the launch as JSON.
    #[arg(long)]
    pub json: bool,
}

/// An agent's name.
#[derive(Debug, Args)]
pub struct NameArgs {
    /// The agent's name.
    pub name: String,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `--json` alone.
#[derive(Debug, Args)]
pub struct JsonArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `agent merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    #[command(flatten)]
    pub name: NameArgs,
    /// Commit the worktree's uncommitted changes first (else they refuse
    /// the merge).
    #[arg(long)]
    pub commit: bool,
}

/// `agent discard`.
#[derive(Debug, Args)]
pub struct DiscardArgs {
    #[command(flatten)]
    pub name: NameArgs,
    /// Discard even work not merged (uncommitted changes, commits).
    #[arg(long)]
    pub force: bool,
}

/// `agent send`.
#[derive(Debug, Args)]
pub struct SendArgs {
    #[command(flatten)]
    pub name: NameArgs,
    /// What to type (submitted with Enter).
    pub text: String,
}

/// Runs an `agent` command.
pub fn run(workspace: &Workspace, command: AgentCommand) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    let client = Client::new().map_err(|error| anyhow::Error::new(error.payload()))?;
    runtime
        .block_on(dispatch(&client, workspace, command))
        .map_err(|error| anyhow::Error::new(error.payload()))?
}

async fn dispatch(
    client: &Client,
    workspace: &Workspace,
    command: AgentCommand,
) -> Result<Result<()>, LaunchFailure> {
    let now = clock::now();
    Ok(match command {
        AgentCommand::Start(args) => {
            let caller = Caller::new(
                std::env::vars().collect(),
                std::env::current_exe().map_err(|error| {
                    LaunchFailure::Store(switchboard_store::StoreError::InTheWay(format!(
                        "could not find this switchboard binary for the agent's hooks: {error}"
                    )))
                })?,
                &settings::effective(),
            );
            let request = LaunchRequest {
                agent: args.agent,
                name: args.name,
                worktree: args.worktree.map(|name| {
                    if name.is_empty() {
                        WorktreeChoice::AsAgent
                    } else {
                        WorktreeChoice::Named(name)
                    }
                }),
                base: args.base,
                task: args.task,
                permission_mode: args.permission_mode,
                model: args.model,
                prompt: args.prompt,
            };
            let launch =
                switchboard_launch::start(client, workspace, &request, &caller, now).await?;
            print_launch(&launch, args.json)
        }
        AgentCommand::List(args) => {
            let rows = switchboard_launch::rows(client, workspace, now).await?;
            if args.json {
                print_json(&rows)
            } else if rows.is_empty() {
                println!("No agent was started here (switchboard agent start claude-code \"…\").");
                Ok(())
            } else {
                println!(
                    "{:<24} {:<12} {:<20} {:<8} WHERE",
                    "NAME", "AGENT", "STATE", "SINCE"
                );
                for row in rows {
                    let launch = &row.launch;
                    let place = launch
                        .worktree
                        .as_ref()
                        .map_or_else(|| "the workspace".to_owned(), |tree| tree.branch.clone());
                    println!(
                        "{:<24} {:<12} {:<20} {:<8} {place}",
                        launch.name,
                        launch.agent.as_str(),
                        row.label(),
                        age_label(row.since, now),
                    );
                }
                Ok(())
            }
        }
        AgentCommand::Diff(args) => {
            let changes = switchboard_launch::diff(workspace, &args.name)?;
            if args.json {
                print_json(&changes)
            } else {
                // Coloured on a terminal, unless NO_COLOR (no-color.org) is set.
                let colour = std::io::IsTerminal::is_terminal(&std::io::stdout())
                    && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty());
                print!(
                    "{}",
                    switchboard_model::agent::review::terminal_review(&changes, colour)
                );
                Ok(())
            }
        }
        AgentCommand::Merge(args) => {
            let name = &args.name.name;
            let launch = switchboard_launch::merge(client, workspace, name, args.commit, now)
                .await
                .map_err(|failure| {
                    with_flag(failure, &format!("switchboard agent merge {name} --commit"))
                })?;
            if !args.name.json
                && let Some(said) = launch.landed_sentence()
            {
                eprintln!("{said} Its program was ended.");
            }
            print_launch(&launch, args.name.json)
        }
        AgentCommand::Discard(args) => {
            let name = &args.name.name;
            let launch = switchboard_launch::discard(client, workspace, name, args.force, now)
                .await
                .map_err(|failure| {
                    with_flag(
                        failure,
                        &format!("switchboard agent discard {name} --force"),
                    )
                })?;
            print_launch(&launch, args.name.json)
        }
        AgentCommand::Send(args) => {
            let launch =
                switchboard_launch::send(client, workspace, &args.name.name, &args.text).await?;
            print_launch(&launch, args.name.json)
        }
        AgentCommand::Mind(args) => {
            switchboard_launch::mind(client, workspace, &args.name).await?;
            Ok(())
        }
        AgentCommand::Stop(args) => {
            let launch = switchboard_launch::stop(client, workspace, &args.name).await?;
            print_launch(&launch, args.json)
        }
    })
}

/// A refusal the command line answers with a flag (uncommitted work to
/// merge, work a discard would lose): its words, then the command that
/// says yes.
fn with_flag(failure: LaunchFailure, command: &str) -> LaunchFailure {
    match failure {
        LaunchFailure::Store(
            error @ (StoreError::Uncommitted { .. } | StoreError::WouldLose { .. }),
        ) => LaunchFailure::Store(StoreError::InTheWay(format!("{error} ({command})"))),
        other => other,
    }
}

fn print_launch(launch: &Launch, json: bool) -> Result<()> {
    if json {
        print_json(launch)
    } else {
        println!("{}", launch.name);
        Ok(())
    }
}

fn print_json(value: &impl serde::Serialize) -> Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}
