//! The Terminals view in the real window: a session an agent starts with
//! the real CLI appears and shows its screen live, also after the view was
//! left and opened again; the developer takes it over (the agent's input is
//! refused meanwhile), types a line into it, hands it back (the agent's
//! next expect hears what they typed and what it answered) and ends it, and
//! it plays back from its log. A program asking for a password raises
//! the alert in whatever view is open; the secret typed in the window
//! reaches the program and nothing else.

use std::{path::Path, sync::Arc};

use anyhow::{Context, Result, ensure};
use fantoccini::{
    actions::{InputSource, KeyAction, KeyActions},
    key::Key,
};
use switchboard_e2e::Session;

use crate::harness::{CAPTURE_ERRORS, Environment, go, page_errors, trial};

pub fn trials(environment: &Arc<Environment>) -> Vec<libtest_mimic::Trial> {
    vec![
        trial(
            environment,
            "terminals::a_session_shows_live_and_is_taken_over_and_handed_back",
            a_session_shows_live_and_is_taken_over_and_handed_back,
        ),
        trial(
            environment,
            "terminals::a_password_prompt_raises_the_alert_and_the_secret_goes_to_the_program_only",
            a_password_prompt_raises_the_alert_and_the_secret_goes_to_the_program_only,
        ),
        trial(
            environment,
            "terminals::an_investigation_shows_its_states_and_a_fuzz_crash_plays_from_the_window",
            an_investigation_shows_its_states_and_a_fuzz_crash_plays_from_the_window,
        ),
        trial(
            environment,
            "terminals::a_program_an_agent_on_another_machine_starts_shows_its_name",
            a_program_an_agent_on_another_machine_starts_shows_its_name,
        ),
        trial(
            environment,
            "terminals::a_picked_session_keeps_following_while_others_start_and_end",
            a_picked_session_keeps_following_while_others_start_and_end,
        ),
        trial(
            environment,
            "terminals::keys_typed_fast_on_a_busy_machine_arrive_in_order",
            keys_typed_fast_on_a_busy_machine_arrive_in_order,
        ),
    ]
}

/// An agent reaching Switchboard over HTTP with a token named for its
/// machine starts a program: the Terminals list says whose it is — also
/// for one started while the developer was in another view.
fn a_program_an_agent_on_another_machine_starts_shows_its_name(
    environment: &Environment,
) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let root = workspace.path().canonicalize()?;
    let config = tempfile::tempdir()?;
    let made = environment
        .binaries
        .cli(&root)
        .args([
            "mcp",
            "token",
            "--name",
            "ssh:buildbox",
            "--allow",
            "programs",
        ])
        .env("SWITCHBOARD_CONFIG_DIR", config.path())
        .output()?;
    ensure!(made.status.success(), "mcp token failed");
    let token = String::from_utf8(made.stdout)?.trim().to_owned();
    let (mut server, address) = switchboard_remote_test::start_http(
        environment
            .binaries
            .cli(&root)
            .args(["mcp", "--http"])
            .env("SWITCHBOARD_CONFIG_DIR", config.path()),
    );
    let name = format!("remote-{}", std::process::id());
    let second_name = format!("remote-{}-2", std::process::id());
    let shown = environment.with_app(&root, async |session: &Session| {
        session.find("#view-inbox").await?;
        session.client.execute(CAPTURE_ERRORS, vec![]).await?;
        session.find("#nav-terminals").await?.click().await?;
        session.find("#view-terminals").await?;
        let start = |name: &str| -> Result<String> {
            let call = switchboard_remote_test::stateless_call(
                "far-agent",
                "session_start",
                serde_json::json!({"program": "sh", "name": name}),
                false,
            );
            let started = switchboard_remote_test::post_stateless(&address, &token, &call);
            Ok(started["result"]["structuredContent"]["id"]
                .as_str()
                .context("the session's id")?
                .to_owned())
        };
        let badge_of = async |id: &str| {
            session
                .wait_for_text(
                    &format!(".session-item[data-id='{id}'] .badge.sent-by"),
                    |text| !text.is_empty(),
                )
                .await
        };
        let first = start(&name)?;
        let badge = badge_of(&first).await?;
        ensure!(badge == "from ssh:buildbox", "{badge}");
        // A second one starts while the developer is in the Inbox; back in
        // Terminals, it is there with its name too.
        session.find("#nav-inbox").await?.click().await?;
        session.find("#view-inbox").await?;
        let second = start(&second_name)?;
        session.find("#nav-terminals").await?.click().await?;
        let badge = badge_of(&second).await?;
        ensure!(badge == "from ssh:buildbox", "{badge}");
        let errors = page_errors(session).await?;
        ensure!(errors.is_empty(), "the page logged errors: {errors:?}");
        Ok(())
    });
    let _ = session_cli(environment, &root, &["kill", &second_name]);
    let _ = session_cli(environment, &root, &["kill", &name]);
    let _ = server.kill();
    let _ = server.wait();
    shown
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
        // The agent's expect sees what the developer's line printed.
        let (status, seen) = session_cli(
            environment,
            &root,
            &["expect", &name, "^420$", "--timeout", "10"],
        )?;
        ensure!(
            status == 0 && seen.contains("420"),
            "expect: {status} {seen:?}"
        );
        environment.screenshot("terminals.png")?;

        // Handed back: the agent's next expect hears what the developer
        // typed and what it answered, once; then it types again.
        session.find("#terminal-take").await?.click().await?;
        session
            .wait_for_text("#terminal-state", |text| text.contains("agents drive it"))
            .await?;
        let (status, waited) = session_cli(
            environment,
            &root,
            &[
                "expect",
                &name,
                ">>> ",
                "--exact",
                "--json",
                "--timeout",
                "10",
            ],
        )?;
        let waited: serde_json::Value = serde_json::from_str(&waited)?;
        let note = &waited["handed_back"];
        ensure!(
            status == 0
                && note["typed"] == serde_json::json!(["print(6*70)"])
                && note["output"]
                    .as_str()
                    .is_some_and(|output| output.contains("420")),
            "the agent hears of the developer's turn: {waited}"
        );
        let (_, again) = session_cli(environment, &root, &["read", &name, "--json"])?;
        ensure!(!again.contains("handed_back"), "told once: {again}");
        let (status, _) = session_cli(
            environment,
            &root,
            &["send", &name, "--line", "print('agent ' * 2)"],
        )?;
        ensure!(status == 0, "the agent types again: {status}");
        session
            .wait_for_text("#terminal-screen", |text| text.contains("agent agent"))
            .await?;

        // Ended from the window: it plays back from its log, shown at its
        // end.
        session.find("#terminal-end").await?.click().await?;
        session
            .wait_for_text("#terminal-state", |text| {
                text.starts_with("killed") && text.contains("played back from its log")
            })
            .await?;
        session
            .wait_for_text("#tape-screen", |text| text.contains("agent agent"))
            .await?;
        environment.screenshot("terminals-ended.png")?;
        session.find("#tape-back-exchange").await?.click().await?;
        session
            .wait_for_text("#tape-screen", |text| !text.contains("agent agent"))
            .await?;
        let errors = page_errors(session).await?;
        ensure!(errors.is_empty(), "page errors: {errors:?}");
        Ok(())
    })
}

fn a_password_prompt_raises_the_alert_and_the_secret_goes_to_the_program_only(
    environment: &Environment,
) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let root = workspace.path().canonicalize()?;
    let name = format!("login-{}", std::process::id());
    let script =
        "printf 'Password: '; stty -echo; read pw; stty echo; echo; echo \"got ${#pw}\"; read rest";
    environment.with_app(&root, async |session: &Session| {
        session.find("#view-inbox").await?;
        session.client.execute(CAPTURE_ERRORS, vec![]).await?;

        // The agent's program asks for a password while the developer is
        // in the Inbox: the alert shows there.
        let (status, id) = session_cli(
            environment,
            &root,
            &["start", "--name", &name, "--", "sh", "-c", script],
        )?;
        ensure!(status == 0 && id.starts_with("ps-"), "start: {status} {id}");
        session
            .find(&format!("#secret-alert .alert-item[data-id='{id}']"))
            .await?
            .click()
            .await?;

        // It opens the session, where the secret is typed without taking
        // the session over.
        session.find("#view-terminals").await?;
        session
            .wait_for_text("#terminal-title", |text| text == name)
            .await?;
        session
            .find("#terminal-password")
            .await?
            .send_keys("hunter2")
            .await?;
        environment.screenshot("terminals-secret.png")?;
        session
            .find("#terminal-password-send")
            .await?
            .click()
            .await?;
        let (status, said) = session_cli(
            environment,
            &root,
            &["expect", &name, "got 7", "--timeout", "10"],
        )?;
        ensure!(status == 0, "the program got the secret: {status} {said}");
        session
            .wait_until("!document.querySelector('#secret-alert')")
            .await?;
        let screen = session
            .wait_for_text("#terminal-screen", |text| text.contains("got 7"))
            .await?;
        ensure!(!screen.contains("hunter2"), "{screen:?}");

        // A session the window never touched, to outlive it.
        let (status, _) = session_cli(
            environment,
            &root,
            &[
                "start",
                "--name",
                &format!("{name}-keep"),
                "--",
                "sleep",
                "60",
            ],
        )?;
        ensure!(status == 0, "start: {status}");
        session_cli(environment, &root, &["kill", &name])?;
        let log = std::fs::read_to_string(
            root.join(".switchboard/sessions")
                .join(format!("{id}.cast")),
        )?;
        ensure!(!log.contains("hunter2"), "the secret is not logged: {log}");
        let errors = page_errors(session).await?;
        ensure!(errors.is_empty(), "page errors: {errors:?}");
        Ok(())
    })?;
    // Closing the window ended no session.
    let keep = format!("{name}-keep");
    let (status, listed) = session_cli(environment, &root, &["list", "--json"])?;
    let listed: serde_json::Value = serde_json::from_str(&listed)?;
    let running = listed["sessions"].as_array().is_some_and(|sessions| {
        sessions
            .iter()
            .any(|session| session["name"] == keep.as_str() && session["state"] == "running")
    });
    session_cli(environment, &root, &["kill", &keep])?;
    ensure!(
        status == 0 && running,
        "still running after the window closed: {listed}"
    );
    Ok(())
}

/// `switchboard -C workspace ARGS…` with ClaudeControl's home at `home`:
/// its exit status, stdout and stderr.
fn cli_with_home(
    environment: &Environment,
    workspace: &Path,
    home: &Path,
    args: &[&str],
) -> Result<(i32, String, String)> {
    let output = environment
        .binaries
        .cli(workspace)
        .args(args)
        .env("CLAUDE_CONTROL_HOME", home)
        .env("TOY_MARKER_DIR", workspace)
        .current_dir(workspace)
        .output()?;
    Ok((
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).trim().to_owned(),
        String::from_utf8_lossy(&output.stderr).trim().to_owned(),
    ))
}

fn an_investigation_shows_its_states_and_a_fuzz_crash_plays_from_the_window(
    environment: &Environment,
) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let root = workspace.path().canonicalize()?;
    let home = tempfile::tempdir()?;
    let toy = root.join("toy");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../crates/cli/tests/cli/fixtures/toy"),
        &toy,
    )?;
    let toy = toy.display().to_string();
    let home_arg = home.path().display().to_string();
    environment.with_app_args(
        &root,
        &["--claude-control-dir", &home_arg],
        async |session: &Session| {
            session.find("#view-inbox").await?;
            session.client.execute(CAPTURE_ERRORS, vec![]).await?;
            session.find("#nav-terminals").await?.click().await?;
            // The tab list is walked with the arrow keys.
            session
                .find("#terminals-tab-sessions")
                .await?
                .send_keys(&char::from(fantoccini::key::Key::Right).to_string())
                .await?;
            session.find("#reports-empty").await?;
            session
                .find("#terminals-tab-reports[aria-selected='true']")
                .await?;

            // Investigated from the CLI while the view is open: it appears.
            let (status, _, stderr) = cli_with_home(
                environment,
                &root,
                home.path(),
                &["investigate", "--", &toy],
            )?;
            ensure!(status == 0, "investigate: {stderr}");
            session
                .find(".report-item[data-kind='investigation']")
                .await?
                .click()
                .await?;
            let graph = session
                .wait_for_text("#report-graph", |text| text.contains("toy(config)#"))
                .await?;
            ensure!(
                graph.contains("toy>") && graph.contains("config"),
                "{graph:?}"
            );
            let notes = session
                .wait_for_text("#report-notes", |text| text.contains("wipe"))
                .await?;
            ensure!(notes.contains("destructive"), "{notes:?}");
            environment.screenshot("terminals-investigation.png")?;

            // The Sessions tab, with the investigation's ended sessions and
            // a live one an agent started: the live one is the first row,
            // the investigation's sessions one row that opens onto them
            // and its report.
            let agent = format!("agent-{}", std::process::id());
            let (status, live_id) = session_cli(
                environment,
                &root,
                &["start", "--name", &agent, "--", "sleep", "60"],
            )?;
            ensure!(status == 0, "start: {live_id}");
            session.find("#terminals-tab-sessions").await?.click().await?;
            session
                .find(&format!(".session-item[data-id='{live_id}']"))
                .await?;
            session
                .wait_until(&format!(
                    "document.querySelector('.terminals-list').firstElementChild.dataset.id === '{live_id}'"
                ))
                .await?;
            let runs = session.texts(".run-group .run-item .session-name").await?;
            ensure!(
                runs.len() == 1 && runs[0].starts_with("investigate toy · "),
                "one row for the investigation's sessions: {runs:?}"
            );
            let rows = session.texts(".terminals-list > *").await?;
            ensure!(rows.len() == 2, "the live session and the run: {rows:?}");
            session.find(".run-group .run-item").await?.click().await?;
            let inside = session.texts(".run-sessions .session-item").await?;
            ensure!(!inside.is_empty(), "the run lists its sessions");
            environment.screenshot("terminals-runs.png")?;
            session.find(".run-report").await?.click().await?;
            session
                .find("#terminals-tab-reports[aria-selected='true']")
                .await?;
            session
                .wait_for_text("#report-graph", |text| text.contains("toy(config)#"))
                .await?;
            session_cli(environment, &root, &["kill", &agent])?;

            // Fuzzed while the view is left: on return, the crash plays.
            session.find("#nav-inbox").await?.click().await?;
            session.find("#view-inbox").await?;
            let (status, _, stderr) = cli_with_home(
                environment,
                &root,
                home.path(),
                &["fuzz", "--seed", "5", "--max-inputs", "12", "--", &toy],
            )?;
            ensure!(status == 1, "fuzz finds the crash: {stderr}");
            session.find("#nav-terminals").await?.click().await?;
            session
                .find("#terminals-tab-reports")
                .await?
                .click()
                .await?;
            session
                .find(".report-item[data-kind='fuzz']")
                .await?
                .click()
                .await?;
            session
                .find("#report-findings tr[data-kind='crash'] .finding-play")
                .await?
                .click()
                .await?;
            let replay = session
                .wait_for_text("#report-replay", |text| text.contains("%s%s"))
                .await?;
            ensure!(replay.contains("toy>"), "{replay:?}");
            environment.screenshot("terminals-reports.png")?;
            let errors = page_errors(session).await?;
            ensure!(errors.is_empty(), "page errors: {errors:?}");
            Ok(())
        },
    )
}

/// Waits until the screen shows `seen-WORD`, which the watched program
/// printed (its input's echo, `printf 'seen-%s\n' WORD`, is not that).
async fn shows_seen(session: &Session, word: &str) -> Result<()> {
    let line = format!("seen-{word}");
    session
        .wait_for_text("#terminal-screen", |text| text.contains(&line))
        .await
        .with_context(|| format!("the watched screen never showed {line}"))?;
    Ok(())
}

/// A session picked from the list (not the one the view showed first)
/// keeps showing its new output while other sessions start and end around
/// it — the list drawn again each time, the picked one moving down it and
/// ended ones moving to the end — also while the developer holds it.
fn a_picked_session_keeps_following_while_others_start_and_end(
    environment: &Environment,
) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let root = workspace.path().canonicalize()?;
    let tag = std::process::id();
    let pair = [format!("one-{tag}"), format!("two-{tag}")];
    let others: Vec<String> = (0..3).map(|n| format!("other-{tag}-{n}")).collect();
    let start = |name: &str, program: &[&str]| -> Result<String> {
        let mut args = vec!["start", "--name", name, "--"];
        args.extend_from_slice(program);
        let (status, id) = session_cli(environment, &root, &args)?;
        ensure!(
            status == 0 && id.starts_with("ps-"),
            "start {name}: {status} {id}"
        );
        Ok(id)
    };
    let printed = |watched: &str, word: &str| -> Result<()> {
        let line = format!("printf 'seen-%s\\n' {word}");
        let (status, _) = session_cli(environment, &root, &["send", watched, "--line", &line])?;
        ensure!(status == 0, "send to {watched}: {status}");
        Ok(())
    };
    let shown = environment.with_app(&root, async |session: &Session| {
        session.find("#view-inbox").await?;
        session.client.execute(CAPTURE_ERRORS, vec![]).await?;
        // Two sessions: the view shows one first, the other is picked.
        let ids = [start(&pair[0], &["sh"])?, start(&pair[1], &["sh"])?];
        go(session, "terminals").await?;
        let shown_first = session
            .wait_for_text("#terminal-title", |text| {
                pair.iter().any(|name| name == text)
            })
            .await?;
        let picked = usize::from(shown_first == pair[0]);
        let (watched, id) = (pair[picked].as_str(), ids[picked].as_str());
        let (other, other_id) = (pair[1 - picked].as_str(), ids[1 - picked].as_str());
        session
            .find(&format!(".session-item[data-id='{id}']"))
            .await?
            .click()
            .await?;
        session
            .wait_for_text("#terminal-title", |text| text == watched)
            .await?;
        printed(watched, "picked")?;
        shows_seen(session, "picked").await?;

        // Another starts: the list is drawn again, the watched one lower.
        let second = start(&others[0], &["sh"])?;
        session
            .find(&format!(".session-item[data-id='{second}']"))
            .await?;
        printed(watched, "started")?;
        shows_seen(session, "started").await?;

        // One ends: it moves to the end of the list.
        session_cli(environment, &root, &["kill", other])?;
        session
            .find(&format!(".session-item.ended[data-id='{other_id}']"))
            .await?;
        printed(watched, "ended")?;
        shows_seen(session, "ended").await?;

        // One starts and ends at once.
        let short = start(&others[1], &["sh", "-c", "echo bye"])?;
        session
            .find(&format!(".session-item.ended[data-id='{short}']"))
            .await?;
        printed(watched, "short")?;
        shows_seen(session, "short").await?;

        // Held by the developer, who types a line while another starts and
        // one ends.
        session.find("#terminal-take").await?.click().await?;
        session
            .wait_for_text("#terminal-state", |text| text.contains("you have it"))
            .await?;
        let third = start(&others[2], &["sh"])?;
        session
            .find(&format!(".session-item[data-id='{third}']"))
            .await?;
        session_cli(environment, &root, &["kill", &others[0]])?;
        session
            .find(&format!(".session-item.ended[data-id='{second}']"))
            .await?;
        session
            .find("#terminal-line")
            .await?
            .send_keys("printf 'seen-%s\\n' held")
            .await?;
        session.find("#terminal-send").await?.click().await?;
        shows_seen(session, "held").await?;
        let title = session.find("#terminal-title").await?.text().await?;
        ensure!(
            title == watched,
            "the watched session is still shown: {title}"
        );
        let errors = page_errors(session).await?;
        ensure!(errors.is_empty(), "page errors: {errors:?}");
        Ok(())
    });
    for name in pair.iter().chain(&others) {
        let _ = session_cli(environment, &root, &["kill", name]);
    }
    shown
}

/// Busy loops keeping the machine's cores working until dropped.
struct Busy(Vec<std::process::Child>);

impl Busy {
    fn start(count: usize) -> Result<Self> {
        let mut busy = Self(Vec::new());
        for _ in 0..count {
            busy.0.push(
                std::process::Command::new("sh")
                    .args(["-c", "while :; do :; done"])
                    .spawn()?,
            );
        }
        Ok(busy)
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Keys typed fast into a session the developer holds reach the program
/// exactly in the order typed while three busy loops keep both cores
/// working: one line as fast as WebDriver types, one a key every few
/// milliseconds.
fn keys_typed_fast_on_a_busy_machine_arrive_in_order(environment: &Environment) -> Result<()> {
    const BURST: &str = "print('abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789')";
    const PACED: &str = "sum([1, 2, 3]) + len('The quick brown fox jumps over the lazy dog')";
    let workspace = tempfile::tempdir()?;
    let root = workspace.path().canonicalize()?;
    let name = format!("typed-{}", std::process::id());
    let typed = root.join("typed.txt");
    let script = r#"IFS= read -r a; IFS= read -r b; printf '%s\n%s\n' "$a" "$b" > "$0""#;
    let typed_arg = typed.display().to_string();
    let shown = environment.with_app(&root, async |session: &Session| {
        session.find("#view-inbox").await?;
        session.client.execute(CAPTURE_ERRORS, vec![]).await?;
        let (status, id) = session_cli(
            environment,
            &root,
            &[
                "start", "--name", &name, "--", "sh", "-c", script, &typed_arg,
            ],
        )?;
        ensure!(status == 0 && id.starts_with("ps-"), "start: {status} {id}");
        go(session, "terminals").await?;
        session
            .wait_for_text("#terminal-title", |text| text == name)
            .await?;
        session.find("#terminal-take").await?.click().await?;
        session
            .wait_for_text("#terminal-state", |text| text.contains("you have it"))
            .await?;
        let busy = Busy::start(3)?;
        session
            .find("#terminal-screen")
            .await?
            .send_keys(&format!("{BURST}{}", char::from(Key::Enter)))
            .await?;
        let mut keys = KeyActions::new("typing".to_owned());
        for key in PACED.chars().chain([char::from(Key::Enter)]) {
            keys = keys
                .then(KeyAction::Down { value: key })
                .then(KeyAction::Up { value: key })
                .then(KeyAction::Pause {
                    duration: std::time::Duration::from_millis(4),
                });
        }
        session.client.perform_actions(keys).await?;
        let (status, waited) = session_cli(
            environment,
            &root,
            &["wait", &name, "--for", "exit", "--timeout", "30"],
        )?;
        drop(busy);
        ensure!(
            status == 0,
            "the program read both lines: {status} {waited}"
        );
        let got = std::fs::read_to_string(&typed)?;
        ensure!(
            got == format!("{BURST}\n{PACED}\n"),
            "the program got the keys in the order typed: {got:?}"
        );
        let errors = page_errors(session).await?;
        ensure!(errors.is_empty(), "page errors: {errors:?}");
        Ok(())
    });
    let _ = session_cli(environment, &root, &["kill", &name]);
    shown
}
