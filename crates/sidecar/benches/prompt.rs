//! Prompt assembly with 1,000 learnings files and 50 spec files, printed as
//! a table (run by `make bench`): the memory cache (re-reads only changed
//! files) beside re-reading every file on each message, in the same run.

#![allow(clippy::disallowed_methods)] // Test and build code reads the files it made.
use std::time::Instant;

use switchboard_model::chat::prompt::{PromptInputs, assemble};
use switchboard_sidecar::memory::{self, LEARNING_DIRS, MemoryCache, SPEC_DIRS};

const MESSAGES: usize = 60;

fn main() -> std::io::Result<()> {
    let workspace = tempfile::tempdir()?;
    let learnings = workspace.path().join(".naide/learnings");
    let specs = workspace.path().join(".prompts/plan");
    std::fs::create_dir_all(&learnings)?;
    std::fs::create_dir_all(&specs)?;
    let topics = [
        "auth", "build", "deploy", "testing", "ui", "database", "cache", "logging",
    ];
    for n in 0..1_000 {
        let topic = topics[n % topics.len()];
        let body = format!(
            "## {topic} lesson {n} (2026-01-01)\n\n**What happened:** the {topic} step failed when run twice.\n**What to do next time:** make {topic} idempotent and check it in CI.\n"
        );
        std::fs::write(learnings.join(format!("{topic}-{n}.md")), body.repeat(3))?;
    }
    for n in 0..50 {
        std::fs::write(
            specs.join(format!("feature-{n}.md")),
            format!("# Feature {n}\n\n{}", "Acceptance criteria. ".repeat(60)),
        )?;
    }
    let messages: Vec<String> = (0..MESSAGES)
        .map(|n| {
            format!(
                "How do we make {} idempotent, attempt {n}?",
                topics[n % topics.len()]
            )
        })
        .collect();

    let run = |gather: &mut dyn FnMut(&str) -> (Vec<_>, Vec<_>)| -> Vec<f64> {
        messages
            .iter()
            .map(|message| {
                let started = Instant::now();
                let (learnings, specs) = gather(message);
                let prompt = assemble(PromptInputs {
                    base: "base",
                    mode: "planning",
                    learnings,
                    specs,
                    summary: None,
                    history: &[],
                    message,
                    budget: 8_000,
                });
                assert!(prompt.total_tokens <= 8_000, "the budget holds");
                started.elapsed().as_secs_f64() * 1000.0
            })
            .collect()
    };
    let root = workspace.path();
    let rereading = run(&mut |message| {
        (
            memory::gather(root, &LEARNING_DIRS, message).files,
            memory::gather(root, &SPEC_DIRS, message).files,
        )
    });
    let mut cache = MemoryCache::default();
    cache.gather(root, &LEARNING_DIRS, "warm");
    cache.gather(root, &SPEC_DIRS, "warm");
    let cached = run(&mut |message| {
        (
            cache.gather(root, &LEARNING_DIRS, message).files,
            cache.gather(root, &SPEC_DIRS, message).files,
        )
    });

    let store_workspace =
        switchboard_store::Workspace::open(root).map_err(std::io::Error::other)?;
    let mut index = switchboard_store::search::SearchIndex::open(&store_workspace)
        .map_err(std::io::Error::other)?;
    let now = switchboard_model::Timestamp::EPOCH;
    memory::relevant_knowledge(&mut index, &store_workspace, "warm", now)
        .map_err(std::io::Error::other)?;
    let indexed = run(&mut |message| {
        let relevant = memory::relevant_knowledge(&mut index, &store_workspace, message, now)
            .unwrap_or_default();
        let mut specs = cache.gather(root, &SPEC_DIRS, message).files;
        for spec in &mut specs {
            spec.relevance = relevant.spec_scores.get(&spec.path).copied().unwrap_or(0.0);
        }
        (relevant.knowledge, specs)
    });

    println!();
    println!("| prompt assembly, 1,000 learnings + 50 specs | n | p50 | p95 | goal |");
    println!("|---|---|---|---|---|");
    for (name, samples, goal) in [
        (
            "knowledge index + spec cache (what a turn does)",
            &indexed,
            "p95 ≤ 20 ms",
        ),
        ("memory cache (keyword scan)", &cached, "–"),
        ("re-reading every file", &rereading, "–"),
    ] {
        println!(
            "| {name} | {MESSAGES} | {:.2} ms | {:.2} ms | {goal} |",
            percentile(samples, 50.0),
            percentile(samples, 95.0)
        );
    }
    Ok(())
}

/// The `p`th percentile (nearest rank) of `samples`.
fn percentile(samples: &[f64], p: f64) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}
