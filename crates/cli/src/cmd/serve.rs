//! `switchboard serve`: the inbox in a browser on any device that reaches
//! this machine's loopback (an SSH tunnel, a tailnet's HTTPS) or, over TLS,
//! this machine; paired with a one-time link; and the paired browsers,
//! listed and revoked. `switchboard pair`: a new link for the server
//! already serving this workspace.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;
use switchboard_model::{ErrorCode, ErrorPayload, registry::Presence};
use switchboard_store::{Workspace, browsers, registry, settings};

/// `switchboard serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Where to listen: an address and port (port 0 picks a free one;
    /// without --listen, 127.0.0.1:8766, or a free port when another
    /// program holds that one). Anything but loopback needs TLS
    /// (--tls-self-signed, or --tls-cert and --tls-key).
    #[arg(long)]
    pub listen: Option<String>,
    /// Serve over TLS with this certificate (PEM, perhaps followed by its
    /// chain); with --tls-key.
    #[arg(long, value_name = "FILE")]
    pub tls_cert: Option<PathBuf>,
    /// The certificate's private key (PEM, unencrypted).
    #[arg(long, value_name = "FILE")]
    pub tls_key: Option<PathBuf>,
    /// Serve over TLS with a certificate made for this machine (kept in
    /// the config folder's browser-tls/, made anew when it expires or a
    /// name is missing); its fingerprint is printed, for a browser's
    /// user to check.
    #[arg(long)]
    pub tls_self_signed: bool,
    /// Another name the made certificate covers (repeatable): a host name
    /// or an address a phone opens, e.g. 192.168.1.20 or machine.local
    /// (localhost, this machine's name and the --listen address are
    /// covered already). With --tls-cert, the name shown first, when the
    /// certificate covers it.
    #[arg(long = "tls-name", value_name = "NAME")]
    pub tls_names: Vec<String>,
    /// Print a one-time pairing link (and its QR code) once serving:
    /// opened within 10 minutes, it pairs that browser.
    #[arg(long)]
    pub pair: bool,
    /// Also serve browsers that reach this server through a proxy at this
    /// origin (repeatable): `https://machine.tailnet.ts.net` for
    /// `tailscale serve`, `http://127.0.0.1:9000` for an SSH tunnel on
    /// another port. Any other `Host` is refused.
    #[arg(long = "origin", value_name = "URL")]
    pub origins: Vec<String>,
    /// List the paired browsers and exit: each one's id, what it is (its
    /// browser and system), when it was paired and last seen.
    #[arg(long, conflicts_with_all = ["pair", "revoke"])]
    pub sessions: bool,
    /// Revoke the paired browser with this id (from --sessions) and exit:
    /// its next request gets 401, and its open event stream ends at its
    /// next event (or heartbeat, 15 s).
    #[arg(long, value_name = "ID")]
    pub revoke: Option<String>,
    /// End when stdin closes (how the window runs it: it ends with the
    /// window, however the window ends).
    #[arg(long, hide = true)]
    pub exit_with_stdin: bool,
}

/// Serves, lists or revokes.
pub fn run(workspace: Workspace, args: &ServeArgs) -> Result<()> {
    let config_dir = settings::config_dir()
        .context("this system has no config folder; set SWITCHBOARD_CONFIG_DIR")?;
    if args.sessions {
        let file = browsers::load(&config_dir)?;
        if file.sessions.is_empty() {
            println!(
                "No browser is paired (pair one with `switchboard pair` while a server runs, or \
                 `switchboard serve --pair`)."
            );
        }
        for session in file.sessions {
            // Paired by an older version: refused until paired again.
            let note = if session.has_page_key() {
                ""
            } else {
                "\t(paired by an older version: pair this browser again, then revoke this one)"
            };
            let seen = session
                .last_seen
                .map_or_else(|| "never".to_owned(), |seen| seen.to_string());
            println!(
                "{}\t{}\tpaired {}\tlast seen {seen}{note}",
                session.id,
                session.described(),
                session.created_at,
            );
        }
        return Ok(());
    }
    if let Some(id) = &args.revoke {
        let session = browsers::revoke(&config_dir, id)?;
        println!(
            "revoked paired browser {} ({})",
            session.id,
            session.described()
        );
        return Ok(());
    }
    if args.exit_with_stdin {
        std::thread::spawn(|| {
            let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
            tracing::info!("stdin closed: the server of the inbox ends");
            std::process::exit(0);
        });
    }
    // A server of this workspace already runs (the window's, or another
    // `switchboard serve`): a second on the same port cannot start, and
    // the running one makes pairing links itself.
    let running = serving(workspace.root());
    if let Some(origin) = running.first() {
        let listens_there = args
            .listen
            .as_deref()
            .is_none_or(|listen| origin.ends_with(&format!(":{}", port_of(listen))));
        if listens_there || args.pair {
            return Err(ErrorPayload::new(
                ErrorCode::Conflict,
                format!(
                    "{} is served to browsers already, at {origin}: run `switchboard pair` for a \
                     pairing link to that server",
                    workspace.root().display()
                ),
            )
            .into());
        }
    }
    let tls = crate::serve::tls::Source::from_flags(
        args.tls_cert.as_deref(),
        args.tls_key.as_deref(),
        args.tls_self_signed,
    )?;
    crate::serve::serve(
        workspace,
        config_dir,
        &crate::serve::Options {
            listen: args
                .listen
                .clone()
                .unwrap_or_else(|| crate::serve::DEFAULT_LISTEN.to_owned()),
            any_free_port: args.listen.is_none(),
            pair: args.pair,
            proxied: args.origins.clone(),
            tls,
            tls_names: args.tls_names.clone(),
        },
    )
}

/// `switchboard pair`.
#[derive(Debug, Args)]
pub struct PairArgs {}

/// Prints a new one-time link (and its QR code) for the `switchboard
/// serve` already serving this workspace — the window's own included —
/// made on the origin it registered; its code, kept in the shared
/// config folder, is the running server's to take.
pub fn pair(workspace: &Workspace, _args: &PairArgs) -> Result<()> {
    let config_dir = settings::config_dir()
        .context("this system has no config folder; set SWITCHBOARD_CONFIG_DIR")?;
    let origins = serving(workspace.root());
    let Some(origin) = origins.first() else {
        return Err(ErrorPayload::new(
            ErrorCode::Unavailable,
            format!(
                "no `switchboard serve` serves {} now: start one with `switchboard serve --pair` \
                 (which prints a link itself), or in the window's Settings, \"Serve the inbox to \
                 paired browsers\"",
                workspace.root().display()
            ),
        )
        .into());
    };
    let link = switchboard_commands::pairing::new_link(&config_dir, origin)?;
    crate::serve::print_link(&link, origin);
    for other in &origins[1..] {
        crate::serve::say(&format!(
            "(also served at {other}: the same link works there with that address)"
        ));
    }
    Ok(())
}

/// The port of `listen` (`127.0.0.1:8766`), as text.
fn port_of(listen: &str) -> &str {
    listen.rsplit(':').next().unwrap_or(listen)
}

/// The origins the running servers of `root` to browsers registered,
/// newest first.
fn serving(root: &Path) -> Vec<String> {
    let mut found: Vec<_> = registry::list()
        .registrations
        .into_iter()
        .filter(|registration| {
            registration.presence == Presence::Browsers
                && Path::new(&registration.workspace) == root
        })
        .filter_map(|registration| {
            let origin = crate::serve::origin(registration.origin.as_deref()?)?;
            Some((registration.since, origin))
        })
        .collect();
    found.sort_by_key(|(since, _)| std::cmp::Reverse(*since));
    let mut origins: Vec<String> = Vec::new();
    for (_, origin) in found {
        if !origins.contains(&origin) {
            origins.push(origin);
        }
    }
    origins
}
