//! The Tapes view in the real window: sqlite3 sessions recorded by the
//! real `switchboard rec` appear while the view is open and while it is
//! left; one plays, steps back an exchange at a time, a search hit jumps
//! to its exchange and highlights it, and a note — kept unsaved while the
//! tape is read again and the view left — lands in the tape file.

use std::{
    io::{Read, Write},
    path::Path,
    process::Stdio,
    sync::Arc,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail, ensure};
use switchboard_e2e::Session;

use crate::harness::{CAPTURE_ERRORS, Environment, page_errors, trial};

pub fn trials(environment: &Arc<Environment>) -> Vec<libtest_mimic::Trial> {
    vec![trial(
        environment,
        "tapes::a_recorded_session_appears_plays_steps_back_and_is_found",
        a_recorded_session_appears_plays_steps_back_and_is_found,
    )]
}

/// Records `switchboard rec --name NAME -- sqlite3` in `workspace`, typing
/// each of `lines` once the prompt shows (stdin and stdout are pipes: the
/// program has its own pseudo-terminal), then `.exit 3`.
fn record(environment: &Environment, workspace: &Path, name: &str, lines: &[&str]) -> Result<()> {
    let mut child = environment
        .binaries
        .cli(workspace)
        .args(["rec", "--name", name, "--", "sqlite3"])
        .current_dir(workspace)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    // Each read of rec's output, as it comes.
    let mut stdout = child.stdout.take().context("stdout")?;
    let (reads, read_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buffer = [0_u8; 4096];
        while let Ok(read) = stdout.read(&mut buffer) {
            if read == 0 || reads.send(buffer[..read].to_vec()).is_err() {
                break;
            }
        }
    });
    let mut stdin = child.stdin.take().context("stdin")?;
    let mut seen = String::new();
    let mut prompts = |count: usize| -> Result<()> {
        let deadline = Instant::now() + Duration::from_secs(20);
        while seen.matches("sqlite> ").count() < count {
            let left = deadline.saturating_duration_since(Instant::now());
            match read_rx.recv_timeout(left) {
                Ok(read) => seen.push_str(&String::from_utf8_lossy(&read)),
                Err(_) => bail!("sqlite3 never showed prompt {count}: {seen:?}"),
            }
        }
        Ok(())
    };
    for (n, line) in lines.iter().enumerate() {
        prompts(n + 1)?;
        stdin.write_all(format!("{line}\r").as_bytes())?;
        stdin.flush()?;
    }
    prompts(lines.len() + 1)?;
    stdin.write_all(b".exit 3\r")?;
    stdin.flush()?;
    let output = child.wait_with_output()?;
    ensure!(
        output.status.code() == Some(3),
        "rec exits as sqlite3 did: {:?} {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    Ok(())
}

fn a_recorded_session_appears_plays_steps_back_and_is_found(
    environment: &Environment,
) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let root = workspace.path().canonicalize()?;
    environment.with_app(&root, async |session: &Session| {
        session.find("#view-inbox").await?;
        session.client.execute(CAPTURE_ERRORS, vec![]).await?;
        session.find("#nav-tapes").await?.click().await?;
        session.find("#view-tapes #tapes-empty").await?;

        // Recorded while the view is open: it appears.
        record(environment, &root, "sums", &["select 1+2;", "select 6*7;"])?;
        session.find(".tape-item[data-id='sqlite3/sums']").await?;
        // Recorded while the view is left: it is there on return.
        session.find("#nav-inbox").await?.click().await?;
        session.find("#view-inbox").await?;
        record(environment, &root, "other", &["select 'x';"])?;
        session.find("#nav-tapes").await?.click().await?;
        session.find(".tape-item[data-id='sqlite3/other']").await?;
        let details = session
            .texts(".tape-item[data-id='sqlite3/sums'] .tape-details")
            .await?;
        ensure!(
            details.iter().any(|text| text.contains("3 exchanges")
                && text.contains("exit 3")
                && text.contains("redacted")),
            "the list says exchanges, exit and redaction: {details:?}"
        );

        // Played to the end, fast.
        session
            .find(".tape-item[data-id='sqlite3/sums']")
            .await?
            .click()
            .await?;
        session
            .find("#tape-speed")
            .await?
            .select_by_value("8")
            .await?;
        session.find("#tape-play").await?.click().await?;
        session
            .wait_for_text("#tape-screen", |text| text.contains(".exit 3"))
            .await?;
        session
            .wait_for_text("#tape-play", |text| text == "Play")
            .await?;
        // Back one exchange: `.exit 3` is not typed yet; back another: 42
        // is not shown yet either, 3 is.
        session.find("#tape-back-exchange").await?.click().await?;
        let screen = session
            .wait_for_text("#tape-screen", |text| !text.contains(".exit"))
            .await?;
        ensure!(screen.contains("42"), "{screen:?}");
        session.find("#tape-back-exchange").await?.click().await?;
        let screen = session
            .wait_for_text("#tape-screen", |text| !text.contains("42"))
            .await?;
        ensure!(
            screen.contains("SQLite version") && screen.contains('3'),
            "{screen:?}"
        );

        // A search hit jumps to its exchange and highlights it.
        session
            .find("#tapes-search")
            .await?
            .send_keys("6*7")
            .await?;
        session
            .find(".tape-hit[data-id='sqlite3/sums'][data-exchange='1']")
            .await?
            .click()
            .await?;
        // The keys arrive one by one and the search follows each: the
        // highlight settles on the whole query.
        session
            .wait_for_text(".exchange.selected[data-index='1'] code mark", |text| {
                text == "6*7"
            })
            .await?;
        let mark = session
            .texts(".exchange.selected[data-index='1'] code mark")
            .await?;
        ensure!(
            mark == ["6*7"],
            "the query is highlighted in the input: {mark:?}"
        );
        let screen = session
            .wait_for_text("#tape-screen", |text| text.contains("42"))
            .await?;
        ensure!(!screen.contains(".exit"), "{screen:?}");
        environment.screenshot("tapes.png")?;

        // A note on the exchange lands in its annotations. Unsaved, it
        // outlives the tape read again (another process notes another
        // exchange meanwhile) and leaving the view.
        const NOTE: &str = ".exchange[data-index='1'] .exchange-note textarea";
        session.find(NOTE).await?.send_keys("the slow one").await?;
        let workspace = switchboard_store::Workspace::open(&root)?;
        switchboard_store::tapes::Tapes::in_workspace(&workspace).annotate(
            "sqlite3/sums",
            0,
            "noted elsewhere",
        )?;
        crate::harness::until(
            "the open tape read again",
            switchboard_e2e::WAIT,
            || async {
                let other = session
                    .find(".exchange[data-index='0'] .exchange-note textarea")
                    .await?
                    .prop("value")
                    .await?;
                Ok((other.as_deref() == Some("noted elsewhere")).then_some(()))
            },
        )
        .await?;
        let kept = session.find(NOTE).await?.prop("value").await?;
        ensure!(
            kept.as_deref() == Some("the slow one"),
            "the unsaved note outlives the tape read again: {kept:?}"
        );
        session.find("#nav-inbox").await?.click().await?;
        session.find("#view-inbox").await?;
        session.find("#nav-tapes").await?.click().await?;
        session
            .find(".tape-item[data-id='sqlite3/sums']")
            .await?
            .click()
            .await?;
        let kept = session.find(NOTE).await?.prop("value").await?;
        ensure!(
            kept.as_deref() == Some("the slow one"),
            "the unsaved note outlives leaving the view: {kept:?}"
        );
        session
            .find(".exchange[data-index='1'] .exchange-note-save")
            .await?
            .click()
            .await?;
        let tape = root.join("tapes/sqlite3/sums.json5");
        crate::harness::until("the note in the tape file", Duration::from_secs(10), || {
            let text = std::fs::read_to_string(&tape);
            async move { Ok(text?.contains("\"note\":\"the slow one\"").then_some(())) }
        })
        .await?;
        let errors = page_errors(session).await?;
        ensure!(errors.is_empty(), "page errors: {errors:?}");
        Ok(())
    })
}
