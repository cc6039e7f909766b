//! `switchboard hook`: the one command agents run as their hook — it
//! reads the event on stdin, records what the agent does, and for a
//! permission request asks the developer in the window and prints the
//! decision in the agent's shape (nothing at all when it decides nothing,
//! so the agent asks in its own terminal).

use std::{
    io::Read,
    path::{Path, PathBuf},
    time::Duration,
};

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use switchboard_model::{
    Timestamp,
    agent::{
        AgentKind,
        hook::{HookInput, hook_output},
        launch,
    },
};
use switchboard_store::{
    Workspace, agents, clock,
    feedback::{ReplyWait, Waited},
    launches, window,
};

/// The agents whose hooks Switchboard speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HookAgent {
    /// Claude Code.
    ClaudeCode,
    /// OpenAI Codex.
    Codex,
}

impl From<HookAgent> for AgentKind {
    fn from(agent: HookAgent) -> Self {
        match agent {
            HookAgent::ClaudeCode => AgentKind::ClaudeCode,
            HookAgent::Codex => AgentKind::Codex,
        }
    }
}

/// The longest a hook waits for the developer by default: 5 minutes,
/// after which the agent asks in its own terminal.
pub const DEFAULT_WAIT_SECS: u64 = 300;

/// `switchboard hook`.
#[derive(Debug, Args)]
pub struct HookArgs {
    /// Which agent runs this hook (default: told from the event).
    #[arg(long, value_enum)]
    pub agent: Option<HookAgent>,
    /// Seconds to wait for the developer's answer before the agent asks in
    /// its own terminal; keep it under the hook's timeout.
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_WAIT_SECS - 10)]
    pub wait: u64,
}

/// How much of stdin a hook reads: an event is small; a huge one is cut.
const INPUT_LIMIT: u64 = 8 * 1024 * 1024;

/// Runs the hook. Never fails the agent: a problem is told on stderr with
/// its code and the exit status is 1 (a non-blocking error to Claude
/// Code and Codex; 2 would deny), and the agent goes on as usual.
pub fn hook(named: Option<PathBuf>, args: &HookArgs) -> bool {
    match run_hook(named, args) {
        Ok(()) => true,
        Err(error) => {
            crate::failure::report(&error, false);
            false
        }
    }
}

fn run_hook(named: Option<PathBuf>, args: &HookArgs) -> Result<()> {
    let mut stdin = Vec::new();
    std::io::stdin()
        .take(INPUT_LIMIT)
        .read_to_end(&mut stdin)
        .context("could not read the hook's input")?;
    let mut input = HookInput::parse(&stdin, args.agent.map(AgentKind::from))
        .map_err(|error| crate::failure::invalid(error.to_string()))?;
    input.launch = std::env::var(launch::AGENT_ENV)
        .ok()
        .filter(|name| launch::check_name(name).is_ok());
    let workspace = Workspace::belonging(&workspace_of(named, &input.cwd))?;
    // Seen by a window on this workspace, or by one on another workspace
    // ("All workspaces").
    let open = window::seen(&workspace);
    let request = agents::permission_request(&input);
    let process = agents::calling_agent();
    // A request about to be asked moves the agent with its question.
    let observed = if open && request.is_some() {
        agents::observe_before_asking(&workspace, &input, process, clock::now())
    } else {
        agents::observe(&workspace, &input, process, clock::now())
    };
    if let Err(error) = observed {
        tracing::warn!(%error, "the agent's state was not recorded");
    }
    // A started agent's session has begun: told to its launch record, which
    // its minder trusts (the agent records above are the workspace's).
    if let Some(name) = &input.launch
        && let Err(error) = launches::heard(
            &workspace,
            name,
            input.agent,
            &input.session_id,
            clock::now(),
        )
    {
        tracing::debug!(%error, "no launch of this name was told its hooks were heard");
    }
    let Some(request) = request else {
        return Ok(());
    };
    if !open {
        // Nobody would see the question: the agent asks in its terminal.
        return Ok(());
    }
    let now = clock::now();
    let deadline = later(now, Duration::from_secs(args.wait));
    let (asked, session) =
        agents::ask_permission(&workspace, &request, serde_json::Map::new(), now, deadline)?;
    // Listed in every window's "All workspaces" while it waits (once its
    // question is there to be read).
    let _asking = window::asking(&workspace, now);
    let wait = ReplyWait::new();
    let canceller = wait.canceller();
    let watched = workspace.clone();
    // The last window closing ends the wait: nobody is left to answer.
    std::thread::spawn(move || {
        if window::wait_unseen(&watched).is_ok() {
            canceller.cancel();
        }
    });
    let outcome = match wait.run(&workspace, &session.id, clock::now, |_| {})? {
        Waited::Settled(outcome) => Some(outcome),
        Waited::Left(outcome) => outcome,
    };
    let verdict = agents::settle_permission(
        &workspace,
        &request,
        &asked,
        &session.id,
        outcome.as_ref(),
        clock::now(),
    )?;
    if let Some(output) = hook_output(request.agent, &verdict) {
        // Written, not printed: an agent that stopped reading gets exit 1
        // (its hook failed), never a panic or a signal.
        use std::io::Write as _;
        writeln!(std::io::stdout(), "{output}").context("could not give the agent its decision")?;
    }
    Ok(())
}

/// The folder a hook call belongs to: `-C` (or `SWITCHBOARD_WORKSPACE`,
/// which a started agent's environment carries), else the project folder
/// Claude Code names (`CLAUDE_PROJECT_DIR`), else the nearest folder at or
/// above the agent's that holds Switchboard's data, else the agent's own —
/// then, when that is a linked git worktree, its main working tree.
fn workspace_of(named: Option<PathBuf>, cwd: &str) -> PathBuf {
    if let Some(named) = named {
        return named;
    }
    if let Some(project) = std::env::var_os("CLAUDE_PROJECT_DIR").filter(|dir| !dir.is_empty()) {
        return PathBuf::from(project);
    }
    let cwd = Path::new(cwd);
    cwd.ancestors()
        .find(|dir| dir.join(".switchboard").is_dir())
        .unwrap_or(cwd)
        .to_path_buf()
}

fn later(now: Timestamp, by: Duration) -> Timestamp {
    let millis = i64::try_from(by.as_millis()).unwrap_or(i64::MAX / 2);
    Timestamp::from_unix_millis(now.unix_millis().saturating_add(millis)).unwrap_or(now)
}
