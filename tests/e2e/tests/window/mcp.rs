//! An agent on `switchboard mcp` as the developer sees it: a question asked
//! through the MCP server stands in the alert bar; when the agent's client
//! cancels the call, the window shows the question withdrawn (never
//! silently gone) and still takes an answer, which is kept; a question
//! asked with an elicitation schema is a form filled in the window, whose
//! answer reaches the agent as elicitation content.

use std::{
    io::{BufRead, BufReader, Write},
    process::{Child, ChildStdin, Stdio},
    sync::Arc,
};

use anyhow::{Context, Result, ensure};
use serde_json::{Value, json};
use switchboard_e2e::Session;

use crate::harness::{CAPTURE_ERRORS, Environment, open_delivery, page_errors, trial};

pub fn trials(environment: &Arc<Environment>) -> Vec<libtest_mimic::Trial> {
    vec![
        trial(
            environment,
            "mcp::a_cancelled_ask_shows_withdrawn_and_still_takes_an_answer",
            a_cancelled_ask_shows_withdrawn_and_still_takes_an_answer,
        ),
        trial(
            environment,
            "mcp::an_elicitation_form_is_filled_in_the_window_and_answers_as_content",
            an_elicitation_form_is_filled_in_the_window_and_answers_as_content,
        ),
    ]
}

/// The MCP server as a client runs it: JSON-RPC lines on its stdin.
struct Agent {
    child: Child,
    stdin: ChildStdin,
    replies: std::sync::mpsc::Receiver<Value>,
}

impl Agent {
    fn start(environment: &Environment, workspace: &std::path::Path) -> Result<Self> {
        let mut child = environment
            .binaries
            .cli(workspace)
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .context("could not start switchboard mcp")?;
        let stdin = child.stdin.take().context("stdin")?;
        let stdout = child.stdout.take().context("stdout")?;
        let (sender, replies) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Ok(message) = serde_json::from_str::<Value>(&line) {
                    let _ = sender.send(message);
                }
            }
        });
        let mut agent = Self {
            child,
            stdin,
            replies,
        };
        agent.send(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "e2e-agent", "version": "1"}}}),
        )?;
        agent.reply(1)?;
        agent.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        Ok(agent)
    }

    fn send(&mut self, message: &Value) -> Result<()> {
        writeln!(self.stdin, "{message}")?;
        self.stdin.flush()?;
        Ok(())
    }

    /// The reply to request `id` (notifications in between are skipped).
    fn reply(&self, id: u64) -> Result<Value> {
        loop {
            let message = self
                .replies
                .recv_timeout(switchboard_e2e::WAIT)
                .context("no reply from the MCP server")?;
            if message["id"] == id {
                return Ok(message);
            }
        }
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn a_cancelled_ask_shows_withdrawn_and_still_takes_an_answer(
    environment: &Environment,
) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let mut agent = Agent::start(environment, workspace.path())?;
    environment.with_app(workspace.path(), async |session: &Session| {
        session.find("#view-inbox").await?;
        session.client.execute(CAPTURE_ERRORS, vec![]).await?;
        agent.send(
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "ask",
            "arguments": {"title": "Drop the legacy API?", "content": "Three callers remain.",
                          "schema": {"type": "confirm", "prompt": "Drop it?"}}}}),
        )?;
        session
            .wait_for_text("#blocking-alert", |text| {
                text.contains("Drop the legacy API?")
            })
            .await?;
        let id = session
            .client
            .execute(
                "return document.querySelector('#inbox-list .delivery').dataset.id",
                vec![],
            )
            .await?;
        let id = id.as_str().context("delivery id")?.to_owned();

        // The agent's client gives up on the call while the developer is
        // in another view; back in the inbox, it shows.
        session.find("#nav-team").await?.click().await?;
        session.find("#view-team").await?;
        agent.send(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                           "params": {"requestId": 2, "reason": "the agent moved on"}}),
        )?;
        session.find("#nav-inbox").await?.click().await?;
        session
            .wait_for_text(
                &format!("#inbox-list .delivery[data-id='{id}'] .badge.status-withdrawn"),
                |text| text == "withdrawn",
            )
            .await?;
        ensure!(
            session.texts("#blocking-alert").await?.is_empty(),
            "no agent waits any more"
        );
        open_delivery(session, &id).await?;
        let notice = session
            .wait_for_text("#delivery-withdrawn", |text| !text.is_empty())
            .await?;
        ensure!(notice.contains("stopped waiting"), "{notice}");

        // Answered anyway, in the window: kept for the agent to read.
        session.find("#feedback-confirm").await?.click().await?;
        session
            .wait_for_text("#delivery-status", |text| text == "completed")
            .await?;
        let errors = page_errors(session).await?;
        ensure!(errors.is_empty(), "the page logged errors: {errors:?}");
        Ok(())
    })?;
    drop(agent);
    let output = environment
        .binaries
        .cli(workspace.path())
        .args(["list", "--json"])
        .output()?;
    let listed: Value = serde_json::from_slice(&output.stdout)?;
    let question = &listed[0];
    ensure!(
        question["status"] == "completed" && question["withdrawn_at"].is_string(),
        "answered after it was withdrawn: {question}"
    );
    let feedback = environment
        .binaries
        .cli(workspace.path())
        .args(["feedback", question["id"].as_str().context("id")?])
        .output()?;
    let feedback: Value = serde_json::from_slice(&feedback.stdout)?;
    ensure!(
        feedback[0]["values"] == json!({"value": true}),
        "{feedback}"
    );
    Ok(())
}

fn an_elicitation_form_is_filled_in_the_window_and_answers_as_content(
    environment: &Environment,
) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let mut agent = Agent::start(environment, workspace.path())?;
    let requested = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Release name", "minLength": 3,
                     "description": "Shown in the changelog"},
            "build": {"type": "integer", "minimum": 1},
            "channels": {"type": "array", "title": "Channels",
                         "items": {"type": "string", "anyOf": [{"const": "beta", "title": "Beta testers"},
                                                              {"const": "stable", "title": "Everyone"}]}},
            "notify": {"type": "boolean", "default": true}
        },
        "required": ["name", "channels"]
    });
    environment.with_app(workspace.path(), async |session: &Session| {
        session.find("#view-inbox").await?;
        session.client.execute(CAPTURE_ERRORS, vec![]).await?;
        agent.send(
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "ask",
            "arguments": {"title": "Name the release", "content": "Build 7 is green.",
                          "requestedSchema": requested}}}),
        )?;
        session
            .find("#blocking-alert .alert-item")
            .await?
            .click()
            .await?;
        let name = session.find("#field-name").await?;
        name.send_keys("v1").await?;
        session.find("#field-build").await?.send_keys("7").await?;
        session.find("#feedback-submit").await?.click().await?;
        session
            .wait_for_text(".field-error", |text| !text.is_empty())
            .await?;
        let mut errors = session.texts(".field-invalid-note, .field.invalid").await?;
        errors.sort();
        ensure!(
            errors.len() == 2
                && errors
                    .iter()
                    .any(|text| text.contains("Channels") && text.contains("is required"))
                && errors.iter().any(|text| text.contains("Release name")
                    && text.contains("must be at least 3 characters")),
            "each field says what is wrong with it: {errors:?}"
        );
        let labels = session.texts("#field-channels .choice span").await?;
        ensure!(
            labels == ["Beta testers", "Everyone"],
            "titles shown: {labels:?}"
        );
        ensure!(
            session.texts(".field-description").await? == ["Shown in the changelog"],
            "the description is shown"
        );
        name.send_keys(".2").await?;
        session
            .find("#field-channels input[value='stable']")
            .await?
            .click()
            .await?;
        session.find("#feedback-submit").await?.click().await?;
        session.find("#feedback-done").await?;
        let errors = page_errors(session).await?;
        ensure!(errors.is_empty(), "the page logged errors: {errors:?}");
        Ok(())
    })?;
    let reply = agent.reply(2)?;
    let answer = &reply["result"]["structuredContent"];
    ensure!(answer["action"] == "accept", "{reply}");
    ensure!(
        answer["content"]
            == json!({"name": "v1.2", "build": 7, "channels": ["stable"], "notify": true}),
        "the answer in elicitation's shape: {answer}"
    );
    Ok(())
}
