//! `switchboard chat` end to end: the real CLI starts the real sidecar,
//! which talks to a scripted OpenAI-compatible server on loopback, applies
//! or refuses the model's writes, and keeps the chat with its summary.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.
#![allow(clippy::disallowed_methods)] // Tests read the files they made.

use std::{path::Path, process::Output};

use serde_json::{Value, json};
use switchboard_e2e::Binaries;
use switchboard_model::settings::ENV_OVERRIDES;
use switchboard_model_server::{
    Reply, ScriptedServer, text_chunk as text, write_file_chunk as write_call,
};

/// `switchboard ARGS` with the settings in `config` and no model variables.
fn cli(config: &Path, workspace: &Path, args: &[&str]) -> Output {
    let mut command = Binaries::locate().unwrap().cli(workspace);
    command.args(args).env("SWITCHBOARD_CONFIG_DIR", config);
    for variable in ENV_OVERRIDES {
        command.env_remove(variable.variable);
    }
    command.output().unwrap()
}

/// `switchboard chat ARGS` against the server at `server_url`, with empty
/// settings.
fn chat(server_url: &str, workspace: &Path, args: &[&str]) -> Output {
    let config = tempfile::tempdir().unwrap();
    let mut command = Binaries::locate().unwrap().cli(workspace);
    command
        .arg("chat")
        .args(args)
        .env("SWITCHBOARD_CONFIG_DIR", config.path())
        .env("SWITCHBOARD_MODEL_URL", server_url)
        .env("SWITCHBOARD_MODEL", "test-model")
        .env_remove("SWITCHBOARD_API_KEY");
    command.output().unwrap()
}

/// The decisions of the workspace's write audit log, in order.
fn audit_decisions(workspace: &Path) -> Vec<String> {
    std::fs::read_to_string(workspace.join(".switchboard/audit/writes.jsonl"))
        .unwrap()
        .lines()
        .map(|line| {
            serde_json::from_str::<Value>(line).unwrap()["decision"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// The active chat file, parsed.
fn active_chat(workspace: &Path) -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(workspace.join(".naide/chatsessions/chat-active.json")).unwrap(),
    )
    .unwrap()
}

fn ok(output: &Output) -> String {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn a_planning_chat_streams_writes_within_the_allow_list_and_remembers() {
    let workspace = tempfile::tempdir().unwrap();
    let summary = "<!-- CONVERSATION_SUMMARY_START -->{\"decisions\": [\"Use OAuth\"], \"openQuestions\": [\"Which IdP?\"]}<!-- CONVERSATION_SUMMARY_END -->";
    let (head, tail) = summary.split_at(20);
    let server = ScriptedServer::start(vec![
        Reply::sse(&[
            &write_call(0, "call_1", ".prompts/plan/auth.md", "# Auth\n\nUse OAuth."),
            &write_call(1, "call_2", "src/main.rs", "fn main() {}"),
            "[DONE]",
        ]),
        Reply::sse(&[
            &text("Planned "),
            &text("auth."),
            &text(head),
            &text(tail),
            "[DONE]",
        ]),
        Reply::sse(&[&text("Keycloak, then."), "[DONE]"]),
    ]);

    let first = chat(
        &server.url(),
        workspace.path(),
        &["--mode", "planning", "Plan the auth flow"],
    );
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert!(first.status.success(), "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&first.stdout),
        "Planned auth.\n",
        "the summary block never shows"
    );
    assert!(stderr.contains("wrote .prompts/plan/auth.md"), "{stderr}");
    assert!(stderr.contains("refused src/main.rs"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(workspace.path().join(".prompts/plan/auth.md")).unwrap(),
        "# Auth\n\nUse OAuth."
    );
    assert!(
        !workspace.path().join("src/main.rs").exists(),
        "Planning may not write src/"
    );

    let requests = server.requests();
    let round_two: Value = serde_json::from_str(&requests[1].body).unwrap();
    let tool_results: Vec<&str> = round_two["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert!(
        tool_results[0].starts_with("wrote .prompts/plan/auth.md"),
        "{tool_results:?}"
    );
    assert!(
        tool_results[1].starts_with("refused:"),
        "the model learns of the refusal: {tool_results:?}"
    );

    assert_eq!(audit_decisions(workspace.path()), ["written", "refused"]);

    let active = active_chat(workspace.path());
    assert_eq!(active["mode"], "Planning");
    assert_eq!(active["messages"].as_array().unwrap().len(), 2);
    assert_eq!(active["messages"][1]["content"], "Planned auth.");
    assert_eq!(active["summary"]["decisions"], json!(["Use OAuth"]));

    // The next turn continues the chat: history and summary go into the prompt.
    let second = chat(
        &server.url(),
        workspace.path(),
        &["Which IdP should we use?"],
    );
    assert!(
        second.status.success(),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    let third_body: Value = serde_json::from_str(&server.requests()[2].body).unwrap();
    let messages = third_body["messages"].as_array().unwrap();
    assert!(
        messages[0]["content"]
            .as_str()
            .unwrap()
            .contains("- Use OAuth"),
        "the summary is in the system prompt"
    );
    assert!(
        messages[0]["content"]
            .as_str()
            .unwrap()
            .contains("Spec file `.prompts/plan/auth.md`"),
        "specs are long-term memory"
    );
    assert_eq!(
        messages[1]["content"], "Plan the auth flow",
        "recent messages follow"
    );
    assert_eq!(
        messages.last().unwrap()["content"],
        "Which IdP should we use?"
    );
}

#[test]
fn new_archives_the_active_chat_and_no_server_is_a_clear_error() {
    let workspace = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![
        Reply::sse(&[&text("One."), "[DONE]"]),
        Reply::sse(&[&text("Two."), "[DONE]"]),
    ]);
    assert!(
        chat(&server.url(), workspace.path(), &["first"])
            .status
            .success()
    );
    assert!(
        chat(&server.url(), workspace.path(), &["--new", "second"])
            .status
            .success()
    );
    let sessions = workspace.path().join(".naide/chatsessions");
    let archives: Vec<String> = std::fs::read_dir(&sessions)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains("-chat-"))
        .collect();
    assert_eq!(archives.len(), 1, "{archives:?}");
    let active = active_chat(workspace.path());
    assert_eq!(active["messages"][0]["content"], "second", "a fresh chat");

    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let failed = chat(
        &format!("http://127.0.0.1:{closed}"),
        workspace.path(),
        &["hello?"],
    );
    assert_eq!(failed.status.code(), Some(8), "MODEL exits 8");
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(
        stderr.contains("error[MODEL]: no model server answers"),
        "{stderr}"
    );
}

#[test]
fn settings_pick_the_model_dry_run_holds_writes_and_chats_resume() {
    let workspace = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![
        Reply::sse(&[
            &write_call(0, "call_1", ".prompts/plan/a.md", "# A"),
            &write_call(1, "call_2", ".git/config", "[core]"),
            "[DONE]",
        ]),
        Reply::sse(&[&text("Held for you."), "[DONE]"]),
        Reply::sse(&[&text("Fresh."), "[DONE]"]),
        Reply::sse(&[&text("Back again."), "[DONE]"]),
    ]);
    std::fs::write(
        config.path().join("settings.json"),
        json!({"modelUrl": server.url(), "model": "from-settings", "dryRun": true}).to_string(),
    )
    .unwrap();

    let held = cli(config.path(), workspace.path(), &["chat", "Write plan A"]);
    assert_eq!(ok(&held), "Held for you.\n");
    let stderr = String::from_utf8_lossy(&held.stderr);
    assert!(
        stderr.contains("would write .prompts/plan/a.md (3 bytes); not applied (dry run)"),
        "{stderr}"
    );
    assert!(stderr.contains("refused .git/config"), "{stderr}");
    assert!(!workspace.path().join(".prompts/plan/a.md").exists());
    let first: Value = serde_json::from_str(&server.requests()[0].body).unwrap();
    assert_eq!(
        first["model"], "from-settings",
        "the settings file chose the model"
    );
    assert_eq!(audit_decisions(workspace.path()), ["proposed", "refused"]);

    ok(&cli(
        config.path(),
        workspace.path(),
        &["chat", "--new", "Something else"],
    ));
    let history: Value = serde_json::from_str(&ok(&cli(
        config.path(),
        workspace.path(),
        &["chats", "--json"],
    )))
    .unwrap();
    let sessions = history["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 2);
    assert_eq!(sessions[0]["active"], true);
    assert_eq!(sessions[0]["title"], "Something else");
    assert_eq!(sessions[1]["title"], "Write plan A");
    let first_id = sessions[1]["id"].as_str().unwrap().to_owned();

    ok(&cli(
        config.path(),
        workspace.path(),
        &["chat", "--session", &first_id, "And now?"],
    ));
    let resumed = active_chat(workspace.path());
    assert_eq!(resumed["id"], first_id.as_str());
    assert_eq!(resumed["messages"].as_array().unwrap().len(), 4);
    let last: Value = serde_json::from_str(&server.requests()[3].body).unwrap();
    let sent = last["messages"].as_array().unwrap();
    assert!(
        sent.iter().any(|m| m["content"] == "Held for you."),
        "the resumed chat's history goes to the model"
    );
    assert!(
        !sent.iter().any(|m| m["content"] == "Fresh."),
        "the other chat's does not"
    );

    let unknown = cli(
        config.path(),
        workspace.path(),
        &["chat", "--session", "chat-404", "hello"],
    );
    assert_eq!(unknown.status.code(), Some(3), "NOT_FOUND exits 3");
    let stderr = String::from_utf8_lossy(&unknown.stderr);
    assert!(
        stderr.contains("error[NOT_FOUND]: no chat with id \"chat-404\""),
        "{stderr}"
    );
}

#[test]
fn the_knowledge_index_feeds_relevant_entries_and_bullets_into_the_prompt() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path();
    std::fs::create_dir_all(root.join(".naide/learnings")).unwrap();
    std::fs::create_dir_all(root.join(".delia/playbooks")).unwrap();
    std::fs::create_dir_all(root.join(".switchboard/knowledge")).unwrap();
    std::fs::write(
        root.join(".naide/learnings/database.md"),
        "## Migrations need a lock (2026-11-01)\n\nTwo deploys ran the same migration.\n\n## Fonts load late (2026-11-02)\n\nUnrelated to databases.\n",
    )
    .unwrap();
    std::fs::write(
        root.join(".delia/playbooks/deployment.json"),
        json!({"schema_version": 2, "task_type": "deployment", "updated_at": "2026-11-01T00:00:00.000000",
            "bullets": [
                {"id": "strat-00000001", "content": "Run migrations in a single job before the rollout", "helpful_count": 4},
                {"id": "strat-00000002", "content": "Skip migrations when the rollout is urgent", "helpful_count": 0, "harmful_count": 3}
            ]})
        .to_string(),
    )
    .unwrap();
    std::fs::write(
        root.join(".switchboard/knowledge/quarantine.json"),
        json!([{"task_type": "deployment", "id": "strat-00000002", "reason": "dangerous", "at": "2026-11-20T00:00:00.000Z"}]).to_string(),
    )
    .unwrap();
    let server = ScriptedServer::start(vec![Reply::sse(&[&text("Noted."), "[DONE]"])]);
    ok(&chat(
        &server.url(),
        root,
        &["How do we run migrations safely?"],
    ));
    let body: Value = serde_json::from_str(&server.requests()[0].body).unwrap();
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("## Migrations need a lock"), "{system}");
    assert!(
        system.contains("Run migrations in a single job before the rollout"),
        "{system}"
    );
    assert!(
        !system.contains("Skip migrations"),
        "quarantined bullets stay out: {system}"
    );
    assert!(
        !system.contains("Fonts load late"),
        "irrelevant entries stay out: {system}"
    );
}

#[test]
fn ctrl_c_stops_the_turn_and_keeps_what_arrived() {
    use std::io::Read;

    let workspace = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let words: Vec<String> = (0..40).map(|n| text(&format!("w{n} "))).collect();
    let mut chunks: Vec<&str> = words.iter().map(String::as_str).collect();
    chunks.push("[DONE]");
    let server = ScriptedServer::start(vec![Reply::sse_slow(
        &chunks,
        std::time::Duration::from_millis(200),
    )]);
    let mut child = Binaries::locate()
        .unwrap()
        .cli(workspace.path())
        .args(["chat", "Tell me a long story"])
        .env("SWITCHBOARD_CONFIG_DIR", config.path())
        .env("SWITCHBOARD_MODEL_URL", server.url())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0_u8; 3];
    stdout.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"w0 ", "the answer streams");
    // What a terminal's Ctrl-C sends to the foreground process.
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "a stopped turn is not a failure: {stderr}"
    );
    assert!(stderr.contains("(stopped)"), "{stderr}");
    assert!(!rest.contains("w39"), "the stream was cut: {rest}");
    let saved = active_chat(workspace.path());
    let answer = saved["messages"][1]["content"].as_str().unwrap();
    assert!(
        answer.starts_with("w0 "),
        "what arrived is kept: {answer:?}"
    );
    assert!(!answer.contains("w39"));
}

/// An SSE chunk carrying a `read_file` tool call.
fn read_call(index: u64, id: &str, path: &str) -> String {
    let arguments = json!({ "path": path }).to_string();
    json!({"choices": [{"delta": {"tool_calls": [
        {"index": index, "id": id, "function": {"name": "read_file", "arguments": arguments}}
    ]}}]})
    .to_string()
}

#[test]
fn symlinks_to_secrets_outside_the_workspace_never_reach_the_model_server() {
    use std::os::unix::fs::symlink;
    const SECRET: &str = "SECRET-aws-key-AKIA0000 tokens auth";
    let temp = tempfile::tempdir().unwrap();
    let workspace = temp.path().join("ws");
    let outside = temp.path().join("home");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("credentials"), SECRET).unwrap();
    std::fs::write(
        outside.join("playbook.json"),
        json!({"schema_version": 2, "bullets": [{"id": "b1", "section": "s", "content": SECRET}]})
            .to_string(),
    )
    .unwrap();
    let secret = outside.join("credentials");
    for (link, target) in [
        (".prompts/system/base.md", &secret),
        (".prompts/system/planning.md", &secret),
        (".naide/learnings/auth.md", &secret),
        (".prompts/learnings/tokens.md", &secret),
        (".prompts/plan/auth.md", &secret),
        (".delia/profiles/me.md", &secret),
        (
            ".delia/playbooks/coding.json",
            &outside.join("playbook.json"),
        ),
    ] {
        let link = workspace.join(link);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        symlink(target, link).unwrap();
    }
    // A whole folder of specs that is a link out of the workspace.
    symlink(&outside, workspace.join(".prompts/features")).unwrap();
    // The positive control: a real learning inside is sent.
    std::fs::write(
        workspace.join(".naide/learnings/real.md"),
        "## Tokens (2026-01-01)\n\nINSIDE-MARKER tokens auth\n",
    )
    .unwrap();

    let server = ScriptedServer::start(vec![
        Reply::sse(&[
            &read_call(0, "call_1", ".naide/learnings/auth.md"),
            &read_call(1, "call_2", ".prompts/features/credentials"),
            "[DONE]",
        ]),
        Reply::sse(&[&text("Done."), "[DONE]"]),
    ]);
    let output = chat(
        &server.url(),
        &workspace,
        &["--mode", "planning", "How do auth tokens work?"],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "the tool round happened");
    let sent: String = requests.iter().map(|r| r.body.as_str()).collect();
    assert!(
        sent.contains("INSIDE-MARKER"),
        "the check can fail: real files are sent"
    );
    assert!(
        !sent.contains("AKIA0000"),
        "a secret reached the model server"
    );
    // Each refusal is named where the developer looks.
    assert!(
        stderr.matches("outside the workspace").count() >= 5,
        "refusals are named: {stderr}"
    );
}

#[test]
fn models_says_which_backend_the_chat_uses_why_and_what_it_offers() {
    let workspace = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let server = ScriptedServer::with_models(vec![], &["m1", "m2"]);
    std::fs::write(
        config.path().join("settings.json"),
        json!({"modelUrl": server.url(), "model": "m2"}).to_string(),
    )
    .unwrap();
    let listed = ok(&cli(config.path(), workspace.path(), &["models"]));
    assert_eq!(
        listed,
        "via model server: a model server is configured (modelUrl); change it in Settings\n  m1\n* m2\n"
    );
    let json: Value = serde_json::from_str(&ok(&cli(
        config.path(),
        workspace.path(),
        &["models", "--json"],
    )))
    .unwrap();
    assert_eq!(json["models"], json!(["m1", "m2"]));
    assert_eq!(json["backend"]["backend"], "openai-compatible");

    // Nothing works here: no server set, no agent signed in, none local.
    std::fs::write(
        config.path().join("settings.json"),
        json!({"claudeCodePath": "/nonexistent/claude", "codexPath": "/nonexistent/codex"})
            .to_string(),
    )
    .unwrap();
    let failed = cli(config.path(), workspace.path(), &["models"]);
    assert_eq!(failed.status.code(), Some(8), "MODEL exits 8");
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(
        stderr.contains("error[MODEL]: the chat has no model here")
            && stderr.contains("no signed-in Claude Code or Codex was found"),
        "{stderr}"
    );
}
