//! `switchboard connect [USER@]HOST`: gives agents on another machine this
//! workspace's Switchboard through one SSH connection. It serves the
//! workspace over HTTP on local loopback (`switchboard mcp --http`, a
//! child), makes a token named for the machine, and keeps `ssh -R` up: the
//! far side's loopback port forwards to the local server, and the far
//! side gets `connect.env` (URL, token, name; mode 0600) written through
//! the connection's stdin — never on a command line. Dropped connections
//! are made again; on Ctrl-C (or SIGTERM) the connection and the server
//! end and the token is revoked. Uses the system's `ssh`, the user's keys
//! and known hosts; nothing listens on a non-loopback address.

use std::{
    io::{BufRead, BufReader, Write},
    process::{Child, Command, Stdio},
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use anyhow::{Context, Result};
use clap::Args;
use switchboard_model::token::check_name;
use switchboard_store::{Workspace, clock, settings, tokens};

use crate::failure::refuse;

/// `switchboard connect`.
#[derive(Debug, Args)]
pub struct ConnectArgs {
    /// The machine, as `ssh` takes it (`host`, `user@host`, an alias).
    pub host: String,
    /// The loopback port on the far side that reaches this Switchboard.
    #[arg(long, default_value_t = 47_332)]
    pub remote_port: u16,
    /// Where on the far side `connect.env` is written (a path `sh`
    /// expands there).
    #[arg(long, value_name = "DIR", default_value = "~/.config/switchboard")]
    pub remote_dir: String,
    /// The agent name the token carries (default `ssh:HOST`).
    #[arg(long)]
    pub name: Option<String>,
    /// Print the far side's settings instead of writing them there.
    #[arg(long)]
    pub print: bool,
    /// An `ssh -o` option (repeatable): `Port=2222`, `IdentityFile=…`.
    #[arg(short = 'o', value_name = "OPTION")]
    pub ssh_options: Vec<String>,
}

/// What the far side is told it is connected.
const READY: &str = "switchboard-connected";

/// Runs `switchboard connect` until it is stopped.
pub fn run(workspace: &Workspace, args: &ConnectArgs) -> Result<()> {
    if args.host.starts_with('-') || args.host.is_empty() {
        refuse!("{:?} is not a host", args.host);
    }
    let name = args
        .name
        .clone()
        .unwrap_or_else(|| default_name(&args.host));
    check_name(&name).map_err(|error| crate::failure::invalid(error.to_string()))?;
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&stop))
            .context("could not watch for Ctrl-C")?;
    }
    let dir = settings::config_dir()
        .context("this system has no config folder; set SWITCHBOARD_CONFIG_DIR")?;
    let mut server = LocalServer::start(workspace, args.remote_port)?;
    // A token of this name from an earlier run is replaced.
    let _ = tokens::revoke(&dir, &name);
    let token = tokens::create(&dir, &name, clock::now())?;
    let remote_url = format!("http://127.0.0.1:{}/mcp", args.remote_port);
    let settings = format!(
        "SWITCHBOARD_URL={remote_url}\nSWITCHBOARD_TOKEN={token}\nSWITCHBOARD_NAME={name}\n"
    );
    if args.print {
        println!("{settings}");
    }
    eprintln!(
        "switchboard connect: {} reaches this workspace at {remote_url} (token {name}); Ctrl-C ends it",
        args.host
    );
    let ended = keep_up(args, &server.address, &settings, &stop);
    server.stop();
    if let Err(error) = tokens::revoke(&dir, &name) {
        tracing::warn!(%error, "the connection's token was not revoked");
    }
    ended
}

/// `ssh:HOST` with what a token name cannot hold replaced.
fn default_name(host: &str) -> String {
    let host: String = host
        .rsplit('@')
        .next()
        .unwrap_or(host)
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .take(56)
        .collect();
    format!("ssh:{host}")
}

/// Keeps the connection up until `stop`: each time `ssh` ends, it is
/// started again after a pause that grows to 30 s while connections fail
/// at once.
fn keep_up(args: &ConnectArgs, local: &str, settings: &str, stop: &AtomicBool) -> Result<()> {
    let mut pause = Duration::from_secs(1);
    while !stop.load(Ordering::SeqCst) {
        let started = Instant::now();
        match connect_once(args, local, settings, stop) {
            Ok(()) => {}
            Err(error) => eprintln!("switchboard connect: {error:#}"),
        }
        if stop.load(Ordering::SeqCst) {
            break;
        }
        pause = if started.elapsed() > Duration::from_secs(30) {
            Duration::from_secs(1)
        } else {
            (pause * 2).min(Duration::from_secs(30))
        };
        eprintln!(
            "switchboard connect: the connection ended; again in {} s",
            pause.as_secs()
        );
        let until = Instant::now() + pause;
        while Instant::now() < until && !stop.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    Ok(())
}

/// One `ssh` connection: the forward, `connect.env` written on the far
/// side from stdin, then held until it drops or `stop`.
fn connect_once(args: &ConnectArgs, local: &str, settings: &str, stop: &AtomicBool) -> Result<()> {
    let write_settings = if args.print {
        String::new()
    } else {
        format!(
            "umask 077 && mkdir -p {dir} && head -c {len} > {dir}/connect.env && ",
            dir = args.remote_dir,
            len = settings.len()
        )
    };
    let remote = format!("{write_settings}echo {READY} && cat > /dev/null");
    let mut command = Command::new("ssh");
    command
        .args([
            "-T",
            "-o",
            "ExitOnForwardFailure=yes",
            "-o",
            "ServerAliveInterval=10",
            "-o",
            "ServerAliveCountMax=3",
            "-o",
            "BatchMode=yes",
        ])
        .arg("-R")
        .arg(format!("127.0.0.1:{}:{local}", args.remote_port));
    for option in &args.ssh_options {
        command.arg("-o").arg(option);
    }
    let mut ssh = command
        .arg(&args.host)
        .arg(remote)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .context("could not start ssh")?;
    if !args.print
        && let Some(stdin) = ssh.stdin.as_mut()
    {
        stdin
            .write_all(settings.as_bytes())
            .context("could not send the settings")?;
        stdin.flush().ok();
    }
    let stdout = ssh.stdout.take().context("ssh's output")?;
    let (ready, told) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if line.trim() == READY {
                let _ = ready.send(());
            }
        }
    });
    loop {
        if told.try_recv().is_ok() {
            eprintln!(
                "switchboard connect: connected (ssh pid {}); {}:127.0.0.1:{} → {local}",
                ssh.id(),
                args.host,
                args.remote_port
            );
        }
        if stop.load(Ordering::SeqCst) {
            let _ = ssh.kill();
            let _ = ssh.wait();
            return Ok(());
        }
        if let Some(status) = ssh.try_wait().context("could not watch ssh")? {
            anyhow::bail!("ssh ended ({status})");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The workspace served over HTTP on loopback by a child `switchboard
/// mcp --http`, for the time of the connection.
struct LocalServer {
    child: Child,
    /// `127.0.0.1:PORT`.
    address: String,
}

impl LocalServer {
    /// Starts the server; it also answers to the far side's loopback
    /// `Host` (`127.0.0.1:remote_port` there).
    fn start(workspace: &Workspace, remote_port: u16) -> Result<Self> {
        let mut child =
            Command::new(std::env::current_exe().context("could not find this program")?)
                .arg("-C")
                .arg(workspace.root())
                .args(["mcp", "--http"])
                .arg("--allow-host")
                .arg(format!("127.0.0.1:{remote_port}"))
                .arg("--allow-host")
                .arg(format!("localhost:{remote_port}"))
                // Its stdin is ours: it ends when we do, however we end.
                .arg("--exit-with-stdin")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .spawn()
                .context("could not start the local HTTP server")?;
        let mut line = String::new();
        BufReader::new(child.stdout.take().context("the server's output")?)
            .read_line(&mut line)
            .context("the local HTTP server said nothing")?;
        let address = line
            .trim()
            .strip_prefix("http://")
            .and_then(|rest| rest.strip_suffix("/mcp"))
            .with_context(|| format!("the local HTTP server printed {line:?}"))?
            .to_owned();
        Ok(Self { child, address })
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for LocalServer {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_name_is_the_host_as_a_token_takes_it() {
        assert_eq!(default_name("dev@build-box.local"), "ssh:build-box.local");
        assert_eq!(default_name("[::1]"), "ssh:___1_");
        assert!(check_name(&default_name(&"h".repeat(200))).is_ok());
    }
}
