//! The knowledge index at 10,000 entries, printed as a table (run by
//! `make bench`): building it, updating it after one file changes, and
//! query latency beside a keyword scan that re-reads every file per query
//! (Naide's `search_learnings`: file name match +3, each occurrence +1),
//! in the same run.

#![allow(clippy::unwrap_used)] // A benchmark: failing loudly is right.
#![allow(clippy::disallowed_methods)] // Tests read the files they made.

#[path = "support/table.rs"]
mod table;

use table::percentile;

use std::{path::Path, time::Instant};

use serde_json::json;
use switchboard_model::{Timestamp, knowledge::search::SearchQuery};
use switchboard_store::{Workspace, search::SearchIndex};

const LEARNING_FILES: usize = 100;
const ENTRIES_PER_FILE: usize = 80;
const PLAYBOOKS: usize = 20;
const BULLETS_PER_PLAYBOOK: usize = 100;
const QUERIES: usize = 200;

const TOPICS: [&str; 16] = [
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
    "theme",
    "lockfile",
    "benchmark",
    "fixture",
    "snapshot",
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
                "## The {a} step failed after the {b} change {file}-{entry} (2026-{:02}-{:02})\n\n**What happened:** the {a} broke when the {b} was updated twice.\n**What to do next time:** check the {a} before touching the {b}.\n\n",
                1 + entry % 12,
                1 + entry % 28
            ));
        }
        std::fs::write(learnings.join(format!("category-{file}.md")), text).unwrap();
    }
    let playbooks = root.join(".delia/playbooks");
    std::fs::create_dir_all(&playbooks).unwrap();
    for book in 0..PLAYBOOKS {
        let bullets: Vec<_> = (0..BULLETS_PER_PLAYBOOK)
            .map(|n| {
                let a = TOPICS[(book + n) % TOPICS.len()];
                let b = TOPICS[(book + n * 5) % TOPICS.len()];
                json!({"id": format!("strat-{book:04x}{n:04x}"),
                       "content": format!("Verify the {a} whenever the {b} changes ({book}/{n})"),
                       "helpful_count": n % 7, "harmful_count": n % 3,
                       "last_used": format!("2026-{:02}-01T00:00:00.000000", 1 + n % 11)})
            })
            .collect();
        let playbook = json!({"schema_version": 2, "task_type": format!("task{book}"),
            "updated_at": "2026-11-01T00:00:00.000000", "bullets": bullets});
        std::fs::write(
            playbooks.join(format!("task{book}.json")),
            playbook.to_string(),
        )
        .unwrap();
    }
}

/// Naide's way: read every file for every query and count keywords.
fn keyword_scan(root: &Path, keywords: &[&str]) -> Vec<(usize, String)> {
    let mut scored = Vec::new();
    for dir in [".naide/learnings", ".delia/playbooks"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_lowercase();
            let text = std::fs::read_to_string(&path).unwrap().to_lowercase();
            let mut score = 0;
            for keyword in keywords {
                if name.contains(keyword) {
                    score += 3;
                }
                score += text.matches(keyword).count();
            }
            if score > 0 {
                scored.push((score, name));
            }
        }
    }
    scored.sort_by_key(|entry| std::cmp::Reverse(entry.0));
    scored.truncate(5);
    scored
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    corpus(root);
    let workspace = Workspace::open(root).unwrap();
    let now = Timestamp::parse("2026-11-22T00:00:00Z").unwrap();

    let started = Instant::now();
    let mut index = SearchIndex::open(&workspace).unwrap();
    let report = index.sync(&workspace).unwrap();
    let build = started.elapsed().as_secs_f64() * 1000.0;
    let entries = report.entries;
    assert_eq!(
        entries,
        LEARNING_FILES * ENTRIES_PER_FILE + PLAYBOOKS * BULLETS_PER_PLAYBOOK
    );

    let changed = root.join(".naide/learnings/category-7.md");
    let mut text = std::fs::read_to_string(&changed).unwrap();
    text.push_str("## One more lesson (2026-11-22)\n\nRetry the watcher once.\n");
    std::fs::write(&changed, text).unwrap();
    let started = Instant::now();
    let update = index.sync(&workspace).unwrap();
    let incremental = started.elapsed().as_secs_f64() * 1000.0;
    assert_eq!(update.indexed.len(), 1);

    let queries: Vec<[&str; 2]> = (0..QUERIES)
        .map(|n| [TOPICS[n % TOPICS.len()], TOPICS[(n * 5 + 3) % TOPICS.len()]])
        .collect();
    let mut indexed = Vec::new();
    let mut scanned = Vec::new();
    for words in &queries {
        let query = SearchQuery::new(words.join(" "), 10);
        let started = Instant::now();
        let hits = index.search(&query, now).unwrap().hits;
        indexed.push(started.elapsed().as_secs_f64() * 1000.0);
        assert!(!hits.is_empty());

        let started = Instant::now();
        let files = keyword_scan(root, words);
        scanned.push(started.elapsed().as_secs_f64() * 1000.0);
        assert!(!files.is_empty());
    }

    println!();
    println!(
        "| knowledge search, {entries} entries in {} files | n | p50 | p95 | goal |",
        LEARNING_FILES + PLAYBOOKS
    );
    println!("|---|---|---|---|---|");
    println!("| index build (open + first sync) | 1 | {build:.0} ms | – | – |");
    println!("| index update after one file changed | 1 | {incremental:.1} ms | – | – |");
    for (name, samples, goal) in [
        ("query, tantivy index, ranked", &indexed, "p95 ≤ 5 ms"),
        (
            "query, keyword scan re-reading every file (Naide)",
            &scanned,
            "–",
        ),
    ] {
        println!(
            "| {name} | {QUERIES} | {:.2} ms | {:.2} ms | {goal} |",
            percentile(samples, 50.0),
            percentile(samples, 95.0)
        );
    }
}
