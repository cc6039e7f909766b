//! Chat in the real window: a Planning turn streams from a scripted model
//! server through the app's own sidecar; the permitted write lands in
//! `.prompts/plan/`, the write to `src/` is refused, and both show inline.
//! Then the rest of the pane: dry-run approval, memory edits and pins,
//! stop, new chat, history, trash, the model picker and the settings view.

use std::{path::Path, sync::Arc, time::Duration};

use anyhow::{Context, Result, ensure};
use fantoccini::key::Key;
use serde_json::Value;
use switchboard_e2e::Session;

use switchboard_model_server::{
    Gate, Reply, ScriptedServer, text_chunk as text, write_file_chunk as write_call,
};

use crate::harness::{CAPTURE_ERRORS, Environment, eventually, go, page_errors, send_chat, trial};

pub fn trials(environment: &Arc<Environment>) -> Vec<libtest_mimic::Trial> {
    vec![
        trial(
            environment,
            "chat::planning_chat_streams_applies_and_refuses_writes",
            planning_chat_streams_applies_and_refuses_writes,
        ),
        trial(
            environment,
            "chat::approval_memory_stop_history_and_settings",
            approval_memory_stop_history_and_settings,
        ),
        trial(
            environment,
            "chat::leaving_the_chat_mid_answer_and_coming_back_keeps_the_turn",
            leaving_the_chat_mid_answer_and_coming_back_keeps_the_turn,
        ),
        trial(
            environment,
            "chat::a_long_answer_keeps_the_composer_in_view_and_esc_stops_it",
            a_long_answer_keeps_the_composer_in_view_and_esc_stops_it,
        ),
        trial(
            environment,
            "chat::on_the_claude_code_backend_the_answer_streams_and_a_write_is_refused",
            on_the_claude_code_backend_the_answer_streams_and_a_write_is_refused,
        ),
        trial(
            environment,
            "chat::with_no_backend_set_a_signed_in_codex_answers_and_a_write_is_refused",
            with_no_backend_set_a_signed_in_codex_answers_and_a_write_is_refused,
        ),
        trial(
            environment,
            "chat::with_no_model_anywhere_the_chat_says_so_before_a_message",
            with_no_model_anywhere_the_chat_says_so_before_a_message,
        ),
        trial(
            environment,
            "chat::a_proposal_from_before_a_restart_says_it_is_no_longer_held",
            a_proposal_from_before_a_restart_says_it_is_no_longer_held,
        ),
    ]
}

/// The Chat view on the `claude-code` backend: the real Claude Code, whose
/// model is the scripted Messages API stand-in (reached through a wrapper
/// `claude` that sets its environment, named in the settings as
/// `claudeCodePath`), writes one allowed and one refused file through the
/// chat's own tools; the answer streams into the transcript and the header
/// says which backend answered.
fn on_the_claude_code_backend_the_answer_streams_and_a_write_is_refused(
    environment: &Environment,
) -> Result<()> {
    use switchboard_model_server::{
        anthropic::{MessagesServer, Turn},
        claude_code::{ClaudeCode, binary},
    };
    let workspace = tempfile::tempdir()?;
    let root = workspace.path().canonicalize()?;
    let config = tempfile::tempdir()?;
    let claude = ClaudeCode::configure(&config.path().join("claude-config"), &root);
    let model = MessagesServer::start(vec![
        Turn::tool(
            "mcp__switchboard__write_file",
            serde_json::json!({"path": ".prompts/plan/search.md", "content": "# Search\n"}),
        ),
        Turn::tool(
            "mcp__switchboard__write_file",
            serde_json::json!({"path": "src/search.rs", "content": "fn search() {}\n"}),
        ),
        Turn::text("The search plan is in .prompts/plan/search.md."),
    ]);
    let wrapper = config.path().join("claude");
    wrap(
        &wrapper,
        &binary(),
        &exports(&claude.environment(&model.url())),
    )?;
    std::fs::write(
        config.path().join("settings.json"),
        serde_json::json!({"modelBackend": "claude-code", "claudeCodePath": wrapper}).to_string(),
    )?;
    agent_backend_trial(
        environment,
        &root,
        config.path(),
        "Claude Code",
        "claude-code",
    )
}

/// The Chat view with no backend set, no Claude Code and the real Codex
/// signed in: Codex is found and used (its model the scripted Responses
/// API stand-in, reached through a wrapper `codex` named as `codexPath`),
/// the answer and both writes show, and the header says "via Codex".
fn with_no_backend_set_a_signed_in_codex_answers_and_a_write_is_refused(
    environment: &Environment,
) -> Result<()> {
    use switchboard_model_server::{
        codex::{Codex, binary},
        responses::{ResponsesServer, Turn},
    };
    let workspace = tempfile::tempdir()?;
    let root = workspace.path().canonicalize()?;
    let config = tempfile::tempdir()?;
    let model = ResponsesServer::start(vec![
        Turn::mcp(
            "switchboard_chat",
            "write_file",
            serde_json::json!({"path": ".prompts/plan/search.md", "content": "# Search\n"}),
        ),
        Turn::mcp(
            "switchboard_chat",
            "write_file",
            serde_json::json!({"path": "src/search.rs", "content": "fn search() {}\n"}),
        ),
        Turn::text("The search plan is in .prompts/plan/search.md."),
    ]);
    let codex = Codex::configure(&config.path().join("codex-home"), &root, &model);
    codex.sign_in();
    let wrapper = config.path().join("codex");
    wrap(&wrapper, &binary(), &exports(&codex.environment()))?;
    std::fs::write(
        config.path().join("settings.json"),
        serde_json::json!({"claudeCodePath": "/nonexistent/claude", "codexPath": wrapper})
            .to_string(),
    )?;
    agent_backend_trial(environment, &root, config.path(), "Codex", "")
}

/// No server configured, no Claude Code or Codex, none local: the Chat
/// view says "no model answers" at once, why and what to do in its title,
/// and the label leads to Settings.
fn with_no_model_anywhere_the_chat_says_so_before_a_message(
    environment: &Environment,
) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let config = tempfile::tempdir()?;
    std::fs::write(
        config.path().join("settings.json"),
        serde_json::json!({"claudeCodePath": "/nonexistent/claude", "codexPath": "/nonexistent/codex"})
            .to_string(),
    )?;
    let config_dir = config.path().display().to_string();
    environment.with_app_args(
        workspace.path(),
        &["--config-dir", &config_dir],
        async |session: &Session| {
            session.find("#nav-chat").await?.click().await?;
            let said = session
                .wait_for_text("#chat-backend", |text| !text.is_empty())
                .await?;
            ensure!(said == "no model answers", "{said:?}");
            let why = session
                .find("#chat-backend")
                .await?
                .attr("title")
                .await?
                .unwrap_or_default();
            ensure!(
                why.contains("no signed-in Claude Code or Codex was found")
                    && why.contains("Settings"),
                "{why:?}"
            );
            session.find("#chat-backend").await?.click().await?;
            session.find("#settings-model-url").await?;
            Ok(())
        },
    )
}

/// A dry-run proposal left waiting when the window (and its sidecar)
/// closed: reopened, the chat still shows it waiting; Apply then says it is
/// no longer held, writes nothing, and the chat file keeps that. The
/// second window's sidecar is held back (a wrapper waiting on a FIFO) until
/// after Apply is pressed: a request made while the model link starts
/// waits for it instead of failing, and so does the model picker.
fn a_proposal_from_before_a_restart_says_it_is_no_longer_held(
    environment: &Environment,
) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let config = tempfile::tempdir()?;
    std::fs::write(config.path().join("settings.json"), r#"{"dryRun": true}"#)?;
    let server = ScriptedServer::with_models(
        vec![
            Reply::sse(&[
                &write_call(0, "call_1", ".prompts/plan/db.md", "# Database"),
                "[DONE]",
            ]),
            Reply::sse(&[&text("Proposed the plan."), "[DONE]"]),
        ],
        &["test-model"],
    );
    let url = server.url();
    let config_dir = config.path().display().to_string();
    let root = workspace.path();
    let args = [
        "--model-url",
        url.as_str(),
        "--config-dir",
        config_dir.as_str(),
    ];
    environment.with_app_args(root, &args, async |session: &Session| {
        session.find("#nav-chat").await?.click().await?;
        send_chat(session, "Plan the database").await?;
        session
            .wait_for_text("#chat-transcript", |text| {
                text.contains("Proposed the plan.")
            })
            .await?;
        session
            .wait_for_text(".chat-write.proposed", |text| {
                text.contains("waits for your approval")
            })
            .await?;
        Ok(())
    })?;
    let gate = config.path().join("sidecar-gate");
    let status = std::process::Command::new("mkfifo").arg(&gate).status()?;
    ensure!(status.success(), "mkfifo: {status}");
    let held = config.path().join("held-sidecar");
    wrap(
        &held,
        &environment.binaries.sidecar,
        // At most 30 s, so a failed trial leaves no process behind.
        &format!(
            "timeout 30 sh -c 'read go < \"$1\"' sh '{}'\n",
            gate.display()
        ),
    )?;
    let held_path = held.display().to_string();
    let held_args = [args.as_slice(), &["--sidecar", held_path.as_str()]].concat();
    environment.with_app_args(root, &held_args, async |session: &Session| {
        session.client.execute(CAPTURE_ERRORS, vec![]).await?;
        session.find("#nav-chat").await?.click().await?;
        session
            .wait_for_text(".chat-write.proposed", |text| {
                text.contains(".prompts/plan/db.md") && text.contains("waits for your approval")
            })
            .await?;
        let health = session.find("#sidecar-health").await?.text().await?;
        ensure!(health == "starting the model link…", "{health:?}");
        session.find(".proposal-apply").await?.click().await?;
        // Pressed while the sidecar is held back: the press waits.
        crate::harness::until("Apply waits", switchboard_e2e::WAIT, || async {
            let disabled = session
                .find(".proposal-apply")
                .await?
                .attr("disabled")
                .await?;
            Ok(disabled.map(|_| ()))
        })
        .await?;
        ensure!(
            session.texts("#chat-error").await?.is_empty(),
            "nothing failed while the model link starts"
        );
        // Let the sidecar start: the wrapper's `read` takes this line.
        let opened = std::thread::spawn(move || std::fs::write(&gate, "go\n"));
        session
            .wait_for_text(".chat-write.proposed", |text| {
                text.contains("no longer held")
            })
            .await?;
        opened
            .join()
            .map_err(|_| anyhow::anyhow!("the gate's writer panicked"))??;
        ensure!(
            session.texts(".proposal-apply").await?.is_empty(),
            "nothing left to apply"
        );
        // The model picker asked while the link started, and got the list.
        session
            .wait_for_text("#chat-model", |text| text.contains("test-model"))
            .await?;
        ensure!(
            session.texts("#chat-error").await?.is_empty(),
            "no error shown"
        );
        let errors = page_errors(session).await?;
        ensure!(errors.is_empty(), "the page logged errors: {errors:?}");
        Ok(())
    })?;
    ensure!(
        !root.join(".prompts/plan/db.md").exists(),
        "nothing was written"
    );
    let kept = active_chat(root)?;
    let outcome = &kept["messages"][1]["writes"][0]["settled"]["outcome"];
    ensure!(outcome == "expired", "{kept}");
    Ok(())
}

/// The shell lines that set `environment`.
fn exports(environment: &[(&str, String)]) -> String {
    environment
        .iter()
        .map(|(key, value)| format!("export {key}='{value}'\n"))
        .collect()
}

/// Makes `wrapper` a script that runs the shell lines `before`, then
/// `binary` with the script's arguments.
fn wrap(wrapper: &Path, binary: &Path, before: &str) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(
        wrapper,
        format!("#!/bin/sh\n{before}exec '{}' \"$@\"\n", binary.display()),
    )?;
    std::fs::set_permissions(wrapper, std::fs::Permissions::from_mode(0o755))?;
    Ok(())
}

/// A Planning turn in the window over `root` with the settings in `config`
/// (an agent backend whose model writes `.prompts/plan/search.md` and
/// `src/search.rs`, then answers): the header says "via `label`", the
/// answer and both writes show, Settings show the backend choice `chosen`
/// (`""`: the first that works), and coming back to Chat the answer and
/// the backend are still there; only the allowed file was written.
fn agent_backend_trial(
    environment: &Environment,
    root: &Path,
    config: &Path,
    label: &str,
    chosen: &str,
) -> Result<()> {
    let config_dir = config.display().to_string();
    let via = format!("via {label}");
    environment.with_app_args(
        root,
        &["--config-dir", &config_dir],
        async |session: &Session| {
            session.client.execute(CAPTURE_ERRORS, vec![]).await?;
            session.find("#nav-chat").await?.click().await?;
            let backend = session
                .wait_for_text("#chat-backend", |text| !text.is_empty())
                .await?;
            ensure!(backend == via, "{backend:?}");
            // The picker offers the agent's models, its own default chosen
            // (the stored model is another backend's).
            let picked = format!("{label}'s default");
            crate::harness::until("the agent's default picked", switchboard_e2e::WAIT, || async {
                let options = session
                    .client
                    .execute(
                        "const s = document.querySelector('#chat-model'); \
                         return s ? [s.options[s.selectedIndex].text, s.options.length] : null;",
                        vec![],
                    )
                    .await?;
                Ok((options[0] == picked.as_str() && options[1].as_u64() > Some(1)).then_some(()))
            })
            .await?;
            session.find("#chat-mode-planning").await?.click().await?;
            send_chat(session, "Plan the search").await?;
            session
                .wait_for_text("#chat-transcript", |text| {
                    text.contains("The search plan is in .prompts/plan/search.md.")
                })
                .await?;
            let applied = session
                .wait_for_text(".chat-write.applied", |text| !text.is_empty())
                .await?;
            ensure!(applied.contains(".prompts/plan/search.md"), "{applied:?}");
            let refused = session
                .wait_for_text(".chat-write.refused", |text| !text.is_empty())
                .await?;
            ensure!(refused.contains("src/search.rs"), "{refused:?}");
            // The backend label leads to Settings, where it is chosen; back
            // in Chat, the answer and the backend are still shown.
            session.find("#chat-backend").await?.click().await?;
            // The view shows the stored choice once it has read the file.
            crate::harness::until(
                "the backend choice checked",
                switchboard_e2e::WAIT,
                || async {
                    let checked = session
                        .client
                        .execute(
                            "const r = document.querySelector('input[name=settings-backend]:checked'); \
                             return r ? r.value : null;",
                            vec![],
                        )
                        .await?;
                    Ok((checked == chosen).then_some(()))
                },
            )
            .await?;
            session.find("#nav-chat").await?.click().await?;
            session
                .wait_for_text("#chat-transcript", |text| {
                    text.contains("The search plan is in .prompts/plan/search.md.")
                })
                .await?;
            session
                .wait_for_text("#chat-backend", |text| text == via)
                .await?;
            // The turn's writes came back with it, from the chat file.
            let applied = session
                .wait_for_text(".chat-write.applied", |text| !text.is_empty())
                .await?;
            ensure!(applied.contains(".prompts/plan/search.md"), "{applied:?}");
            let refused = session
                .wait_for_text(".chat-write.refused", |text| !text.is_empty())
                .await?;
            ensure!(refused.contains("src/search.rs"), "{refused:?}");
            let errors = page_errors(session).await?;
            ensure!(errors.is_empty(), "the page logged errors: {errors:?}");
            Ok(())
        },
    )?;
    ensure!(
        std::fs::read_to_string(root.join(".prompts/plan/search.md"))? == "# Search\n",
        "the permitted write landed"
    );
    ensure!(
        !root.join("src/search.rs").exists(),
        "nothing was written to src/"
    );
    Ok(())
}

fn planning_chat_streams_applies_and_refuses_writes(environment: &Environment) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let server = ScriptedServer::with_models(
        vec![
            Reply::sse(&[
                &write_call(
                    0,
                    "call_1",
                    ".prompts/plan/login.md",
                    "# Login\n\nEmail and password.",
                ),
                &write_call(1, "call_2", "src/login.rs", "fn login() {}"),
                "[DONE]",
            ]),
            Reply::sse(&[
                &text("The login plan is in "),
                &text(".prompts/plan/login.md."),
                &text(
                    "<!-- CONVERSATION_SUMMARY_START -->{\"decisions\": [\"Email and password login\"]}<!-- CONVERSATION_SUMMARY_END -->",
                ),
                "[DONE]",
            ]),
        ],
        &["test-model"],
    );
    let url = server.url();
    environment.with_app_args(
        workspace.path(),
        &["--model-url", &url],
        async |session: &Session| {
            session.find("#nav-chat").await?.click().await?;
            session.find("#chat-mode-planning").await?.click().await?;
            send_chat(session, "Plan the login page").await?;

            let transcript = session
                .wait_for_text("#chat-transcript", |text| {
                    text.contains("The login plan is in .prompts/plan/login.md.")
                })
                .await?;
            ensure!(
                !transcript.contains("CONVERSATION_SUMMARY"),
                "the summary block never shows: {transcript:?}"
            );
            let applied = session
                .wait_for_text(".chat-write.applied", |text| !text.is_empty())
                .await?;
            ensure!(applied.contains(".prompts/plan/login.md"), "{applied:?}");
            let refused = session
                .wait_for_text(".chat-write.refused", |text| !text.is_empty())
                .await?;
            ensure!(
                refused.contains("src/login.rs") && refused.contains("planning"),
                "the refusal says why: {refused:?}"
            );
            session
                .wait_for_text("#chat-memory", |text| {
                    text.contains("Email and password login")
                })
                .await?;
            let inspector = session
                .wait_for_text("#chat-inspector", |text| text.contains("tokens sent"))
                .await?;
            ensure!(
                inspector.contains("base prompt") && inspector.contains("new message"),
                "{inspector:?}"
            );
            environment.screenshot("chat.png")?;
            Ok(())
        },
    )?;
    ensure!(
        std::fs::read_to_string(workspace.path().join(".prompts/plan/login.md"))?
            == "# Login\n\nEmail and password.",
        "the permitted write landed"
    );
    ensure!(
        !workspace.path().join("src/login.rs").exists(),
        "nothing was written to src/"
    );
    Ok(())
}

/// The developer leaves the Chat view while an answer streams, as one
/// does to answer an agent, and comes back: the message and the answer so
/// far are there, the rest streams in (once), Stop is still offered; a
/// turn that ends while the view is closed shows whole on return, and one
/// that fails shows its message and why, and gives the message back to
/// the box, whose text outlives the view.
fn leaving_the_chat_mid_answer_and_coming_back_keeps_the_turn(
    environment: &Environment,
) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let (held, held_while_away) = (Gate::default(), Gate::default());
    let server = ScriptedServer::with_models(
        vec![
            Reply::sse(&[&text("One."), "[DONE]"]),
            Reply::sse_gated(
                &[&text("Part one. ")],
                &held,
                &[&text("Part two."), "[DONE]"],
            ),
            Reply::sse_gated(
                &[&text("Begun. ")],
                &held_while_away,
                &[&text("Ended while away."), "[DONE]"],
            ),
            Reply::status(500, r#"{"error": {"message": "the model fell over"}}"#),
        ],
        &["test-model"],
    );
    let url = server.url();
    let saved_messages = |count: usize| {
        let workspace = workspace.path().to_owned();
        move || {
            Ok(active_chat(&workspace)?["messages"]
                .as_array()
                .is_some_and(|messages| messages.len() == count))
        }
    };
    environment.with_app_args(
        workspace.path(),
        &["--model-url", &url],
        async |session: &Session| {
            session.client.execute(CAPTURE_ERRORS, vec![]).await?;
            go(session, "chat").await?;
            send_chat(session, "First question").await?;
            session
                .wait_for_text("#chat-transcript", |text| text.contains("One."))
                .await?;
            send_chat(session, "Second question").await?;
            session
                .wait_for_text("#chat-streaming", |text| text.contains("Part one."))
                .await?;

            go(session, "inbox").await?;
            go(session, "chat").await?;
            let back = session
                .wait_for_text("#chat-streaming", |text| text.contains("Part one."))
                .await?;
            ensure!(!back.contains("Part two."), "still held: {back:?}");
            let transcript = session.find("#chat-transcript").await?.text().await?;
            ensure!(
                transcript.contains("First question")
                    && transcript.contains("One.")
                    && transcript.matches("Second question").count() == 1,
                "the chat and the turn under way, once: {transcript:?}"
            );
            session.find("#chat-stop").await?;
            held.open();
            let ended = session
                .wait_for_text("#chat-transcript", |text| {
                    text.contains("Part one. Part two.") && !text.contains('▍')
                })
                .await?;
            ensure!(
                ended.matches("Second question").count() == 1
                    && ended.matches("Part one.").count() == 1,
                "each part once: {ended:?}"
            );
            session.find("#chat-send").await?;

            // A turn that ends while the view is closed.
            send_chat(session, "Third question").await?;
            session
                .wait_for_text("#chat-streaming", |text| text.contains("Begun."))
                .await?;
            go(session, "inbox").await?;
            held_while_away.open();
            eventually("the third turn is saved", saved_messages(6)).await?;
            go(session, "chat").await?;
            let whole = session
                .wait_for_text("#chat-transcript", |text| {
                    text.contains("Begun. Ended while away.")
                })
                .await?;
            ensure!(
                whole.matches("Third question").count() == 1 && !whole.contains('▍'),
                "{whole:?}"
            );

            // A turn that fails: not saved, yet its message and why stay.
            send_chat(session, "Fourth question").await?;
            go(session, "inbox").await?;
            go(session, "chat").await?;
            let failed = session
                .wait_for_text(".chat-failed", |text| !text.is_empty())
                .await?;
            ensure!(failed.contains("500"), "{failed:?}");
            let transcript = session.find("#chat-transcript").await?.text().await?;
            ensure!(
                transcript.matches("Fourth question").count() == 1,
                "{transcript:?}"
            );
            ensure!(
                saved_messages(6)()?,
                "a failed turn is not saved as if answered"
            );
            // Its message is back in the box, to send again; what is
            // written there outlives the view.
            let input = session.find("#chat-input").await?;
            ensure!(
                input.prop("value").await?.as_deref() == Some("Fourth question"),
                "the failed message is given back"
            );
            input.send_keys(", once more").await?;
            go(session, "knowledge").await?;
            go(session, "chat").await?;
            let kept = session.find("#chat-input").await?.prop("value").await?;
            ensure!(
                kept.as_deref() == Some("Fourth question, once more"),
                "the draft is kept: {kept:?}"
            );
            let errors = page_errors(session).await?;
            ensure!(errors.is_empty(), "the page logged errors: {errors:?}");
            Ok(())
        },
    )
}

/// The active chat file, parsed.
fn active_chat(workspace: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(workspace.join(".naide/chatsessions/chat-active.json"))
        .context("no active chat")?;
    Ok(serde_json::from_str(&text)?)
}

fn approval_memory_stop_history_and_settings(environment: &Environment) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let config = tempfile::tempdir()?;
    std::fs::write(config.path().join("settings.json"), r#"{"dryRun": true}"#)?;
    let words: Vec<String> = (0..40).map(|n| text(&format!("word{n} "))).collect();
    let mut slow: Vec<&str> = words.iter().map(String::as_str).collect();
    slow.push("[DONE]");
    let server = ScriptedServer::with_models(
        vec![
            Reply::sse(&[
                &write_call(
                    0,
                    "call_1",
                    ".prompts/plan/db.md",
                    "# Database\n\nPostgres.",
                ),
                "[DONE]",
            ]),
            Reply::sse(&[
                &text("Proposed **the plan**."),
                &text(
                    "<!-- CONVERSATION_SUMMARY_START -->{\"decisions\": [\"Use Postgres\"], \"openQuestions\": [\"Which region?\"]}<!-- CONVERSATION_SUMMARY_END -->",
                ),
                "[DONE]",
            ]),
            Reply::sse_slow(&slow, Duration::from_millis(250)),
            Reply::sse(&[&text("A fresh start."), "[DONE]"]),
        ],
        &["test-model", "other-model"],
    );
    let url = server.url();
    let config_dir = config.path().display().to_string();
    let root = workspace.path();
    environment.with_app_args(
        root,
        &["--model-url", &url, "--config-dir", &config_dir],
        async |session: &Session| {
            session.client.execute(CAPTURE_ERRORS, vec![]).await?;
            session.find("#nav-chat").await?.click().await?;
            send_chat(session, "Plan the database").await?;

            // Dry run: the write waits for approval, then lands.
            let proposed = session
                .wait_for_text(".chat-write.proposed", |text| {
                    text.contains("waits for your approval")
                })
                .await?;
            ensure!(proposed.contains(".prompts/plan/db.md"), "{proposed:?}");
            session
                .wait_for_text("#chat-transcript", |text| {
                    text.contains("Proposed the plan.")
                })
                .await?;
            let bold = session.texts(".chat-message.markdown strong").await?;
            ensure!(
                bold == ["the plan"],
                "model messages are rendered markdown: {bold:?}"
            );
            ensure!(
                !root.join(".prompts/plan/db.md").exists(),
                "nothing before approval"
            );
            session.find(".proposal-apply").await?.click().await?;
            session
                .wait_for_text(".chat-write.proposed", |text| {
                    text.contains("applied (21 bytes)")
                })
                .await?;
            ensure!(
                std::fs::read_to_string(root.join(".prompts/plan/db.md"))?
                    == "# Database\n\nPostgres.",
                "the approved write landed"
            );
            // Away and back: the chat file kept the proposal and its fate.
            session.find("#nav-settings").await?.click().await?;
            session.find("#settings-model-url").await?;
            session.find("#nav-chat").await?.click().await?;
            session
                .wait_for_text(".chat-write.proposed", |text| {
                    text.contains(".prompts/plan/db.md") && text.contains("applied (21 bytes)")
                })
                .await?;

            // Memory: add a constraint, edit a decision, and while the edit
            // is open pin the open question (the lists are drawn again:
            // the edit keeps what was typed), then save the edit.
            session
                .wait_for_text("#memory-decisions", |text| text.contains("Use Postgres"))
                .await?;
            session
                .find("#memory-constraints .memory-add")
                .await?
                .send_keys(&format!("Budget under 100 USD{}", char::from(Key::Enter)))
                .await?;
            session
                .wait_for_text("#memory-constraints", |text| {
                    text.contains("Budget under 100 USD")
                })
                .await?;
            session
                .find("#memory-decisions .edit-entry")
                .await?
                .click()
                .await?;
            let editor = session.find("#memory-decisions .memory-edit").await?;
            editor.clear().await?;
            editor.send_keys("Use Postgres 16").await?;
            session
                .find("#memory-openQuestions .pin-entry")
                .await?
                .click()
                .await?;
            eventually("the pin is saved", || {
                Ok(active_chat(root)?["summary"]["pinned"] == serde_json::json!(["Which region?"]))
            })
            .await?;
            session
                .wait_for_text("#memory-openQuestions .pin-entry", |text| text == "★")
                .await?;
            // And another decision added to the same list meanwhile.
            session
                .find("#memory-decisions .memory-add")
                .await?
                .send_keys(&format!("Cache in Redis{}", char::from(Key::Enter)))
                .await?;
            session
                .wait_for_text("#memory-decisions", |text| text.contains("Cache in Redis"))
                .await?;
            let editor = session.find("#memory-decisions .memory-edit").await?;
            let kept = editor.prop("value").await?;
            ensure!(
                kept.as_deref() == Some("Use Postgres 16"),
                "the edit outlives the lists drawn again: {kept:?}"
            );
            editor.send_keys(&Key::Enter.to_string()).await?;
            eventually("the edits are saved", || {
                let summary = &active_chat(root)?["summary"];
                Ok(
                    summary["constraints"] == serde_json::json!(["Budget under 100 USD"])
                        && summary["decisions"]
                            == serde_json::json!(["Use Postgres 16", "Cache in Redis"]),
                )
            })
            .await?;

            session
                .wait_for_text("#memory-decisions", |text| text.contains("Use Postgres 16"))
                .await?;
            environment.screenshot("chat-memory.png")?;

            // Stop: the slow answer ends at once and what arrived is kept.
            send_chat(session, "Go on").await?;
            session
                .wait_for_text("#chat-streaming", |text| text.contains("word1 "))
                .await?;
            session.find("#chat-stop").await?.click().await?;
            session
                .wait_for_text(".chat-stopped", |text| text.contains("Stopped"))
                .await?;
            session.find("#chat-send").await?;
            let transcript = session.wait_for_text("#chat-transcript", |_| true).await?;
            ensure!(
                !transcript.contains("word39"),
                "the stream was cut: {transcript:?}"
            );
            eventually("the stopped turn is saved", || {
                let messages = active_chat(root)?["messages"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                Ok(messages.len() == 4
                    && messages[3]["content"]
                        .as_str()
                        .is_some_and(|t| t.starts_with("word0"))
                    && messages[3]["stopped"] == true)
            })
            .await?;
            ensure!(
                active_chat(root)?["summary"]["pinned"] == serde_json::json!(["Which region?"]),
                "turns keep the developer's pins"
            );

            // New chat, then back to the first one through the history.
            let first_id = active_chat(root)?["id"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            session.find("#chat-new").await?.click().await?;
            session
                .wait_for_text("#chat-transcript", |text| text.trim().is_empty())
                .await?;
            send_chat(session, "Start over").await?;
            session
                .wait_for_text("#chat-transcript", |text| text.contains("A fresh start."))
                .await?;
            session.find("#chat-history-toggle").await?.click().await?;
            session
                .wait_for_text("#chat-history", |text| text.contains("Plan the database"))
                .await?;
            session
                .find(&format!("[data-session='{first_id}'] .chat-history-open"))
                .await?
                .click()
                .await?;
            session
                .wait_for_text("#chat-transcript", |text| {
                    text.contains("Plan the database")
                })
                .await?;
            ensure!(
                active_chat(root)?["id"] == first_id.as_str(),
                "the first chat is active again"
            );
            // Opened again, the stopped answer still says it was stopped.
            session
                .wait_for_text(".chat-stopped", |text| text.contains("Stopped"))
                .await?;
            session
                .wait_for_text("#memory-decisions", |text| text.contains("Use Postgres 16"))
                .await?;
            session.find("#chat-history-toggle").await?.click().await?;
            session
                .find(&format!("[data-session='{first_id}'] .chat-history-trash"))
                .await?
                .click()
                .await?;
            session
                .wait_for_text("#chat-history", |text| !text.contains("Plan the database"))
                .await?;
            let trash = root.join(".naide/chatsessions/trash");
            ensure!(
                std::fs::read_dir(&trash)?.count() == 1,
                "the chat went to the trash, not away"
            );

            // The model picker lists the server's models and stores the choice.
            session
                .wait_for_text("#chat-model", |text| text.contains("other-model"))
                .await?;
            session
                .find("#chat-model option[value='other-model']")
                .await?
                .click()
                .await?;
            let settings_file = config.path().join("settings.json");
            eventually("the model choice is saved", || {
                let settings: Value =
                    serde_json::from_str(&std::fs::read_to_string(&settings_file)?)?;
                Ok(settings["model"] == "other-model" && settings["dryRun"] == true)
            })
            .await?;

            // The settings view shows the file, the override and saves edits.
            session.find("#nav-settings").await?.click().await?;
            let overrides = session
                .wait_for_text("#settings-overrides", |text| !text.is_empty())
                .await?;
            ensure!(
                overrides.contains("--model-url overrides modelUrl"),
                "{overrides:?}"
            );
            session.wait_for_text("#settings-model", |_| true).await?;
            session
                .find("#settings-idle")
                .await?
                .send_keys("45")
                .await?;
            // 0: program sessions never end for being idle.
            session
                .find("#settings-session-idle")
                .await?
                .send_keys("0")
                .await?;
            session.find("#settings-dry-run").await?.click().await?;
            session.find("#settings-save").await?.click().await?;
            session
                .wait_for_text("#settings-note", |text| text.starts_with("Saved"))
                .await?;
            let settings: Value = serde_json::from_str(&std::fs::read_to_string(&settings_file)?)?;
            ensure!(
                settings["idleSecs"] == 45
                    && settings["sessionIdleSecs"] == 0
                    && settings["dryRun"] == false
                    && settings["model"] == "other-model",
                "{settings}"
            );
            environment.screenshot("settings.png")?;
            let errors = page_errors(session).await?;
            ensure!(errors.is_empty(), "the page logged errors: {errors:?}");
            Ok(())
        },
    )
}

/// `expression` of the transcript list `t`, a number.
async fn transcript_number(session: &Session, expression: &str) -> Result<f64> {
    let value = session
        .client
        .execute(
            &format!("const t = document.getElementById('chat-transcript'); return {expression};"),
            vec![],
        )
        .await?;
    value
        .as_f64()
        .with_context(|| format!("{expression} is not a number: {value}"))
}

/// Where an element's bottom edge is, and the window's height.
async fn bottom_and_height(session: &Session, css: &str) -> Result<(f64, f64)> {
    let answer = session
        .client
        .execute(
            "const r = document.querySelector(arguments[0]).getBoundingClientRect(); \
             return [r.bottom, window.innerHeight];",
            vec![css.into()],
        )
        .await?;
    let pair: (f64, f64) = serde_json::from_value(answer)?;
    Ok(pair)
}

fn a_long_answer_keeps_the_composer_in_view_and_esc_stops_it(
    environment: &Environment,
) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    // A model that rambles: long lines, slowly, far past one screen.
    let lines: Vec<String> = (0..400)
        .map(|n| text(&format!("Line {n} of an answer that goes on and on.\n")))
        .collect();
    let chunks: Vec<&str> = lines.iter().map(String::as_str).collect();
    let server = ScriptedServer::with_models(
        vec![Reply::sse_slow(&chunks, Duration::from_millis(20))],
        &["test-model"],
    );
    let url = server.url();
    environment.with_app_args(
        workspace.path(),
        &["--model-url", &url],
        async |session: &Session| {
            session.find("#nav-chat").await?.click().await?;
            send_chat(session, "Ramble").await?;
            // Well past a screenful has streamed in.
            session
                .wait_for_text("#chat-streaming", |text| text.contains("Line 120 "))
                .await?;
            let (stop_bottom, height) = bottom_and_height(session, "#chat-stop").await?;
            ensure!(
                stop_bottom <= height,
                "Stop stays in view: its bottom at {stop_bottom} of {height}"
            );
            let (side_bottom, _) = bottom_and_height(session, "#chat-memory").await?;
            ensure!(side_bottom <= height, "the memory panel stays in view");
            let follows =
                transcript_number(session, "t.scrollHeight - t.scrollTop - t.clientHeight").await?;
            ensure!(
                follows < 200.0,
                "the transcript follows the stream: {follows} px from its end"
            );
            // A reader who scrolls up is not pulled back down.
            session
                .client
                .execute(
                    "document.getElementById('chat-transcript').scrollTop = 0",
                    vec![],
                )
                .await?;
            session
                .wait_for_text("#chat-streaming", |text| text.contains("Line 200 "))
                .await?;
            let top = transcript_number(session, "t.scrollTop").await?;
            ensure!(
                top < 50.0,
                "the stream left the reader where they were: scrollTop {top}"
            );
            session
                .find("#chat-input")
                .await?
                .send_keys(&char::from(Key::Escape).to_string())
                .await?;
            session
                .wait_for_text(".chat-stopped", |text| text.contains("Stopped"))
                .await?;
            Ok(())
        },
    )
}
