//! `switchboard serve`: the inbox in a browser on any device that reaches
//! this machine's loopback (an SSH tunnel, a tailnet's HTTPS), paired with
//! a one-time link; and the paired browsers, listed and revoked.

use anyhow::{Context, Result};
use clap::Args;
use switchboard_store::{Workspace, browsers, settings};

/// `switchboard serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Where to listen: a loopback address and port (port 0 picks a free
    /// one). Anything beyond this machine needs TLS, not built yet.
    #[arg(long, default_value = "127.0.0.1:8766")]
    pub listen: String,
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
    /// List the paired browsers and exit.
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
            println!("No browser is paired (pair one with `switchboard serve --pair`).");
        }
        for session in file.sessions {
            println!("{}\t{}\t{}", session.id, session.created_at, session.label);
        }
        return Ok(());
    }
    if let Some(id) = &args.revoke {
        let session = browsers::revoke(&config_dir, id)?;
        println!("revoked {} ({})", session.id, session.label);
        return Ok(());
    }
    if args.exit_with_stdin {
        std::thread::spawn(|| {
            let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
            tracing::info!("stdin closed: the server of the inbox ends");
            std::process::exit(0);
        });
    }
    crate::serve::serve(
        workspace,
        config_dir,
        &args.listen,
        args.pair,
        &args.origins,
    )
}
