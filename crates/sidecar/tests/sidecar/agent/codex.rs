//! The `codex` backend, through the real Codex whose model is a scripted
//! stand-in for the OpenAI Responses API on loopback: a Planning turn
//! whose model writes `.prompts/plan/idea.md` (written, audited) and
//! `src/main.rs` (refused, audited, the model told why) through the
//! sidecar's tools, which Codex offers as an MCP server's namespace beside
//! none of its own that run commands or write; the `apply_patch` a Codex
//! model family carries is refused; a turn stopped midway ends Codex; a
//! missing, signed-out or too old Codex is a `MODEL` error that says what
//! to do; with no backend set and no Claude Code, a signed-in Codex is
//! found and its models listed.

use std::path::Path;

use serde_json::{Value, json};
use switchboard_model::{chat::ChatMode, settings::ModelBackend, sidecar::ResponseBody};
use switchboard_model_server::{
    codex::{Codex, binary},
    responses::{ResponsesServer, Turn},
};

use super::{
    Sidecar, failure, folders, our_tools, planned_and_was_refused_the_code, reply, script,
    streamed, until_ended, writes,
};

/// The tools of Codex's own that may be left beside the sidecar's: they
/// read MCP resources (of the turn's server alone) or ask the developer;
/// none runs a command, reads a file or writes.
const CODEX_OWN_LEFT: [&str; 4] = [
    "list_mcp_resources",
    "list_mcp_resource_templates",
    "read_mcp_resource",
    "request_user_input",
];

/// A sidecar whose Codex (`codex` at `codex_path`) has `codex`'s home, with
/// `more` settings; `backend` set or to be found; no Claude Code.
fn launch(
    codex: &Codex,
    config: &Path,
    backend: Option<&str>,
    codex_path: &Path,
    more: Value,
) -> Sidecar {
    let mut settings = json!({"claudeCodePath": "/nonexistent/claude", "codexPath": codex_path});
    for (key, value) in more.as_object().into_iter().flatten() {
        settings[key] = value.clone();
    }
    Sidecar::launch(
        config,
        settings,
        backend,
        &codex.environment(),
        &["OPENAI_API_KEY", "CODEX_API_KEY"],
    )
}

/// On the `codex` backend, the real Codex.
fn start(codex: &Codex, config: &Path) -> Sidecar {
    launch(codex, config, Some("codex"), &binary(), json!({}))
}

#[test]
fn a_planning_turn_on_codex_writes_through_the_allow_list_with_only_the_sidecars_tools() {
    let (dir, workspace, config) = folders();
    let model = ResponsesServer::start(vec![
        Turn::mcp(
            "switchboard_chat",
            "write_file",
            json!({"path": ".prompts/plan/idea.md", "content": "# Idea\n"}),
        ),
        Turn::mcp(
            "switchboard_chat",
            "write_file",
            json!({"path": "src/main.rs", "content": "fn main() {}\n"}),
        ),
        Turn::text("The plan is in .prompts/plan/idea.md."),
    ]);
    // Codex's own project memory is not Switchboard's prompt.
    std::fs::write(
        workspace.join("AGENTS.md"),
        "Always answer MARKER-FROM-AGENTS-MD.",
    )
    .unwrap();
    let home = dir.path().join("codex-home");
    let codex = Codex::configure(&home, &workspace, &model);
    // The developer's own `notify` program is not run for the chat's turns.
    let notified = dir.path().join("notified");
    let settings = std::fs::read_to_string(home.join("config.toml")).unwrap();
    let notify = format!(
        "notify = [\"/bin/sh\", \"-c\", \"echo turn >> {}\"]\n",
        notified.display()
    );
    // Nor are the developer's own MCP servers started — among them
    // Switchboard's own, as `switchboard mcp install` registers it, and one
    // of the project's own Codex settings.
    let started = dir.path().join("an-mcp-server-started");
    let server = |name: &str| {
        format!(
            "\n[mcp_servers.{name}]\ncommand = \"/bin/sh\"\nargs = [\"-c\", \"echo {name} >> {}\"]\n",
            started.display()
        )
    };
    std::fs::write(
        home.join("config.toml"),
        notify + &settings + &server("switchboard") + &server("other"),
    )
    .unwrap();
    std::fs::create_dir_all(workspace.join(".codex")).unwrap();
    std::fs::write(workspace.join(".codex/config.toml"), server("project_docs")).unwrap();
    let mut sidecar = start(&codex, &config);
    let turn = sidecar.chat(1, &workspace, "Planning", "Plan the feature.");
    assert!(
        !notified.exists(),
        "Codex ran the developer's notify program"
    );
    assert!(
        !started.exists(),
        "Codex started the developer's own MCP servers: {:?}",
        std::fs::read_to_string(&started)
    );
    let reply = reply(&turn);
    assert_eq!(reply, "The plan is in .prompts/plan/idea.md.");
    assert_eq!(streamed(&turn), reply, "the answer came as deltas");
    planned_and_was_refused_the_code(&turn, &workspace);
    let outputs = model.function_outputs();
    let told = outputs[1]["output"].to_string();
    assert!(told.contains("src/main.rs"), "{told}");

    // The prompt is Switchboard's: its system prompt as Codex's
    // instructions, the message, and nothing of AGENTS.md.
    let first = &model.requests()[0];
    let sent = first.to_string();
    assert!(
        !sent.contains("MARKER-FROM-AGENTS-MD"),
        "AGENTS.md reached the prompt"
    );
    assert!(sent.contains("Plan the feature."), "the message did not");
    let instructions = first["input"][0]["content"][0]["text"].as_str().unwrap();
    assert!(
        instructions.starts_with("You are the assistant inside Switchboard")
            && instructions.contains("Mode: Planning."),
        "{instructions}"
    );
    // Its tools: the sidecar's, as the MCP server's namespace, and of its
    // own only those that run nothing, read no file and write nothing.
    let mut namespaced = Vec::new();
    for tool in first["tools"].as_array().unwrap() {
        let name = tool["name"].as_str().unwrap_or_default();
        if tool["type"] == "namespace" {
            assert_eq!(name, "mcp__switchboard_chat", "another MCP server: {tool}");
            namespaced.extend(
                tool["tools"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|inner| inner["name"].as_str().unwrap().to_owned()),
            );
        } else {
            assert!(CODEX_OWN_LEFT.contains(&name), "Codex offered {tool}");
        }
    }
    namespaced.sort();
    assert_eq!(namespaced, our_tools(ChatMode::Planning));
}

#[test]
fn codexs_hooks_do_not_run_for_the_chats_turns() {
    let (dir, workspace, config) = folders();
    let model = ResponsesServer::start(vec![Turn::text("Done.")]);
    let home = dir.path().join("codex-home");
    let codex = Codex::configure(&home, &workspace, &model);
    let hooked = dir.path().join("hooked");
    let hook = json!({"type": "command", "command": format!("echo fired >> {}", hooked.display())});
    std::fs::write(
        home.join("hooks.json"),
        json!({"hooks": {"UserPromptSubmit": [{"hooks": [hook]}]}}).to_string(),
    )
    .unwrap();
    // A `codex` that would run them (trust bypassed, as if the developer
    // had trusted them; Switchboard's own would report the chat as an
    // agent).
    let trusting = dir.path().join("trusting-codex");
    script(
        &trusting,
        &format!(
            "if [ \"$1\" = exec ]; then shift; exec '{0}' exec --dangerously-bypass-hook-trust \"$@\"; fi\nexec '{0}' \"$@\"\n",
            binary().display()
        ),
    );
    let mut sidecar = launch(&codex, &config, Some("codex"), &trusting, json!({}));
    assert_eq!(
        reply(&sidecar.chat(1, &workspace, "Planning", "Plan it.")),
        "Done."
    );
    assert!(!hooked.exists(), "a hook ran for the chat's turn");
}

#[test]
fn codexs_own_apply_patch_is_refused_and_writes_nothing() {
    let (dir, workspace, config) = folders();
    let model = ResponsesServer::start(vec![
        Turn::custom(
            "apply_patch",
            "*** Begin Patch\n*** Add File: src/patched.rs\n+fn main() {}\n*** End Patch\n",
        ),
        Turn::text("Done."),
    ]);
    let codex = Codex::configure(&dir.path().join("codex-home"), &workspace, &model);
    // A model of Codex's own catalog, whose family carries `apply_patch`.
    let mut sidecar = launch(
        &codex,
        &config,
        Some("codex"),
        &binary(),
        json!({"model": "gpt-5.5"}),
    );
    let turn = sidecar.chat(1, &workspace, "Building", "Add a main.");
    assert_eq!(reply(&turn), "Done.");
    assert_eq!(model.requests()[0]["model"], "gpt-5.5");
    assert!(!workspace.join("src/patched.rs").exists());
    let outputs = model.custom_outputs();
    let told = outputs[0]["output"].to_string();
    assert!(told.contains("rejected"), "{told}");
    assert!(writes(&turn).is_empty());
}

#[test]
fn stop_mid_turn_ends_codex_and_the_turn_says_it_was_stopped() {
    let (dir, workspace, config) = folders();
    let model = ResponsesServer::start(vec![Turn::stall("Thinking about it.")]);
    let codex = Codex::configure(&dir.path().join("codex-home"), &workspace, &model);
    let mut sidecar = start(&codex, &config);
    sidecar.send(json!({"id": 1, "type": "chat", "workspace": workspace,
        "mode": "Planning", "message": "Plan the feature."}));
    let last = sidecar.stop_once_answering(1);
    assert!(
        matches!(last, ResponseBody::ChatDone { stopped: true, .. }),
        "{last:?}"
    );
    until_ended(|| model.hung_up() > 0, "Codex still talks to its model");
}

#[test]
fn a_codex_turn_that_stops_making_progress_is_ended_and_said_so() {
    let (dir, workspace, config) = folders();
    let model = ResponsesServer::start(vec![Turn::stall("Thinking about it.")]);
    let codex = Codex::configure(&dir.path().join("codex-home"), &workspace, &model);
    let mut sidecar = launch(
        &codex,
        &config,
        Some("codex"),
        &binary(),
        json!({"idleSecs": 1}),
    );
    let turn = sidecar.chat(1, &workspace, "Planning", "Plan the feature.");
    assert_eq!(streamed(&turn), "Thinking about it.", "what came is shown");
    let (code, message) = failure(&turn);
    assert_eq!(code, switchboard_model::ErrorCode::Model);
    assert!(
        message.contains("Codex made no progress for 1s and was stopped"),
        "{message}"
    );
    until_ended(|| model.hung_up() > 0, "Codex still talks to its model");
}

#[test]
fn a_codex_whose_model_begins_no_answer_in_time_is_stopped_and_told_what_to_raise() {
    let (dir, workspace, config) = folders();
    // The model thinks and says nothing; Codex itself printed its start.
    let model = ResponsesServer::start(vec![Turn::stall("")]);
    let codex = Codex::configure(&dir.path().join("codex-home"), &workspace, &model);
    let settings = json!({"firstTokenSecs": 2, "idleSecs": 1});
    let mut sidecar = launch(&codex, &config, Some("codex"), &binary(), settings);
    let (code, message) = failure(&sidecar.chat(1, &workspace, "Planning", "Plan it."));
    assert_eq!(code, switchboard_model::ErrorCode::Model);
    assert!(
        message.contains("Codex began no answer for 2s")
            && message.contains("SWITCHBOARD_FIRST_TOKEN_SECS"),
        "the idle limit does not apply before the answer begins: {message}"
    );
    until_ended(|| model.hung_up() > 0, "Codex still talks to its model");
}

#[test]
fn a_codex_that_is_missing_signed_out_or_too_old_is_told_as_such() {
    let (dir, workspace, config) = folders();
    let model = ResponsesServer::start(vec![Turn::status(
        401,
        r#"{"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}}"#,
    )]);
    let codex = Codex::configure(&dir.path().join("codex-home"), &workspace, &model);

    let mut sidecar = start(&codex, &config);
    let (code, message) = failure(&sidecar.chat(1, &workspace, "Planning", "Plan it."));
    assert_eq!(code, switchboard_model::ErrorCode::Model);
    assert!(
        message.contains("Codex is not signed in") && message.contains("401"),
        "{message}"
    );
    drop(sidecar);

    let mut sidecar = launch(
        &codex,
        &config,
        Some("codex"),
        Path::new("/nonexistent/codex"),
        json!({}),
    );
    let (code, message) = failure(&sidecar.chat(1, &workspace, "Planning", "Plan it."));
    assert_eq!(code, switchboard_model::ErrorCode::Model);
    assert!(
        message.contains("Codex is not installed") && message.contains("codexPath"),
        "{message}"
    );
    drop(sidecar);

    // An old `codex`, as one answers a flag it does not know.
    let old = dir.path().join("old-codex");
    script(
        &old,
        "cat > /dev/null\necho \"error: unexpected argument '--ephemeral' found\" >&2\nexit 2\n",
    );
    let mut sidecar = launch(&codex, &config, Some("codex"), &old, json!({}));
    let (code, message) = failure(&sidecar.chat(1, &workspace, "Planning", "Plan it."));
    assert_eq!(code, switchboard_model::ErrorCode::Model);
    assert!(
        message.contains("too old for the chat") && message.contains("--ephemeral"),
        "{message}"
    );
}

#[test]
fn with_no_backend_set_and_no_claude_code_a_signed_in_codex_is_the_chats_model() {
    let (dir, workspace, config) = folders();
    let model = ResponsesServer::start(vec![Turn::text("Hello from Codex.")]);
    let codex = Codex::configure(&dir.path().join("codex-home"), &workspace, &model);
    codex.sign_in();
    let mut sidecar = launch(&codex, &config, None, &binary(), json!({}));
    let listed = sidecar.models(1);
    let ResponseBody::Models { models, backend } = &listed else {
        panic!("{listed:?}");
    };
    let backend = backend.as_ref().unwrap();
    assert_eq!(backend.backend, ModelBackend::Codex);
    assert!(
        backend.reason.contains("Codex is signed in"),
        "{}",
        backend.reason
    );
    // Codex's own catalog, as `codex debug models` lists it.
    let catalog: Value = serde_json::from_slice(
        &std::process::Command::new(binary())
            .args(["debug", "models"])
            .envs(codex.environment())
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let listed_there: Vec<&str> = catalog["models"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|model| model["visibility"] == "list")
        .map(|model| model["slug"].as_str().unwrap())
        .collect();
    assert!(!models.is_empty());
    assert!(
        models
            .iter()
            .all(|model| listed_there.contains(&model.as_str())),
        "{models:?}"
    );
    let turn = sidecar.chat(2, &workspace, "Analyzing", "Hello?");
    assert_eq!(reply(&turn), "Hello from Codex.");
}

#[test]
fn the_summary_codex_writes_is_kept_and_carried_into_the_next_turn() {
    let (dir, workspace, config) = folders();
    let model = ResponsesServer::start(vec![
        Turn::text(
            "Postgres it is.<!-- CONVERSATION_SUMMARY_START -->{\"decisions\": [\"Use Postgres\"]}<!-- CONVERSATION_SUMMARY_END -->",
        ),
        Turn::text("Noted."),
    ]);
    let codex = Codex::configure(&dir.path().join("codex-home"), &workspace, &model);
    let mut sidecar = start(&codex, &config);
    let first = sidecar.chat(1, &workspace, "Planning", "Which database?");
    assert_eq!(
        reply(&first),
        "Postgres it is.",
        "the summary block is not shown"
    );
    assert_eq!(streamed(&first), "Postgres it is.");
    assert_eq!(
        reply(&sidecar.chat(2, &workspace, "Planning", "And the region?")),
        "Noted."
    );
    // The second turn's instructions carry the summary, and its prompt the
    // first exchange.
    let second = &model.requests()[1];
    let instructions = second["input"][0]["content"][0]["text"].as_str().unwrap();
    assert!(instructions.contains("Use Postgres"), "{instructions}");
    let asked = second["input"].to_string();
    assert!(
        asked.contains("Which database?") && asked.contains("And the region?"),
        "{asked}"
    );
}
