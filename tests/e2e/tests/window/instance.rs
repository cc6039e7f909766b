//! One window per workspace: with the window open, a second
//! `switchboard-app` on the same workspace (or `switchboard open`) hands
//! over to it and exits; another workspace gets a window of its own.

use std::{
    io::{BufRead, BufReader},
    path::Path,
    process::{Child, Stdio},
    sync::Arc,
    time::Duration,
};

use anyhow::{Context, Result, bail, ensure};
use switchboard_e2e::Session;

use crate::harness::{Environment, trial};

pub fn trials(environment: &Arc<Environment>) -> Vec<libtest_mimic::Trial> {
    vec![
        trial(
            environment,
            "instance::a_second_launch_hands_over_and_another_workspace_opens_its_own",
            a_second_launch_hands_over_and_another_workspace_opens_its_own,
        ),
        trial(
            environment,
            "instance::the_window_comes_back_where_it_was_and_is_saved_when_stopped",
            the_window_comes_back_where_it_was_and_is_saved_when_stopped,
        ),
    ]
}

fn the_window_comes_back_where_it_was_and_is_saved_when_stopped(
    environment: &Environment,
) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let config = tempfile::tempdir()?;
    let config_dir = config.path().display().to_string();
    // A size and place kept from last time.
    let state = config.path().join("window-state.json");
    std::fs::write(
        &state,
        r#"{"main":{"width":1000,"height":640,"x":40,"y":30,"prev_x":40,"prev_y":30,
            "maximized":false,"visible":true,"decorated":true,"fullscreen":false}}"#,
    )?;
    environment.with_app_args(
        workspace.path(),
        &["--config-dir", &config_dir],
        async |session: &Session| {
            session.find("#view-inbox").await?;
            let (x, y, width, height) = session.client.get_window_rect().await?;
            ensure!(
                (width, height) == (1000, 640) && (x, y) == (40, 30),
                "the window opens as it was left: {x},{y} {width}×{height}"
            );
            Ok(())
        },
    )?;

    // Stopped by the session (SIGTERM): the state is written on the way out.
    std::fs::remove_file(&state)?;
    let path = workspace.path().display().to_string();
    let mut app = environment
        .app_command(&[&path, "--config-dir", &config_dir])
        .stderr(Stdio::piped())
        .spawn()?;
    let stderr = app.stderr.take().context("stderr")?;
    let (painted, paint) = std::sync::mpsc::channel();
    // Read to the end: the app keeps logging on its way out.
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.contains("first paint") {
                let _ = painted.send(());
            }
        }
    });
    ensure!(
        paint.recv_timeout(Duration::from_secs(60)).is_ok(),
        "the app never painted"
    );
    let stopped = std::process::Command::new("kill")
        .args(["-TERM", &app.id().to_string()])
        .status()?;
    ensure!(stopped.success());
    let status = exited(app, Duration::from_secs(20))?;
    if status.is_none() {
        bail!("SIGTERM did not end the app");
    }
    let saved = std::fs::read_to_string(&state).context("no window state written")?;
    ensure!(saved.contains("\"main\""), "{saved}");
    Ok(())
}

/// Waits for `child` to exit — a thread waits on it, as its parent — and
/// returns its status; `None` when it still runs after `limit` (it is
/// killed then, and reaped).
fn exited(mut child: Child, limit: Duration) -> Result<Option<std::process::ExitStatus>> {
    let pid = child.id();
    let (ended, end) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = ended.send(child.wait());
    });
    match end.recv_timeout(limit) {
        Ok(status) => Ok(Some(status?)),
        Err(_) => {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
            let _ = end.recv_timeout(Duration::from_secs(5));
            Ok(None)
        }
    }
}

fn a_second_launch_hands_over_and_another_workspace_opens_its_own(
    environment: &Environment,
) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let root = workspace.path().canonicalize()?;
    let other = tempfile::tempdir()?;
    let config = tempfile::tempdir()?;
    let config_dir = config.path().display().to_string();
    let app = |path: &Path| {
        let path = path.display().to_string();
        environment.app_command(&[&path, "--config-dir", &config_dir])
    };
    environment.with_app(&root, async |session: &Session| {
        session.find("#view-inbox").await?;

        // The same workspace: the second app hands over and exits at once.
        let second = app(&root).stderr(Stdio::null()).spawn()?;
        let status = exited(second, Duration::from_secs(20))?;
        if status.is_none() {
            bail!("a second app on an open workspace did not hand over");
        }
        ensure!(status.is_some_and(|status| status.success()), "{status:?}");
        session.find("#view-inbox").await?;

        // `switchboard open` does the same for an agent.
        let output = environment
            .binaries
            .cli(&root)
            .arg("open")
            .env("SWITCHBOARD_APP", &environment.binaries.app)
            .envs(
                app(&root)
                    .get_envs()
                    .filter_map(|(k, v)| Some((k.to_owned(), v?.to_owned()))),
            )
            .output()?;
        ensure!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let said = String::from_utf8(output.stdout)?;
        let pid = said
            .trim()
            .rsplit("pid ")
            .next()
            .and_then(|pid| pid.trim_end_matches(')').parse::<u32>().ok())
            .context("open names the app's pid")?;
        crate::harness::until(
            &format!("the hand-over of the app `open` started ({said})"),
            Duration::from_secs(20),
            || {
                let gone = !Path::new(&format!("/proc/{pid}")).exists();
                async move { Ok(gone.then_some(())) }
            },
        )
        .await?;

        // Another workspace: a window of its own, which stays.
        let mut own = app(other.path()).stderr(Stdio::piped()).spawn()?;
        let stderr = own.stderr.take().context("stderr")?;
        let painted = std::thread::spawn(move || {
            BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
                .any(|line| line.contains("first paint"))
        });
        // Painted, or exited: either ends the wait (a timeout is reported
        // below as not painted).
        let _ = crate::harness::until("the other app's paint", Duration::from_secs(60), || {
            let done =
                painted.is_finished() || own.try_wait().map_or(true, |exited| exited.is_some());
            async move { Ok(done.then_some(())) }
        })
        .await;
        let running = own.try_wait()?.is_none();
        let _ = own.kill();
        let _ = own.wait();
        ensure!(running, "the other workspace's app did not stay open");
        ensure!(
            painted.join().unwrap_or(false),
            "the other workspace's app never painted"
        );
        Ok(())
    })
}
