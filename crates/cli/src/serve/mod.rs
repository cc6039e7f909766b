//! `switchboard serve`: the window's own page in a browser, over HTTP on
//! loopback or over TLS anywhere (`tls`). Pairing, not passwords: a one-time link (`--pair`, printed
//! with its QR code) is exchanged for a session cookie (HttpOnly,
//! SameSite=Strict), listed and revoked like tokens (`--sessions`,
//! `--revoke`). Every request but the pairing one needs the cookie; a
//! command and the event stream also need the page key the pairing gave
//! the page (the cookie reaches every server on this host), a command
//! also this origin and a JSON body (no cross-site form can send one),
//! and only the commands a browser may call run
//! (`switchboard_commands::dispatch`, the same functions the window's
//! shell calls). Events reach the page as server-sent events. Every
//! response carries the page's Content-Security-Policy. Connections are
//! held within bounds by the front both servers share (`crate::front`):
//! those of unpaired browsers make way for a paired one's, one paired
//! browser holds half the places at most, one address that is not
//! loopback 64.

mod events;
mod page;
mod routes;
pub mod tls;

use std::{net::SocketAddr, path::PathBuf, sync::Arc};

use anyhow::{Context, Result};
use switchboard_model::{ErrorCode, ErrorPayload};
use switchboard_store::Workspace;

use crate::{
    failure::refuse,
    front::{self, Front},
};

/// The most connections held at once (see `crate::front`).
const MAX_CONNECTIONS: usize = 512;

/// The largest body a request may declare: a command's, the most `routes`
/// reads.
const MAX_BODY: usize = 1024 * 1024;

/// What every request is answered from.
pub struct Served {
    /// What the page's commands reach: the workspace it shows, the
    /// sessions followed, the tools' folders.
    pub reach: switchboard_commands::Reach,
    /// The config folder the browser sessions (and the settings granting
    /// them more) live in.
    pub config_dir: PathBuf,
    /// Every origin a browser reaches this server at: its own
    /// (`http://127.0.0.1:PORT`; over TLS, `https://NAME:PORT` for each
    /// name its certificate covers), then the proxies' (`--origin`). A request naming another `Host` is refused
    /// (DNS rebinding), and a command is taken only from the page of the
    /// origin it reached.
    pub origins: Vec<String>,
    /// The paired browsers, as checked at each request and event.
    pub browsers: Arc<switchboard_store::browsers::Current>,
    /// The page and its policy.
    pub page: page::Page,
    /// The workspace's changes, for every page's event stream.
    pub events: events::Events,
}

impl Served {
    /// The origin a request with `Host: host` reached, if it is one of
    /// this server's.
    pub fn reached(&self, host: &str) -> Option<&str> {
        self.origins
            .iter()
            .find(|origin| {
                origin.split_once("://").is_some_and(|(scheme, authority)| {
                    // A browser leaves out the scheme's own port.
                    let default = if scheme == "https" { ":443" } else { ":80" };
                    authority.eq_ignore_ascii_case(host)
                        || authority.eq_ignore_ascii_case(&format!("{host}{default}"))
                })
            })
            .map(String::as_str)
    }
}

/// `text` as an origin a browser sends (`https://machine.tailnet.ts.net`,
/// `http://127.0.0.1:9000`): a scheme, http or https, and a host with
/// perhaps a port, lowercase; nothing else.
pub fn origin(text: &str) -> Option<String> {
    let uri = text.parse::<hyper::Uri>().ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let authority = uri.authority()?.as_str().to_ascii_lowercase();
    let bare = matches!(uri.path(), "" | "/")
        && uri.query().is_none()
        && !authority.contains('@')
        && !text.contains('#');
    (matches!(scheme.as_str(), "http" | "https") && bare).then(|| format!("{scheme}://{authority}"))
}

/// Prints pairing link `link` to the server at `origin` as `serve --pair`
/// and `switchboard pair` do: the link, its QR code (dark on light, which
/// a phone's camera reads whatever the terminal's colours), how a phone
/// reaches a loopback address, and what a paired browser reaches.
pub fn print_link(link: &str, origin: &str) {
    say(&format!(
        "Open this link once, within 10 minutes, in the browser to pair:\n{link}"
    ));
    if let Some(code) = switchboard_commands::pairing::terminal_qr(link) {
        say(&code);
    }
    if let Some(reach) = switchboard_commands::pairing::reach(origin) {
        say(&reach);
    }
    say(switchboard_model::browser::REACHES_EVERY_WORKSPACE);
}

/// Prints `text` for the person who started the server; a closed stdout
/// (its reader gone) does not stop the server.
pub fn say(text: &str) {
    use std::io::Write as _;
    let mut out = std::io::stdout();
    let _ = writeln!(out, "{text}").and_then(|()| out.flush());
}

/// Where `switchboard serve` listens unless told otherwise.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8766";

/// How `switchboard serve` is asked to serve.
pub struct Options {
    /// The address and port to listen on (`--listen`).
    pub listen: String,
    /// `listen` was not asked for: another free port will do when another
    /// program holds its port.
    pub any_free_port: bool,
    /// Print a pairing link once serving (`--pair`).
    pub pair: bool,
    /// The proxies' origins (`--origin`).
    pub proxied: Vec<String>,
    /// Where TLS's certificate comes from, if served over TLS.
    pub tls: Option<tls::Source>,
    /// More names a made certificate covers (`--tls-name`).
    pub tls_names: Vec<String>,
}

/// Serves `workspace` as `options` say until killed: on loopback, or over
/// TLS anywhere; also to browsers reaching it through a proxy (origins).
/// Prints the URL first (and the certificate's fingerprint), and with
/// `pair` a one-time link (on the first proxy's origin, if any) and its QR
/// code.
pub fn serve(workspace: Workspace, config_dir: PathBuf, options: &Options) -> Result<()> {
    let mut also = Vec::new();
    for text in &options.proxied {
        let Some(origin) = origin(text) else {
            refuse!(
                "--origin takes the address a browser opens, a scheme and a host, e.g. \
                 https://machine.tailnet.ts.net or http://127.0.0.1:9000 (not {text:?})"
            );
        };
        also.push(origin);
    }
    let Ok(address) = options.listen.parse::<SocketAddr>() else {
        refuse!(
            "--listen takes an address and port, e.g. 127.0.0.1:8766 (not {:?})",
            options.listen
        );
    };
    if !address.ip().is_loopback() && options.tls.is_none() {
        refuse!(
            "serving on {address} would reach beyond this machine, which needs TLS. Either \
             give it TLS (--tls-self-signed for a certificate made for this machine, or \
             --tls-cert FILE --tls-key FILE), or serve on loopback and reach it through an \
             SSH tunnel (ssh -L 8766:127.0.0.1:8766 this-machine) or a tailnet's HTTPS \
             (tailscale serve 8766, with --origin; see docs/inbox.md)"
        );
    }
    let mut extra = Vec::new();
    for text in &options.tls_names {
        let Some(name) = tls::Name::parse(text) else {
            refuse!("--tls-name takes a host name or an IP address (not {text:?})");
        };
        extra.push(name);
    }
    if !extra.is_empty() && options.tls.is_none() {
        refuse!(
            "--tls-name names what a TLS certificate covers: give it with --tls-self-signed \
             (or --tls-cert and --tls-key)"
        );
    }
    let tls = match &options.tls {
        Some(source) => Some(tls::load(
            source,
            &config_dir,
            &tls::wanted(&extra, address.ip(), &also),
        )?),
        None => None,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("could not start the server's runtime")?;
    runtime.block_on(async move {
        let listener = listen(address, options.any_free_port).await?;
        let local = listener.local_addr()?;
        // Over TLS, every name the certificate covers, and no other.
        let own: Vec<String> = match &tls {
            Some(tls) => tls
                .names
                .iter()
                .map(|name| format!("https://{}", name.authority(local.port())))
                .collect(),
            None => vec![format!("http://{local}")],
        };
        let origin = own.first().cloned().unwrap_or_default();
        let shown = also.first().cloned().unwrap_or_else(|| origin.clone());
        // Registered while it serves: agents' questions are asked (and
        // listed in every window's "All workspaces") as if a window were
        // open; `switchboard pair` makes its links on `shown`. Registered
        // before the other workspaces are followed, so a page that opens
        // its stream at once is not told of this server's own arrival.
        let _registered = switchboard_store::registry::Registry::locate()
            .and_then(|registry| {
                registry.register_at(
                    &workspace,
                    switchboard_model::registry::Presence::Browsers,
                    Some(&shown),
                    switchboard_store::clock::now(),
                )
            })
            .inspect_err(|error| {
                tracing::warn!(%error, "agents' questions are asked here only while a window is open")
            })
            .ok();
        let sessions = Arc::<switchboard_commands::terminals::Followed>::default();
        let events = events::Events::follow(&workspace, Arc::clone(&sessions))?;
        let mut origins = own;
        origins.extend(also);
        let reach = switchboard_commands::Reach {
            workspace,
            config_dir: config_dir.clone(),
            claude_teams: switchboard_store::team::ClaudeTeams::locate(),
            probe_reports: switchboard_store::probe_reports::ProbeReports::locate(),
            sessions,
            switchboard: std::env::current_exe().context("could not find this program's path")?,
        };
        let served = Arc::new(Served {
            reach,
            browsers: Arc::new(switchboard_store::browsers::Current::new(config_dir.clone())),
            config_dir,
            origins,
            page: page::Page::load(),
            events,
        });
        say(&format!("{origin}/"));
        let acceptor = tls.map(|tls| {
            say(&format!("TLS certificate's SHA-256 fingerprint: {}", tls.fingerprint));
            if let Some(made) = &tls.made {
                say(&format!(
                    "(made for this machine and kept in {}: a browser warns until it is \
                     trusted; check that the fingerprint it shows is this one)",
                    made.display()
                ));
            }
            tls.acceptor
        });
        if options.pair {
            let link = switchboard_commands::pairing::new_link(&served.config_dir, &shown)?;
            print_link(&link, &shown);
        }
        let front = Front::new(front::Rules {
            places: MAX_CONNECTIONS,
            max_body: MAX_BODY,
            server: "switchboard serve",
        });
        let answer = move |request| {
            let served = Arc::clone(&served);
            async move { routes::answer(&served, request).await }
        };
        match front.serve(&listener, acceptor, answer).await {}
    })
}

/// Listens on `address`; when another program holds its port, on a free
/// port of the same address if `any_free_port` (saying so), or refused
/// saying how to choose another.
async fn listen(address: SocketAddr, any_free_port: bool) -> Result<tokio::net::TcpListener> {
    match tokio::net::TcpListener::bind(address).await {
        Ok(listener) => Ok(listener),
        Err(error) if error.kind() == std::io::ErrorKind::AddrInUse && any_free_port => {
            let free = SocketAddr::new(address.ip(), 0);
            let listener = tokio::net::TcpListener::bind(free)
                .await
                .with_context(|| format!("could not listen on {free}"))?;
            let port = listener.local_addr()?.port();
            tracing::info!(taken = %address, port, "the usual port is taken: serving on a free one");
            eprintln!(
                "Port {} is held by another program (perhaps another workspace's server): \
                 serving on port {port} instead.",
                address.port()
            );
            Ok(listener)
        }
        Err(error) if error.kind() == std::io::ErrorKind::AddrInUse => Err(ErrorPayload::new(
            ErrorCode::Conflict,
            format!(
                "port {} is held by another program (perhaps another workspace's server): serve \
                 on another with --listen {}:PORT, or --listen {}:0 for any free one",
                address.port(),
                address.ip(),
                address.ip()
            ),
        )
        .into()),
        Err(error) => {
            Err(anyhow::Error::new(error).context(format!("could not listen on {address}")))
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn an_origin_is_a_scheme_and_a_host_only() {
        assert_eq!(
            origin("https://Machine.tailnet.ts.net").as_deref(),
            Some("https://machine.tailnet.ts.net")
        );
        assert_eq!(
            origin("http://127.0.0.1:9000/").as_deref(),
            Some("http://127.0.0.1:9000")
        );
        for refused in [
            "machine.tailnet.ts.net",
            "ftp://machine",
            "https://machine/inbox",
            "https://machine/?x",
            "https://user@machine",
            "https://machine#x",
            "",
        ] {
            assert_eq!(origin(refused), None, "{refused}");
        }
    }
}
