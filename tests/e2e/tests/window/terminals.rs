//! The Terminals view in the real window: a session an agent starts with
//! the real CLI appears and shows its screen live, also after the view was
//! left and opened again; the developer takes it over (the agent's input is
//! refused meanwhile), types a line into it, hands it back and ends it.

use std::{path::Path, sync::Arc};

use anyhow::{Result, ensure};
use switchboard_e2e::Session;

use crate::harness::{CAPTURE_ERRORS, Environment, page_errors, trial};

pub fn trials(environment: &Arc<Environment>) -> Vec<libtest_mimic::Trial> {
    vec![trial(
        environment,
        "terminals::a_session_shows_live_and_is_taken_over_and_handed_back",
        a_session_shows_live_and_is_taken_over_and_handed_back,
    )]
}

/// `switchboard -C workspace session ARGS…`: its exit status and stdout.
fn session_cli(
    environment: &Environment,
    workspace: &Path,
    args: &[&str],
) -> Result<(i32, String)> {
    let output = environment
        .binaries
        .cli(workspace)
        .arg("session")
        .args(args)
        .current_dir(workspace)
        .output()?;
    Ok((
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).trim().to_owned(),
    ))
}

fn a_session_shows_live_and_is_taken_over_and_handed_back(environment: &Environment) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let root = workspace.path().canonicalize()?;
    let name = format!("calc-{}", std::process::id());
    environment.with_app(&root, async |session: &Session| {
        session.find("#view-inbox").await?;
        session.client.execute(CAPTURE_ERRORS, vec![]).await?;
        session.find("#nav-terminals").await?.click().await?;
        session.find("#view-terminals #terminals-empty").await?;

        // Started by an agent while the view is open: it appears, live.
        let (status, id) = session_cli(
            environment,
            &root,
            &["start", "--name", &name, "--", "python3", "-i", "-q"],
        )?;
        ensure!(status == 0 && id.starts_with("ps-"), "start: {status} {id}");
        session
            .find(&format!(".session-item[data-id='{id}']"))
            .await?;
        session
            .wait_for_text("#terminal-screen", |text| text.contains(">>>"))
            .await?;
        session_cli(environment, &root, &["send", &name, "--line", "print(6*7)"])?;
        session
            .wait_for_text("#terminal-screen", |text| text.contains("42"))
            .await?;

        // Output while the view is left is there on return.
        session.find("#nav-inbox").await?.click().await?;
        session.find("#view-inbox").await?;
        session_cli(
            environment,
            &root,
            &["send", &name, "--line", "print('while away')"],
        )?;
        session_cli(environment, &root, &["wait", &name, "--for", "prompt"])?;
        session.find("#nav-terminals").await?.click().await?;
        session
            .wait_for_text("#terminal-screen", |text| text.contains("while away"))
            .await?;

        // Taken over: the agent waits, the developer types.
        session.find("#terminal-take").await?.click().await?;
        session
            .wait_for_text("#terminal-state", |text| text.contains("you have it"))
            .await?;
        let (status, _) = session_cli(
            environment,
            &root,
            &["send", &name, "--line", "print('agent')"],
        )?;
        ensure!(
            status == 9,
            "the agent's input is refused while taken over: {status}"
        );
        session
            .find("#terminal-line")
            .await?
            .send_keys("print(6*70)")
            .await?;
        session.find("#terminal-send").await?.click().await?;
        let screen = session
            .wait_for_text("#terminal-screen", |text| text.contains("420"))
            .await?;
        ensure!(!screen.contains("agent"), "{screen:?}");
        environment.screenshot("terminals.png")?;

        // Handed back: the agent types again.
        session.find("#terminal-take").await?.click().await?;
        session
            .wait_for_text("#terminal-state", |text| text.contains("agents drive it"))
            .await?;
        let (status, _) = session_cli(
            environment,
            &root,
            &["send", &name, "--line", "print('agent ' * 2)"],
        )?;
        ensure!(status == 0, "the agent types again: {status}");
        session
            .wait_for_text("#terminal-screen", |text| text.contains("agent agent"))
            .await?;

        // Ended from the window.
        session.find("#terminal-end").await?.click().await?;
        session
            .wait_for_text("#terminal-state", |text| text.starts_with("killed"))
            .await?;
        let errors = page_errors(session).await?;
        ensure!(errors.is_empty(), "page errors: {errors:?}");
        Ok(())
    })
}
