//! Agents through MCP: the `approve` tool Claude Code's headless runs ask
//! permission through (`claude -p --permission-prompt-tool
//! mcp__switchboard__approve`), and the client's presence in the Agents
//! view for as long as it is connected. Over HTTP a request is the token's
//! agent's: named by the token (never by the name its client gives
//! itself, which anyone can choose), on that agent's row, and marked
//! `sent_by` it like every other question asked over HTTP. As the hook
//! does, `approve` asks only while a window is open on the workspace, and
//! stops waiting when it closes: an agent never waits on a window nobody
//! has open.

use rmcp::{
    Peer, RoleServer,
    handler::server::wrapper::Parameters,
    model::{CallToolResult, ContentBlock, RequestMetaObject},
    tool, tool_router,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use switchboard_model::agent::{
    AgentKind, AgentState,
    hook::{Verdict, prompt_tool_output},
    permission::PermissionRequest,
};
use switchboard_store::{
    Workspace,
    agents::{self, Heard},
    clock, window,
};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::{Server, ToolError, inbox::waiter::Waiter, progress::Bridge};

/// `approve`'s arguments, as Claude Code sends them.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ApproveArgs {
    /// The tool the agent wants to call (`Bash`, `Edit`, `mcp__server__tool`).
    pub tool_name: String,
    /// The tool's arguments.
    #[serde(default)]
    pub input: Map<String, Value>,
    /// The agent's id for the call.
    #[serde(default)]
    pub tool_use_id: Option<String>,
}

/// The name this server's client goes by in the Agents view.
fn client_name(peer: &Peer<RoleServer>) -> String {
    peer.peer_info()
        .map(|info| info.client_info.name.clone())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| AgentKind::Mcp.label().to_owned())
}

/// This connection's session id in the Agents view: one per server
/// process.
pub(super) fn session_id() -> String {
    format!("pid-{}", std::process::id())
}

/// Records the connected client in the Agents view (working).
pub(super) fn arrived(workspace: &Workspace, name: &str) {
    let (id, cwd, now) = (
        session_id(),
        workspace.root().display().to_string(),
        clock::now(),
    );
    let who = Heard {
        agent: AgentKind::Mcp,
        session_id: &id,
        name,
        cwd: &cwd,
    };
    let recorded = agents::heard(workspace, &who, now, |record| {
        record.enter(AgentState::Working, now);
        record.process = switchboard_store::process::parent_process();
    });
    if let Err(error) = recorded {
        tracing::warn!(%error, "the client's presence was not recorded");
    }
}

/// How often an agent over HTTP is noted as seen, at most.
const SEEN_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

/// Whether the agent with `token`'s name is due to be noted as seen again
/// (first seen by this process, or not for [`SEEN_EVERY`]); notes that it
/// is being seen now.
pub(super) fn due_over_http(token: &str) -> bool {
    static SEEN: std::sync::Mutex<Vec<(String, std::time::Instant)>> =
        std::sync::Mutex::new(Vec::new());
    let mut seen = SEEN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    match seen.iter_mut().find(|(name, _)| name == token) {
        Some((_, at)) if at.elapsed() < SEEN_EVERY => false,
        Some((_, at)) => {
            *at = std::time::Instant::now();
            true
        }
        None => {
            seen.push((token.to_owned(), std::time::Instant::now()));
            true
        }
    }
}

/// The Agents view's session id of the agent with `token`'s name, over
/// HTTP: one row per token.
fn http_session_id(token: &str) -> String {
    switchboard_model::agent::http_session_id(token)
}

/// Records an agent reaching this workspace over HTTP with `token`'s
/// name, through `client` (its MCP client, if it said): one row per
/// token, working; with no process to check, it shows gone after the
/// silence rule.
pub(super) fn arrived_over_http(workspace: &Workspace, token: &str, client: &str) {
    let session_id = http_session_id(token);
    let name = if client.is_empty() {
        token.to_owned()
    } else {
        format!("{client} ({token})")
    };
    let (cwd, now) = (workspace.root().display().to_string(), clock::now());
    let who = Heard {
        agent: AgentKind::Mcp,
        session_id: &session_id,
        name: &name,
        cwd: &cwd,
    };
    let recorded = agents::heard(workspace, &who, now, |record| {
        record.name = name.clone();
        record.enter(AgentState::Working, now);
    });
    if let Err(error) = recorded {
        tracing::warn!(%error, "the agent's presence was not recorded");
    }
}

/// Records that the client left.
pub(super) fn left(workspace: &Workspace) {
    let (id, now) = (session_id(), clock::now());
    let who = Heard {
        agent: AgentKind::Mcp,
        session_id: &id,
        name: AgentKind::Mcp.label(),
        cwd: "",
    };
    let recorded = agents::heard(workspace, &who, now, |record| {
        record.enter(AgentState::Gone, now)
    });
    if let Err(error) = recorded {
        tracing::warn!(%error, "the client's leaving was not recorded");
    }
}

/// Turns true once no window sees `workspace`'s questions: one thread of
/// this process waits (`window::wait_unseen`) for every question asked in
/// that workspace meanwhile, and ends with the last window.
fn window_closing(workspace: &Workspace) -> watch::Receiver<bool> {
    static WATCHED: std::sync::Mutex<Vec<(std::path::PathBuf, watch::Receiver<bool>)>> =
        std::sync::Mutex::new(Vec::new());
    let mut watched = WATCHED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // A window that closed, or a wait that failed, is watched no more.
    watched.retain(|(_, closed)| !*closed.borrow() && closed.has_changed().is_ok());
    if let Some((_, closed)) = watched.iter().find(|(root, _)| root == workspace.root()) {
        return closed.clone();
    }
    let (tell, closed) = watch::channel(false);
    let waiting = workspace.clone();
    std::thread::spawn(move || match window::wait_unseen(&waiting) {
        Ok(()) => {
            let _ = tell.send(true);
        }
        Err(error) => tracing::warn!(%error, "the window's closing cannot be followed"),
    });
    watched.push((workspace.root().to_owned(), closed.clone()));
    closed
}

/// The permission prompt tool's answer for `verdict`: one text block and
/// no structured content, which is exactly what Claude Code reads.
fn prompt_answer(verdict: &Verdict, input: &Value) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(
        prompt_tool_output(verdict, input).to_string(),
    )])
}

#[tool_router(router = agent_tools, vis = "pub(super)")]
impl Server {
    /// Asks the developer whether an agent may call a tool.
    #[tool(
        description = "Ask the developer in Switchboard whether a tool call may run, for \
                       `claude -p --permission-prompt-tool mcp__switchboard__approve`: the \
                       request shows in the inbox (a command as the command, an edit as a diff) \
                       and the call waits for Allow or Deny. Returns, as text, \
                       {\"behavior\":\"allow\",\"updatedInput\":…} or \
                       {\"behavior\":\"deny\",\"message\":…}. With no Switchboard window \
                       open on this machine nothing is asked and the call is denied at once; \
                       the last window closing while it waits denies it too."
    )]
    pub async fn approve(
        &self,
        Parameters(args): Parameters<ApproveArgs>,
        meta: RequestMetaObject,
        peer: Peer<RoleServer>,
        cancelled: CancellationToken,
    ) -> Result<CallToolResult, ToolError> {
        let workspace = self.workspace();
        let input = Value::Object(args.input.clone());
        // As the hook: asked only while a window is open to answer it (with
        // no terminal to fall through to, nobody deciding denies).
        if !window::seen(&workspace) {
            tracing::info!(tool_use = ?args.tool_use_id, "no window is open; nothing asked");
            return Ok(prompt_answer(&Verdict::FallThrough, &input));
        }
        let mut closing = window_closing(&workspace);
        // Over HTTP: the token's agent, on its row; locally: the client.
        let caller = super::caller();
        let (name, session_id) = match &caller {
            Some(token) => (token.clone(), http_session_id(token)),
            None => (client_name(&peer), session_id()),
        };
        let request = PermissionRequest {
            agent: AgentKind::Mcp,
            name,
            launch: None,
            session_id,
            cwd: workspace.root().display().to_string(),
            tool_name: args.tool_name,
            tool_input: input.clone(),
            suggested: None,
            // Over HTTP its paths name files on its own machine.
            remote: caller.is_some(),
            has_terminal: false,
        };
        let asked = request.clone();
        let marks = super::sent_by();
        let (delivery, session) = self
            .blocking(move |workspace| {
                Ok(agents::ask_permission(
                    workspace,
                    &asked,
                    marks,
                    clock::now(),
                    super::inbox::never(),
                )?)
            })
            .await?;
        tracing::info!(id = %delivery.id, tool_use = ?args.tool_use_id, "permission asked; waiting");
        // Listed in every window's "All workspaces" while it waits.
        let _asking = window::asking(&workspace, clock::now());
        let waiter = Waiter {
            server: self.clone(),
            session: session.id.clone(),
            heartbeat: self.heartbeat,
        };
        // The wait ends when the client cancels or the window closes.
        let ended = cancelled.child_token();
        let window_closed = {
            let ended = ended.clone();
            tokio::spawn(async move {
                if closing.wait_for(|closed| *closed).await.is_ok() {
                    ended.cancel();
                }
            })
        };
        let waited = waiter.outcome(&Bridge::new(&meta, &peer, &ended)).await;
        window_closed.abort();
        // However the wait ended, the question is settled the one way; a
        // call the client cancelled still fails as cancelled, one the
        // window's closing ended is answered with what was settled.
        let closed = ended.is_cancelled() && !cancelled.is_cancelled();
        let outcome = waited.as_ref().ok().cloned();
        let settled = request.clone();
        let verdict = self
            .blocking(move |workspace| {
                Ok(agents::settle_permission(
                    workspace,
                    &settled,
                    &delivery,
                    &session.id,
                    outcome.as_ref(),
                    clock::now(),
                )?)
            })
            .await?;
        if !closed {
            waited?;
        }
        Ok(prompt_answer(&verdict, &input))
    }
}
