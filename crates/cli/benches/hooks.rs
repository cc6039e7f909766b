//! `switchboard hook` measured as agents run it (a process per event, the
//! event on stdin), printed as a table (run by `make bench`):
//! - with no window open: start to exit for a permission request (it
//!   falls through) and for `PostToolUse` (what every tool call pays);
//! - with a window open (its presence lock held here): from the answer
//!   written by the window's own code path (`feedback::reply`) to the
//!   hook's decision on its stdout.

#![allow(clippy::unwrap_used)] // A benchmark: failing loudly is right.
#![allow(clippy::disallowed_methods)] // Tests read the files they made.

#[path = "../../store/benches/support/table.rs"]
mod table;

use std::{
    io::{BufRead, BufReader, Write},
    path::Path,
    process::{Command, Stdio},
    sync::mpsc,
    time::{Duration, Instant},
};

use serde_json::{Value, json};
use switchboard_model::{blocking::Reply, ipc::StoreChange};
use switchboard_store::{Workspace, WorkspaceWatcher, clock, deliveries, feedback, window};
use table::percentile;

const RUNS: usize = 200;
const ANSWERS: usize = 100;

fn event(root: &Path, name: &str, n: usize) -> Value {
    json!({
        "session_id": "bench-session",
        "transcript_path": "",
        "cwd": root,
        "hook_event_name": name,
        "tool_name": "Bash",
        "tool_input": {"command": format!("rm -rf build-{n}"), "description": "Remove a build"},
        "tool_response": {"stdout": "", "stderr": ""},
    })
}

fn hook(root: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_switchboard"));
    command
        .arg("-C")
        .arg(root)
        .args(["hook", "--agent", "claude-code"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    command
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// Start to exit of one hook process given `event`.
fn once(root: &Path, event: &Value) -> f64 {
    let started = Instant::now();
    let mut child = hook(root).spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(event.to_string().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let took = ms(started.elapsed());
    assert!(output.status.success());
    assert!(output.stdout.is_empty(), "no window: no decision");
    took
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    // Warm the binary's pages once.
    once(&root, &event(&root, "PostToolUse", 0));

    let fall_through: Vec<f64> = (0..RUNS)
        .map(|n| once(&root, &event(&root, "PermissionRequest", n)))
        .collect();
    let every_call: Vec<f64> = (0..RUNS)
        .map(|n| once(&root, &event(&root, "PostToolUse", n)))
        .collect();
    let workspace = Workspace::open(&root).unwrap();
    assert!(
        deliveries::list(&workspace).unwrap().deliveries.is_empty(),
        "nothing was asked with no window open"
    );

    // A window is open: each hook asks, the answer comes as the window
    // writes it, the decision is timed to the hook's stdout.
    let _window = window::hold(&workspace).unwrap();
    let (changed, changes) = mpsc::channel();
    let _watcher = WorkspaceWatcher::start(&workspace, move |change| {
        if change == StoreChange::Deliveries {
            let _ = changed.send(());
        }
    })
    .unwrap();
    let mut decided = Vec::new();
    for n in 0..ANSWERS {
        let mut child = hook(&root).spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(event(&root, "PermissionRequest", n).to_string().as_bytes())
            .unwrap();
        let question = loop {
            let open = deliveries::list(&workspace)
                .unwrap()
                .deliveries
                .into_iter()
                .find(|delivery| {
                    delivery.status == switchboard_model::DeliveryStatus::AwaitingFeedback
                });
            if let Some(open) = open {
                break open.id;
            }
            changes.recv_timeout(Duration::from_secs(10)).unwrap();
        };
        // Answered as soon as the question is stored: what remains of the
        // hook's own setup (its watcher) counts too, so this is an upper
        // bound on what a developer's answer waits for.
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let started = Instant::now();
        feedback::reply(
            &workspace,
            &question,
            Reply::Answer {
                answer: json!({"value": true}),
            },
            clock::now(),
        )
        .unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        decided.push(ms(started.elapsed()));
        let decision: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            decision["hookSpecificOutput"]["decision"]["behavior"],
            "allow"
        );
        assert!(child.wait().unwrap().success());
        while changes.try_recv().is_ok() {}
    }

    println!();
    println!("| switchboard hook (a process per event) | n | p50 | p95 | goal |");
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
        "no window open: permission request, start to exit (falls through)",
        &fall_through,
        "p95 ≤ 20 ms",
    );
    row(
        "no window open: PostToolUse, start to exit (every tool call)",
        &every_call,
        "p95 ≤ 20 ms",
    );
    row(
        "window open: answer written → decision on the hook's stdout",
        &decided,
        "p95 ≤ 20 ms",
    );
    let verdict = |samples: &[f64]| percentile(samples, 95.0) <= 20.0;
    for (what, samples) in [
        ("fall-through", &fall_through),
        ("PostToolUse", &every_call),
        ("decision", &decided),
    ] {
        if !verdict(samples) {
            println!(
                "goal missed: {what} p95 {:.1} ms",
                percentile(samples, 95.0)
            );
        }
    }
}
