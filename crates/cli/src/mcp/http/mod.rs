//! `switchboard mcp --http [ADDR]`: the same server over Streamable HTTP
//! at `http://ADDR/mcp`, loopback only, behind a guard that answers before
//! any tool runs: a `Host` that is not the address served or a browser
//! `Origin` that is not loopback gets 403 (DNS rebinding), a request
//! without a valid bearer token 401, a body over 4 MiB 413, and each
//! refusal closes its connection. Connections are held within bounds by
//! the front both servers share (`crate::front`: those without a valid
//! token make way for those with one, one token holds half the places at
//! most, silent ones time out, running out of file descriptors pauses the
//! server instead of ending it). rmcp's own service (both protocol revisions)
//! does the rest, each call checked against the token's scopes (`mod.rs`).
//! `switchboard mcp token` makes, lists and revokes the tokens.

use std::{
    net::SocketAddr,
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

use anyhow::{Context, Result};
use hyper::{Request, Response, StatusCode, body::Incoming, header};
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use switchboard_model::token::{Scope, Scopes, bearer};
use switchboard_store::{Workspace, clock, settings, tokens};
use tower_service::Service as _;

use super::Server;
use crate::{
    failure::refuse,
    front::{self, Body, Front, refusal},
};

/// The largest request body taken.
pub const MAX_BODY: usize = 4 * 1024 * 1024;

/// The most connections held at once (see `crate::front`).
const MAX_CONNECTIONS: usize = 256;

/// A request's token, handed to the tools with the request: the agent it
/// names (what it delivers or asks is marked with it, what it starts
/// belongs to it) and what it may do.
#[derive(Debug, Clone)]
pub struct Holder {
    /// The agent's name.
    pub name: String,
    /// The token's scopes.
    pub scopes: Scopes,
}
type Mcp = StreamableHttpService<Server, LocalSessionManager>;

/// Where a running server's URL is kept for other commands to find: a
/// file named for the workspace in the user's private runtime folder.
fn advertisement(workspace: &Path) -> Option<PathBuf> {
    let runtime = switchboard_session::runtime::RuntimeDir::locate().ok()?;
    let key = switchboard_model::id::workspace_key(workspace);
    Some(runtime.path().join(format!("mcp-http-{key}.url")))
}

/// The URL of the HTTP server running for `workspace`, if one runs (its
/// advertisement is there and its port answers).
pub fn running_url(workspace: &Path) -> Option<String> {
    let advertised = advertisement(workspace)?;
    let folder = advertised.parent()?;
    let url = switchboard_store::regular::read_to_string_in(folder, &advertised, 4096).ok()?;
    let url = url.trim().to_owned();
    let address = url.strip_prefix("http://")?.strip_suffix("/mcp")?;
    std::net::TcpStream::connect(address).ok()?;
    Some(url)
}

/// The config folder the tokens live in.
fn token_dir() -> Result<PathBuf> {
    settings::config_dir().context("this system has no config folder; set SWITCHBOARD_CONFIG_DIR")
}

/// `switchboard mcp token`: makes a token naming `name`, holding the
/// default scopes and `allow`, and prints it (once); or lists the tokens,
/// or revokes one.
pub fn token(name: &str, list: bool, revoke: Option<&str>, allow: &[Scope]) -> Result<()> {
    let dir = token_dir()?;
    if list {
        let file = tokens::load(&dir)?;
        if file.tokens.is_empty() {
            println!("No tokens (make one with `switchboard mcp token --name AGENT`).");
        }
        for token in file.tokens {
            println!("{}\t{}\t{}", token.name, token.created_at, token.scopes());
        }
    } else if let Some(name) = revoke {
        tokens::revoke(&dir, name)?;
        println!("revoked {name}");
    } else {
        let scopes = Scopes::granting(allow);
        let token = tokens::create(&dir, name, &scopes, clock::now())?;
        println!("{token}");
        eprintln!(
            "A token for {name}, which may use: {scopes}{}. Shown this once (only its digest is kept in {}). Send it as `Authorization: Bearer …`.",
            if scopes.allows(Scope::Programs) {
                " (it may start and drive any program on this machine)"
            } else {
                " (not programs: grant them with --allow programs)"
            },
            dir.join(tokens::FILE).display()
        );
    }
    Ok(())
}

/// Serves `workspace` over Streamable HTTP at `address` until killed;
/// prints the URL first.
pub fn serve(
    workspace: Workspace,
    address: &str,
    also: &[String],
    exit_with_stdin: bool,
    heartbeat: Duration,
) -> Result<()> {
    if exit_with_stdin {
        std::thread::spawn(|| {
            let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
            tracing::info!("stdin closed: the HTTP server ends");
            std::process::exit(0);
        });
    }
    for host in also {
        let loopback = host.rsplit_once(':').is_some_and(|(name, port)| {
            matches!(name, "127.0.0.1" | "localhost" | "[::1]") && port.parse::<u16>().is_ok()
        });
        if !loopback {
            refuse!("--allow-host takes a loopback HOST:PORT, e.g. 127.0.0.1:47332 (not {host:?})");
        }
    }
    let Ok(address) = address.parse::<SocketAddr>() else {
        refuse!("--http takes an address and port, e.g. 127.0.0.1:8765 (not {address:?})");
    };
    if !address.ip().is_loopback() {
        refuse!(
            "--http serves loopback addresses only ({address} is not); reach it from elsewhere through `ssh -R`"
        );
    }
    let dir = token_dir()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("could not start the HTTP server's runtime")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .with_context(|| format!("could not listen on {address}"))?;
        let local = listener.local_addr()?;
        let mut guard = Guard::new(local.port(), dir);
        guard.hosts.extend(also.iter().cloned());
        let guard = Arc::new(guard);
        let config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(guard.hosts.clone())
            .with_allowed_origins(LOOPBACK_ORIGINS)
            .with_max_request_body_bytes(MAX_BODY);
        let root = workspace.root().to_owned();
        let mcp: Mcp = StreamableHttpService::new(
            move || Ok(Server::new(workspace.clone(), false, heartbeat)),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let url = format!("http://{local}/mcp");
        if let Some(file) = advertisement(&root)
            && let Err(error) = switchboard_store::write_atomic_private(&file, url.as_bytes())
        {
            tracing::warn!(%error, "the server's URL was not written for other commands");
        }
        // Listed in every window's "All workspaces" while it serves.
        let _registered = switchboard_store::registry::Registry::locate()
            .and_then(|registry| {
                registry.register(
                    &Workspace::open(&root)?,
                    switchboard_model::registry::Presence::Server,
                    clock::now(),
                )
            })
            .inspect_err(
                |error| tracing::warn!(%error, "windows will not list this server's workspace"),
            )
            .ok();
        println!("{url}");
        let front = Front::new(front::Rules {
            places: MAX_CONNECTIONS,
            max_body: MAX_BODY,
            server: "the HTTP server",
        });
        let answer = move |request| {
            let (mut mcp, guard) = (mcp.clone(), Arc::clone(&guard));
            async move { guard.handle(request, &mut mcp).await }
        };
        match front.serve(&listener, None, answer).await {}
    })
}

/// The browser origins let through: loopback ones, any port.
const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

/// What every request meets before the MCP service.
struct Guard {
    /// The `Host` values the served address answers to.
    hosts: Vec<String>,
    /// Where the tokens live.
    tokens: PathBuf,
}

impl Guard {
    fn new(port: u16, tokens: PathBuf) -> Self {
        Self {
            hosts: vec![
                format!("127.0.0.1:{port}"),
                format!("localhost:{port}"),
                format!("[::1]:{port}"),
            ],
            tokens,
        }
    }

    async fn handle(&self, mut request: Request<Incoming>, mcp: &mut Mcp) -> Response<Body> {
        if request.uri().path() != "/mcp" {
            return refusal(StatusCode::NOT_FOUND, "the MCP endpoint is /mcp");
        }
        let text = |name: header::HeaderName| {
            request
                .headers()
                .get(name)
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned)
        };
        let host = text(header::HOST).unwrap_or_default();
        if !self
            .hosts
            .iter()
            .any(|served| served.eq_ignore_ascii_case(&host))
        {
            return refusal(StatusCode::FORBIDDEN, "this Host is not served here");
        }
        if let Some(origin) = text(header::ORIGIN)
            && !is_loopback_origin(&origin)
        {
            return refusal(
                StatusCode::FORBIDDEN,
                "requests from this Origin are refused",
            );
        }
        let presented = text(header::AUTHORIZATION);
        let holder = match presented.as_deref().and_then(bearer) {
            Some(token) => match tokens::holder(&self.tokens, token) {
                Ok(holder) => holder,
                Err(error) => {
                    tracing::warn!(%error, "the tokens could not be read");
                    None
                }
            },
            None => None,
        };
        let Some(holder) = holder else {
            let mut response = refusal(
                StatusCode::UNAUTHORIZED,
                "a valid bearer token is needed (switchboard mcp token)",
            );
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                header::HeaderValue::from_static("Bearer realm=\"switchboard\""),
            );
            return response;
        };
        if !front::claim(&request, &holder.name) {
            return refusal(
                StatusCode::SERVICE_UNAVAILABLE,
                "this token holds as many connections as it may; try again",
            );
        }
        tracing::debug!(agent = %holder.name, "an authorised request");
        request.extensions_mut().insert(Holder {
            scopes: holder.scopes(),
            name: holder.name,
        });
        match mcp.call(request).await {
            Ok(response) => response,
            Err(never) => match never {},
        }
    }
}

/// Whether a browser `Origin` is a loopback one (`null` is not).
fn is_loopback_origin(origin: &str) -> bool {
    let Some((scheme, rest)) = origin.split_once("://") else {
        return false;
    };
    let host = match rest.strip_prefix('[') {
        Some(v6) => v6.split_once(']').map(|(host, _)| host),
        None => rest.split(':').next(),
    };
    matches!(scheme, "http" | "https")
        && matches!(host, Some("localhost" | "127.0.0.1" | "::1"))
        && !rest.contains('/')
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn only_loopback_origins_pass() {
        for good in [
            "http://localhost:3000",
            "http://127.0.0.1",
            "https://[::1]:8443",
        ] {
            assert!(is_loopback_origin(good), "{good}");
        }
        for bad in [
            "http://evil.example",
            "http://localhost.evil.example",
            "http://127.0.0.1.nip.io",
            "null",
            "file://localhost",
            "http://localhost:3000/path",
        ] {
            assert!(!is_loopback_origin(bad), "{bad}");
        }
    }
}
