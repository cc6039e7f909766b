//! Starting agents through MCP: `agent_start` (so an agent can start
//! helpers, each Claude Code or Codex in its own live terminal and,
//! optionally, its own worktree) and `agent_list` — the same as
//! `switchboard agent start|list`, over `switchboard-launch`.

use rmcp::{Json, handler::server::wrapper::Parameters, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use switchboard_launch::Caller;
use switchboard_model::agent::launch::{Launch, LaunchRequest, LaunchRow, WorktreeChoice};
use switchboard_store::{clock, settings};

use super::{Server, ToolError, host_client};

/// `agent_start`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentStartArgs {
    /// `claude-code` or `codex`.
    pub agent: String,
    /// What it should do.
    pub prompt: String,
    /// Its name (letters, digits, '-', '_', '.'; default: made from the
    /// prompt).
    #[serde(default)]
    pub name: Option<String>,
    /// Work in a new git worktree on the branch `switchboard/NAME`.
    #[serde(default)]
    pub worktree: bool,
    /// The worktree's base (default: the current HEAD's branch).
    #[serde(default)]
    pub base: Option<String>,
    /// The team task it works on, as `TEAM/ID`.
    #[serde(default)]
    pub task: Option<String>,
    /// Its permission mode (default: the one whose questions come to the
    /// developer's inbox).
    #[serde(default)]
    pub permission_mode: Option<String>,
    /// Its model.
    #[serde(default)]
    pub model: Option<String>,
}

/// A started agent, as the tools return it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LaunchView {
    /// Its name: what `switchboard agent …` takes.
    pub name: String,
    /// `claude-code` or `codex`.
    pub agent: String,
    /// Its program session (watch it with the session_ tools).
    pub session: String,
    /// The folder it works in.
    pub cwd: String,
    /// Its worktree's branch, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// Its state: starting, working, needs permission, waiting for input,
    /// turn finished, exited, lost, merged, discarded.
    pub state: String,
}

impl LaunchView {
    fn of(launch: &Launch, state: &str) -> Self {
        Self {
            name: launch.name.clone(),
            agent: launch.agent.as_str().to_owned(),
            session: launch.session.clone(),
            cwd: launch.cwd.clone(),
            branch: launch.worktree.as_ref().map(|tree| tree.branch.clone()),
            state: state.to_owned(),
        }
    }
}

impl From<&LaunchRow> for LaunchView {
    fn from(row: &LaunchRow) -> Self {
        Self::of(&row.launch, &row.label())
    }
}

/// `agent_list`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LaunchList {
    /// The agents started in this workspace, newest first.
    pub agents: Vec<LaunchView>,
}

#[tool_router(router = launch_tools, vis = "pub(super)")]
impl Server {
    /// Starts an agent in its own live terminal.
    #[tool(
        description = "Start Claude Code or Codex in its own interactive interface, in a live \
                       terminal the developer can watch and take over, in this workspace or a \
                       new git worktree of its own (worktree: true, on the branch \
                       switchboard/NAME). Its permission requests come to the developer's \
                       inbox. Returns its name and program session; follow it with agent_list."
    )]
    pub async fn agent_start(
        &self,
        Parameters(args): Parameters<AgentStartArgs>,
    ) -> Result<Json<LaunchView>, ToolError> {
        let workspace = self.workspace();
        let switchboard = std::env::current_exe()
            .map_err(|error| ToolError::internal(format!("could not find switchboard: {error}")))?;
        let caller = Caller::new(
            std::env::vars().collect(),
            switchboard,
            &settings::effective(),
        );
        let request = LaunchRequest {
            agent: args.agent,
            name: args.name,
            worktree: args.worktree.then_some(WorktreeChoice::AsAgent),
            base: args.base,
            task: args.task,
            permission_mode: args.permission_mode,
            model: args.model,
            prompt: args.prompt,
        };
        let client = host_client()?;
        let launch =
            switchboard_launch::start(&client, &workspace, &request, &caller, clock::now())
                .await
                .map_err(|error| ToolError(error.payload()))?;
        Ok(Json(LaunchView::of(&launch, "starting")))
    }

    /// Lists the agents started here.
    #[tool(
        description = "The agents started in this workspace (agent_start, the window, \
                       `switchboard agent start`), newest first: name, agent, program session, \
                       folder, branch and state."
    )]
    pub async fn agent_list(&self) -> Result<Json<LaunchList>, ToolError> {
        let workspace = self.workspace();
        let client = host_client()?;
        let rows = switchboard_launch::rows(&client, &workspace, clock::now())
            .await
            .map_err(|error| ToolError(error.payload()))?;
        Ok(Json(LaunchList {
            agents: rows.iter().map(LaunchView::from).collect(),
        }))
    }
}
