//! `switchboard mcp`: the workspace as one Model Context Protocol server
//! over stdio, through which an agent delivers, asks and waits, reads
//! answers and annotations, uses the project's knowledge and works the
//! team's tasks. A thin edge over `switchboard-store`, like the rest of
//! the CLI: every tool is a few lines over a store call, and every failure
//! is a tool error carrying the store's code.
//!
//! stdout carries only protocol messages (rmcp writes them); logs go to
//! stderr; the server exits when stdin closes.

mod inbox;
pub mod install;
mod knowledge;
mod team;

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use anyhow::{Context, Result};
use rmcp::{
    RoleServer, ServerHandler, ServiceExt,
    handler::server::{
        router::tool::ToolRouter,
        tool::{IntoCallToolResult, ToolCallContext},
    },
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
        ServerCapabilities, ServerConfig,
    },
    service::RequestContext,
    tool_handler,
};
use serde_json::json;
use switchboard_model::ErrorPayload;
use switchboard_store::{Workspace, search::SearchIndex};

use crate::failure;

/// What every tool shares: the workspace, the knowledge index (opened at
/// the first search and kept in step with the files), and how often a
/// waiting `ask` tells the client it is alive.
#[derive(Clone)]
pub struct Server {
    workspace: Arc<Workspace>,
    search: Arc<Mutex<Option<SearchIndex>>>,
    heartbeat: Duration,
    tool_router: ToolRouter<Self>,
}

impl Server {
    /// A server over `workspace` with every tool.
    pub fn new(workspace: Workspace, heartbeat: Duration) -> Self {
        Self {
            workspace: Arc::new(workspace),
            search: Arc::new(Mutex::new(None)),
            heartbeat,
            tool_router: Self::inbox_tools() + Self::knowledge_tools() + Self::team_tools(),
        }
    }

    /// Runs `work` (blocking file I/O) off the protocol's threads, turning
    /// a store failure into a tool error.
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Workspace) -> Result<T> + Send + 'static,
    ) -> Result<T, ToolError> {
        let workspace = Arc::clone(&self.workspace);
        tokio::task::spawn_blocking(move || work(&workspace))
            .await
            .map_err(|error| ToolError::internal(format!("a background task failed: {error}")))?
            .map_err(|error| ToolError(failure::payload(&error)))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    /// Routes the call; arguments that do not fit a tool's schema come
    /// back from rmcp as a bare text error, given the code and shape of
    /// every other failure here.
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, rmcp::ErrorData> {
        let call = ToolCallContext::new(self, request, context);
        let response = self.tool_router.call(call).await?;
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

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("switchboard", env!("CARGO_PKG_VERSION"))
                    .with_title("Switchboard"),
            )
            .with_instructions(
                "Switchboard is the developer's window over this workspace. Deliver results with \
                 `deliver`; ask a question and wait for the answer with `ask`; read answers and \
                 annotations with `get_feedback` and `get_annotations`; search and add to the \
                 project's knowledge; work the team's task queue.",
            )
    }
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

/// Serves `workspace` on stdin/stdout until the client closes stdin; a
/// waiting `ask` sends a progress notification every `heartbeat`.
pub fn run(workspace: Workspace, heartbeat: Duration) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("could not start the MCP server's runtime")?;
    runtime.block_on(async {
        let (stdin, stdout) = rmcp::transport::stdio();
        let transport = rmcp::transport::async_rw::AsyncRwTransport::new_server(stdin, stdout)
            .with_max_line_length(MAX_LINE);
        let service = Server::new(workspace, heartbeat)
            .serve(transport)
            .await
            .context("the MCP client did not initialize")?;
        service.waiting().await.context("the MCP session failed")?;
        Ok(())
    })
}
