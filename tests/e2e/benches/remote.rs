//! An agent's `ask` → its question painted in the real window's alert bar
//! (median and p95 of 20 each, timed in the page by a MutationObserver
//! against the same wall clock the harness reads), by the way the agent
//! reaches Switchboard:
//! - locally over stdio (`switchboard mcp`, the usual local agent);
//! - locally over HTTP (`switchboard mcp --http`, with a token);
//! - from "another machine": through `switchboard connect` and a real
//!   `sshd` on loopback, so the request crosses `ssh -R` both ways.
//!
//! Each `ask` is a stateless (2026-07-28) `tools/call` from a client that
//! takes tasks, so the call returns at once and the question waits in the
//! window; each is answered before the next.

#![allow(clippy::disallowed_methods)] // Test and build code reads the files it made.
use std::{
    io::{BufRead, BufReader, Write},
    path::Path,
    process::{Child, Command, Stdio},
};

use anyhow::{Context, Result, bail, ensure};
use serde_json::{Value, json};
use switchboard_e2e::{
    Binaries, Display, Driver, Session,
    measure::{ALERT_OBSERVER, percentile, recorded_at, wall_clock_ms},
};
use switchboard_model::blocking::Reply;
use switchboard_remote_test::{
    Sshd, destination, follow, free_port, post_stateless, start_http, stateless_call, wait_for,
};
use switchboard_store::{Workspace, clock, deliveries, feedback};

const ROUNDS: usize = 20;

fn main() -> Result<()> {
    let binaries = Binaries::locate()?;
    let display = Display::start()?;
    let driver = Driver::start(&display)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let [stdio, http, tunnel] = runtime.block_on(asks(&driver, &binaries))?;

    println!();
    println!("| `ask` → question painted in the window's alert bar | n | median | p95 |");
    println!("|---|---|---|---|");
    let row = |what: &str, samples: &[f64]| {
        println!(
            "| {what} | {} | {:.1} ms | {:.1} ms |",
            samples.len(),
            percentile(samples, 50.0),
            percentile(samples, 95.0)
        );
    };
    row("local agent, stdio (`switchboard mcp`)", &stdio);
    row("local agent, HTTP (`switchboard mcp --http`)", &http);
    row(
        "agent on another machine, through `switchboard connect` (ssh -R)",
        &tunnel,
    );
    Ok(())
}

/// A child killed when the bench is done with it.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The three ways, one after the other, in one window.
async fn asks(driver: &Driver, binaries: &Binaries) -> Result<[Vec<f64>; 3]> {
    let dir = tempfile::tempdir()?;
    let root = dir.path().join("project");
    std::fs::create_dir_all(&root)?;
    let root = root.canonicalize()?;
    let config = dir.path().join("config");
    let workspace = Workspace::open(&root)?;
    let session = Session::open(driver, binaries, &root).await?;
    session.find("#inbox-empty").await?;
    session.client.execute(ALERT_OBSERVER, vec![]).await?;

    // Locally over stdio.
    let mut stdio = Running(
        Command::new(&binaries.cli)
            .arg("-C")
            .arg(&root)
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?,
    );
    let mut input = stdio.0.stdin.take().context("the server's stdin")?;
    let mut output = BufReader::new(stdio.0.stdout.take().context("the server's stdout")?);
    let mut local = Vec::new();
    for round in 0..ROUNDS {
        let title = format!("Over stdio, round {round}?");
        let started = wall_clock_ms();
        writeln!(input, "{}", ask(&title))?;
        input.flush()?;
        let mut line = String::new();
        output.read_line(&mut line)?;
        ensure!(line.contains("\"task\""), "not a task: {line}");
        local.push(painted(&session, &workspace, &title, started).await?);
    }
    drop(stdio);

    // Locally over HTTP.
    let token = token(binaries, &config, "bench-local")?;
    let (served, address) = start_http(
        Command::new(&binaries.cli)
            .arg("-C")
            .arg(&root)
            .args(["mcp", "--http"])
            .env("SWITCHBOARD_CONFIG_DIR", &config)
            .stderr(Stdio::null()),
    );
    let served = Running(served);
    let mut http = Vec::new();
    for round in 0..ROUNDS {
        let title = format!("Over HTTP, round {round}?");
        let started = wall_clock_ms();
        post_ask(&address, &token, &title)?;
        http.push(painted(&session, &workspace, &title, started).await?);
    }
    drop(served);

    // From another machine, through the tunnel.
    let sshd_dir = tempfile::tempdir()?;
    let sshd = Sshd::start(sshd_dir.path(), "");
    let remote_port = free_port();
    let remote_dir = dir.path().join("far-side");
    let mut connect = Command::new(&binaries.cli);
    connect
        .arg("-C")
        .arg(&root)
        .args(["connect", &destination(), "--remote-port"])
        .arg(remote_port.to_string())
        .arg("--remote-dir")
        .arg(&remote_dir);
    for option in sshd.ssh_options() {
        connect.args(["-o", &option]);
    }
    let mut connect = Running(
        connect
            .env("SWITCHBOARD_CONFIG_DIR", &config)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()?,
    );
    let lines = follow(connect.0.stderr.take().context("connect's stderr")?);
    wait_for(&lines, "connected (ssh pid", "the tunnel");
    let settings = std::fs::read_to_string(remote_dir.join("connect.env"))?;
    let far_token = settings
        .lines()
        .find_map(|line| line.strip_prefix("SWITCHBOARD_TOKEN="))
        .context("the far side's token")?
        .to_owned();
    let far_address = format!("127.0.0.1:{remote_port}");
    let mut tunnel = Vec::new();
    for round in 0..ROUNDS {
        let title = format!("Through the tunnel, round {round}?");
        let started = wall_clock_ms();
        post_ask(&far_address, &far_token, &title)?;
        tunnel.push(painted(&session, &workspace, &title, started).await?);
    }
    drop(connect);
    drop(sshd);
    session.close().await?;
    Ok([local, http, tunnel])
}

/// A stateless `ask` of a client that takes tasks.
fn ask(title: &str) -> Value {
    stateless_call(
        "bench-agent",
        "ask",
        json!({"title": title, "content": "Go on?", "schema": {"type": "confirm"}}),
        true,
    )
}

/// POSTs an `ask` titled `title` to `address` with `token`; it returns at
/// once as a task.
fn post_ask(address: &str, token: &str, title: &str) -> Result<()> {
    let answer = post_stateless(address, token, &ask(title));
    ensure!(answer["result"]["resultType"] == "task", "{answer}");
    Ok(())
}

/// A token named `name` for the servers reading `config`.
fn token(binaries: &Binaries, config: &Path, name: &str) -> Result<String> {
    let made = Command::new(&binaries.cli)
        .args(["mcp", "token", "--name", name])
        .env("SWITCHBOARD_CONFIG_DIR", config)
        .output()?;
    ensure!(made.status.success(), "mcp token failed");
    let printed = String::from_utf8(made.stdout)?;
    match printed
        .split_whitespace()
        .find(|word| word.starts_with("sbt_"))
    {
        Some(token) => Ok(token.to_owned()),
        None => bail!("no token in {printed:?}"),
    }
}

/// Ms from `started` to the question `title` in the alert bar; then the
/// question is answered, so the bar holds one question at a time.
async fn painted(
    session: &Session,
    workspace: &Workspace,
    title: &str,
    started: f64,
) -> Result<f64> {
    let seen = recorded_at(session, "__asked", title).await?;
    let question = deliveries::list(workspace)?
        .deliveries
        .into_iter()
        .find(|delivery| delivery.title == title)
        .context("the question is stored")?;
    feedback::reply(
        workspace,
        &question.id,
        Reply::Answer {
            answer: json!({"value": true}),
        },
        clock::now(),
    )?;
    Ok((seen - started).max(0.0))
}
