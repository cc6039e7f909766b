//! `switchboard mcp --http`: the real server process on loopback, spoken
//! to over raw HTTP/1.1 and raw TCP, the way any client and any attacker
//! would: only a valid bearer token gets through, a foreign Host or
//! browser Origin is refused before the token is looked at, a 10 MB body
//! is refused, a revoked token stops working at once, and both protocol
//! revisions are answered; `scopes`: a token calls only the tools of its
//! scopes, sees only its own tasks and asks as itself; `bounds`: sockets
//! that send nothing, one token's many connections and running out of
//! file descriptors keep no client out and never end the server.

mod bounds;
mod scopes;

use std::{
    path::Path,
    process::{Child, Command, Stdio},
};

use serde_json::{Value, json};
use switchboard_remote_test::{message, post_to};

/// A running `switchboard mcp --http`, killed on drop.
pub struct Served {
    child: Child,
    /// `127.0.0.1:PORT`.
    pub address: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn switchboard_in(config: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_switchboard"));
    command.env("SWITCHBOARD_CONFIG_DIR", config);
    command
}

pub fn serve(workspace: &Path, config: &Path) -> Served {
    serve_with(workspace, config, &[])
}

/// [`serve`] with `env` set for the server.
fn serve_with(workspace: &Path, config: &Path, env: &[(&str, &Path)]) -> Served {
    let mut command = switchboard_in(config);
    for (key, value) in env {
        command.env(key, value);
    }
    let (child, address) = switchboard_remote_test::start_http(
        command
            .arg("-C")
            .arg(workspace)
            .args(["mcp", "--http"])
            .stderr(Stdio::inherit()),
    );
    Served { child, address }
}

pub fn token(config: &Path, name: &str) -> String {
    token_allowing(config, name, &[])
}

/// A token naming `name` that is also granted `allow` (scopes).
pub fn token_allowing(config: &Path, name: &str, allow: &[&str]) -> String {
    let mut command = switchboard_in(config);
    command.args(["mcp", "token", "--name", name]);
    for scope in allow {
        command.args(["--allow", scope]);
    }
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

/// POSTs `body` to `/mcp` with `headers` (Host is the served address
/// unless one is given); returns the status and the body.
fn post(served: &Served, headers: &[(&str, &str)], body: &[u8]) -> (u16, String) {
    post_to(&served.address, headers, body)
}

fn initialize() -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw-http", "version": "1"},
    }})
    .to_string()
    .into_bytes()
}

#[test]
fn only_a_valid_token_from_a_loopback_page_gets_through() {
    let workspace = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let served = serve(workspace.path(), config.path());
    let valid = token(config.path(), "devbox");
    let authorised = format!("Bearer {valid}");

    let (status, body) = post(&served, &[], &initialize());
    assert_eq!(status, 401, "{body}");
    let (status, _) = post(
        &served,
        &[("Authorization", "Bearer sbt_guess")],
        &initialize(),
    );
    assert_eq!(status, 401);
    // DNS rebinding: a page of another site reaching the loopback port.
    let port = served.address.rsplit(':').next().unwrap();
    let foreign_host = format!("evil.example:{port}");
    let (status, _) = post(
        &served,
        &[("Host", &foreign_host), ("Authorization", &authorised)],
        &initialize(),
    );
    assert_eq!(status, 403);
    let (status, _) = post(
        &served,
        &[
            ("Origin", "http://evil.example"),
            ("Authorization", &authorised),
        ],
        &initialize(),
    );
    assert_eq!(status, 403);
    let (status, _) = post(
        &served,
        &[("Origin", "null"), ("Authorization", &authorised)],
        &initialize(),
    );
    assert_eq!(status, 403);
    // A 10 MB body is refused, not read into memory.
    let big = vec![b'a'; 10 * 1024 * 1024];
    let (status, _) = post(&served, &[("Authorization", &authorised)], &big);
    assert_eq!(status, 413);

    // The handshake, from a loopback page.
    let (status, body) = post(
        &served,
        &[
            ("Origin", "http://localhost:5173"),
            ("Authorization", &authorised),
        ],
        &initialize(),
    );
    assert_eq!(status, 200, "{body}");
    let answer = message(&body);
    assert_eq!(
        answer["result"]["serverInfo"]["name"], "switchboard",
        "{answer}"
    );
    assert_eq!(answer["result"]["protocolVersion"], "2025-11-25");

    // Revoked, the token stops working at once.
    let revoked = switchboard_in(config.path())
        .args(["mcp", "token", "--revoke", "devbox"])
        .output()
        .unwrap();
    assert!(revoked.status.success());
    let (status, _) = post(&served, &[("Authorization", &authorised)], &initialize());
    assert_eq!(status, 401);
    // The token file never held the token itself.
    let stored = std::fs::read_to_string(config.path().join("mcp-tokens.json")).unwrap();
    assert!(!stored.contains(&valid[4..]));
}

#[test]
fn the_stateless_revision_lists_and_calls_tools_without_a_handshake() {
    let workspace = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let served = serve(workspace.path(), config.path());
    let authorised = format!("Bearer {}", token(config.path(), "container:web"));
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw-http", "version": "1"},
    });
    let stateless = [
        ("Authorization", authorised.as_str()),
        ("Mcp-Protocol-Version", "2026-07-28"),
    ];
    let list =
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta}});
    let mut headers = stateless.to_vec();
    headers.push(("Mcp-Method", "tools/list"));
    let (status, body) = post(&served, &headers, list.to_string().as_bytes());
    assert_eq!(status, 200, "{body}");
    let tools = message(&body)["result"]["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(tools.iter().any(|tool| tool["name"] == "deliver"), "{body}");

    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "_meta": meta, "name": "deliver",
        "arguments": {"title": "From a container", "content": "Delivered over HTTP."},
    }});
    let mut headers = stateless.to_vec();
    headers.push(("Mcp-Method", "tools/call"));
    headers.push(("Mcp-Name", "deliver"));
    let (status, body) = post(&served, &headers, call.to_string().as_bytes());
    assert_eq!(status, 200, "{body}");
    let result = message(&body);
    assert_eq!(result["result"]["isError"], false, "{result}");
    let stored = crate::stored(workspace.path());
    assert_eq!(stored[0]["title"], "From a container");
    // Marked with the agent its token names, for the window to show.
    assert_eq!(stored[0]["sent_by"], "container:web");
    // And the agent is in the Agents view by that name, once however
    // many requests it makes.
    let (status, _) = post(&served, &headers, call.to_string().as_bytes());
    assert_eq!(status, 200);
    let agents: Value = serde_json::from_str(&crate::ok_stdout(&crate::switchboard(
        workspace.path(),
        &["agents", "--json"],
    )))
    .unwrap();
    let agents = agents.as_array().unwrap();
    assert_eq!(agents.len(), 1, "{agents:?}");
    assert_eq!(
        agents[0]["record"]["name"], "raw-http (container:web)",
        "{agents:?}"
    );
    assert_eq!(agents[0]["shown"], "working", "{agents:?}");
}

#[test]
fn a_program_an_agent_starts_over_http_is_marked_with_its_name() {
    let workspace = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let host = config.path().join("host");
    let served = serve_with(
        workspace.path(),
        config.path(),
        &[("SWITCHBOARD_RUNTIME_DIR", &host)],
    );
    let call = switchboard_remote_test::stateless_call(
        "far-agent",
        "session_start",
        json!({"program": "sh", "name": "remote-shell"}),
        false,
    );
    let started = switchboard_remote_test::post_stateless(
        &served.address,
        &token_allowing(config.path(), "ssh:buildbox", &["programs"]),
        &call,
    );
    assert_eq!(
        started["result"]["structuredContent"]["started_by"], "ssh:buildbox",
        "{started}"
    );
    // The host keeps the mark: every listing shows it (the window's too).
    let listed = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .arg("-C")
        .arg(workspace.path())
        .args(["session", "list", "--json"])
        .env("SWITCHBOARD_RUNTIME_DIR", &host)
        .output()
        .unwrap();
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(
        listed["sessions"][0]["started_by"], "ssh:buildbox",
        "{listed}"
    );
    let killed = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .arg("-C")
        .arg(workspace.path())
        .args(["session", "kill", "remote-shell"])
        .env("SWITCHBOARD_RUNTIME_DIR", &host)
        .output()
        .unwrap();
    assert!(killed.status.success());
}

#[test]
fn only_loopback_addresses_are_served() {
    let workspace = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let output = switchboard_in(config.path())
        .arg("-C")
        .arg(workspace.path())
        .args(["mcp", "--http", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("error[INVALID_REQUEST]") && said.contains("loopback"),
        "{said}"
    );
}

/// A stateless (2026-07-28) request of `method` with `params`, from a
/// client that declares the tasks extension.
fn stateless_call(
    served: &Served,
    bearer: &str,
    id: u64,
    method: &str,
    name: Option<&str>,
    mut params: Value,
) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "tasks-client", "version": "1"},
    });
    let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let authorised = format!("Bearer {bearer}");
    let mut headers = vec![
        ("Authorization", authorised.as_str()),
        ("Mcp-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", method),
    ];
    if let Some(name) = name {
        headers.push(("Mcp-Name", name));
    }
    let (status, body) = post(served, &headers, request.to_string().as_bytes());
    assert_eq!(status, 200, "{body}");
    message(&body)
}

#[test]
fn an_ask_task_outlives_its_server_and_is_read_or_cancelled_from_another() {
    let workspace = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let bearer = token(config.path(), "remote");
    let ask = |served: &Served, id: u64, title: &str| {
        stateless_call(
            served,
            &bearer,
            id,
            "tools/call",
            Some("ask"),
            json!({
                "name": "ask",
                "arguments": {"title": title, "content": "Which target?", "schema": {"type": "select", "options": ["staging", "production"]}},
            }),
        )
    };
    let first = serve(workspace.path(), config.path());
    let created = ask(&first, 1, "Deploy where?");
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    assert_eq!(created["result"]["status"], "working");
    let task = created["result"]["taskId"].as_str().unwrap().to_owned();
    // The server goes away; the question stays in the inbox.
    drop(first);
    let question = crate::stored(workspace.path())[0].clone();
    assert_eq!(question["status"], "awaiting_feedback");

    let second = serve(workspace.path(), config.path());
    // The developer opens it in the window (the window's own store call).
    let opened = switchboard_store::deliveries::mark_opened(
        &switchboard_store::Workspace::open(workspace.path()).unwrap(),
        question["id"].as_str().unwrap(),
        switchboard_store::clock::now(),
    )
    .unwrap();
    assert!(opened);
    let polled = stateless_call(
        &second,
        &bearer,
        2,
        "tasks/get",
        Some(&task),
        json!({"taskId": task}),
    );
    assert_eq!(polled["result"]["status"], "working", "{polled}");
    assert_eq!(
        polled["result"]["statusMessage"],
        "opened in the window; waiting for the developer's answer"
    );
    let id = question["id"].as_str().unwrap();
    crate::ok_stdout(&crate::switchboard(
        workspace.path(),
        &["answer", id, "--value", "production"],
    ));
    let done = stateless_call(
        &second,
        &bearer,
        3,
        "tasks/get",
        Some(&task),
        json!({"taskId": task}),
    );
    assert_eq!(done["result"]["status"], "completed", "{done}");
    assert_eq!(done["result"]["statusMessage"], "answered");
    let answer = &done["result"]["result"]["structuredContent"];
    assert_eq!(answer["status"], "responded", "{done}");
    assert_eq!(answer["response"], json!({"value": "production"}));

    // tasks/cancel withdraws a question; an answer given later is kept.
    let other = ask(&second, 4, "Roll back?");
    let other_task = other["result"]["taskId"].as_str().unwrap().to_owned();
    let cancelled = stateless_call(
        &second,
        &bearer,
        5,
        "tasks/cancel",
        Some(&other_task),
        json!({"taskId": other_task}),
    );
    assert!(cancelled.get("error").is_none(), "{cancelled}");
    let state = stateless_call(
        &second,
        &bearer,
        6,
        "tasks/get",
        Some(&other_task),
        json!({"taskId": other_task}),
    );
    assert_eq!(state["result"]["status"], "cancelled", "{state}");
    let withdrawn = crate::stored(workspace.path())
        .into_iter()
        .find(|delivery| delivery["title"] == "Roll back?")
        .unwrap();
    assert!(withdrawn["withdrawn_at"].is_string(), "{withdrawn}");
    let late = withdrawn["id"].as_str().unwrap();
    crate::ok_stdout(&crate::switchboard(
        workspace.path(),
        &["answer", late, "--value", "staging"],
    ));
    let kept = crate::ok_stdout(&crate::switchboard(workspace.path(), &["feedback", late]));
    assert!(kept.contains("staging"), "{kept}");

    let missing = stateless_call(
        &second,
        &bearer,
        7,
        "tasks/get",
        Some("ask-nothing"),
        json!({"taskId": "ask-nothing"}),
    );
    assert!(
        missing["error"]["message"]
            .as_str()
            .is_some_and(|text| text.contains("no task")),
        "{missing}"
    );
}

#[test]
fn claude_code_connects_over_http_with_the_token_from_its_environment() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("project")).unwrap();
    let project = dir.path().join("project").canonicalize().unwrap();
    let config = dir.path().join("switchboard-config");
    let served = serve(&project, &config);
    let bearer = token(&config, "claude");
    // No URL given: the server running for this workspace is found.
    let installed = crate::switchboard(
        &project,
        &["mcp", "install", "claude-code", "--http", "--write"],
    );
    crate::ok_stdout(&installed);
    let written = std::fs::read_to_string(project.join(".mcp.json")).unwrap();
    assert!(
        written.contains(&served.address),
        "the running server's URL: {written}"
    );
    assert!(
        !written.contains(&bearer),
        "no token in the project's files: {written}"
    );
    let claude = switchboard_model_server::claude_code::ClaudeCode::configure(
        &dir.path().join("claude-config"),
        &project,
    );
    claude.enable_project_servers(&["switchboard"]);
    let bin = Path::new(env!("CARGO_BIN_EXE_switchboard"))
        .parent()
        .unwrap();
    let listed = |token: &str| {
        let output = claude
            .command(&["mcp", "list"], bin)
            .env("SWITCHBOARD_TOKEN", token)
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let connected = listed(&bearer);
    assert!(
        connected.contains("switchboard") && connected.contains("Connected"),
        "{connected}"
    );
    let refused = listed("sbt_wrong");
    assert!(refused.contains("401"), "{refused}");
}

#[test]
fn an_http_entry_without_a_url_needs_a_server_running_for_the_workspace() {
    let workspace = tempfile::tempdir().unwrap();
    let output = crate::switchboard(workspace.path(), &["mcp", "install", "codex", "--http"]);
    assert_eq!(output.status.code(), Some(2));
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("no HTTP server runs for this workspace"),
        "{said}"
    );
    let config = tempfile::tempdir().unwrap();
    let served = serve(workspace.path(), config.path());
    let printed = crate::ok_stdout(&crate::switchboard(
        workspace.path(),
        &["mcp", "install", "codex", "--http"],
    ));
    assert!(
        printed.contains(&format!("url = \"http://{}/mcp\"", served.address)),
        "{printed}"
    );
}
