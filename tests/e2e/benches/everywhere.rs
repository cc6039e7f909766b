//! "All workspaces" benchmarks in the real window, printed as a table (run
//! by `make bench` on a release build): 20 other running workspaces, each
//! with 50 questions waiting (1,000 in all), registered as a hook asking
//! there registers them;
//! - the Agents view opened from the sidebar → its 20 workspace lines and
//!   1,000 questions painted (median and p95 of 20);
//! - a question asked in one of them (the store call made, as a hook makes
//!   it) → its row painted, the view open (median and p95 of 20).
//!
//! Timed in the page by a MutationObserver against the wall clock the
//! harness reads.

#![allow(clippy::disallowed_methods)] // Test and build code reads the files it made.
use anyhow::{Context, Result};
use serde_json::json;
use switchboard_e2e::{
    Binaries, Display, Driver, Session,
    measure::{percentile, recorded, recorded_at, wall_clock_ms},
};
use switchboard_model::{ContentType, DeliveryMode, NewDelivery, Timestamp, registry::Presence};
use switchboard_store::{Workspace, clock, feedback, registry::Registry};

const ROUNDS: usize = 20;
const WORKSPACES: usize = 20;
const QUESTIONS: usize = 50;

const OBSERVER: &str = r#"
window.__opened = null;
window.__questions = {};
const record = () => {
  const lines = document.querySelectorAll('#all-workspaces .workspace-line');
  const questions = document.querySelectorAll('#all-workspaces .workspace-question');
  if (lines.length >= 20 && questions.length >= 1000 && window.__opened === null) window.__opened = Date.now();
  // Ids are each workspace's own (visual-delivery's d_<seconds>_<n>).
  for (const question of questions) {
    const key = question.closest('.workspace-line').dataset.workspace + '|' + question.dataset.id;
    if (!(key in window.__questions)) window.__questions[key] = Date.now();
  }
};
new MutationObserver(record).observe(document.body, {childList: true, subtree: true});
"#;

fn main() -> Result<()> {
    let binaries = Binaries::locate()?;
    let display = Display::start()?;
    let driver = Driver::start(&display)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let (opened, updated) = runtime.block_on(all_workspaces(&driver, &binaries))?;

    println!();
    println!(
        "| All workspaces in the window ({WORKSPACES} workspaces × {QUESTIONS} questions) | n | median | p95 |"
    );
    println!("|---|---|---|---|");
    let row = |what: &str, samples: &[f64]| {
        println!(
            "| {what} | {} | {:.1} ms | {:.1} ms |",
            samples.len(),
            percentile(samples, 50.0),
            percentile(samples, 95.0)
        );
    };
    row(
        "Agents view opened → every line and question painted",
        &opened,
    );
    row(
        "a question asked in another workspace (the store call made) → its row painted",
        &updated,
    );
    Ok(())
}

fn question(title: String) -> NewDelivery {
    NewDelivery {
        mode: DeliveryMode::Blocking,
        title,
        content_type: ContentType::Markdown,
        body: "Go on?".into(),
        feedback_schema: Some(json!({"type": "confirm"})),
    }
}

async fn all_workspaces(driver: &Driver, binaries: &Binaries) -> Result<(Vec<f64>, Vec<f64>)> {
    let dir = tempfile::tempdir()?;
    let far = Timestamp::from_unix_millis(clock::now().unix_millis() + 3_600_000)
        .context("a deadline")?;
    let registry = Registry::locate().map_err(|error| anyhow::anyhow!("{error}"))?;
    let mut workspaces = Vec::new();
    let mut held = Vec::new();
    for n in 0..WORKSPACES {
        let root = dir.path().join(format!("repo-{n:02}"));
        std::fs::create_dir_all(&root)?;
        let workspace = Workspace::open(&root)?;
        for q in 0..QUESTIONS {
            feedback::ask(
                &workspace,
                question(format!("repo {n} question {q}")),
                clock::now(),
                far,
            )?;
        }
        held.push(registry.register(&workspace, Presence::Asking, clock::now())?);
        workspaces.push(workspace);
    }
    let here = dir.path().join("here");
    std::fs::create_dir_all(&here)?;
    let session = Session::open(driver, binaries, &here).await?;
    session.find("#view-inbox").await?;
    let mut opened = Vec::new();
    for _ in 0..ROUNDS {
        session.find("#nav-inbox").await?.click().await?;
        session.find("#view-inbox").await?;
        session.client.execute(OBSERVER, vec![]).await?;
        let started = wall_clock_ms();
        session.find("#nav-agents").await?.click().await?;
        let at = recorded(&session, "return window.__opened", None).await?;
        opened.push((at - started).max(0.0));
    }
    let mut updated = Vec::new();
    for round in 0..ROUNDS {
        let workspace = &workspaces[round % WORKSPACES];
        let started = wall_clock_ms();
        let (asked, _) = feedback::ask(
            workspace,
            question(format!("new question {round}")),
            clock::now(),
            far,
        )?;
        let key = format!("{}|{}", workspace.root().display(), asked.delivery.id);
        let at = recorded_at(&session, "__questions", &key).await?;
        updated.push((at - started).max(0.0));
    }
    session.close().await?;
    drop(held);
    Ok((opened, updated))
}
