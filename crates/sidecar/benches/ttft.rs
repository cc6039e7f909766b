//! Time to first token through the sidecar beside straight to the model,
//! printed as tables (run by `make bench`), runs alternating so drift hits
//! both alike:
//! - the OpenAI-compatible backend: the same scripted server on loopback,
//!   asked directly and through the real sidecar binary over stdio, doing
//!   everything a turn does before the model answers (open the workspace,
//!   archive the chat, gather memory, assemble the prompt);
//! - the `claude-code` backend: the real Claude Code (as the setup script
//!   installs it) on the scripted Messages API stand-in, run directly as
//!   the sidecar runs it (`claude -p`, streamed JSON, no tools) beside a
//!   turn through the sidecar (which also serves the turn's tools over
//!   MCP and writes the agent's settings files);
//! - the `codex` backend the same way: the real Codex on the scripted
//!   Responses API stand-in, `codex exec --json` with the turn's flags
//!   beside a turn through the sidecar.

#![allow(clippy::unwrap_used)] // A benchmark: failing loudly is right.
#![allow(clippy::disallowed_methods)] // Tests read the files they made.

use std::{
    io::{BufRead, BufReader, Write},
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use switchboard_model::sidecar::{ResponseBody, SidecarResponse};
use switchboard_model_server::{Reply, ScriptedServer, text_chunk};
use switchboard_sidecar::model_client::{ApiMessage, ModelConfig, stream_chat};

const WARM_UP: usize = 10;
const ROUNDS: usize = 200;

fn main() {
    let chunks = [
        text_chunk("First"),
        text_chunk(" token."),
        "[DONE]".to_owned(),
    ];
    let chunks: Vec<&str> = chunks.iter().map(String::as_str).collect();
    let script = (0..2 * (WARM_UP + ROUNDS))
        .map(|_| Reply::sse(&chunks))
        .collect();
    let server = ScriptedServer::start(script);
    let workspace = tempfile::tempdir().unwrap();
    let config_dir = tempfile::tempdir().unwrap();
    let config = ModelConfig {
        base_url: server.url(),
        model: "test-model".into(),
        api_key: None,
        first_token_timeout: Duration::from_secs(10),
        idle_timeout: Duration::from_secs(10),
        max_output_bytes: switchboard_sidecar::model_client::DEFAULT_MAX_OUTPUT_BYTES,
        max_tokens: None,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();

    let mut sidecar = Command::new(env!("CARGO_BIN_EXE_switchboard-sidecar"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .env("SWITCHBOARD_CONFIG_DIR", config_dir.path())
        .env("SWITCHBOARD_MODEL_URL", server.url())
        .env("SWITCHBOARD_MODEL", "test-model")
        .spawn()
        .unwrap();
    let mut stdin = sidecar.stdin.take().unwrap();
    let mut stdout = BufReader::new(sidecar.stdout.take().unwrap());

    let mut direct = Vec::new();
    let mut through = Vec::new();
    for round in 0..WARM_UP + ROUNDS {
        let message = format!("How do we cut build time, attempt {round}?");

        // Straight to the server, as a client in the app would.
        let started = Instant::now();
        let mut first = None;
        let messages = [ApiMessage {
            role: "user".into(),
            content: message.clone(),
            tool_call_id: None,
            tool_calls: vec![],
        }];
        runtime
            .block_on(stream_chat(
                &config,
                &messages,
                &[],
                |_| {
                    first.get_or_insert_with(|| started.elapsed());
                },
                std::future::pending::<()>(),
            ))
            .unwrap();

        let first_through = through_sidecar(
            &mut stdin,
            &mut stdout,
            round as u64 + 1,
            workspace.path(),
            &message,
        );
        if round >= WARM_UP {
            direct.push(first.unwrap().as_secs_f64() * 1000.0);
            through.push(first_through.as_secs_f64() * 1000.0);
        }
    }
    let _ = writeln!(stdin, r#"{{"id":0,"type":"shutdown"}}"#);
    let _ = sidecar.wait();

    println!();
    println!("| time to first token, scripted server on loopback | n | p50 | p95 | p99 | goal |");
    println!("|---|---|---|---|---|---|");
    for (name, samples) in [
        ("straight to the server", &direct),
        ("through the sidecar", &through),
    ] {
        println!(
            "| {name} | {ROUNDS} | {:.2} ms | {:.2} ms | {:.2} ms | – |",
            percentile(samples, 50.0),
            percentile(samples, 95.0),
            percentile(samples, 99.0)
        );
    }
    let added = |p| percentile(&through, p) - percentile(&direct, p);
    println!(
        "| added by the sidecar | {ROUNDS} | {:.2} ms | {:.2} ms | {:.2} ms | ≤ 5 ms |",
        added(50.0),
        added(95.0),
        added(99.0)
    );
    claude_code();
    codex();
}

/// Rounds of an agent backend (each starts the agent).
const AGENT_ROUNDS: usize = 30;

/// A project folder and a Switchboard configuration folder whose settings
/// are `settings`.
fn folders(settings: serde_json::Value) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("project");
    std::fs::create_dir_all(&workspace).unwrap();
    let workspace = workspace.canonicalize().unwrap();
    let config = dir.path().join("switchboard-config");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("settings.json"), settings.to_string()).unwrap();
    (dir, workspace, config)
}

/// Claude Code straight, and through the sidecar.
fn claude_code() {
    use switchboard_model_server::{
        anthropic::{MessagesServer, Turn},
        claude_code::{ClaudeCode, binary},
    };
    let (dir, workspace, config) =
        folders(serde_json::json!({"modelBackend": "claude-code", "claudeCodePath": binary()}));
    let claude = ClaudeCode::configure(&dir.path().join("claude-config"), &workspace);
    let model = MessagesServer::start(
        (0..2 * (AGENT_ROUNDS + 2))
            .map(|_| Turn::text("First token."))
            .collect(),
    );
    let environment = claude.environment(&model.url());
    agent_rows(
        Agent {
            table: "Claude Code on a scripted Messages API",
            direct: "`claude -p` run directly",
            through: "through the sidecar (`claude-code` backend)",
            first: "text_delta",
        },
        &workspace,
        &config,
        &environment,
        || {
            let mut command = Command::new(binary());
            command.args(switchboard_sidecar::agent::CLAUDE_ARGS);
            command
        },
    );
}

/// Codex straight, and through the sidecar.
fn codex() {
    use switchboard_model_server::{
        codex::{Codex, binary},
        responses::{ResponsesServer, Turn},
    };
    let (dir, workspace, config) =
        folders(serde_json::json!({"modelBackend": "codex", "codexPath": binary()}));
    let model = ResponsesServer::start(
        (0..2 * (AGENT_ROUNDS + 2))
            .map(|_| Turn::text("First token."))
            .collect(),
    );
    let codex = Codex::configure(&dir.path().join("codex-home"), &workspace, &model);
    agent_rows(
        Agent {
            table: "Codex on a scripted Responses API",
            direct: "`codex exec --json` run directly",
            through: "through the sidecar (`codex` backend)",
            first: "agent_message",
        },
        &workspace,
        &config,
        &codex.environment(),
        || {
            let mut command = Command::new(binary());
            command
                .args(switchboard_sidecar::agent::CODEX_ARGS)
                .arg("-");
            command
        },
    );
}

/// What an agent's table says.
struct Agent {
    /// The table's subject.
    table: &'static str,
    /// Its row run directly.
    direct: &'static str,
    /// Its row through the sidecar.
    through: &'static str,
    /// What the agent's first line of answer contains.
    first: &'static str,
}

/// Rounds alternating the agent run directly (`direct()`, with the turn's
/// own flags but no tool server nor prompt files: what the agent costs by
/// itself) and a turn through the sidecar on that backend, both in
/// `environment`; printed as a table.
fn agent_rows(
    agent: Agent,
    workspace: &Path,
    config: &Path,
    environment: &[(&'static str, String)],
    direct: impl Fn() -> Command,
) {
    let mut sidecar = Command::new(env!("CARGO_BIN_EXE_switchboard-sidecar"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .env("SWITCHBOARD_CONFIG_DIR", config)
        .envs(environment.iter().map(|(key, value)| (*key, value)))
        .spawn()
        .unwrap();
    let mut stdin = sidecar.stdin.take().unwrap();
    let mut stdout = BufReader::new(sidecar.stdout.take().unwrap());

    let mut straight = Vec::new();
    let mut through = Vec::new();
    for round in 0..2 + AGENT_ROUNDS {
        let message = format!("How do we cut build time, attempt {round}?");
        // Straight: the agent as the sidecar starts it, first text line.
        let started = Instant::now();
        let mut child = direct()
            .current_dir(workspace)
            .envs(environment.iter().map(|(key, value)| (*key, value)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(message.as_bytes())
            .unwrap();
        let mut first = None;
        for line in BufReader::new(child.stdout.take().unwrap())
            .lines()
            .map_while(Result::ok)
        {
            if first.is_none() && line.contains(agent.first) {
                first = Some(started.elapsed());
            }
        }
        child.wait().unwrap();

        let first_through = through_sidecar(
            &mut stdin,
            &mut stdout,
            round as u64 + 1,
            workspace,
            &message,
        );
        if round >= 2 {
            straight.push(first.unwrap().as_secs_f64() * 1000.0);
            through.push(first_through.as_secs_f64() * 1000.0);
        }
    }
    let _ = writeln!(stdin, r#"{{"id":0,"type":"shutdown"}}"#);
    let _ = sidecar.wait();

    println!();
    println!(
        "| time to first token, {} | n | p50 | p95 | p99 | goal |",
        agent.table
    );
    println!("|---|---|---|---|---|---|");
    for (name, samples) in [(agent.direct, &straight), (agent.through, &through)] {
        println!(
            "| {name} | {AGENT_ROUNDS} | {:.1} ms | {:.1} ms | {:.1} ms | – |",
            percentile(samples, 50.0),
            percentile(samples, 95.0),
            percentile(samples, 99.0)
        );
    }
    let added = |p| percentile(&through, p) - percentile(&straight, p);
    println!(
        "| added by the sidecar | {AGENT_ROUNDS} | {:.1} ms | {:.1} ms | {:.1} ms | p99 ≤ 50 ms |",
        added(50.0),
        added(95.0),
        added(99.0)
    );
}

/// Through the sidecar: chat request `id` (a new chat in `workspace`,
/// saying `message`) in, the time to its first delta line out; the turn is
/// read to its end.
fn through_sidecar(
    stdin: &mut impl Write,
    stdout: &mut impl BufRead,
    id: u64,
    workspace: &std::path::Path,
    message: &str,
) -> Duration {
    let request = serde_json::json!({"id": id, "type": "chat",
        "workspace": workspace, "mode": "Planning", "message": message,
        "new_session": true});
    let started = Instant::now();
    writeln!(stdin, "{request}").unwrap();
    stdin.flush().unwrap();
    let mut first = None;
    loop {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        let response: SidecarResponse = serde_json::from_str(&line).unwrap();
        match response.body {
            ResponseBody::Delta { .. } => {
                first.get_or_insert_with(|| started.elapsed());
            }
            ResponseBody::ChatDone { .. } => return first.unwrap(),
            other => panic!("unexpected {other:?}"),
        }
    }
}

/// The `p`th percentile (nearest rank) of `samples`.
fn percentile(samples: &[f64], p: f64) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}
