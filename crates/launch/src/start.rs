//! Starting one agent: its name reserved, its worktree made, its program
//! found on the caller's PATH and started in a program session with the
//! hooks for this run, its record completed — or, when a step fails,
//! nothing left behind.

use std::path::{Path, PathBuf};

use switchboard_model::team::{Task, TaskFilter, TaskStatus};
use switchboard_model::{
    Timestamp,
    agent::{
        AgentKind,
        launch::{
            self, AgentCommand, DEFAULT_RUNNING_LIMIT, Launch, LaunchError, LaunchRequest,
            WorktreeChoice, check_name, hook_commands, hooks_setting, made_up_name,
            permission_mode,
        },
    },
    program::SessionState,
    settings::Settings,
};
use switchboard_session::{Client, protocol::StartRequest};
use switchboard_store::{
    StoreError, Workspace, launches,
    team::{self, Teams},
    worktrees,
};

use crate::LaunchFailure;

/// How long a started agent's permission question may wait for the
/// developer, in seconds (its hook's timeout).
const QUESTION_WAIT_SECS: u64 = 600;

/// A started agent's terminal: roomy enough for an agent's interface.
const ROWS: u16 = 40;
const COLS: u16 = 120;

/// Who starts an agent: the environment the agent gets (theirs), the
/// `switchboard` its hooks call, and what the settings say.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The environment the agent runs with (its PATH finds the agent).
    pub env: Vec<(String, String)>,
    /// The `switchboard` binary the agent's hooks run (absolute).
    pub switchboard: PathBuf,
    /// How many started agents may run at once.
    pub running_limit: usize,
    /// `claude`, when the settings name it (else found on PATH).
    pub claude_code: Option<PathBuf>,
    /// `codex`, when the settings name it (else found on PATH).
    pub codex: Option<PathBuf>,
}

impl Caller {
    /// A caller with `env` whose hooks run `switchboard`, under `settings`.
    pub fn new(env: Vec<(String, String)>, switchboard: PathBuf, settings: &Settings) -> Self {
        Self {
            env,
            switchboard,
            running_limit: settings.running_agents.unwrap_or(DEFAULT_RUNNING_LIMIT),
            claude_code: settings.claude_code_path.as_ref().map(PathBuf::from),
            codex: settings.codex_path.as_ref().map(PathBuf::from),
        }
    }
}

/// Starts the agent `request` asks for in `workspace`; its launch.
pub async fn start(
    client: &Client,
    workspace: &Workspace,
    request: &LaunchRequest,
    caller: &Caller,
    now: Timestamp,
) -> Result<Launch, LaunchFailure> {
    let agent = AgentKind::parse(&request.agent)
        .filter(|agent| *agent != AgentKind::Mcp)
        .ok_or_else(|| LaunchError::BadName {
            name: request.agent.chars().take(40).collect(),
            why: "the agent is claude-code or codex",
        })?;
    // A task is a prompt of its own.
    if request.prompt.trim().is_empty() && request.task.is_none() {
        return Err(LaunchError::EmptyPrompt.into());
    }
    let mode = permission_mode(agent, request.permission_mode.as_deref())?;
    if let Some(base) = &request.base {
        launch::check_ref(base)?;
    }
    for name in [&request.name, &named_worktree(request)]
        .into_iter()
        .flatten()
    {
        check_name(name)?;
    }
    let named = match agent {
        AgentKind::ClaudeCode => caller.claude_code.as_deref(),
        _ => caller.codex.as_deref(),
    };
    let task = match &request.task {
        Some(text) => Some(task_for(workspace, text, &request.prompt)?),
        None => None,
    };
    let program = match named {
        Some(program) if is_executable(program) => program.to_owned(),
        _ => find_program(agent, &caller.env)?,
    };
    let root = workspace.root().display().to_string();
    let sessions = client.list(Some(root.clone())).await?;
    let existing = launches::list(workspace)?;
    // Fewer than the limit may run: counted again when the name is
    // reserved, under the launches' lock, so two starts at once cannot
    // both take the last place.
    let running = |launch: &Launch| {
        sessions
            .iter()
            .any(|session| session.id == launch.session && session.state == SessionState::Running)
    };
    let name = match (&request.name, &request.worktree) {
        (Some(name), _) | (None, Some(WorktreeChoice::Named(name))) => name.clone(),
        (None, _) => {
            let taken: Vec<String> = existing.into_iter().map(|launch| launch.name).collect();
            let words = task
                .as_ref()
                .map_or(request.prompt.as_str(), |task| task.title.as_str());
            made_up_name(agent, words, &taken)
        }
    };
    check_name(&name)?;
    let mut launch = Launch {
        name: name.clone(),
        agent,
        session: String::new(),
        cwd: root.clone(),
        worktree: None,
        task: request.task.clone(),
        // Typed into its prompt by its minder: words only, never a key.
        prompt: launch::as_words(
            &task
                .as_ref()
                .map_or_else(|| request.prompt.clone(), |task| task.prompt.clone()),
        ),
        permission_mode: mode,
        model: request.model.clone(),
        agent_session: (agent == AgentKind::ClaudeCode).then(uuid_v4),
        heard: None,
        started: now,
        landed: None,
        ended: None,
        extra: serde_json::Map::new(),
    };
    launches::reserve(workspace, &launch, caller.running_limit, running)?;
    // Whether Claude Code is signed in is asked beside the start (asking
    // takes as long as the start itself): a signed-out agent is ended
    // before it could do anything, and the start fails leaving nothing.
    let signed_in = async {
        match agent {
            AgentKind::ClaudeCode => check_signed_in(&program, &caller.env).await,
            _ => Ok(()),
        }
    };
    let (signed_in, begun) = tokio::join!(
        signed_in,
        begin(client, workspace, request, caller, &program, &mut launch)
    );
    let begun = match begun.and(signed_in) {
        Ok(()) => claim(workspace, &launch),
        Err(error) => Err(error),
    };
    if begun.is_err() && !launch.session.is_empty() {
        let _ = client.kill(&launch.session, None).await;
        // Its terminal's log goes with it: the start never happened.
        let _ = switchboard_store::session_log::remove(workspace.root(), &launch.session);
    }
    match begun {
        Ok(()) => {
            let launch = launches::update(workspace, &name, |stored| *stored = launch)?;
            // The agent runs either way: without its minder, what its
            // screen asks waits in Terminals.
            let _ = start_minder(workspace, caller, &name);
            Ok(launch)
        }
        Err(error) => {
            if let Some(worktree) = &launch.worktree {
                let _ = worktrees::discard(workspace, worktree, true);
            }
            let _ = launches::remove(workspace, &name);
            Err(error)
        }
    }
}

/// The worktree's own name, when the request gives one.
fn named_worktree(request: &LaunchRequest) -> Option<String> {
    match &request.worktree {
        Some(WorktreeChoice::Named(name)) => Some(name.clone()),
        _ => None,
    }
}

/// The steps after the name is reserved: the worktree, then the session.
async fn begin(
    client: &Client,
    workspace: &Workspace,
    request: &LaunchRequest,
    caller: &Caller,
    program: &Path,
    launch: &mut Launch,
) -> Result<(), LaunchFailure> {
    if let Some(choice) = &request.worktree {
        let folder = match choice {
            WorktreeChoice::AsAgent => launch.name.clone(),
            WorktreeChoice::Named(folder) => folder.clone(),
        };
        check_name(&folder)?;
        let place = workspace
            .root()
            .join(worktree_dir(launch.agent))
            .join(&folder);
        let worktree = worktrees::create(workspace, &launch.name, &place, request.base.as_deref())?;
        launch.cwd.clone_from(&worktree.path);
        launch.worktree = Some(worktree);
    }
    let switchboard = caller.switchboard.to_string_lossy();
    let (asking, telling) = hook_commands(&switchboard, launch.agent, QUESTION_WAIT_SECS)
        .ok_or_else(|| LaunchError::BadName {
            name: switchboard.chars().take(40).collect(),
            why: "the switchboard binary's path cannot be given to a shell",
        })?;
    let hooks = hooks_setting(launch.agent, &asking, &telling, QUESTION_WAIT_SECS);
    let args = AgentCommand {
        agent: launch.agent,
        mode: &launch.permission_mode,
        model: launch.model.as_deref(),
        session_id: launch.agent_session.as_deref(),
        hooks: &hooks,
    }
    .args();
    let root = workspace.root().display().to_string();
    let start = |name: Option<String>| StartRequest {
        program: program.display().to_string(),
        args: args.clone(),
        name,
        cwd: launch.cwd.clone(),
        base_env: caller.env.clone(),
        env: vec![
            (launch::AGENT_ENV.to_owned(), launch.name.clone()),
            (launch::WORKSPACE_ENV.to_owned(), root.clone()),
        ],
        rows: Some(ROWS),
        cols: Some(COLS),
        workspace: Some(root.clone()),
        record: false,
        prompts: Vec::new(),
        run: None,
        started_by: None,
        launch: Some(launch.name.clone()),
    };
    // The terminal is named as the agent, unless another live session of
    // this user has that name (another workspace's agent).
    let session = match client.start(start(Some(launch.name.clone()))).await {
        Ok(session) => session,
        Err(_) => client.start(start(None)).await?,
    };
    launch.session = session.id;
    Ok(())
}

/// Makes the agent's task its own once it runs (the plugin's claim: owner,
/// in progress); a task taken meanwhile fails the start.
fn claim(workspace: &Workspace, launch: &Launch) -> Result<(), LaunchFailure> {
    if let Some(text) = &launch.task {
        let (team, id) = launch::task_ref(text)?;
        let teams = Teams::in_workspace(workspace);
        team::claim_task(&teams, &team, &id, &launch.name, launch.started)?;
    }
    Ok(())
}

/// A team task an agent is started on, and the prompt made from it.
struct TaskWork {
    title: String,
    prompt: String,
}

/// The task `text` (`TEAM/ID`) names, checked free to claim, and the
/// prompt that tells it with `added`.
fn task_for(workspace: &Workspace, text: &str, added: &str) -> Result<TaskWork, LaunchFailure> {
    let (team, id) = launch::task_ref(text)?;
    let teams = Teams::in_workspace(workspace);
    let listing = team::list_tasks(&teams, Some(&team), &TaskFilter::default())?;
    let tasks: Vec<&Task> = listing.tasks.iter().map(|listed| &listed.task).collect();
    let task = tasks
        .iter()
        .find(|task| task.id == id)
        .ok_or_else(|| StoreError::NotFound {
            what: "task",
            id: text.to_owned(),
        })?;
    if task.status != TaskStatus::Pending {
        return Err(StoreError::InTheWay(format!(
            "task {text} is {}: an agent is started only on a pending task",
            task.status.as_str()
        ))
        .into());
    }
    let finished: Vec<String> = task
        .dependencies
        .iter()
        .filter_map(|dependency| tasks.iter().find(|task| task.id == *dependency))
        .map(|dependency| dependency.title.clone())
        .collect();
    Ok(TaskWork {
        title: task.title.clone(),
        prompt: launch::task_prompt(
            &task.title,
            task.description.as_deref().unwrap_or_default(),
            &finished,
            added,
        ),
    })
}

/// Starts the process that minds the agent's terminal (`switchboard -C
/// WORKSPACE agent mind NAME`, in a process group of its own, with the
/// caller's environment, so it reaches the same session host) for as long
/// as the agent's program runs.
fn start_minder(workspace: &Workspace, caller: &Caller, name: &str) -> Result<(), LaunchFailure> {
    use std::os::unix::process::CommandExt;
    let mut command = std::process::Command::new(&caller.switchboard);
    command
        .arg("-C")
        .arg(workspace.root())
        .args(["agent", "mind", name])
        .env_clear()
        .envs(caller.env.iter().map(|(key, value)| (key, value)))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0);
    command.spawn().map_err(|error| {
        LaunchFailure::Store(switchboard_store::StoreError::InTheWay(format!(
            "could not start the process that minds {name}'s terminal: {error}"
        )))
    })?;
    Ok(())
}

/// Where `agent`'s worktrees are made, relative to the workspace: Claude
/// Code's own place for them, and one of Switchboard's for Codex.
fn worktree_dir(agent: AgentKind) -> &'static str {
    match agent {
        AgentKind::ClaudeCode => launch::WORKTREE_DIRS[0],
        AgentKind::Codex | AgentKind::Mcp => launch::WORKTREE_DIRS[1],
    }
}

/// How long `claude auth status` may take.
const AUTH_CHECK: std::time::Duration = std::time::Duration::from_secs(10);

/// Refuses to start Claude Code signed out (`claude auth status` exits 1
/// then; it answers in a third of a second, where a signed-out agent in
/// its terminal would only say so when given a prompt). A version without
/// the check, or one that does not answer in time, is let through.
async fn check_signed_in(program: &Path, env: &[(String, String)]) -> Result<(), LaunchFailure> {
    let mut command = tokio::process::Command::new(program);
    command
        .args(["auth", "status"])
        .env_clear()
        .envs(env.iter().map(|(key, value)| (key, value)))
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    match tokio::time::timeout(AUTH_CHECK, command.output()).await {
        Ok(Ok(output)) if output.status.code() == Some(1) => Err(LaunchFailure::SignedOut),
        _ => Ok(()),
    }
}

/// The agent's program on the caller's PATH.
fn find_program(agent: AgentKind, env: &[(String, String)]) -> Result<PathBuf, LaunchFailure> {
    let (program, how) = match agent {
        AgentKind::Codex => ("codex", "npm install -g @openai/codex"),
        _ => ("claude", "npm install -g @anthropic-ai/claude-code"),
    };
    let path = env
        .iter()
        .find(|(key, _)| key == "PATH")
        .map(|(_, value)| value.as_str())
        .unwrap_or_default();
    std::env::split_paths(path)
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
        .ok_or(LaunchFailure::NotInstalled {
            agent,
            program,
            how,
        })
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .is_ok_and(|metadata| metadata.is_file() && metadata.permissions().mode() & 0o111 != 0)
}

/// A random (version 4) UUID, as Claude Code takes for `--session-id`.
fn uuid_v4() -> String {
    let mut bytes = [0u8; 16];
    bytes.iter_mut().for_each(|byte| *byte = fastrand::u8(..));
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}
