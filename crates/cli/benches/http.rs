//! `switchboard mcp` over Streamable HTTP, measured against the real
//! binary and printed as a table (run by `make bench`):
//! - one tool call (`list_deliveries`) over HTTP (a connection per call,
//!   the stateless revision, a bearer token) beside the same call over
//!   stdio through rmcp's client, in the same run;
//! - 100 agents at once, each asking a question as an MCP task and polling
//!   `tasks/get` every 100 ms: its p99, and the server's memory.

#![allow(clippy::unwrap_used)] // A benchmark: failing loudly is right.
#![allow(clippy::disallowed_methods)] // Tests read the files they made.

#[path = "../../store/benches/support/table.rs"]
mod table;

use std::{
    path::Path,
    process::Command,
    sync::Arc,
    time::{Duration, Instant},
};

use rmcp::{ServiceExt, model::CallToolRequestParams, transport::TokioChildProcess};
use serde_json::{Value, json};
use switchboard_remote_test::{post_stateless, start_http, stateless};
use table::percentile;

const CALLS: usize = 200;
const AGENTS: usize = 100;
const POLLS: usize = 20;

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// A stateless request of the bench's client.
fn request(id: u64, method: &str, params: Value, tasks: bool) -> Value {
    stateless("bench", id, method, params, tasks)
}

fn token(config: &Path) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["mcp", "token", "--name", "bench"])
        .env("SWITCHBOARD_CONFIG_DIR", config)
        .output()
        .unwrap();
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

/// The resident memory of process `pid`, in MiB.
fn rss_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: f64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
        .unwrap_or(0.0);
    kib / 1024.0
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let workspace = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    for n in 0..10 {
        let delivered = Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .arg("-C")
            .arg(workspace.path())
            .args([
                "deliver",
                "--title",
                &format!("result {n}"),
                "--content",
                "body",
            ])
            .output()
            .unwrap();
        assert!(delivered.status.success());
    }

    // stdio, through rmcp's client.
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"));
    command.arg("-C").arg(workspace.path()).arg("mcp");
    let client = ().serve(TokioChildProcess::new(command).unwrap()).await.unwrap();
    let mut stdio = Vec::new();
    for _ in 0..CALLS {
        let started = Instant::now();
        let result = client
            .call_tool(CallToolRequestParams::new("list_deliveries"))
            .await
            .unwrap();
        stdio.push(ms(started.elapsed()));
        assert_ne!(result.is_error, Some(true));
    }
    client.cancel().await.unwrap();

    // HTTP, a connection per call.
    let bearer = token(config.path());
    let (mut server, address) = start_http(
        Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .arg("-C")
            .arg(workspace.path())
            .args(["mcp", "--http"])
            .env("SWITCHBOARD_CONFIG_DIR", config.path()),
    );
    let mut http = Vec::new();
    for n in 0..CALLS {
        let body = request(
            n as u64,
            "tools/call",
            json!({"name": "list_deliveries", "arguments": {}}),
            false,
        );
        let started = Instant::now();
        let answer = post_stateless(&address, &bearer, &body);
        http.push(ms(started.elapsed()));
        assert_eq!(answer["result"]["isError"], false, "{answer}");
    }

    // 100 agents, each asking as a task and polling it.
    let rss_before = rss_mib(server.id());
    let shared = Arc::new((address.clone(), bearer.clone()));
    let agents: Vec<_> = (0..AGENTS)
        .map(|agent| {
            let shared = Arc::clone(&shared);
            std::thread::spawn(move || {
                let (address, bearer) = (&shared.0, &shared.1);
                let ask = request(
                    1,
                    "tools/call",
                    json!({"name": "ask", "arguments": {
                        "title": format!("agent {agent} asks"), "content": "Go on?",
                        "schema": {"type": "confirm"},
                    }}),
                    true,
                );
                let created = post_stateless(address, bearer, &ask);
                let task = created["result"]["taskId"].as_str().unwrap().to_owned();
                let mut polls = Vec::new();
                for poll in 0..POLLS {
                    let body = request(2 + poll as u64, "tasks/get", json!({"taskId": task}), true);
                    let started = Instant::now();
                    let answer = post_stateless(address, bearer, &body);
                    polls.push(ms(started.elapsed()));
                    assert_eq!(answer["result"]["status"], "working", "{answer}");
                    std::thread::sleep(Duration::from_millis(100));
                }
                polls
            })
        })
        .collect();
    let mut polls = Vec::new();
    let mut peak = rss_before;
    for agent in agents {
        polls.extend(agent.join().unwrap());
        peak = peak.max(rss_mib(server.id()));
    }
    let _ = server.kill();
    let _ = server.wait();

    println!();
    println!("| switchboard mcp over HTTP | n | p50 | p99 | goal |");
    println!("|---|---|---|---|---|");
    let row = |what: &str, samples: &[f64], goal: &str| {
        println!(
            "| {what} | {} | {:.1} ms | {:.1} ms | {goal} |",
            samples.len(),
            percentile(samples, 50.0),
            percentile(samples, 99.0)
        );
    };
    row(
        "tool call (list_deliveries), stdio through rmcp's client",
        &stdio,
        "–",
    );
    row(
        "the same call over HTTP (stateless, a connection per call, bearer token)",
        &http,
        "–",
    );
    row(
        &format!("tasks/get while {AGENTS} agents each ask as a task and poll every 100 ms"),
        &polls,
        "p99 ≤ 20 ms",
    );
    println!(
        "| the HTTP server's memory: before the agents, and the most seen while they polled | | {rss_before:.1} MiB | {peak:.1} MiB | – |"
    );
}
