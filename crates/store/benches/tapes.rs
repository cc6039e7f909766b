//! Tapes at ClaudeControl's measured scale, printed as a table (run by
//! `make bench`): 5,000 exchanges in 50 tapes, loaded and indexed, then
//! exact lookups and misses that fall to the normalised fallback, whose
//! bucket (same program, folder and prompt) holds 500 exchanges.

#![allow(clippy::unwrap_used)] // A benchmark: failing loudly is right.
#![allow(clippy::disallowed_methods)] // Tests read the files they made.

#[path = "support/table.rs"]
mod table;

use std::{collections::BTreeMap, time::Instant};

use base64::Engine as _;
use serde_json::json;
use switchboard_model::tape::{
    codec,
    index::{Context, TapeIndex},
};
use switchboard_store::tapes::Tapes;
use table::percentile;

const TAPES: usize = 50;
const EXCHANGES: usize = 100;
const LOOKUPS: usize = 2_000;

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let tapes = Tapes::at(dir.path().join("tapes"));
    let b64 = |text: &str| base64::engine::general_purpose::STANDARD.encode(text);
    for t in 0..TAPES {
        // Ten programs; tapes 0..5 of "tool0" share one folder and prompt:
        // that bucket holds 5 × 100 = 500 exchanges.
        let program = format!("tool{}", t / 5);
        let exchanges: Vec<_> = (0..EXCHANGES)
            .map(|n| {
                json!({"pre": {"prompt": "> "},
                       "input": {"type": "line", "dataText": format!("query {t}-{n} at 2026-11-22T10:{:02}:00 id {:08x}\n", n % 60, t * 1000 + n), "dataBytesB64": null},
                       "output": {"chunks": [{"delay_ms": 3, "dataB64": b64(&format!("row {t}-{n}\r\n> ")), "isUtf8": true}]},
                       "exit": null, "dur_ms": 4, "annotations": {}})
            })
            .collect();
        let tape = json!({"meta": {"createdAt": "2026-11-22T10:00:00.000", "program": program, "args": [],
                                   "env": {"LANG": "C"}, "cwd": "/w", "pty": {"rows": 24, "cols": 80},
                                   "tag": null, "latency": 0, "errorRate": 0, "seed": null},
                          "session": {"platform": "linux", "version": "bench"}, "exchanges": exchanges});
        let tape = codec::decode(&tape.to_string()).unwrap();
        let path = tapes.path_for(&program, &format!("t{t}")).unwrap();
        tapes.write(&path, &tape).unwrap();
    }

    // The patterns are compiled once per process: measured on their own.
    let started = Instant::now();
    switchboard_model::tape::index::warm_up();
    let compile_ms = started.elapsed().as_secs_f64() * 1000.0;
    // Load and index five times; the median of each is reported.
    let (mut loads, mut builds) = (Vec::new(), Vec::new());
    let mut measured = None;
    for _ in 0..5 {
        let started = Instant::now();
        let loaded = tapes.load().unwrap();
        loads.push(started.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(loaded.tapes.len(), TAPES);
        let list: Vec<_> = loaded.tapes.into_iter().map(|entry| entry.tape).collect();
        let started = Instant::now();
        let index = TapeIndex::build(&list);
        builds.push(started.elapsed().as_secs_f64() * 1000.0);
        measured = Some((list, index));
    }
    let (list, index) = measured.unwrap();
    let (load_ms, index_ms) = (percentile(&loads, 50.0), percentile(&builds, 50.0));
    let per_thousand = (TAPES * EXCHANGES) as f64 / 1000.0;

    let context = |t: usize| Context {
        program: format!("tool{}", t / 5),
        args: Vec::new(),
        cwd: "/w".into(),
        env: BTreeMap::from([
            ("LANG".into(), "C".into()),
            ("PATH".into(), "/usr/bin".into()),
        ]),
        prompt: Some("> ".into()),
    };
    let mut exact = Vec::with_capacity(LOOKUPS);
    let mut fallback = Vec::with_capacity(LOOKUPS);
    for k in 0..LOOKUPS {
        let (t, n) = (k % 5, (k * 7) % EXCHANGES);
        let wanted = context(t);
        let input = format!(
            "query {t}-{n} at 2026-11-22T10:{:02}:00 id {:08x}\r",
            n % 60,
            t * 1000 + n
        );
        let started = Instant::now();
        let found = index.lookup(&list, &wanted, input.as_bytes(), None);
        exact.push(started.elapsed().as_secs_f64() * 1e6);
        assert_eq!(found, Some((t, n)));
        // Another day, another id: only the fallback finds it.
        let later = format!(
            "query {t}-{n} at 2027-01-02 03:04:05 id {:08x}\r",
            0xabc0_0000_u32 + n as u32
        );
        let started = Instant::now();
        let found = index.lookup(&list, &wanted, later.as_bytes(), None);
        fallback.push(started.elapsed().as_secs_f64() * 1e6);
        assert_eq!(found, Some((t, n)));
    }

    println!();
    println!(
        "| tapes: {} exchanges in {TAPES} tapes | n | p50 | p99 | ClaudeControl (measured) | goal |",
        TAPES * EXCHANGES
    );
    println!("|---|---|---|---|---|---|");
    println!(
        "| load + parse, per 1,000 exchanges (median of 5) | 5 | {:.2} ms | – | ~21 ms | – |",
        load_ms / per_thousand
    );
    println!(
        "| index build, per 1,000 exchanges (median of 5) | 5 | {:.2} ms | – | ~2.3 ms | – |",
        index_ms / per_thousand
    );
    println!(
        "| load + index, per 1,000 exchanges | 5 | {:.2} ms | – | ~23 ms | ≤ 5 ms |",
        (load_ms + index_ms) / per_thousand
    );
    println!(
        "| the index's patterns compiled (once per process) | 1 | {compile_ms:.2} ms | – | – | – |"
    );
    println!(
        "| exact lookup | {LOOKUPS} | {:.1} µs | {:.1} µs | ~1.4 µs | – |",
        percentile(&exact, 50.0),
        percentile(&exact, 99.0)
    );
    println!(
        "| miss → normalised fallback, 500-exchange bucket | {LOOKUPS} | {:.1} µs | {:.1} µs | ~3.9 ms / 8.7 ms | p99 ≤ 100 µs |",
        percentile(&fallback, 50.0),
        percentile(&fallback, 99.0)
    );
}
