//! Saving out of the window: a delivery as markdown and as an HTML page,
//! and a chat as markdown, each through the native save dialog (typed into
//! with xdotool, as a person would) into the file picked — and nowhere
//! else: the webview can write no other file and read none.

use std::{path::Path, sync::Arc};

use anyhow::{Context as _, Result, ensure};
use switchboard_e2e::Session;
use switchboard_model::{
    ContentType, DeliveryMode, NewDelivery,
    chat::{ChatMessage, ChatMode, Role},
    export,
};
use switchboard_store::{Workspace, chats, clock, deliveries};

use crate::harness::{CAPTURE_ERRORS, Environment, open_delivery, page_errors, trial};

pub fn trials(environment: &Arc<Environment>) -> Vec<libtest_mimic::Trial> {
    vec![trial(
        environment,
        "export::a_delivery_and_a_chat_are_saved_where_the_dialog_says_and_nowhere_else",
        a_delivery_and_a_chat_are_saved_where_the_dialog_says_and_nowhere_else,
    )]
}

/// Tries to write `path` and to read `readable` through the fs plugin from
/// the page, as a script in it would; answers what each call said.
const PROBE: &str = r#"
const [path, readable, done] = arguments;
const core = window.__TAURI__.core;
const outcome = (promise) => promise.then(() => 'allowed', (error) => 'refused: ' + String(error));
Promise.all([
  outcome(core.invoke('plugin:fs|write_text_file', new TextEncoder().encode('pwned'),
    {headers: {path: encodeURIComponent(path)}})),
  outcome(core.invoke('plugin:fs|read_text_file', {path: readable})),
]).then(done);
"#;

fn a_delivery_and_a_chat_are_saved_where_the_dialog_says_and_nowhere_else(
    environment: &Environment,
) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let out = tempfile::tempdir()?;
    let store = Workspace::open(workspace.path())?;
    let body =
        "# Steps\n\n1. Build *it*\n\n<script>alert(1)</script><img src=x onerror=alert(2)>\n";
    let id = deliveries::append(
        &store,
        NewDelivery {
            mode: DeliveryMode::Passive,
            title: "Deploy plan: v2".to_owned(),
            content_type: ContentType::Markdown,
            body: body.to_owned(),
            feedback_schema: None,
        },
        clock::now(),
    )?
    .delivery
    .id;
    let mut session = chats::new_session(&store, ChatMode::Planning, clock::now());
    for (n, (role, content)) in [
        (Role::User, "Plan the cache"),
        (Role::Assistant, "1. Measure\n2. Decide"),
    ]
    .into_iter()
    .enumerate()
    {
        session.messages.push(ChatMessage {
            id: format!("m{n}"),
            role,
            content: content.to_owned(),
            timestamp: clock::now(),
            writes: Vec::new(),
            stopped: false,
            extra: Default::default(),
        });
    }
    chats::save_active(&store, &session)?;

    let markdown = out.path().join("plan.md");
    let html = out.path().join("plan.html");
    let chat = out.path().join("chat.md");
    environment.with_app(workspace.path(), async |app: &Session| {
        app.client.execute(CAPTURE_ERRORS, vec![]).await?;
        open_delivery(app, &id).await?;

        // Dismissed: nothing is written, nothing is said.
        app.find("#export-md").await?.click().await?;
        environment.answer_save_dialog("Save as Markdown", None)?;
        app.find("#export-html").await?.click().await?;
        environment.answer_save_dialog("Save as HTML page", Some(&html))?;
        app.wait_for_text("#export-status", |text| text.contains("plan.html"))
            .await?;
        ensure!(!markdown.exists(), "a dismissed dialog wrote nothing");

        app.find("#export-md").await?.click().await?;
        environment.answer_save_dialog("Save as Markdown", Some(&markdown))?;
        app.wait_for_text("#export-status", |text| text.contains("plan.md"))
            .await?;

        let delivery = deliveries::get(&store, &id)?;
        let saved = std::fs::read_to_string(&markdown).context("the markdown file")?;
        ensure!(
            saved == export::delivery_markdown(&delivery),
            "the markdown file is the delivery as written: {saved:?}"
        );
        let page = std::fs::read_to_string(&html).context("the HTML file")?;
        ensure!(page.contains("<title>Deploy plan: v2</title>"), "{page}");
        ensure!(
            page.contains("<em>it</em>") || page.contains(">it</"),
            "the body is rendered: {page}"
        );
        ensure!(
            !page.contains("<script") && !page.contains("onerror"),
            "the page holds the sanitized body only: {page}"
        );
        ensure!(
            page.contains("default-src 'none'"),
            "the page forbids script: {page}"
        );

        // The webview may write the files picked, nothing else, and read none.
        let other = out.path().join("other.txt");
        let probe = app
            .client
            .execute_async(
                PROBE,
                vec![
                    serde_json::Value::from(other.display().to_string()),
                    serde_json::Value::from(markdown.display().to_string()),
                ],
            )
            .await?;
        let said: Vec<String> = serde_json::from_value(probe)?;
        ensure!(
            said[0].starts_with("refused"),
            "writing a file not picked: {said:?}"
        );
        ensure!(
            said[1].starts_with("refused"),
            "reading even a picked file: {said:?}"
        );
        ensure!(
            !other.exists(),
            "no file outside the one picked was written"
        );

        // The chat, as markdown.
        app.find("#nav-chat").await?.click().await?;
        app.wait_for_text("#view-chat", |text| text.contains("Plan the cache"))
            .await?;
        app.find("#chat-export").await?.click().await?;
        environment.answer_save_dialog("Save as Markdown", Some(&chat))?;
        app.wait_for_text("#chat-export-status", |text| text.contains("chat.md"))
            .await?;
        let saved = std::fs::read_to_string(&chat)?;
        let active = chats::active(&store)?.context("the active chat")?;
        ensure!(
            saved == export::chat_markdown(&active),
            "the chat file is the chat: {saved:?}"
        );
        let errors = page_errors(app).await?;
        ensure!(errors.is_empty(), "no page errors: {errors:?}");
        Ok(())
    })?;
    check_only(out.path())
}

/// The folder holds exactly the three exports.
fn check_only(folder: &Path) -> Result<()> {
    let mut names: Vec<String> = std::fs::read_dir(folder)?
        .map(|entry| entry.map(|entry| entry.file_name().to_string_lossy().into_owned()))
        .collect::<Result<_, _>>()?;
    names.sort();
    ensure!(names == ["chat.md", "plan.html", "plan.md"], "{names:?}");
    Ok(())
}
