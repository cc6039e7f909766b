//! The sidecar's own tools (`read_file`, `search_files`, `write_file`:
//! the names and arguments the OpenAI-compatible backend offers) served
//! to an agent CLI over MCP for one turn: Streamable HTTP on loopback, a
//! fresh bearer token, gone when the turn ends. Every call runs through
//! the turn's allow-list, proposals and audit log exactly as the other
//! backend's tool calls do; each write is told to the turn.

use std::{convert::Infallible, sync::Arc};

use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::{
    Request, Response, StatusCode,
    body::{Bytes, Incoming},
    header,
    service::service_fn,
};
use hyper_util::rt::TokioIo;
use rmcp::{
    ErrorData, RoleServer, ServerHandler,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
        ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    },
    service::RequestContext,
    transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    },
};
use serde_json::{Map, Value};
use switchboard_model::sidecar::WriteEvent;
use tokio::sync::mpsc;
use tower_service::Service;

use crate::{SidecarError, tools::ToolEffect};

/// The server's name in the agent's MCP configuration (its tools are
/// `mcp__switchboard__read_file`, …).
pub const SERVER_NAME: &str = "switchboard";

/// Runs one tool call (name, JSON arguments): the text for the model and
/// what happened.
pub type RunTool = Arc<dyn Fn(&str, &str) -> (String, ToolEffect) + Send + Sync>;

/// The turn's tools as an MCP server.
#[derive(Clone)]
struct TurnTools {
    tools: Arc<Vec<Tool>>,
    run: RunTool,
    writes: mpsc::UnboundedSender<WriteEvent>,
}

/// An MCP tool made of one of `tools::definitions`' OpenAI function
/// definitions.
fn mcp_tool(definition: &Value) -> Option<Tool> {
    let function = definition.get("function")?;
    let name = function.get("name")?.as_str()?.to_owned();
    let description = function
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let schema: Map<String, Value> = function.get("parameters")?.as_object()?.clone();
    Some(Tool::new(name, description, Arc::new(schema)))
}

impl ServerHandler for TurnTools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new("switchboard-chat", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if !self.tools.iter().any(|tool| tool.name == request.name) {
            return Err(ErrorData::invalid_params(
                format!("no tool {:?} in this mode", request.name),
                None,
            ));
        }
        let name = request.name.to_string();
        let arguments = Value::Object(request.arguments.unwrap_or_default()).to_string();
        let run = Arc::clone(&self.run);
        let (text, effect) = tokio::task::spawn_blocking(move || run(&name, &arguments))
            .await
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        if let ToolEffect::Write(event) = effect {
            let _ = self.writes.send(event);
        }
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

/// A running tool server: where it is, the token it wants, and the writes
/// its calls made; it stops when dropped.
pub struct ToolServer {
    /// `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    /// The bearer token every request must carry.
    pub token: String,
    /// The writes made so far, in order.
    pub writes: mpsc::UnboundedReceiver<WriteEvent>,
    accepting: tokio::task::JoinHandle<()>,
}

impl Drop for ToolServer {
    fn drop(&mut self) {
        self.accepting.abort();
    }
}

/// 32 bytes from the system's random source, as hex.
fn fresh_token() -> Result<String, SidecarError> {
    use std::io::Read;
    let mut bytes = [0_u8; 32];
    #[allow(clippy::disallowed_methods, reason = "the system's random source")]
    let random = std::fs::File::open("/dev/urandom");
    random
        .and_then(|mut random| random.read_exact(&mut bytes))
        .map_err(|error| SidecarError::Internal(format!("no random source: {error}")))?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

type Body = BoxBody<Bytes, Infallible>;

fn refusal(status: StatusCode, why: &str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(why.to_owned())).boxed());
    *response.status_mut() = status;
    response
}

/// Serves `definitions` (as `tools::definitions` gives them), each call
/// run by `run`, on a free loopback port until dropped.
pub async fn start(definitions: &[Value], run: RunTool) -> Result<ToolServer, SidecarError> {
    let tools: Vec<Tool> = definitions.iter().filter_map(mcp_tool).collect();
    let (writes_in, writes) = mpsc::unbounded_channel();
    let handler = TurnTools {
        tools: Arc::new(tools),
        run,
        writes: writes_in,
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|error| {
            SidecarError::Internal(format!("no loopback port for the tools: {error}"))
        })?;
    let port = listener
        .local_addr()
        .map_err(|error| SidecarError::Internal(error.to_string()))?
        .port();
    let token = fresh_token()?;
    // No sessions and plain JSON answers: a turn's client makes a handful
    // of calls, each a request and its answer, and pays no stream set-up.
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts([format!("127.0.0.1:{port}"), format!("localhost:{port}")])
        .with_legacy_session_mode(false)
        .with_json_response(true);
    let mcp: StreamableHttpService<TurnTools, LocalSessionManager> = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let bearer = Arc::new(format!("Bearer {token}"));
    let accepting = tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (mcp, bearer) = (mcp.clone(), Arc::clone(&bearer));
            tokio::spawn(async move {
                let service = service_fn(move |request: Request<Incoming>| {
                    let (mut mcp, bearer) = (mcp.clone(), Arc::clone(&bearer));
                    async move {
                        let authorised = request
                            .headers()
                            .get(header::AUTHORIZATION)
                            .and_then(|value| value.to_str().ok())
                            == Some(bearer.as_str());
                        if !authorised {
                            return Ok::<_, Infallible>(refusal(
                                StatusCode::UNAUTHORIZED,
                                "a bearer token is needed",
                            ));
                        }
                        match mcp.call(request).await {
                            Ok(response) => Ok(response),
                            Err(never) => match never {},
                        }
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Ok(ToolServer {
        url: format!("http://127.0.0.1:{port}/mcp"),
        token,
        writes,
        accepting,
    })
}
