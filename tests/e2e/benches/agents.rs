//! Agents benchmarks in the real window, printed as a table (run by `make
//! bench` on a release build):
//! - a hook process started with a permission request → its question in
//!   the inbox's alert bar (median and p95 of 20), timed in the page by a
//!   MutationObserver against the same wall clock the harness reads;
//! - the Agents view with 50 agents whose transcripts hold 10,000 lines
//!   each: opened from the sidebar → its 50 rows painted, and an agent's
//!   hook process started → its row's new state painted (median and p95 of
//!   20 each).

#![allow(clippy::disallowed_methods)] // Test and build code reads the files it made.
use std::{
    io::Write,
    path::Path,
    process::{Command, Stdio},
};

use anyhow::{Context, Result, ensure};
use serde_json::{Value, json};
use switchboard_e2e::{
    Binaries, Display, Driver, Session,
    measure::{ALERT_OBSERVER, percentile, recorded, recorded_at, wall_clock_ms},
};
use switchboard_model::{
    agent::{AgentKind, AgentRecord, AgentState},
    blocking::Reply,
};
use switchboard_store::{Workspace, agents, clock, deliveries, feedback};

const ROUNDS: usize = 20;
const AGENTS: usize = 50;
const TRANSCRIPT_LINES: usize = 10_000;

fn main() -> Result<()> {
    let binaries = Binaries::locate()?;
    let display = Display::start()?;
    let driver = Driver::start(&display)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let painted = runtime.block_on(hook_to_alert(&driver, &binaries))?;
    let (opened, updated) = runtime.block_on(agents_view(&driver, &binaries))?;

    println!();
    println!("| agents in the window | n | median | p95 | goal |");
    println!("|---|---|---|---|---|");
    let row = |what: &str, samples: &[f64], goal: &str| {
        println!(
            "| {what} | {} | {:.1} ms | {:.1} ms | {goal} |",
            samples.len(),
            percentile(samples, 50.0),
            percentile(samples, 95.0)
        );
    };
    row(
        "hook process started (permission request) → question in the alert bar",
        &painted,
        "p95 ≤ 50 ms",
    );
    row(
        "Agents view opened → 50 agents painted (10,000 transcript lines each)",
        &opened,
        "–",
    );
    row(
        "an agent's hook process started → its new state painted, 50 agents",
        &updated,
        "–",
    );
    Ok(())
}

/// Starts `switchboard hook` with `event` on its stdin.
fn hook(binaries: &Binaries, workspace: &Path, event: &Value) -> Result<std::process::Child> {
    let mut child = Command::new(&binaries.cli)
        .arg("-C")
        .arg(workspace)
        .args(["hook", "--agent", "claude-code"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()?;
    child
        .stdin
        .take()
        .context("the hook's stdin")?
        .write_all(event.to_string().as_bytes())?;
    Ok(child)
}

/// Milliseconds from a hook process's start to its question in the
/// alert bar.
async fn hook_to_alert(driver: &Driver, binaries: &Binaries) -> Result<Vec<f64>> {
    let dir = tempfile::tempdir()?;
    let root = dir.path().canonicalize()?;
    let workspace = Workspace::open(&root)?;
    let session = Session::open(driver, binaries, &root).await?;
    session.find("#inbox-empty").await?;
    session.client.execute(ALERT_OBSERVER, vec![]).await?;
    let mut samples = Vec::new();
    for round in 0..ROUNDS {
        let command = format!("rm -rf build-{round}");
        let event = json!({
            "session_id": "bench", "cwd": root, "hook_event_name": "PermissionRequest",
            "tool_name": "Bash", "tool_input": {"command": command},
        });
        let started = wall_clock_ms();
        let child = hook(binaries, &root, &event)?;
        let title = format!("Claude Code wants to run `{command}`");
        let seen = recorded_at(&session, "__asked", &title).await?;
        samples.push((seen - started).max(0.0));
        // Answered, so the hook ends before the next round.
        let question = deliveries::list(&workspace)?
            .deliveries
            .into_iter()
            .find(|delivery| delivery.title == title)
            .context("the question is stored")?;
        feedback::reply(
            &workspace,
            &question.id,
            Reply::Answer {
                answer: json!({"value": true}),
            },
            clock::now(),
        )?;
        let output = child.wait_with_output()?;
        ensure!(output.status.success(), "the hook failed");
    }
    session.close().await?;
    Ok(samples)
}

/// A transcript of `lines` lines as Claude Code writes them.
fn transcript(path: &Path, lines: usize) -> Result<()> {
    let mut file = std::io::BufWriter::new(std::fs::File::create(path)?);
    for n in 0..lines {
        let line = if n % 2 == 0 {
            json!({"type": "user", "message": {"role": "user", "content": format!("step {n}: go on with the refactor of the parser module")}})
        } else {
            json!({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": format!("Working on step {n}.")}, {"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": "cargo test"}}]}})
        };
        writeln!(file, "{line}")?;
    }
    Ok(())
}

const VIEW_OBSERVER: &str = r#"
window.__opened = null;
window.__states = {};
const record = () => {
  const rows = document.querySelectorAll('#agent-list > .agent-row');
  if (rows.length >= 50 && window.__opened === null) window.__opened = Date.now();
  for (const row of rows) {
    const key = row.id + ':' + row.dataset.state;
    if (!(key in window.__states)) window.__states[key] = Date.now();
  }
};
new MutationObserver(record).observe(document.body, {childList: true, subtree: true, attributes: true, attributeFilter: ['data-state']});
"#;

/// The Agents view with many agents: opening it, and one agent's change.
async fn agents_view(driver: &Driver, binaries: &Binaries) -> Result<(Vec<f64>, Vec<f64>)> {
    let dir = tempfile::tempdir()?;
    let root = dir.path().join("project");
    std::fs::create_dir_all(&root)?;
    let root = root.canonicalize()?;
    let workspace = Workspace::open(&root)?;
    let transcripts = dir.path().join("transcripts");
    std::fs::create_dir_all(&transcripts)?;
    for agent in 0..AGENTS {
        let session_id = format!("agent-{agent:02}");
        let path = transcripts.join(format!("{session_id}.jsonl"));
        transcript(&path, TRANSCRIPT_LINES)?;
        agents::update(&workspace, AgentKind::ClaudeCode, &session_id, |_| {
            let mut record = AgentRecord::new(
                AgentKind::ClaudeCode,
                &session_id,
                "Claude Code",
                &root.display().to_string(),
                AgentState::Working,
                clock::now(),
            );
            record.transcript_path = Some(path.display().to_string());
            record
        })?;
    }
    let session = Session::open(driver, binaries, &root).await?;
    session.find("#view-inbox").await?;
    let mut opened = Vec::new();
    for _ in 0..ROUNDS {
        session.find("#nav-inbox").await?.click().await?;
        session.find("#view-inbox").await?;
        session.client.execute(VIEW_OBSERVER, vec![]).await?;
        let started = wall_clock_ms();
        session.find("#nav-agents").await?.click().await?;
        let at = recorded(&session, "return window.__opened", None).await?;
        opened.push((at - started).max(0.0));
    }
    let mut updated = Vec::new();
    for round in 0..ROUNDS {
        let session_id = format!("agent-{:02}", round % AGENTS);
        // Each agent once, from working to a state it was never in here.
        let (event, state) = if round % 2 == 0 {
            (json!({"hook_event_name": "Stop"}), "turn_finished")
        } else {
            (
                json!({"hook_event_name": "Notification", "message": "Claude is waiting for your input", "notification_type": "idle_prompt"}),
                "waiting_for_input",
            )
        };
        let mut event = event;
        event["session_id"] = json!(session_id);
        event["cwd"] = json!(root);
        let started = wall_clock_ms();
        let child = hook(binaries, &root, &event)?;
        let output = child.wait_with_output()?;
        ensure!(output.status.success(), "the hook failed");
        let key = format!(
            "agent-{}:{state}",
            AgentRecord::key(AgentKind::ClaudeCode, &session_id)
        );
        let at = recorded_at(&session, "__states", &key).await?;
        updated.push((at - started).max(0.0));
    }
    session.close().await?;
    Ok((opened, updated))
}
