//! `switchboard rec` and `switchboard play` on real pseudo-terminals,
//! printed as a table (run by `make bench`):
//! - rec's overhead: a line typed into `cat` and its answer back, through
//!   `rec` and directly (the difference is what recording costs a
//!   keystroke's round trip), and the recorder's own work per read;
//! - play's pacing: a tape of reads 20 ms apart played to an expect-style
//!   client, each read's arrival against its recorded delay.

#![allow(clippy::unwrap_used)] // A benchmark: failing loudly is right.
#![allow(clippy::disallowed_methods)] // Tests read the files they made.

#[path = "../../store/benches/support/table.rs"]
mod table;
#[path = "../tests/cli/terminal.rs"]
#[allow(dead_code)] // The tests' client; the benchmark uses part of it.
mod terminal;

use std::time::{Duration, Instant};

use base64::Engine as _;
use portable_pty::CommandBuilder;
use serde_json::json;
use switchboard_model::tape::record::Recorder;
use table::percentile;
use terminal::Terminal;

const ROUND_TRIPS: usize = 300;
const READS: usize = 100;
const GAP_MS: u64 = 20;

/// Round trips of a typed line through `terminal` running `cat`, in ms.
fn round_trips(terminal: &mut Terminal) -> Vec<f64> {
    let mut times = Vec::with_capacity(ROUND_TRIPS);
    for n in 0..ROUND_TRIPS {
        let line = format!("line-{n:04}");
        let started = Instant::now();
        terminal.send(&format!("{line}\r"));
        // The terminal's echo, then cat's answer.
        terminal.expect(&format!("{line}\r\n{line}\r\n"));
        times.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    times
}

fn main() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path().canonicalize().unwrap();

    // `cat` announces itself, so nothing is typed before the terminal is
    // set up (raw mode, under rec).
    let cat = ["sh", "-c", "echo ready; exec cat"];
    let mut direct = Terminal::spawn({
        let mut command = CommandBuilder::new(cat[0]);
        command.args(&cat[1..]);
        command.cwd(&root);
        command
    });
    direct.expect("ready\r\n");
    let direct_ms = round_trips(&mut direct);
    direct.send("\u{4}");
    direct.finish();

    let mut recorded = Terminal::start(
        &root,
        &[&["rec", "--name", "cat", "--"][..], &cat].concat(),
        &[],
    );
    recorded.expect("ready\r\n");
    let rec_ms = round_trips(&mut recorded);
    recorded.send("\u{4}");
    recorded.finish();

    // The recorder's own work for a read: 10,000 exchanges, each a key and
    // a 64-byte read ending at a prompt.
    let mut recorder = Recorder::new();
    let read = [&[b'x'; 58][..], b"\r\n> "].concat();
    let started = Instant::now();
    for n in 0..10_000_u64 {
        recorder.input(b"k\r", Duration::from_micros(n * 10));
        recorder.output(&read, Duration::from_micros(n * 10 + 5));
    }
    let recording = recorder.finish(None, true);
    let per_read_us = started.elapsed().as_secs_f64() * 1e6 / 10_000.0;
    assert_eq!(recording.exchanges.len(), 10_000);

    // Play's pacing: one input answered by READS reads GAP_MS apart.
    let b64 = |text: &str| base64::engine::general_purpose::STANDARD.encode(text);
    let chunks: Vec<_> = (0..READS)
        .map(|k| json!({"delay_ms": GAP_MS, "dataB64": b64(&format!("r{k:03}\r\n")), "isUtf8": true}))
        .collect();
    let tape = json!({
        "meta": {"createdAt": "2026-11-22T10:00:00.000Z", "program": "paced", "args": [], "env": {},
                 "cwd": root.display().to_string(), "pty": {"rows": 24, "cols": 80}, "tag": null,
                 "latency": 0, "errorRate": 0, "seed": null},
        "session": {"platform": "linux", "version": "bench"},
        "exchanges": [{"pre": {"prompt": null}, "input": {"type": "line", "dataText": "go\n", "dataBytesB64": null},
                       "output": {"chunks": chunks}, "exit": {"code": 0, "signal": null}, "dur_ms": 2000, "annotations": {}}]
    });
    std::fs::create_dir_all(root.join("tapes/paced")).unwrap();
    std::fs::write(root.join("tapes/paced/p.json5"), tape.to_string()).unwrap();
    let mut player = Terminal::start(&root, &["play", "--", "paced"], &[]);
    // Typed at once: before play's raw mode the terminal echoes it, which
    // the reads below do not look at.
    player.send("go\r");
    let mut last = Instant::now();
    let mut errors = Vec::with_capacity(READS);
    for k in 0..READS {
        player.expect(&format!("r{k:03}\r\n"));
        let now = Instant::now();
        let gap = now.duration_since(last).as_secs_f64() * 1000.0;
        last = now;
        if k > 0 {
            // The first read's gap includes the keystroke's way in.
            errors.push((gap - GAP_MS as f64).abs());
        }
    }
    player.finish();

    println!();
    println!("| switchboard rec / play (release, pseudo-terminals) | n | p50 | p99 | goal |");
    println!("|---|---|---|---|---|");
    println!(
        "| line typed into `cat` and answered, directly | {ROUND_TRIPS} | {:.2} ms | {:.2} ms | – |",
        percentile(&direct_ms, 50.0),
        percentile(&direct_ms, 99.0)
    );
    println!(
        "| the same through `switchboard rec` | {ROUND_TRIPS} | {:.2} ms | {:.2} ms | – |",
        percentile(&rec_ms, 50.0),
        percentile(&rec_ms, 99.0)
    );
    println!(
        "| rec's overhead per round trip (p50 difference) | – | {:.2} ms | – | – |",
        percentile(&rec_ms, 50.0) - percentile(&direct_ms, 50.0)
    );
    println!(
        "| recorder's work per exchange (a key, a 64-byte read; redaction included) | 10000 | {per_read_us:.2} µs | – | – |"
    );
    println!(
        "| play's pacing error per read ({GAP_MS} ms apart) | {} | {:.2} ms | {:.2} ms | ≤ 5 ms |",
        errors.len(),
        percentile(&errors, 50.0),
        percentile(&errors, 99.0)
    );
}
