//! Questions answered in the real window: a blocking agent started from the
//! CLI gets the answer given through the form, field messages show before
//! anything is sent, a half-written answer outlives leaving the inbox, and
//! a decline reaches the agent as a decline.

use std::{
    process::{Child, Stdio},
    sync::Arc,
};

use anyhow::{Context, Result, ensure};
use fantoccini::{Locator, key::Key};
use serde_json::{Value, json};
use switchboard_e2e::Session;

use crate::harness::{CAPTURE_ERRORS, Environment, go, page_errors, trial};

pub fn trials(environment: &Arc<Environment>) -> Vec<libtest_mimic::Trial> {
    vec![
        trial(
            environment,
            "questions::blocking_question_is_answered_through_the_form",
            blocking_question_is_answered_through_the_form,
        ),
        trial(
            environment,
            "questions::form_errors_show_inline_and_ctrl_enter_submits",
            form_errors_show_inline_and_ctrl_enter_submits,
        ),
        trial(
            environment,
            "questions::decline_reaches_the_waiting_agent",
            decline_reaches_the_waiting_agent,
        ),
    ]
}

/// Starts a blocking `switchboard deliver` that waits for its answer.
fn ask_blocking(
    environment: &Environment,
    workspace: &std::path::Path,
    title: &str,
    schema: &Value,
) -> Result<Child> {
    environment
        .binaries
        .cli(workspace)
        .args([
            "deliver",
            "--mode",
            "blocking",
            "--title",
            title,
            "--content",
            "Where should I deploy?",
        ])
        .args(["--schema", &schema.to_string(), "--timeout", "120"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("could not start a blocking deliver")
}

/// The one JSON line the agent printed.
fn agent_line(child: Child) -> Result<Value> {
    let output = child.wait_with_output()?;
    ensure!(
        output.status.success(),
        "the agent exited with {}",
        output.status
    );
    Ok(serde_json::from_slice(&output.stdout)?)
}

fn blocking_question_is_answered_through_the_form(environment: &Environment) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    environment.with_app(workspace.path(), async |session: &Session| {
        session.find("#inbox-empty").await?;
        let schema = json!({"type": "select", "prompt": "Target?", "options": ["staging", "production"]});
        let agent = ask_blocking(environment, workspace.path(), "Choose deploy target", &schema)?;
        let alert = session
            .wait_for_text("#blocking-alert", |text| text.contains("Choose deploy target"))
            .await?;
        ensure!(alert.contains("1 agent is waiting"), "the alert bar counts waiting agents: {alert:?}");
        session.find("#blocking-alert .alert-item").await?.click().await?;
        session.wait_for_text("#delivery-title", |text| text == "Choose deploy target").await?;
        session.find("#feedback-form input[value='staging']").await?.click().await?;
        session.find("#feedback-submit").await?.click().await?;

        let line = agent_line(agent)?;
        ensure!(
            line == json!({"status": "responded", "delivery_id": line["delivery_id"], "response": {"value": "staging"}}),
            "the agent prints the answer: {line}"
        );
        let done = session.wait_for_text("#feedback-done", |text| text.contains("staging")).await?;
        ensure!(done.contains("Answered"), "the view shows the answer: {done:?}");
        session.wait_for_text("#delivery-status", |text| text == "completed").await?;
        ensure!(session.texts("#blocking-alert").await?.is_empty(), "no agent waits any more");
        Ok(())
    })
}

fn form_errors_show_inline_and_ctrl_enter_submits(environment: &Environment) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let schema = json!({"type": "form", "fields": [
        {"name": "priority", "type": "select", "label": "Priority", "options": ["P0", "P1"], "required": true},
        {"name": "notes", "type": "textarea", "label": "Notes", "required": true}
    ]});
    let id = environment
        .binaries
        .cli(workspace.path())
        .args([
            "deliver",
            "--mode",
            "interactive",
            "--title",
            "Triage bug",
            "--content",
            "It crashes.",
        ])
        .args(["--schema", &schema.to_string()])
        .output()?;
    ensure!(id.status.success(), "deliver failed");
    environment.with_app(workspace.path(), async |session: &Session| {
        session.client.execute(CAPTURE_ERRORS, vec![]).await?;
        session.find("#inbox-list .delivery").await?.click().await?;
        let notes = session.find("#field-notes").await?;
        // Ctrl+Enter with nothing filled in: both required fields complain.
        notes.send_keys(&ctrl_enter()).await?;
        let messages = loop_until_errors(session, 2).await?;
        ensure!(
            messages.iter().all(|m| m.contains("required")),
            "{messages:?}"
        );
        ensure!(
            !workspace
                .path()
                .join(".visual-delivery/data/feedback-responses.json")
                .exists(),
            "an invalid answer is never sent"
        );
        session
            .client
            .find(Locator::Css("#field-priority option[value='P1']"))
            .await?
            .click()
            .await?;
        notes.send_keys("Fix before").await?;
        // Half written, the developer looks elsewhere while another
        // delivery arrives, then comes back: the form is as it was left.
        go(session, "knowledge").await?;
        let other = environment
            .binaries
            .deliver(workspace.path(), "Meanwhile", "Body")
            .map_err(|error| anyhow::anyhow!("{error:#}"))?;
        go(session, "inbox").await?;
        session
            .wait_for_text("#inbox-list", |text| text.contains("Meanwhile"))
            .await?;
        session
            .find(&format!("#inbox-list .delivery:not([data-id='{other}'])"))
            .await?
            .click()
            .await?;
        let notes = session.find("#field-notes").await?;
        let (priority, kept) = (
            session.find("#field-priority").await?.prop("value").await?,
            notes.prop("value").await?,
        );
        ensure!(
            priority.as_deref() == Some("P1") && kept.as_deref() == Some("Fix before"),
            "the unsent answer is kept: {priority:?} {kept:?}"
        );
        notes.send_keys(" Friday").await?;
        notes.send_keys(&ctrl_enter()).await?;
        session
            .wait_for_text("#feedback-done", |text| text.contains("Fix before Friday"))
            .await?;
        let errors = page_errors(session).await?;
        ensure!(errors.is_empty(), "the page logged errors: {errors:?}");
        Ok(())
    })?;
    let stored: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(
        workspace
            .path()
            .join(".visual-delivery/data/feedback-responses.json"),
    )?)?;
    ensure!(
        stored[0]["values"] == json!({"priority": "P1", "notes": "Fix before Friday"}),
        "stored in the seed's form shape: {}",
        stored[0]
    );
    Ok(())
}

/// Ctrl+Enter as WebDriver keys: press Control, Enter, release Control.
fn ctrl_enter() -> String {
    [Key::Control, Key::Enter, Key::Control]
        .into_iter()
        .map(char::from)
        .collect()
}

async fn loop_until_errors(session: &Session, count: usize) -> Result<Vec<String>> {
    crate::harness::until(
        &format!("{count} field messages"),
        switchboard_e2e::WAIT,
        || async {
            let messages = session.texts(".field-error").await?;
            Ok((messages.len() == count).then_some(messages))
        },
    )
    .await
}

fn decline_reaches_the_waiting_agent(environment: &Environment) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    environment.with_app(workspace.path(), async |session: &Session| {
        session.find("#inbox-empty").await?;
        let schema = json!({"type": "confirm", "prompt": "Drop the table?"});
        let agent = ask_blocking(
            environment,
            workspace.path(),
            "Dangerous migration",
            &schema,
        )?;
        session
            .find("#blocking-alert .alert-item")
            .await?
            .click()
            .await?;
        session.find("#feedback-decline").await?.click().await?;
        let line = agent_line(agent)?;
        ensure!(
            line["status"] == "declined",
            "a decline is not a 'no' answer nor a dismissal: {line}"
        );
        Ok(())
    })
}
