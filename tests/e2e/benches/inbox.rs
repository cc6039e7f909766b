//! Inbox benchmarks, printed as a table (run by `make bench`, release build):
//! - feedback round trip: an answer submitted through the store API → the
//!   waiting `switchboard deliver --mode blocking` process prints it
//!   (p50/p99 over 200 answers), beside a 2 s poller of `sessions.json`
//!   like the original await script, timing the same answers in the same run;
//! - an inbox of 10,000 deliveries and 50,000 annotations: append p99,
//!   open + list, filter, and one delivery's annotations.

#![allow(clippy::disallowed_methods)] // Test and build code reads the files it made.
use std::{
    collections::HashMap,
    io::{BufRead, BufReader},
    process::{Command, Stdio},
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use anyhow::{Context, Result, ensure};
use serde_json::{Value, json};
use switchboard_e2e::{Binaries, measure::percentile};
use switchboard_model::{
    ContentType, DeliveryMode, DeliveryStatus, NewDelivery,
    blocking::{BlockingSession, BlockingStatus, Reply},
    inbox::InboxFilter,
};
use switchboard_store::{Workspace, annotations, clock, deliveries, feedback};

const ANSWERS: usize = 200;
const POLL: Duration = Duration::from_secs(2);

fn main() -> Result<()> {
    let binaries = Binaries::locate()?;
    let (notified, polled) = round_trips(&binaries)?;
    let large = large_inbox()?;

    println!();
    println!("| benchmark | n | p50 | p95 | p99 | goal |");
    println!("|---|---|---|---|---|---|");
    row(
        "answer → blocking deliver prints (notify)",
        &notified,
        "p99 ≤ 50 ms",
    );
    row("answer → seen by a 2 s poller (original)", &polled, "–");
    for (name, samples, goal) in &large {
        row(name, samples, goal);
    }
    Ok(())
}

fn row(name: &str, samples: &[f64], goal: &str) {
    println!(
        "| {name} | {} | {:.2} ms | {:.2} ms | {:.2} ms | {goal} |",
        samples.len(),
        percentile(samples, 50.0),
        percentile(samples, 95.0),
        percentile(samples, 99.0)
    );
}

fn millis(elapsed: Duration) -> f64 {
    elapsed.as_secs_f64() * 1000.0
}

/// Answers 200 blocking questions through the store API while a real
/// `switchboard deliver --mode blocking` waits on each, and a 2 s poller
/// watches the same sessions.
fn round_trips(binaries: &Binaries) -> Result<(Vec<f64>, Vec<f64>)> {
    let scratch = tempfile::tempdir()?;
    let workspace = Workspace::open(scratch.path())?;
    let answered_at: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let poller_seen: Arc<Mutex<Vec<f64>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let poller = {
        let (workspace, answered_at, poller_seen, stop) = (
            workspace.clone(),
            Arc::clone(&answered_at),
            Arc::clone(&poller_seen),
            Arc::clone(&stop),
        );
        std::thread::spawn(move || {
            let path = workspace.inbox_data_dir().join("sessions.json");
            let mut counted = std::collections::HashSet::new();
            while !stop.load(Ordering::SeqCst) {
                std::thread::sleep(POLL);
                let Ok(text) = std::fs::read_to_string(&path) else {
                    continue;
                };
                let Ok(sessions) = serde_json::from_str::<Vec<BlockingSession>>(&text) else {
                    continue;
                };
                let now = Instant::now();
                let answered = answered_at
                    .lock()
                    .map(|map| map.clone())
                    .unwrap_or_default();
                for session in sessions
                    .iter()
                    .filter(|s| s.status == BlockingStatus::Responded)
                {
                    if let Some(at) = answered.get(&session.delivery_id)
                        && counted.insert(session.delivery_id.clone())
                        && let Ok(mut seen) = poller_seen.lock()
                    {
                        seen.push(millis(now - *at));
                    }
                }
            }
        })
    };

    let schema = json!({"type": "confirm"}).to_string();
    let mut notified = Vec::with_capacity(ANSWERS);
    for round in 0..ANSWERS {
        let mut agent = Command::new(&binaries.cli)
            .arg("-C")
            .arg(scratch.path())
            .args([
                "deliver",
                "--mode",
                "blocking",
                "--title",
                &format!("q{round}"),
                "--content",
                "?",
            ])
            .args(["--schema", &schema, "--timeout", "60"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let id = wait_for_open_session(&workspace, round)?;
        let mut stdout = BufReader::new(agent.stdout.take().context("agent stdout")?);
        let started = Instant::now();
        feedback::reply(
            &workspace,
            &id,
            Reply::Answer {
                answer: json!({"value": true}),
            },
            clock::now(),
        )?;
        if let Ok(mut map) = answered_at.lock() {
            map.insert(id.clone(), started);
        }
        let mut line = String::new();
        stdout.read_line(&mut line)?;
        notified.push(millis(started.elapsed()));
        let printed: Value = serde_json::from_str(&line)?;
        ensure!(printed["status"] == "responded", "round {round}: {line}");
        agent.wait()?;
    }
    // Let the poller take its last look at every answer.
    std::thread::sleep(POLL + Duration::from_millis(200));
    stop.store(true, Ordering::SeqCst);
    let _ = poller.join();
    let polled = poller_seen
        .lock()
        .map(|seen| seen.clone())
        .unwrap_or_default();
    Ok((notified, polled))
}

/// Waits until the `round`th session is open and returns its delivery id.
fn wait_for_open_session(workspace: &Workspace, round: usize) -> Result<String> {
    let path = workspace.inbox_data_dir().join("sessions.json");
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(text) = std::fs::read_to_string(&path)
            && let Ok(sessions) = serde_json::from_str::<Vec<BlockingSession>>(&text)
            && let Some(session) = sessions.get(round)
        {
            return Ok(session.delivery_id.clone());
        }
        ensure!(Instant::now() < deadline, "session {round} never opened");
        std::thread::sleep(Duration::from_millis(1));
    }
}

type Rows = Vec<(&'static str, Vec<f64>, &'static str)>;

/// Builds 10,000 deliveries and 50,000 annotations, then times the inbox.
fn large_inbox() -> Result<Rows> {
    let scratch = tempfile::tempdir()?;
    let workspace = Workspace::open(scratch.path())?;
    let data = workspace.inbox_data_dir();
    std::fs::create_dir_all(&data)?;
    let modes = ["passive", "interactive", "blocking"];
    let deliveries_json: Vec<Value> = (0..10_000)
        .map(|n| {
            let mode = modes[n % 3];
            json!({
                "id": format!("d_{}_{:03}", 1_700_000_000 + n / 10, n % 10 + 1),
                "mode": mode,
                "status": if mode == "passive" { "delivered" } else if n % 2 == 0 { "completed" } else { "awaiting_feedback" },
                "title": format!("Delivery {n}: refactor module {}", n % 97),
                "content": {"type": "markdown", "body": format!("## Summary {n}\n\n{}", "Changed files and why. ".repeat(12))},
                "feedback_schema": if mode == "passive" { Value::Null } else { json!({"type": "confirm"}) },
                "created_at": format!("2026-01-{:02}T{:02}:{:02}:00.000Z", 1 + n % 28, n % 24, n % 60),
                "completed_at": null
            })
        })
        .collect();
    std::fs::write(
        data.join("deliveries.json"),
        serde_json::to_string_pretty(&deliveries_json)?,
    )?;
    let annotations_json: Vec<Value> = (0..50_000)
        .map(|n| {
            json!({
                "id": format!("a_{}_{:03}", 1_700_000_000 + n / 100, n % 100 + 1),
                "delivery_id": deliveries_json[n % 10_000]["id"],
                "type": "comment",
                "content": format!("Remark {n}"),
                "target": {"type": "text_range", "start": 3, "end": 10},
                "created_at": "2026-01-02T00:00:00.000Z"
            })
        })
        .collect();
    std::fs::write(
        data.join("annotations.json"),
        serde_json::to_string_pretty(&annotations_json)?,
    )?;

    let mut list = Vec::new();
    let mut listed = None;
    for _ in 0..20 {
        let started = Instant::now();
        listed = Some(deliveries::list(&workspace)?);
        list.push(millis(started.elapsed()));
    }
    let listed = listed.context("listed")?;
    ensure!(listed.deliveries.len() == 10_000, "all 10,000 listed");

    let mut filter = Vec::new();
    let wanted = InboxFilter {
        mode: Some(DeliveryMode::Blocking),
        status: Some(DeliveryStatus::AwaitingFeedback),
    };
    for _ in 0..200 {
        let started = Instant::now();
        let shown = listed
            .deliveries
            .iter()
            .filter(|d| wanted.matches(d))
            .count();
        filter.push(millis(started.elapsed()));
        ensure!(shown > 0, "the filter matches something");
    }

    let mut annotations_read = Vec::new();
    for n in 0..20 {
        let started = Instant::now();
        let found = annotations::for_delivery(
            &workspace,
            deliveries_json[n * 7]["id"].as_str().unwrap_or(""),
        )?;
        annotations_read.push(millis(started.elapsed()));
        ensure!(found.len() == 5, "each delivery has 5 annotations");
    }

    let mut append = Vec::new();
    for n in 0..200 {
        let new = NewDelivery {
            mode: DeliveryMode::Passive,
            title: format!("appended {n}"),
            content_type: ContentType::Markdown,
            body: "x".repeat(300),
            feedback_schema: None,
        };
        let started = Instant::now();
        deliveries::append(&workspace, new, clock::now())?;
        append.push(millis(started.elapsed()));
    }
    Ok(vec![
        ("append to 10,000 deliveries", append, "p99 ≤ 25 ms"),
        ("open + list 10,000 deliveries", list, "≤ 150 ms"),
        ("filter 10,000 (mode + status)", filter, "≤ 10 ms"),
        (
            "one delivery's annotations of 50,000",
            annotations_read,
            "–",
        ),
    ])
}
