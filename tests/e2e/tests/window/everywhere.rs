//! "All workspaces" in the real window: Claude Code (the real CLI, its
//! model scripted on loopback) asks permission in another repository,
//! where no window is open; the window open here counts it in its title,
//! lists it under All workspaces — also when the developer was in another
//! view as it arrived — and the developer allows it right there; Claude
//! Code goes on, and the other repository leaves the list with its agent.

use std::{process::Stdio, sync::Arc};

use anyhow::{Context, Result, ensure};
use serde_json::json;
use switchboard_e2e::Session;
use switchboard_model_server::{
    anthropic::{MessagesServer, Turn},
    claude_code::ClaudeCode,
};

use crate::harness::{CAPTURE_ERRORS, Environment, go, page_errors, trial};

pub fn trials(environment: &Arc<Environment>) -> Vec<libtest_mimic::Trial> {
    vec![trial(
        environment,
        "everywhere::a_question_asked_where_no_window_is_open_is_answered_from_all_workspaces",
        a_question_asked_where_no_window_is_open_is_answered_from_all_workspaces,
    )]
}

fn a_question_asked_where_no_window_is_open_is_answered_from_all_workspaces(
    environment: &Environment,
) -> Result<()> {
    let dir = tempfile::tempdir()?;
    let here = dir.path().join("here");
    let api = dir.path().join("api");
    std::fs::create_dir_all(&here)?;
    std::fs::create_dir_all(api.join("build"))?;
    let (here, api) = (here.canonicalize()?, api.canonicalize()?);
    let installed = environment
        .binaries
        .cli(&api)
        .args(["hooks", "install", "claude-code", "--write"])
        .output()?;
    ensure!(installed.status.success(), "hooks install failed");
    let claude = ClaudeCode::configure(&dir.path().join("claude-config"), &api);
    let server = MessagesServer::start(vec![
        Turn::tool(
            "Bash",
            json!({"command": "rm -rf build", "description": "Remove the build"}),
        ),
        Turn::text("Done."),
    ]);
    let bin = environment
        .binaries
        .cli
        .parent()
        .context("the CLI has a folder")?
        .to_owned();
    let line = format!(
        "#all-workspaces .workspace-line[data-workspace='{}']",
        api.display()
    );
    // The window and the agent's hook share a config folder, as they do
    // by default: the answer's receipt is kept there.
    let config = dir.path().join("config");
    let config_dir = config.display().to_string();
    environment.with_app_args(
        &here,
        &["--config-dir", &config_dir],
        async |session: &Session| {
            session.client.execute(CAPTURE_ERRORS, vec![]).await?;
            go(session, "agents").await?;
            session.find("#all-workspaces-empty").await?;
            // The developer is in the inbox when the agent asks, in a
            // repository with no window of its own.
            go(session, "inbox").await?;
            let mut agent = claude
                .print(&server, "tidy up", &bin)
                .env("SWITCHBOARD_CONFIG_DIR", &config)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()?;
            // The window's title counts it.
            environment
                .xdotool(&[
                    "search",
                    "--sync",
                    "--name",
                    r"^here \(1 waiting\) — Switchboard$",
                ])
                .context("the title names its workspace and counts the question asked elsewhere")?;
            go(session, "agents").await?;
            let shown = session
                .wait_for_text(&line, |text| text.contains("rm -rf build"))
                .await;
            if let Err(error) = shown {
                let _ = agent.kill();
                let output = agent.wait_with_output()?;
                anyhow::bail!(
                    "{error}; claude said: {} {}",
                    String::from_utf8_lossy(&output.stdout),
                    String::from_utf8_lossy(&output.stderr)
                );
            }
            let head = session
                .wait_for_text(&format!("{line} .workspace-head"), |_| true)
                .await?;
            ensure!(
                head.contains("api") && head.contains("asking") && head.contains("1 waiting"),
                "the line names the workspace, why it is listed and what waits: {head:?}"
            );
            let agents = session.texts(&format!("{line} .workspace-agent")).await?;
            ensure!(
                agents.len() == 1
                    && agents[0].contains("Claude Code")
                    && agents[0].contains("needs permission"),
                "its agent waits: {agents:?}"
            );
            environment.screenshot("all-workspaces.png")?;
            // Its own window opens from here, and joins the line; closed, it
            // leaves it again.
            session
                .find(&format!("{line} .open-window"))
                .await?
                .click()
                .await?;
            session
                .wait_for_text(&format!("{line} .line-presences"), |text| {
                    text == "window · asking"
                })
                .await?;
            let opened = api_window(&api)?;
            let stopped = std::process::Command::new("kill")
                .arg(opened.to_string())
                .status()?;
            ensure!(
                stopped.success(),
                "the other window could not be told to stop"
            );
            session
                .wait_for_text(&format!("{line} .line-presences"), |text| text == "asking")
                .await?;
            session
                .find(&format!("{line} .workspace-question"))
                .await?
                .click()
                .await?;
            session
                .wait_for_text("#delivery-title", |text| {
                    text == "Claude Code wants to run `rm -rf build`"
                })
                .await?;
            session
                .wait_for_text("#delivery-back", |text| text.contains("All workspaces"))
                .await?;
            ensure!(
                session.texts("#annotations").await?.is_empty(),
                "annotating stays with the question's own window"
            );
            session.find("#permission-allow").await?.click().await?;
            let output = agent.wait_with_output()?;
            ensure!(
                output.status.success()
                    && String::from_utf8_lossy(&output.stdout).contains("Done."),
                "Claude Code went on: {} {}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
            ensure!(!api.join("build").exists(), "the allowed command ran");
            let answered =
                std::fs::read_to_string(api.join(".visual-delivery/data/deliveries.json"))?;
            ensure!(
                answered.contains("\"completed\""),
                "answered in its own inbox: {answered}"
            );
            ensure!(
                !here.join(".visual-delivery").exists(),
                "nothing was written in this window's workspace"
            );
            // Answered, its agent went on and its workspace left "All
            // workspaces": the page still says what was decided, never that
            // the question went away unanswered.
            session.find("#delivery-answered-kept").await?;
            session
                .wait_for_text("#permission-decision", |text| text == "Allowed")
                .await?;
            ensure!(
                session.texts("#delivery-gone").await?.is_empty(),
                "the answered question reads as gone"
            );
            environment.screenshot("all-workspaces-answered.png")?;
            // Its agent done, the repository leaves the list and the count.
            session.find("#delivery-back").await?.click().await?;
            crate::harness::until(
                "the other workspace leaves the list",
                switchboard_e2e::WAIT,
                || async { Ok(session.texts(&line).await?.is_empty().then_some(())) },
            )
            .await?;
            environment
                .xdotool(&["search", "--sync", "--name", "^here — Switchboard$"])
                .context("the title counts nothing any more")?;
            let errors = page_errors(session).await?;
            ensure!(errors.is_empty(), "the page logged errors: {errors:?}");
            Ok(())
        },
    )
}

/// The process of the window open on `api`, from the registrations of this
/// machine (`switchboard agents --all` lists what they say; the process is
/// in the registration's file name).
fn api_window(api: &std::path::Path) -> Result<u32> {
    let folder = switchboard_store::registry::Registry::locate()
        .map_err(|error| anyhow::anyhow!("{error}"))?;
    let key = switchboard_model::id::workspace_key(api);
    for entry in std::fs::read_dir(folder.folder())? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if let Some(pid) = name
            .strip_prefix(&format!("{key}.window."))
            .and_then(|rest| rest.strip_suffix(".json"))
        {
            return Ok(pid.parse()?);
        }
    }
    anyhow::bail!("no window of {} is registered", api.display())
}
