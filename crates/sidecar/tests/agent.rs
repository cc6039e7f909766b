//! The chat on the `claude-code` backend, through the real Claude Code (the
//! version the setup script installs) whose model is a scripted stand-in
//! for the Anthropic Messages API on loopback: a Planning turn whose model
//! writes `.prompts/plan/idea.md` (written, audited) and `src/main.rs`
//! (refused by the allow-list, audited, the model told why) through the
//! sidecar's own tools, its answer streamed back; a turn stopped midway
//! ends the agent's process; the summary it writes is carried into the
//! next turn; a missing or signed-out Claude Code is a `MODEL` error that
//! says what to do; with no backend set, a signed-in Claude Code is found
//! (and none found is said so).

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use std::{
    io::{BufRead, BufReader, Write},
    path::Path,
    process::{Command, Stdio},
};

use serde_json::json;
use switchboard_model::sidecar::{ResponseBody, SidecarResponse, WriteEvent};
use switchboard_model_server::{
    anthropic::{MessagesServer, Turn},
    claude_code::{ClaudeCode, binary},
};

/// A sidecar on the `claude-code` backend, Claude Code's model `model`.
struct Sidecar {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
}

impl Sidecar {
    /// On the `claude-code` backend, signed in, the real Claude Code.
    fn start(claude: &ClaudeCode, model: &MessagesServer, config: &Path) -> Self {
        Self::launch(claude, model, config, Some("claude-code"), true, &binary())
    }

    /// With `backend` set (`SWITCHBOARD_MODEL_BACKEND`) or to be found,
    /// Claude Code signed in (the test's API key) or not, and `claude` at
    /// `claude_path` (`claudeCodePath`).
    fn launch(
        claude: &ClaudeCode,
        model: &MessagesServer,
        config: &Path,
        backend: Option<&str>,
        signed_in: bool,
        claude_path: &Path,
    ) -> Self {
        std::fs::write(
            config.join("settings.json"),
            json!({"claudeCodePath": claude_path}).to_string(),
        )
        .unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_switchboard-sidecar"));
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .env("SWITCHBOARD_CONFIG_DIR", config)
            .env_remove("SWITCHBOARD_MODEL_URL")
            .env_remove("SWITCHBOARD_MODEL_BACKEND")
            .envs(claude.environment(&model.url()));
        if let Some(backend) = backend {
            command.env("SWITCHBOARD_MODEL_BACKEND", backend);
        }
        if !signed_in {
            command.env_remove("ANTHROPIC_API_KEY");
        }
        let mut child = command.spawn().unwrap();
        Self {
            stdin: child.stdin.take().unwrap(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            child,
        }
    }

    /// Chat turn `id` with `message` in `mode`: its responses up to the
    /// end (done or failed).
    fn chat(
        &mut self,
        id: u64,
        workspace: &Path,
        mode: &str,
        message: &str,
    ) -> Vec<SidecarResponse> {
        self.send(json!({"id": id, "type": "chat", "workspace": workspace,
            "mode": mode, "message": message}));
        self.until(|response| {
            response.id == id
                && matches!(
                    response.body,
                    ResponseBody::ChatDone { .. } | ResponseBody::Error { .. }
                )
        })
    }

    fn send(&mut self, request: serde_json::Value) {
        writeln!(self.stdin, "{request}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Responses up to and including the one `done` picks.
    fn until(&mut self, done: impl Fn(&SidecarResponse) -> bool) -> Vec<SidecarResponse> {
        let mut seen = Vec::new();
        loop {
            let mut line = String::new();
            self.stdout.read_line(&mut line).unwrap();
            assert!(!line.is_empty(), "the sidecar ended; so far: {seen:?}");
            let response: SidecarResponse = serde_json::from_str(&line).unwrap();
            let last = done(&response);
            seen.push(response);
            if last {
                return seen;
            }
        }
    }
}

/// The code and message a turn failed with.
fn failure(turn: &[SidecarResponse]) -> (switchboard_model::ErrorCode, String) {
    match &turn.last().unwrap().body {
        ResponseBody::Error { code, message } => (*code, message.clone()),
        other => panic!("the turn did not fail: {other:?}"),
    }
}

impl Drop for Sidecar {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn setup() -> (tempfile::TempDir, std::path::PathBuf, ClaudeCode) {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("project");
    std::fs::create_dir_all(workspace.join("src")).unwrap();
    std::fs::create_dir_all(dir.path().join("switchboard-config")).unwrap();
    let workspace = workspace.canonicalize().unwrap();
    let claude = ClaudeCode::configure(&dir.path().join("claude-config"), &workspace);
    (dir, workspace, claude)
}

#[test]
fn a_planning_turn_on_claude_code_writes_through_the_allow_list_and_streams_its_answer() {
    let (dir, workspace, claude) = setup();
    let model = MessagesServer::start(vec![
        Turn::tool(
            "mcp__switchboard__write_file",
            json!({"path": ".prompts/plan/idea.md", "content": "# Idea\n"}),
        ),
        Turn::tool(
            "mcp__switchboard__write_file",
            json!({"path": "src/main.rs", "content": "fn main() {}\n"}),
        ),
        Turn::text("The plan is in .prompts/plan/idea.md."),
    ]);
    // Claude Code's own project memory is not Switchboard's prompt.
    std::fs::write(
        workspace.join("CLAUDE.md"),
        "Always answer MARKER-FROM-CLAUDE-MD.",
    )
    .unwrap();
    let mut sidecar = Sidecar::start(&claude, &model, &dir.path().join("switchboard-config"));
    let turn = sidecar.chat(1, &workspace, "Planning", "Plan the feature.");
    let sent = model.loop_requests()[0].to_string();
    assert!(
        !sent.contains("MARKER-FROM-CLAUDE-MD"),
        "CLAUDE.md reached the prompt"
    );
    assert!(sent.contains("Plan the feature."), "the message did");
    let last = &turn.last().unwrap().body;
    let ResponseBody::ChatDone { reply, stopped, .. } = last else {
        panic!("the turn failed: {last:?}");
    };
    assert!(!stopped);
    assert_eq!(reply, "The plan is in .prompts/plan/idea.md.");
    let streamed: String = turn
        .iter()
        .filter_map(|response| match &response.body {
            ResponseBody::Delta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(streamed, *reply, "the answer came as deltas");

    // The allowed write was made, the other refused; both audited.
    assert_eq!(
        std::fs::read_to_string(workspace.join(".prompts/plan/idea.md")).unwrap(),
        "# Idea\n"
    );
    assert!(!workspace.join("src/main.rs").exists());
    let writes: Vec<&WriteEvent> = turn
        .iter()
        .filter_map(|response| match &response.body {
            ResponseBody::Write(event) => Some(event),
            _ => None,
        })
        .collect();
    assert_eq!(writes.len(), 2, "{writes:?}");
    assert!(
        matches!(writes[0], WriteEvent::Applied { .. }),
        "{writes:?}"
    );
    assert!(
        matches!(writes[1], WriteEvent::Refused { .. }),
        "{writes:?}"
    );
    let audit = std::fs::read_to_string(workspace.join(".switchboard/audit/writes.jsonl")).unwrap();
    let decisions: Vec<String> = audit
        .lines()
        .map(|line| {
            serde_json::from_str::<serde_json::Value>(line).unwrap()["decision"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(decisions, ["written", "refused"]);
    // The model was told why the second write was refused.
    let results = model.tool_results();
    let told = results[1]["content"].to_string();
    assert!(told.contains("src/main.rs"), "{told}");
    // It had only the sidecar's tools: none of Claude Code's own.
    let mut offered: Vec<String> = model.loop_requests()[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect();
    offered.sort();
    let mut ours: Vec<String> =
        switchboard_sidecar::tools::definitions(switchboard_model::chat::ChatMode::Planning)
            .iter()
            .map(|tool| {
                format!(
                    "mcp__switchboard__{}",
                    tool["function"]["name"].as_str().unwrap()
                )
            })
            .collect();
    ours.sort();
    assert_eq!(offered, ours);
}

#[test]
fn stop_mid_turn_ends_claude_code_and_the_turn_says_it_was_stopped() {
    let (dir, workspace, claude) = setup();
    let model = MessagesServer::start(vec![Turn::stall("Thinking about it")]);
    let mut sidecar = Sidecar::start(&claude, &model, &dir.path().join("switchboard-config"));
    sidecar.send(json!({"id": 1, "type": "chat", "workspace": workspace,
        "mode": "Planning", "message": "Plan the feature."}));
    // The answer has begun: the model is mid-reply.
    sidecar.until(|response| matches!(response.body, ResponseBody::Delta { .. }));
    sidecar.send(json!({"id": 2, "type": "stop", "chat": 1}));
    let turn = sidecar.until(|response| {
        matches!(
            response.body,
            ResponseBody::ChatDone { .. } | ResponseBody::Error { .. }
        )
    });
    let last = &turn.last().unwrap().body;
    assert!(
        matches!(last, ResponseBody::ChatDone { stopped: true, .. }),
        "{last:?}"
    );
    // Claude Code's process ended: its connection to the model hung up.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while model.hung_up() == 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "Claude Code still talks to its model"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn a_missing_claude_code_is_a_model_error_that_says_what_to_do() {
    let (dir, workspace, claude) = setup();
    let model = MessagesServer::start(vec![]);
    let mut sidecar = Sidecar::launch(
        &claude,
        &model,
        &dir.path().join("switchboard-config"),
        Some("claude-code"),
        true,
        Path::new("/nonexistent/claude"),
    );
    let turn = sidecar.chat(1, &workspace, "Planning", "Plan the feature.");
    let (code, message) = failure(&turn);
    assert_eq!(code, switchboard_model::ErrorCode::Model);
    assert!(
        message.contains("Claude Code is not installed") && message.contains("claudeCodePath"),
        "{message}"
    );
}

#[test]
fn with_no_backend_set_a_signed_in_claude_code_is_the_chats_model_and_says_so() {
    let (dir, workspace, claude) = setup();
    let model = MessagesServer::start(vec![Turn::text("Hello from Claude Code.")]);
    let config = dir.path().join("switchboard-config");
    // Signed in (the test's API key); no server configured.
    let mut sidecar = Sidecar::launch(&claude, &model, &config, None, true, &binary());
    sidecar.send(json!({"id": 1, "type": "list_models"}));
    let listed = sidecar.until(|response| response.id == 1);
    let ResponseBody::Models { models, backend } = &listed.last().unwrap().body else {
        panic!("{listed:?}");
    };
    let backend = backend.as_ref().unwrap();
    assert_eq!(
        backend.backend,
        switchboard_model::settings::ModelBackend::ClaudeCode
    );
    assert!(backend.reason.contains("signed in"), "{}", backend.reason);
    assert_eq!(models, &["sonnet", "opus", "haiku"]);
    let turn = sidecar.chat(2, &workspace, "Analyzing", "Hello?");
    assert!(
        matches!(&turn.last().unwrap().body, ResponseBody::ChatDone { reply, .. } if reply == "Hello from Claude Code."),
        "{turn:?}"
    );
}

#[test]
fn with_no_backend_set_and_no_signed_in_agent_the_local_server_is_tried_and_the_reason_says_how_to_change()
 {
    let (dir, _workspace, claude) = setup();
    let model = MessagesServer::start(vec![]);
    let config = dir.path().join("switchboard-config");
    // Not signed in: no key, a fresh configuration folder.
    let mut sidecar = Sidecar::launch(&claude, &model, &config, None, false, &binary());
    sidecar.send(json!({"id": 1, "type": "list_models"}));
    let listed = sidecar.until(|response| response.id == 1);
    // No local server answers here either: the chat says it has no model,
    // what it tried and how to give it one.
    let (code, message) = failure(&listed);
    assert_eq!(code, switchboard_model::ErrorCode::Model);
    assert!(
        message.contains("no signed-in Claude Code was found")
            && message.contains("sign in to Claude Code")
            && message.contains("Settings"),
        "{message}"
    );
}

#[test]
fn the_summary_claude_code_writes_is_kept_and_carried_into_the_next_turn() {
    let (dir, workspace, claude) = setup();
    let model = MessagesServer::start(vec![
        Turn::text(
            "Postgres it is.<!-- CONVERSATION_SUMMARY_START -->{\"decisions\": [\"Use Postgres\"]}<!-- CONVERSATION_SUMMARY_END -->",
        ),
        Turn::text("Noted."),
    ]);
    let mut sidecar = Sidecar::start(&claude, &model, &dir.path().join("switchboard-config"));
    for (id, message) in [(1, "Which database?"), (2, "And the region?")] {
        let turn = sidecar.chat(id, &workspace, "Planning", message);
        let last = &turn.last().unwrap().body;
        assert!(matches!(last, ResponseBody::ChatDone { .. }), "{last:?}");
        if id == 1 {
            let ResponseBody::ChatDone { reply, .. } = last else {
                unreachable!()
            };
            assert_eq!(reply, "Postgres it is.", "the summary block is not shown");
        }
    }
    // The second turn's system prompt carries the summary, and its prompt
    // the first exchange.
    let second = &model.loop_requests()[1];
    let system = second["system"].to_string();
    assert!(system.contains("Use Postgres"), "{system}");
    let asked = second["messages"].to_string();
    assert!(
        asked.contains("Which database?") && asked.contains("And the region?"),
        "{asked}"
    );
}

#[test]
fn a_claude_code_that_is_not_signed_in_is_told_as_such() {
    let (dir, workspace, claude) = setup();
    let model = MessagesServer::start(vec![]);
    let config = dir.path().join("switchboard-config");
    let mut sidecar = Sidecar::launch(
        &claude,
        &model,
        &config,
        Some("claude-code"),
        false,
        &binary(),
    );
    let turn = sidecar.chat(1, &workspace, "Planning", "Plan it.");
    let (code, message) = failure(&turn);
    assert_eq!(code, switchboard_model::ErrorCode::Model);
    assert!(
        message.contains("Claude Code is not signed in") && message.contains("sign in"),
        "{message}"
    );
}

#[test]
fn a_claude_code_without_the_flags_the_chat_needs_is_told_to_update() {
    let (dir, workspace, claude) = setup();
    let model = MessagesServer::start(vec![]);
    // An old `claude`, as one answers a flag it does not know.
    let old = dir.path().join("old-claude");
    std::fs::write(
        &old,
        "#!/bin/sh\ncat > /dev/null\necho \"error: unknown option '--include-partial-messages'\" >&2\nexit 1\n",
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let mut sidecar = Sidecar::launch(
        &claude,
        &model,
        &dir.path().join("switchboard-config"),
        Some("claude-code"),
        true,
        &old,
    );
    let turn = sidecar.chat(1, &workspace, "Planning", "Plan it.");
    let (code, message) = failure(&turn);
    assert_eq!(code, switchboard_model::ErrorCode::Model);
    assert!(
        message.contains("too old for the chat") && message.contains("--include-partial-messages"),
        "{message}"
    );
}

#[test]
fn codex_named_as_the_backend_is_refused_as_not_yet_one() {
    let (dir, workspace, claude) = setup();
    let model = MessagesServer::start(vec![]);
    let mut sidecar = Sidecar::launch(
        &claude,
        &model,
        &dir.path().join("switchboard-config"),
        Some("codex"),
        true,
        &binary(),
    );
    let turn = sidecar.chat(1, &workspace, "Planning", "Plan it.");
    let (code, message) = failure(&turn);
    assert_eq!(code, switchboard_model::ErrorCode::Model);
    assert!(
        message.contains("Codex is not a chat backend yet") && message.contains("Settings"),
        "{message}"
    );
    sidecar.send(json!({"id": 2, "type": "list_models"}));
    let (code, _) = failure(&sidecar.until(|response| response.id == 2));
    assert_eq!(code, switchboard_model::ErrorCode::Model);
    assert_eq!(model.loop_requests().len(), 0, "no model was asked");
}
