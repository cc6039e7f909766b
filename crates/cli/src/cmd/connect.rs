//! `switchboard connect [USER@]HOST`: gives agents on another machine this
//! workspace's Switchboard through one SSH connection. It serves the
//! workspace over HTTP on local loopback (`switchboard mcp --http`, a
//! child), makes a token named for the machine, and keeps `ssh -R` up: the
//! far side's loopback port forwards to the local server, and the far
//! side gets `connect.env` (URL, token, name; mode 0600, made anew so a
//! file there before keeps no looser mode) written through the
//! connection's stdin — never on a command line. The token holds the
//! default scopes (inbox, knowledge, tasks) and what `--allow` grants
//! (`programs`), and `connect` says which. Dropped connections
//! are made again; on Ctrl-C (or SIGTERM) the connection and the server
//! end and the token is revoked. Uses the system's `ssh`, the user's keys
//! and known hosts; nothing listens on a non-loopback address.
//!
//! With `--container NAME`, the agents are in a container on the far side:
//! `connect.env` is written inside it (`docker exec`, or the engine named),
//! and the token is named for the machine and the container. The container
//! must share the far side's network (`--network host`): its loopback is
//! then the one the tunnel reaches. A container with a network of its own
//! is refused with the reason — reaching it would need a listener on an
//! address other than loopback, which Switchboard never opens.

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
use switchboard_model::token::{Scope, Scopes, check_name};
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
    /// The agents are in this container on HOST (it must share HOST's
    /// network): the settings are written inside it.
    #[arg(long, value_name = "NAME")]
    pub container: Option<String>,
    /// The container engine on HOST: `docker`, `podman`, or its path.
    #[arg(
        long,
        value_name = "ENGINE",
        default_value = "docker",
        requires = "container"
    )]
    pub engine: String,
    /// Grant the far side's agents a scope beyond inbox, knowledge and
    /// tasks: `programs` (start and drive any program on this machine).
    #[arg(long, value_name = "SCOPE", value_delimiter = ',')]
    pub allow: Vec<Scope>,
}

/// What the far side prints when the container has a network of its own.
const OWN_NETWORK: &str = "switchboard-container-network=";

/// A failure that another attempt would only repeat: `connect` stops.
#[derive(Debug)]
struct Lasting(anyhow::Error);

/// Whether `name` is a container name as Docker and Podman take it.
fn container_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
        && name.len() <= 128
}

/// Whether `engine` names a program (a name or a path) without anything a
/// shell would read.
fn engine_name(engine: &str) -> bool {
    !engine.is_empty()
        && !engine.starts_with('-')
        && engine
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '/'))
}

/// What the far side is told it is connected.
const READY: &str = "switchboard-connected";

/// Runs `switchboard connect` until it is stopped.
pub fn run(workspace: &Workspace, args: &ConnectArgs) -> Result<()> {
    if args.host.starts_with('-') || args.host.is_empty() {
        refuse!("{:?} is not a host", args.host);
    }
    if let Some(container) = &args.container {
        if !container_name(container) {
            refuse!("{container:?} is not a container name");
        }
        if !engine_name(&args.engine) {
            refuse!("{:?} is not a container engine", args.engine);
        }
    }
    let name = args.name.clone().unwrap_or_else(|| {
        let machine = default_name(&args.host);
        match &args.container {
            Some(container) => format!("{machine}:{container}")
                .chars()
                .take(switchboard_model::token::NAME_LIMIT)
                .collect(),
            None => machine,
        }
    });
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
    let scopes = Scopes::granting(&args.allow);
    let token = tokens::create(&dir, &name, &scopes, clock::now())?;
    let remote_url = format!("http://127.0.0.1:{}/mcp", args.remote_port);
    let settings = format!(
        "SWITCHBOARD_URL={remote_url}\nSWITCHBOARD_TOKEN={token}\nSWITCHBOARD_NAME={name}\n"
    );
    if args.print {
        println!("{settings}");
    }
    let far_side = match &args.container {
        Some(container) => format!("container {container} on {}", args.host),
        None => args.host.clone(),
    };
    eprintln!(
        "switchboard connect: {far_side} reaches this workspace at {remote_url} (token {name}); Ctrl-C ends it"
    );
    eprintln!(
        "switchboard connect: its agents may use {scopes}{}",
        if scopes.allows(Scope::Programs) {
            ", so they may start and drive any program on this machine"
        } else {
            "; not programs on this machine (--allow programs grants them)"
        }
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
            Err(error) => match error.downcast::<Lasting>() {
                Ok(Lasting(error)) => return Err(error),
                Err(error) => eprintln!("switchboard connect: {error:#}"),
            },
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
    let remote = format!(
        "{}echo {READY} && cat > /dev/null",
        far_side_setup(args, settings.len())?
    );
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
            let line = line.trim();
            if line == READY {
                let _ = ready.send(None);
            } else if let Some(network) = line.strip_prefix(OWN_NETWORK) {
                let _ = ready.send(Some(network.to_owned()));
            }
        }
    });
    loop {
        let heard = told.try_recv();
        if let Ok(Some(network)) = heard {
            let _ = ssh.kill();
            let _ = ssh.wait();
            let container = args.container.as_deref().unwrap_or_default();
            return Err(Lasting(
                switchboard_model::ErrorPayload::new(
                    switchboard_model::ErrorCode::Unavailable,
                    format!(
                        "container {container} on {} has a network of its own ({network}): its \
                         loopback is not {}'s, which the tunnel reaches; start it with \
                         `--network host`, or run the agents on {} itself",
                        args.host, args.host, args.host
                    ),
                )
                .into(),
            )
            .into());
        }
        if heard.is_ok() {
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

/// What the far side runs before it says it is ready: `connect.env`
/// written from stdin (`len` bytes) into `--remote-dir` there — inside
/// the container when there is one, after checking that it shares the far
/// side's network — or nothing with `--print`. The settings go into a new
/// file (`mktemp`: 0600 whatever the umask) that then replaces
/// `connect.env`, so a file there before, whatever its mode, never holds
/// the token.
fn far_side_setup(args: &ConnectArgs, len: usize) -> Result<String> {
    if args.print {
        return Ok(String::new());
    }
    let write = format!(
        "umask 077 && mkdir -p {dir} && tmp=$(mktemp {dir}/.connect.env.XXXXXX) && \
         {{ head -c {len} > \"$tmp\" && mv -f \"$tmp\" {dir}/connect.env || {{ rm -f \"$tmp\"; false; }}; }}",
        dir = args.remote_dir,
    );
    let Some(container) = &args.container else {
        return Ok(format!("{write} && "));
    };
    // Both were checked to hold nothing a shell reads.
    let engine = &args.engine;
    let inside = shlex::try_quote(&write).context("the settings' folder cannot be quoted")?;
    Ok(format!(
        "network=$({engine} inspect -f '{{{{.HostConfig.NetworkMode}}}}' {container}) || exit 3; \
         if [ \"$network\" != host ]; then echo {OWN_NETWORK}$network; exit 3; fi; \
         {engine} exec -i {container} sh -c {inside} && "
    ))
}

impl std::fmt::Display for Lasting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#}", self.0)
    }
}

impl std::error::Error for Lasting {}

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
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn container_names_and_engines_hold_nothing_a_shell_reads() {
        for good in ["agents", "dev_box.1", "a-b"] {
            assert!(container_name(good), "{good}");
        }
        for bad in [
            "",
            "-x",
            "a b",
            "a;rm -rf ~",
            "$(id)",
            "a/b",
            &"a".repeat(129),
        ] {
            assert!(!container_name(bad), "{bad}");
        }
        for good in ["docker", "podman", "/usr/local/bin/nerdctl"] {
            assert!(engine_name(good), "{good}");
        }
        for bad in ["", "-H", "docker --host x", "a;b", "`id`"] {
            assert!(!engine_name(bad), "{bad}");
        }
    }

    #[test]
    fn the_default_name_is_the_host_as_a_token_takes_it() {
        assert_eq!(default_name("dev@build-box.local"), "ssh:build-box.local");
        assert_eq!(default_name("[::1]"), "ssh:___1_");
        assert!(check_name(&default_name(&"h".repeat(200))).is_ok());
    }
}
