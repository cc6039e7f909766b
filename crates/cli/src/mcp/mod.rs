//! `switchboard mcp`: the workspace as one Model Context Protocol server
//! over stdio, through which an agent delivers, asks and waits, reads
//! answers and annotations, uses the project's knowledge and works the
//! team's tasks. A thin edge over `switchboard-store`, like the rest of
//! the CLI: every tool is a few lines over a store call, and every failure
//! is a tool error carrying the store's code.
//!
//! stdout carries only protocol messages (rmcp writes them); logs go to
//! stderr; the server exits when stdin closes.

mod agents;
pub mod http;
mod inbox;
pub mod install;
mod knowledge;
mod launch;
mod probe;
mod progress;
mod resources;
mod schema;
mod session;
pub mod tasks;
mod team;

use std::{
    os::unix::ffi::OsStringExt,
    sync::{Arc, RwLock},
    time::Duration,
};

use anyhow::{Context, Result};
use rmcp::{
    Peer, RoleServer, ServerHandler, ServiceExt,
    handler::server::{
        router::tool::ToolRouter,
        tool::{IntoCallToolResult, ToolCallContext},
    },
    model::{
        CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams,
        ContentBlock, GetTaskParams, GetTaskResult, Implementation, ListResourcesResult,
        ListToolsResult, PaginatedRequestParams, ProtocolVersion, ReadResourceRequestParams,
        ReadResourceResponse, ReadResourceResult, RequestMetaObject, ResourceContents,
        ServerCapabilities, ServerConfig, SubscribeRequestParams, SubscriptionFilter,
        UnsubscribeRequestParams,
    },
    service::{NotificationContext, RequestContext, SubscriptionContext},
    tool_handler,
};
use serde_json::json;
use switchboard_model::{ErrorPayload, token::Scope};
use switchboard_store::{Workspace, search::SharedIndex};

use crate::failure;

tokio::task_local! {
    /// The agent whose token made the call being served (HTTP), for the
    /// tools that mark what they write with it.
    static CALLER: Option<String>;
}

/// The agent whose token made the current call, if it came over HTTP.
fn caller() -> Option<String> {
    CALLER.try_with(Clone::clone).ok().flatten()
}

/// The token that made an HTTP request, from the request's parts.
fn holder_of(extensions: &rmcp::model::Extensions) -> Option<&http::Holder> {
    extensions
        .get::<hyper::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<http::Holder>())
}

/// The agent whose token made an HTTP request, from the request's parts.
fn caller_of(extensions: &rmcp::model::Extensions) -> Option<String> {
    holder_of(extensions).map(|holder| holder.name.clone())
}

/// Who reads resources for the request with `extensions`: its token's
/// agent and scopes over HTTP, else a local client.
fn viewer_of(extensions: &rmcp::model::Extensions) -> resources::Viewer {
    holder_of(extensions).map_or_else(resources::Viewer::local, |holder| resources::Viewer {
        caller: Some(holder.name.clone()),
        knowledge: holder
            .scopes
            .allows(switchboard_model::token::Scope::Knowledge),
    })
}

/// Why `holder` may not call `tool`, if it may not: a token calls only
/// the tools of its scopes (a local client, with no token, calls all).
fn forbidden(holder: Option<&http::Holder>, tool: &str) -> Option<ToolError> {
    let holder = holder?;
    let scope = Server::scope_of(tool)?;
    (!holder.scopes.allows(scope)).then(|| {
        ToolError(ErrorPayload::new(
            switchboard_model::ErrorCode::Forbidden,
            format!(
                "{tool} needs the {scope} scope, which the token {} was not granted (a token \
                 that has it: `switchboard mcp token --name NAME --allow {scope}`)",
                holder.name
            ),
        ))
    })
}

/// `extra` naming the calling agent (see [`caller`]), or empty.
fn sent_by() -> serde_json::Map<String, serde_json::Value> {
    let mut extra = serde_json::Map::new();
    if let Some(name) = caller() {
        extra.insert(
            switchboard_model::delivery::SENT_BY_FIELD.to_owned(),
            name.into(),
        );
    }
    extra
}

/// What every tool shares: the workspace (the one given, or the client's
/// first root), the knowledge index (opened at the first search and kept
/// in step with the files), and how often a waiting `ask` tells the client
/// it is alive.
#[derive(Clone)]
pub struct Server {
    workspace: Arc<RwLock<Arc<Workspace>>>,
    /// Whether the workspace follows the client's roots (none was given).
    follow_roots: bool,
    /// Set once the client's roots were asked for, before the first tool
    /// call runs.
    roots_asked: Arc<tokio::sync::OnceCell<()>>,
    search: SharedIndex,
    /// Set once the client was recorded in the Agents view.
    present: Arc<tokio::sync::OnceCell<()>>,
    subscriptions: Arc<resources::Subscriptions>,
    heartbeat: Duration,
    /// Every tool, built once per process (the stateless HTTP transport
    /// makes a server per request).
    tool_router: Arc<ToolRouter<Self>>,
}

impl Server {
    /// A server over `workspace` with every tool; with `follow_roots`, the
    /// client's first `file://` root replaces it when the client offers
    /// roots.
    pub fn new(workspace: Workspace, follow_roots: bool, heartbeat: Duration) -> Self {
        Self {
            workspace: Arc::new(RwLock::new(Arc::new(workspace))),
            follow_roots,
            roots_asked: Arc::new(tokio::sync::OnceCell::new()),
            search: SharedIndex::default(),
            present: Arc::new(tokio::sync::OnceCell::new()),
            subscriptions: Arc::default(),
            heartbeat,
            tool_router: Self::tools(),
        }
    }

    /// Every tool, by the scope a token needs to call it: a tool's scope is
    /// its domain's.
    fn domains() -> [(Scope, ToolRouter<Self>); 4] {
        [
            (Scope::Inbox, Self::inbox_tools() + Self::agent_tools()),
            (Scope::Knowledge, Self::knowledge_tools()),
            (Scope::Tasks, Self::team_tools()),
            (
                Scope::Programs,
                Self::session_tools() + Self::probe_tools() + Self::launch_tools(),
            ),
        ]
    }

    /// Every tool with its schemas made portable, built at the first call.
    fn tools() -> Arc<ToolRouter<Self>> {
        static TOOLS: std::sync::OnceLock<Arc<ToolRouter<Server>>> = std::sync::OnceLock::new();
        Arc::clone(TOOLS.get_or_init(|| {
            let all = Self::domains()
                .into_iter()
                .map(|(_, tools)| tools)
                .fold(ToolRouter::new(), |all, tools| all + tools);
            Arc::new(portable_tools(all))
        }))
    }

    /// The scope a token needs to call `tool` (`None`: no such tool).
    fn scope_of(tool: &str) -> Option<Scope> {
        static SCOPES: std::sync::OnceLock<std::collections::HashMap<String, Scope>> =
            std::sync::OnceLock::new();
        SCOPES
            .get_or_init(|| {
                Self::domains()
                    .into_iter()
                    .flat_map(|(scope, tools)| {
                        tools
                            .list_all()
                            .into_iter()
                            .map(move |tool| (tool.name.to_string(), scope))
                    })
                    .collect()
            })
            .get(tool)
            .copied()
    }

    /// The workspace the tools work on now.
    fn workspace(&self) -> Arc<Workspace> {
        let current = self
            .workspace
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Arc::clone(&current)
    }

    /// Asks the client for its roots (when it offers them) and works in the
    /// first local folder among them; the current folder stays otherwise.
    /// Roots are deprecated by the protocol's next revision (SEP-2577), but
    /// the clients in use today (2025-11-25) offer them.
    #[allow(deprecated)]
    async fn adopt_roots(&self, peer: &Peer<RoleServer>) {
        let offers = peer
            .peer_info()
            .is_some_and(|info| info.capabilities.roots.is_some());
        if !offers {
            return;
        }
        let roots = match peer.list_roots().await {
            Ok(result) => result.roots,
            Err(error) => {
                tracing::warn!(%error, "the client's roots could not be read; staying in the current folder");
                return;
            }
        };
        let Some(folder) = roots.iter().find_map(|root| file_path(&root.uri)) else {
            tracing::info!("the client offers no local folder among its roots");
            return;
        };
        match Workspace::open(&folder) {
            Ok(workspace) => {
                tracing::info!(workspace = %folder.display(), "working in the client's root");
                *self
                    .workspace
                    .write()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = Arc::new(workspace);
                self.search.close();
            }
            Err(error) => {
                tracing::warn!(%error, "the client's root is not a workspace; staying in the current folder");
            }
        }
    }

    /// Before the first request that touches the workspace: follows the
    /// client's roots when no workspace was named, and shows the client in
    /// the Agents view — a stdio client once, for the life of this process;
    /// an agent over HTTP by its token's name (`caller`), at most once a
    /// minute (the stateless revision makes a server per request).
    async fn settle_roots(
        &self,
        peer: &Peer<RoleServer>,
        caller: Option<String>,
        meta: Option<&RequestMetaObject>,
    ) {
        if self.follow_roots {
            self.roots_asked
                .get_or_init(|| self.adopt_roots(peer))
                .await;
        }
        // A stateless request names its client itself.
        let client = meta
            .and_then(RequestMetaObject::client_info)
            .or_else(|| peer.peer_info().map(|info| info.client_info.clone()))
            .map(|info| info.name)
            .unwrap_or_default();
        let workspace = self.workspace();
        if let Some(token) = caller {
            if agents::due_over_http(&token) {
                let _ = tokio::task::spawn_blocking(move || {
                    agents::arrived_over_http(&workspace, &token, &client);
                })
                .await;
            }
            return;
        }
        self.present
            .get_or_init(|| async {
                let _ =
                    tokio::task::spawn_blocking(move || agents::arrived(&workspace, &client)).await;
            })
            .await;
    }

    /// [`Server::settle_roots`] for the request `context` serves.
    async fn settle(&self, context: &RequestContext<RoleServer>) {
        self.settle_roots(
            &context.peer,
            caller_of(&context.extensions),
            Some(&context.meta),
        )
        .await;
    }

    /// Runs `work` (blocking file I/O) off the protocol's threads, turning
    /// a store failure into a tool error.
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Workspace) -> Result<T> + Send + 'static,
    ) -> Result<T, ToolError> {
        let workspace = self.workspace();
        tokio::task::spawn_blocking(move || work(&workspace))
            .await
            .map_err(|error| ToolError::internal(format!("a background task failed: {error}")))?
            .map_err(|error| ToolError(failure::payload(&error)))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    /// Every delivery and learnings file.
    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, rmcp::ErrorData> {
        self.settle(&context).await;
        let workspace = self.workspace();
        let viewer = viewer_of(&context.extensions);
        let listed = tokio::task::spawn_blocking(move || resources::list(&workspace, &viewer))
            .await
            .map_err(|error| rmcp::ErrorData::internal_error(error.to_string(), None))?;
        listed
            .map(ListResourcesResult::with_all_items)
            .map_err(|error| resource_error(&error))
    }

    /// One resource's text.
    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, rmcp::ErrorData> {
        self.settle(&context).await;
        let workspace = self.workspace();
        let uri = request.uri.clone();
        let viewer = viewer_of(&context.extensions);
        let read = tokio::task::spawn_blocking(move || resources::read(&workspace, &uri, &viewer))
            .await
            .map_err(|error| rmcp::ErrorData::internal_error(error.to_string(), None))?;
        let (text, mime) = read.map_err(|error| resource_error(&error))?;
        Ok(ReadResourceResult::new(vec![
            ResourceContents::text(text, request.uri).with_mime_type(mime),
        ])
        .into())
    }

    /// Announce changes to one resource.
    #[allow(deprecated)] // The subscription method of the clients in use today.
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), rmcp::ErrorData> {
        self.settle(&context).await;
        let workspace = self.workspace();
        self.subscriptions
            .subscribe(
                &workspace,
                &request.uri,
                &viewer_of(&context.extensions),
                resources::Announce::Peer(context.peer.clone()),
            )
            .map_err(|error| resource_error(&error))
    }

    /// `subscriptions/listen` (2026-07-28) takes updates of resources
    /// (deliveries and learnings files) and nothing else.
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let uris: Vec<String> = requested
            .resource_subscriptions
            .iter()
            .flatten()
            .filter(|uri| {
                uri.starts_with(resources::DELIVERY) || uri.starts_with(resources::LEARNINGS)
            })
            .cloned()
            .collect();
        let mut accepted = SubscriptionFilter::new();
        accepted.resource_subscriptions = Some(uris);
        Some(accepted)
    }

    /// One `subscriptions/listen` stream: each accepted resource's updates
    /// on it, until the client cancels it.
    async fn listen(&self, context: SubscriptionContext) -> Result<(), rmcp::ErrorData> {
        self.settle(context.request_context()).await;
        let workspace = self.workspace();
        let listened = Arc::new(resources::Subscriptions::default());
        let viewer = viewer_of(&context.request_context().extensions);
        for uri in context.accepted().resource_subscriptions.iter().flatten() {
            listened
                .subscribe(
                    &workspace,
                    uri,
                    &viewer,
                    resources::Announce::Listen(context.sink().clone()),
                )
                .map_err(|error| resource_error(&error))?;
        }
        context.cancelled().await;
        listened.close();
        Ok(())
    }

    /// Stop announcing changes to one resource.
    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), rmcp::ErrorData> {
        self.subscriptions.unsubscribe(&request.uri);
        Ok(())
    }

    /// The handshake is done: the client's roots are followed and the
    /// client is shown in the Agents view, off the protocol's loop (asking
    /// for roots waits on the client).
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let server = self.clone();
        tokio::spawn(async move {
            let caller = caller_of(&context.extensions);
            server.settle_roots(&context.peer, caller, None).await;
        });
    }

    /// The client's roots changed: the workspace follows them again.
    async fn on_roots_list_changed(&self, context: NotificationContext<RoleServer>) {
        if self.follow_roots {
            self.adopt_roots(&context.peer).await;
        }
    }

    /// Routes the call; arguments that do not fit a tool's schema come
    /// back from rmcp as a bare text error, given the code and shape of
    /// every other failure here.
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, rmcp::ErrorData> {
        // Before anything runs: a token calls only its scopes' tools.
        if let Some(refused) = forbidden(holder_of(&context.extensions), &request.name) {
            tracing::warn!(tool = %request.name, "a call outside its token's scopes was refused");
            return refused.into_call_tool_result();
        }
        self.settle(&context).await;
        let tasks = context
            .client_capabilities()
            .is_some_and(|capabilities| capabilities.supports_tasks());
        let holder = caller_of(&context.extensions);
        if tasks && request.name == "ask" {
            return CALLER.scope(holder, self.ask_as_task(&request)).await;
        }
        let long = |arguments: &serde_json::Map<String, serde_json::Value>| {
            switchboard_model::task::runs_long(
                &request.name,
                arguments,
                session::DEFAULT_TIMEOUT_SECS,
            )
        };
        if tasks && request.arguments.as_ref().is_some_and(long) {
            return CALLER.scope(holder, self.run_as_task(&request)).await;
        }
        let call = ToolCallContext::new(self, request, context);
        let response = CALLER.scope(holder, self.tool_router.call(call)).await?;
        Ok(match response {
            CallToolResponse::Complete(result)
                if result.is_error == Some(true) && result.structured_content.is_none() =>
            {
                let message = result
                    .content
                    .iter()
                    .filter_map(|block| block.as_text().map(|text| text.text.clone()))
                    .collect::<Vec<_>>()
                    .join(" ");
                return ToolError::invalid(message).into_call_tool_result();
            }
            other => other,
        })
    }

    /// The tools the caller may call: over HTTP, those of its token's
    /// scopes (so the list is the caller's own, not to be cached for
    /// others).
    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, rmcp::ErrorData> {
        let holder = holder_of(&context.extensions);
        let tools = self
            .tool_router
            .list_all()
            .into_iter()
            .filter(|tool| forbidden(holder, &tool.name).is_none())
            .collect();
        let hints = context
            .protocol_version()
            .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28);
        let scope = if holder.is_some() {
            CacheScope::Private
        } else {
            CacheScope::Public
        };
        let mut listed = ListToolsResult::with_all_items(tools);
        listed.ttl_ms = hints.then_some(0);
        listed.cache_scope = hints.then_some(scope);
        Ok(listed)
    }

    /// `tasks/get` of a call that became a task (the caller's own).
    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, rmcp::ErrorData> {
        let holder = caller_of(&context.extensions);
        CALLER.scope(holder, self.get_any_task(request)).await
    }

    /// `tasks/cancel`: the question is withdrawn, the run stopped (the
    /// caller's own).
    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), rmcp::ErrorData> {
        let holder = caller_of(&context.extensions);
        CALLER.scope(holder, self.cancel_any_task(request)).await
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_resources_subscribe()
                .enable_tasks()
                .build(),
        )
        .with_server_info(
            Implementation::new("switchboard", env!("CARGO_PKG_VERSION")).with_title("Switchboard"),
        )
        .with_instructions(
            "Switchboard is the developer's window over this workspace. Deliver results with \
                 `deliver`; ask a question and wait for the answer with `ask`; read answers and \
                 annotations with `get_feedback` and `get_annotations`; search and add to the \
                 project's knowledge; work the team's task queue; drive interactive programs \
                 with the session_ tools (start, send, expect, wait, read, list, kill).",
        )
    }
}

/// `router` with every tool's input and output schema in the subset all
/// agent clients accept (see [`schema`]).
fn portable_tools(mut router: ToolRouter<Server>) -> ToolRouter<Server> {
    for route in router.map.values_mut() {
        route.attr.input_schema = Arc::new(schema::portable(&route.attr.input_schema));
        if let Some(output) = &route.attr.output_schema {
            route.attr.output_schema = Some(Arc::new(schema::portable(output)));
        }
    }
    router
}

/// The one client of the session host every tool uses (it starts a host
/// when none runs).
fn host_client() -> Result<switchboard_session::Client, ToolError> {
    switchboard_session::Client::new().map_err(|error| ToolError(error.payload()))
}

/// A failed tool call: the store's code and a message an agent can act
/// on, as text (`error[CODE]: …`) and as `{"error": {code, message}}`.
#[derive(Debug)]
pub struct ToolError(ErrorPayload);

impl ToolError {
    fn internal(message: String) -> Self {
        Self(ErrorPayload::new(
            switchboard_model::ErrorCode::Internal,
            message,
        ))
    }

    fn invalid(message: impl Into<String>) -> Self {
        Self(ErrorPayload::new(
            switchboard_model::ErrorCode::InvalidRequest,
            message.into(),
        ))
    }
}

impl IntoCallToolResult for ToolError {
    fn into_call_tool_result(self) -> Result<CallToolResponse, rmcp::ErrorData> {
        let code = failure::code_name(self.0.code);
        let mut result = CallToolResult::error(vec![ContentBlock::text(format!(
            "error[{code}]: {}",
            self.0.message
        ))]);
        result.structured_content =
            Some(json!({"error": {"code": code, "message": self.0.message}}));
        Ok(result.into())
    }
}

/// The longest line read from the client: a longer one is dropped (and
/// logged) without being buffered, and the session goes on.
pub const MAX_LINE: usize = 8 * 1024 * 1024;

/// A resource failure as JSON-RPC says it: unknown resources as
/// "resource not found", the rest with the store's code in the message.
fn resource_error(error: &anyhow::Error) -> rmcp::ErrorData {
    let payload = failure::payload(error);
    let message = format!(
        "error[{}]: {}",
        failure::code_name(payload.code),
        payload.message
    );
    if payload.code == switchboard_model::ErrorCode::NotFound {
        rmcp::ErrorData::resource_not_found(message, None)
    } else {
        rmcp::ErrorData::invalid_params(message, None)
    }
}

/// The local path a `file://` URI names.
fn file_path(uri: &str) -> Option<std::path::PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // `file:///p` and `file://localhost/p`; other hosts are not local.
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    let decoded = percent_encoding::percent_decode_str(path).collect::<Vec<u8>>();
    Some(std::path::PathBuf::from(std::ffi::OsString::from_vec(
        decoded,
    )))
}

/// Serves `workspace` on stdin/stdout until the client closes stdin; a
/// waiting `ask` sends a progress notification every `heartbeat`. With
/// `follow_roots` (no workspace was named), the client's first local root
/// is the workspace when it offers roots.
pub fn run(workspace: Workspace, follow_roots: bool, heartbeat: Duration) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("could not start the MCP server's runtime")?;
    runtime.block_on(async {
        let (stdin, stdout) = rmcp::transport::stdio();
        let transport = rmcp::transport::async_rw::AsyncRwTransport::new_server(stdin, stdout)
            .with_max_line_length(MAX_LINE);
        let server = Server::new(workspace, follow_roots, heartbeat);
        let service = server
            .clone()
            .serve(transport)
            .await
            .context("the MCP client did not initialize")?;
        let ended = service.waiting().await;
        if server.present.initialized() {
            agents::left(&server.workspace());
        }
        ended.context("the MCP session failed")?;
        Ok(())
    })
}
