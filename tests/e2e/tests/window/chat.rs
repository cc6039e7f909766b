//! Chat in the real window: a Planning turn streams from a scripted model
//! server through the app's own sidecar; the permitted write lands in
//! `.prompts/plan/`, the write to `src/` is refused, and both show inline.

use std::sync::Arc;

use anyhow::{Result, ensure};
use switchboard_e2e::Session;

// Shared with the sidecar's client tests; not every helper is used here.
#[allow(dead_code)]
#[path = "../../../../crates/sidecar/tests/model_client/server.rs"]
mod server;

use server::{Reply, ScriptedServer, text_chunk as text, write_file_chunk as write_call};

use crate::harness::{Environment, trial};

pub fn trials(environment: &Arc<Environment>) -> Vec<libtest_mimic::Trial> {
    vec![trial(
        environment,
        "chat::planning_chat_streams_applies_and_refuses_writes",
        planning_chat_streams_applies_and_refuses_writes,
    )]
}

fn planning_chat_streams_applies_and_refuses_writes(environment: &Environment) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let server = ScriptedServer::start(vec![
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
    ]);
    let url = server.url();
    environment.with_app_args(
        workspace.path(),
        &["--model-url", &url],
        async |session: &Session| {
            session.find("#nav-chat").await?.click().await?;
            session
                .wait_for_text("#sidecar-health", |text| text == "model link ready")
                .await?;
            session.find("#chat-mode-planning").await?.click().await?;
            session
                .find("#chat-input")
                .await?
                .send_keys("Plan the login page")
                .await?;
            session.find("#chat-send").await?.click().await?;

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
