//! The `claude-code` backend, through the real Claude Code whose model is a
//! scripted stand-in for the Anthropic Messages API on loopback: a
//! Planning turn whose model writes `.prompts/plan/idea.md` (written,
//! audited) and `src/main.rs` (refused by the allow-list, audited, the
//! model told why) through the sidecar's own tools, its answer streamed
//! back; a turn stopped midway ends the agent's process; the summary it
//! writes is carried into the next turn; a missing, signed-out or too old
//! Claude Code is a `MODEL` error that says what to do; with no backend
//! set, a signed-in Claude Code is found (and none found is said so).

use std::path::Path;

use serde_json::json;
use switchboard_model::sidecar::ResponseBody;
use switchboard_model_server::{
    anthropic::{MessagesServer, Turn},
    claude_code::{ClaudeCode, binary},
};

use super::{
    Sidecar, failure, folders, our_tools, planned_and_was_refused_the_code, reply, script,
    streamed, until_ended,
};

/// A sidecar whose Claude Code (`claude` at `claude_path`) talks to
/// `model`, signed in (the test's API key) or not; `backend` set or to be
/// found; no Codex.
fn launch(
    claude: &ClaudeCode,
    model: &MessagesServer,
    config: &Path,
    backend: Option<&str>,
    signed_in: bool,
    claude_path: &Path,
) -> Sidecar {
    let removed: &[&str] = if signed_in {
        &[]
    } else {
        &["ANTHROPIC_API_KEY"]
    };
    Sidecar::launch(
        config,
        json!({"claudeCodePath": claude_path, "codexPath": "/nonexistent/codex"}),
        backend,
        &claude.environment(&model.url()),
        removed,
    )
}

/// On the `claude-code` backend, signed in, the real Claude Code.
fn start(claude: &ClaudeCode, model: &MessagesServer, config: &Path) -> Sidecar {
    launch(claude, model, config, Some("claude-code"), true, &binary())
}

fn setup() -> (tempfile::TempDir, std::path::PathBuf, ClaudeCode) {
    let (dir, workspace, _config) = folders();
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
    // Nor do the project's hooks run for the chat's turns (Switchboard's
    // own would report the chat as an agent).
    let hooked = dir.path().join("hooked");
    std::fs::create_dir_all(workspace.join(".claude")).unwrap();
    let hook = json!({"type": "command", "command": format!("echo fired >> {}", hooked.display())});
    std::fs::write(
        workspace.join(".claude/settings.json"),
        json!({"hooks": {
            "UserPromptSubmit": [{"hooks": [hook]}],
            "PreToolUse": [{"matcher": "*", "hooks": [hook]}],
        }})
        .to_string(),
    )
    .unwrap();
    // Nor are the developer's own MCP servers started — Switchboard's own
    // and another in the user's settings, one the project's `.mcp.json`
    // names and the developer allowed.
    let started = dir.path().join("an-mcp-server-started");
    let server = |name: &str| json!({"command": "/bin/sh", "args": ["-c", format!("echo {name} >> {}", started.display())]});
    claude
        .set_user_servers(json!({"switchboard": server("switchboard"), "other": server("other")}));
    std::fs::write(
        workspace.join(".mcp.json"),
        json!({"mcpServers": {"project_docs": server("project_docs")}}).to_string(),
    )
    .unwrap();
    claude.enable_project_servers(&["project_docs"]);
    let mut sidecar = start(&claude, &model, &dir.path().join("switchboard-config"));
    let turn = sidecar.chat(1, &workspace, "Planning", "Plan the feature.");
    assert!(!hooked.exists(), "a project hook ran for the chat's turn");
    assert!(
        !started.exists(),
        "Claude Code started the developer's own MCP servers: {:?}",
        std::fs::read_to_string(&started)
    );
    let sent = model.loop_requests()[0].to_string();
    assert!(
        !sent.contains("MARKER-FROM-CLAUDE-MD"),
        "CLAUDE.md reached the prompt"
    );
    assert!(sent.contains("Plan the feature."), "the message did");
    let reply = reply(&turn);
    assert_eq!(reply, "The plan is in .prompts/plan/idea.md.");
    assert_eq!(streamed(&turn), reply, "the answer came as deltas");

    planned_and_was_refused_the_code(&turn, &workspace);
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
    let ours: Vec<String> = our_tools(switchboard_model::chat::ChatMode::Planning)
        .iter()
        .map(|name| format!("mcp__switchboard__{name}"))
        .collect();
    assert_eq!(offered, ours);
}

#[test]
fn stop_mid_turn_ends_claude_code_and_the_turn_says_it_was_stopped() {
    let (dir, workspace, claude) = setup();
    let model = MessagesServer::start(vec![Turn::stall("Thinking about it")]);
    let mut sidecar = start(&claude, &model, &dir.path().join("switchboard-config"));
    sidecar.send(json!({"id": 1, "type": "chat", "workspace": workspace,
        "mode": "Planning", "message": "Plan the feature."}));
    let last = sidecar.stop_once_answering(1);
    assert!(
        matches!(last, ResponseBody::ChatDone { stopped: true, .. }),
        "{last:?}"
    );
    // Claude Code's process ended: its connection to the model hung up.
    until_ended(
        || model.hung_up() > 0,
        "Claude Code still talks to its model",
    );
}

#[test]
fn a_missing_claude_code_is_a_model_error_that_says_what_to_do() {
    let (dir, workspace, claude) = setup();
    let model = MessagesServer::start(vec![]);
    let mut sidecar = launch(
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
    let mut sidecar = launch(&claude, &model, &config, None, true, &binary());
    let listed = sidecar.models(1);
    let ResponseBody::Models { models, backend } = &listed else {
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
    let mut sidecar = launch(&claude, &model, &config, None, false, &binary());
    sidecar.send(json!({"id": 1, "type": "list_models"}));
    let listed = sidecar.until(|response| response.id == 1);
    // No local server answers here either: the chat says it has no model,
    // what it tried and how to give it one.
    let (code, message) = failure(&listed);
    assert_eq!(code, switchboard_model::ErrorCode::Model);
    assert!(
        message.contains("no signed-in Claude Code or Codex was found")
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
    let mut sidecar = start(&claude, &model, &dir.path().join("switchboard-config"));
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
    let mut sidecar = launch(
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
    script(
        &old,
        "cat > /dev/null\necho \"error: unknown option '--include-partial-messages'\" >&2\nexit 1\n",
    );
    let mut sidecar = launch(
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
