//! `switchboard serve` under many pages (printed as a table by `make
//! bench`): the server's memory (PSS of its process) with no page, then
//! with 200 paired pages each holding its event stream and having read
//! the inbox; and an agent's delivery → heard on every one of the 200
//! streams (median and p95 over the pages, 5 rounds).

#![allow(clippy::disallowed_methods)] // Test and build code reads the files it made.
use std::time::Instant;

use anyhow::{Context, Result};
use serde_json::Value;
use switchboard_e2e::{
    Binaries,
    browser::{Folders, Served},
    measure::percentile,
    memory::{summed, tree_memory},
    pages,
};

const PAGES: usize = 200;
const ROUNDS: usize = 5;

fn main() -> Result<()> {
    let binaries = Binaries::locate()?;
    let folders = Folders::new()?;
    let (workspace, config) = (&folders.workspace, &folders.config);
    let served = Served::start(&binaries, workspace, config)?;
    let origin = served.origin.clone();
    let paired = (0..PAGES)
        .map(|_| pages::pair(&origin, config))
        .collect::<Result<Vec<_>>>()?;
    let idle = summed(&tree_memory(served.pid())).0;
    let mut streams = Vec::new();
    for page in &paired {
        streams.push(pages::Events::open(&origin, page)?);
        let (status, _) = pages::invoke(&origin, page, "list_deliveries", &Value::Null)?;
        anyhow::ensure!(status == 200, "list_deliveries answered {status}");
    }
    let held = summed(&tree_memory(served.pid())).0;
    let mut heard = Vec::new();
    for round in 0..ROUNDS {
        let asked = Instant::now();
        binaries.deliver(workspace, &format!("Round {round}"), "hello")?;
        let listening: Vec<_> = streams
            .into_iter()
            .map(|mut events| {
                std::thread::spawn(move || -> Result<(pages::Events, f64)> {
                    events.until(|line| {
                        line.contains("store-changed") && line.contains("deliveries")
                    })?;
                    Ok((events, asked.elapsed().as_secs_f64() * 1000.0))
                })
            })
            .collect();
        streams = Vec::new();
        for page in listening {
            let (events, ms) = page
                .join()
                .map_err(|_| anyhow::anyhow!("a page panicked"))?
                .context("a page did not hear the delivery")?;
            streams.push(events);
            heard.push(ms);
        }
    }
    let after = summed(&tree_memory(served.pid())).0;

    println!();
    println!("| `switchboard serve`, {PAGES} paired pages | value |");
    println!("|---|---|");
    println!("| memory (PSS), no page | {:.1} MB |", idle / 1024.0);
    println!(
        "| memory (PSS), {PAGES} pages each holding its event stream, the inbox read | {:.1} MB |",
        held / 1024.0
    );
    println!(
        "| memory (PSS), after {ROUNDS} deliveries told to every page | {:.1} MB |",
        after / 1024.0
    );
    println!(
        "| a delivery → heard on each of the {PAGES} streams (n = {}) | median {:.1} ms, p95 {:.1} ms |",
        heard.len(),
        percentile(&heard, 50.0),
        percentile(&heard, 95.0)
    );
    Ok(())
}
