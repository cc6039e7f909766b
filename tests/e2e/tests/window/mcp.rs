//! An agent on `switchboard mcp` as the developer sees it: a question asked
//! through the MCP server stands in the alert bar; when the agent's client
//! gives up on the call, the question stays there for the developer, and
//! the agent asking the same again gets the answer given meanwhile; a
//! question asked with an elicitation schema is a form filled in the
//! window, whose answer reaches the agent as elicitation content.

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
            "mcp::a_question_its_client_gave_up_on_stays_and_its_answer_reaches_the_agent_that_asks_again",
            a_question_its_client_gave_up_on_stays_and_its_answer_reaches_the_agent_that_asks_again,
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

fn a_question_its_client_gave_up_on_stays_and_its_answer_reaches_the_agent_that_asks_again(
    environment: &Environment,
) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let root = workspace.path().to_owned();
    let mut agent = Agent::start(environment, workspace.path())?;
    let ask = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "ask",
        "arguments": {"title": "Drop the legacy API?", "content": "Three callers remain.",
                      "schema": {"type": "confirm", "prompt": "Drop it?"}}}})
    };
    environment.with_app(workspace.path(), async |session: &Session| {
        session.find("#view-inbox").await?;
        session.client.execute(CAPTURE_ERRORS, vec![]).await?;
        agent.send(&ask(2))?;
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

        // The agent's client gives up on the call (its own timeout) while
        // the developer is in another view; the server notes it.
        session.find("#nav-team").await?.click().await?;
        session.find("#view-team").await?;
        agent.send(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                           "params": {"requestId": 2, "reason": "request timed out"}}),
        )?;
        let sessions = root.join(".visual-delivery/data/sessions.json");
        let deadline = std::time::Instant::now() + switchboard_e2e::WAIT;
        while !std::fs::read_to_string(&sessions)?.contains("left_at") {
            ensure!(
                std::time::Instant::now() < deadline,
                "the server never noted that its asker left"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        // Back in the inbox, the question still stands, waiting.
        session.find("#nav-inbox").await?.click().await?;
        session
            .wait_for_text("#blocking-alert", |text| {
                text.contains("Drop the legacy API?")
            })
            .await?;
        ensure!(
            session
                .texts(&format!(
                    "#inbox-list .delivery[data-id='{id}'] .badge.status-withdrawn"
                ))
                .await?
                .is_empty(),
            "not withdrawn"
        );
        open_delivery(session, &id).await?;
        session.find("#feedback-confirm").await?.click().await?;
        session
            .wait_for_text("#delivery-status", |text| text == "completed")
            .await?;
        let errors = page_errors(session).await?;
        ensure!(errors.is_empty(), "the page logged errors: {errors:?}");
        Ok(())
    })?;
    // The agent asks the same again: the answer, at once.
    agent.send(&ask(3))?;
    let again = agent.reply(3)?;
    let result = &again["result"]["structuredContent"];
    ensure!(result["status"] == "responded", "{again}");
    ensure!(result["response"] == json!({"value": true}), "{again}");
    drop(agent);
    let output = environment
        .binaries
        .cli(workspace.path())
        .args(["list", "--json"])
        .output()?;
    let listed: Value = serde_json::from_slice(&output.stdout)?;
    ensure!(
        listed.as_array().map(Vec::len) == Some(1),
        "one question, asked twice: {listed}"
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
        if session.find("#feedback-done").await.is_err() {
            let said = session.texts("#feedback-error, .field-error").await?;
            anyhow::bail!("the answer was not taken: {said:?}");
        }
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
