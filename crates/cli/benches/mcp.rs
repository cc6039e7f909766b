//! `switchboard mcp` measured through rmcp's client against the real
//! binary, printed as a table (run by `make bench`):
//! - `ask`'s round trip: from the answer being written by the window's own
//!   code path (`feedback::reply`) to the tool result reaching the client,
//!   beside the same answers as an agent polling every 2 s sees them, in
//!   the same run;
//! - `search_knowledge` over 10,000 learnings entries: the first call
//!   (which builds the index) and the calls after it.

#![allow(clippy::unwrap_used)] // A benchmark: failing loudly is right.
#![allow(clippy::disallowed_methods)] // Tests read the files they made.

#[path = "../../store/benches/support/table.rs"]
mod table;

use std::{
    collections::HashMap,
    path::Path,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use rmcp::{
    ServiceExt,
    model::{CallToolRequestParams, ClientRequest, Request, ServerResult},
    service::PeerRequestOptions,
    transport::TokioChildProcess,
};
use serde_json::{Value, json};
use switchboard_model::blocking::Reply;
use switchboard_store::{Workspace, clock, deliveries, feedback};
use table::percentile;

const ANSWERS: usize = 200;
const QUERIES: usize = 200;
const LEARNING_FILES: usize = 125;
const ENTRIES_PER_FILE: usize = 80;
const POLL: Duration = Duration::from_secs(2);

const TOPICS: [&str; 12] = [
    "cache",
    "registry",
    "watcher",
    "timeout",
    "migration",
    "schema",
    "tokenizer",
    "sidecar",
    "webview",
    "keyboard",
    "lockfile",
    "retry",
];

fn corpus(root: &Path) {
    let learnings = root.join(".naide/learnings");
    std::fs::create_dir_all(&learnings).unwrap();
    for file in 0..LEARNING_FILES {
        let mut text = format!("# Category {file}\n\n");
        for entry in 0..ENTRIES_PER_FILE {
            let a = TOPICS[(file + entry) % TOPICS.len()];
            let b = TOPICS[(file * 7 + entry * 3) % TOPICS.len()];
            text.push_str(&format!(
                "## The {a} step failed after the {b} change {file}-{entry} (2026-{:02}-{:02})\n\n**What happened:** the {a} broke when the {b} was updated.\n**What to do next time:** check the {a} first.\n\n",
                1 + entry % 12,
                1 + entry % 28
            ));
        }
        std::fs::write(learnings.join(format!("category-{file}.md")), text).unwrap();
    }
}

fn arguments(value: Value) -> serde_json::Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("arguments are objects"),
    }
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_owned();
    corpus(&root);
    let workspace = Workspace::open(&root).unwrap();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"));
    command.arg("-C").arg(&root).arg("mcp");
    let client = ().serve(TokioChildProcess::new(command).unwrap()).await.unwrap();

    // search_knowledge over 10,000 entries.
    let search = |n: usize| {
        let words = format!(
            "{} {}",
            TOPICS[n % TOPICS.len()],
            TOPICS[(n * 5 + 3) % TOPICS.len()]
        );
        CallToolRequestParams::new("search_knowledge")
            .with_arguments(arguments(json!({"query": words, "limit": 10})))
    };
    let started = Instant::now();
    let first = client.call_tool(search(0)).await.unwrap();
    let build = ms(started.elapsed());
    assert_ne!(first.is_error, Some(true), "{first:?}");
    let mut searches = Vec::with_capacity(QUERIES);
    for n in 1..=QUERIES {
        let started = Instant::now();
        let result = client.call_tool(search(n)).await.unwrap();
        searches.push(ms(started.elapsed()));
        let hits = &result.structured_content.unwrap()["hits"];
        assert!(!hits.as_array().unwrap().is_empty());
    }

    // ask, answered by the window's code path; a 2 s poller beside it.
    let answered: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let seen: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let poller = {
        let (answered, seen, workspace) = (answered.clone(), seen.clone(), workspace.clone());
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(POLL);
                let waiting: Vec<String> = {
                    let answered = answered.lock().unwrap();
                    let seen = seen.lock().unwrap();
                    answered
                        .keys()
                        .filter(|id| !seen.contains_key(*id))
                        .cloned()
                        .collect()
                };
                for id in waiting {
                    if !feedback::responses_for(&workspace, &id).unwrap().is_empty() {
                        seen.lock().unwrap().insert(id, Instant::now());
                    }
                }
                if seen.lock().unwrap().len() >= ANSWERS {
                    return;
                }
            }
        })
    };
    let mut trips = Vec::with_capacity(ANSWERS);
    for n in 0..ANSWERS {
        let request = ClientRequest::CallToolRequest(Request::new(
            CallToolRequestParams::new("ask").with_arguments(arguments(json!({
                "title": format!("Question {n}"), "content": "Ship it?",
                "schema": {"type": "confirm", "prompt": "Ship it?"}}))),
        ));
        let handle = client
            .send_cancellable_request(request, PeerRequestOptions::no_options())
            .await
            .unwrap();
        let title = format!("Question {n}");
        let id = loop {
            let listed = deliveries::list(&workspace).unwrap();
            if let Some(found) = listed.deliveries.iter().find(|d| d.title == title) {
                break found.id.clone();
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        };
        // Let the server's wait begin before the answer comes.
        tokio::time::sleep(Duration::from_millis(5)).await;
        let reply = Reply::Answer {
            answer: json!({"value": true}),
        };
        let started = Instant::now();
        feedback::reply(&workspace, &id, reply, clock::now()).unwrap();
        answered.lock().unwrap().insert(id, started);
        let ServerResult::CallToolResult(result) = handle.await_response().await.unwrap() else {
            panic!("not a tool result");
        };
        trips.push(ms(started.elapsed()));
        assert_eq!(result.structured_content.unwrap()["status"], "responded");
    }
    poller.join().unwrap();
    let polled: Vec<f64> = {
        let answered = answered.lock().unwrap();
        let seen = seen.lock().unwrap();
        answered
            .iter()
            .map(|(id, at)| ms(seen[id].duration_since(*at)))
            .collect()
    };
    client.cancel().await.unwrap();

    let entries = LEARNING_FILES * ENTRIES_PER_FILE;
    println!();
    println!("| switchboard mcp (stdio, rmcp client) | n | p50 | p99 | goal |");
    println!("|---|---|---|---|---|");
    println!(
        "| ask round trip: answer written by the window's code path → tool result at the client | {ANSWERS} | {:.2} ms | {:.2} ms | p99 ≤ 20 ms |",
        percentile(&trips, 50.0),
        percentile(&trips, 99.0)
    );
    println!(
        "| the same answers seen by an agent polling every 2 s | {ANSWERS} | {:.0} ms | {:.0} ms | – |",
        percentile(&polled, 50.0),
        percentile(&polled, 99.0)
    );
    println!(
        "| search_knowledge, {entries} entries: first call (builds the index) | 1 | {build:.0} ms | – | – |"
    );
    println!(
        "| search_knowledge, {entries} entries: tools/call | {QUERIES} | {:.2} ms | {:.2} ms | – |",
        percentile(&searches, 50.0),
        percentile(&searches, 99.0)
    );
}
