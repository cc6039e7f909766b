//! Investigation and fuzzing measured (run by `make bench`), printed as
//! tables: an investigation of a program with 3 states and 20 commands —
//! wall time beside the exchanges it needed and beside its floor (the same
//! starts and exchanges driven directly on a pseudo-terminal of this
//! process, waiting for each prompt) — and fuzz inputs per second against
//! `cat`.

#![allow(clippy::unwrap_used)] // A benchmark: failing loudly is right.
#![allow(clippy::disallowed_methods)] // Tests read the files they made.

use std::{io::Read, path::Path, time::Instant};

use portable_pty::PtySize;
use switchboard_probe::{Target, Timing, fuzz, investigate};
use switchboard_session::{
    Client,
    pty::live::{Live, Spawn},
    runtime::RuntimeDir,
};

/// A client of a host of the bench's own, in a private folder under `dir`:
/// the host built beside this bench (`make bench` builds it first), ending
/// a second after its last session, reading the bench's empty settings.
fn client(dir: &Path) -> Client {
    let exe = std::env::current_exe().unwrap();
    let host = exe
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .join("switchboard-session-host");
    assert!(
        host.exists(),
        "no {}: cargo build --release -p switchboard-session first",
        host.display()
    );
    std::fs::create_dir_all(dir).unwrap();
    let runtime = RuntimeDir::at(dir.join("rt")).unwrap();
    Client::at(runtime, host).with_host_env(vec![
        ("SWITCHBOARD_SESSION_HOST_LINGER_SECS".into(), "1".into()),
        (
            "SWITCHBOARD_CONFIG_DIR".into(),
            dir.join("config").display().to_string(),
        ),
    ])
}

/// Runs of each measure; the median is shown.
const RUNS: usize = 5;
const FUZZ_INPUTS: usize = 1_000;

/// A program with three states (`bench>`, `bench(config)#`,
/// `bench(admin)$`) and 20 commands in all, each printing a line.
const PROGRAM: &str = r#"#!/usr/bin/env bash
mode=main
while true; do
  case $mode in
    main) printf 'bench> ' ;;
    config) printf 'bench(config)# ' ;;
    admin) printf 'bench(admin)$ ' ;;
  esac
  IFS= read -r line || exit 0
  case "$mode:$line" in
    main:help)
      printf 'Commands:\n'
      for c in status list show version uptime users disks config admin quit; do
        printf '  %-12s  the %s command\n' "$c" "$c"
      done ;;
    main:config) mode=config ;;
    main:admin) mode=admin ;;
    main:quit) exit 0 ;;
    config:help)
      printf 'Commands:\n'
      for c in get keys count dump back; do printf '  %-12s  the %s command\n' "$c" "$c"; done ;;
    admin:help)
      printf 'Commands:\n'
      for c in who load mem net leave; do printf '  %-12s  the %s command\n' "$c" "$c"; done ;;
    config:back|admin:leave) mode=main ;;
    *:) ;;
    *:status|*:list|*:show|*:version|*:uptime|*:users|*:disks|*:get|*:keys|*:count|*:dump|*:who|*:load|*:mem|*:net)
      echo "$line: ok" ;;
    *) echo "error: unknown command: $line" ;;
  esac
done
"#;

fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// The program on a pty of this process: start to its first prompt, and
/// a command sent to its prompt coming back, in ms (medians).
fn floor(program: &Path, cwd: &Path) -> (f64, f64) {
    let size = PtySize {
        rows: 24,
        cols: 80,
        pixel_width: 0,
        pixel_height: 0,
    };
    let read_until = |reader: &mut Box<dyn Read + Send>, seen: &mut Vec<u8>, from: usize| {
        let mut chunk = [0_u8; 4096];
        loop {
            if let Some(at) = seen[from..]
                .windows(7)
                .position(|window| window == b"bench> ")
            {
                return from + at + 7;
            }
            let n = reader.read(&mut chunk).unwrap();
            assert!(n > 0, "the program ended");
            seen.extend_from_slice(&chunk[..n]);
        }
    };
    let mut starts = Vec::new();
    let mut exchanges = Vec::new();
    for _ in 0..RUNS {
        let began = Instant::now();
        let path = program.display().to_string();
        let (mut live, mut reader) = Live::start(&Spawn {
            program: &path,
            args: &[],
            cwd,
            env: &[],
            inherit_env: true,
            size,
        })
        .unwrap();
        let mut seen = Vec::new();
        let mut from = read_until(&mut reader, &mut seen, 0);
        starts.push(began.elapsed().as_secs_f64() * 1e3);
        for _ in 0..20 {
            let began = Instant::now();
            live.write(b"status\r").unwrap();
            from = read_until(&mut reader, &mut seen, from);
            exchanges.push(began.elapsed().as_secs_f64() * 1e3);
        }
        let _ = live.write(b"quit\r");
        drop(live);
    }
    (median(&mut starts), median(&mut exchanges))
}

fn main() {
    let temp = tempfile::tempdir().unwrap();
    let cwd = temp.path();
    let program = cwd.join("bench-program");
    std::fs::write(&program, PROGRAM).unwrap();
    std::fs::set_permissions(
        &program,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let client = client(&cwd.join("host"));
    let target = Target {
        program: program.display().to_string(),
        cwd: cwd.display().to_string(),
        env: std::env::vars().collect(),
        ..Target::default()
    };

    // The investigation, RUNS times.
    let mut walls = Vec::new();
    let mut shape = (0, 0, 0, 0);
    for _ in 0..RUNS {
        let began = Instant::now();
        let report = runtime
            .block_on(investigate::investigate(
                &client,
                &target,
                investigate::Options::default(),
                &mut |_| {},
            ))
            .unwrap();
        walls.push(began.elapsed().as_secs_f64() * 1e3);
        let facts = report.switchboard.clone().unwrap_or_default();
        shape = (
            report.states.len(),
            report.commands.len(),
            facts.exchanges,
            facts.starts,
        );
    }
    let wall = median(&mut walls);
    let (states, commands, exchanges, starts) = shape;
    assert_eq!(states, 3, "the three states are found");
    let (start_ms, exchange_ms) = floor(&program, cwd);
    let floor_ms = starts as f64 * start_ms + exchanges as f64 * exchange_ms;

    // Fuzzing cat.
    let cat = Target {
        program: "cat".into(),
        cwd: cwd.display().to_string(),
        env: std::env::vars().collect(),
        ..Target::default()
    };
    let mut rates = Vec::new();
    for seed in 0..3 {
        let options = fuzz::Options {
            seed,
            max_inputs: FUZZ_INPUTS,
            timing: Timing::default(),
            allow_shell: false,
            tapes_in: None,
        };
        let began = Instant::now();
        let found = runtime
            .block_on(fuzz::fuzz(&client, &cat, &options, &mut |_| {}))
            .unwrap();
        assert_eq!(found.inputs, FUZZ_INPUTS);
        rates.push(found.inputs as f64 / began.elapsed().as_secs_f64());
    }
    let rate = median(&mut rates);

    println!();
    println!("| investigation (bash program: 3 states, 20 commands) | value |");
    println!("|---|---|");
    println!("| states / commands found | {states} / {commands} |");
    println!("| exchanges / starts needed | {exchanges} / {starts} |");
    println!("| wall time, median of {RUNS} | {wall:.0} ms |");
    println!(
        "| floor: {starts} starts × {start_ms:.1} ms + {exchanges} exchanges × {exchange_ms:.2} ms, driven directly | {floor_ms:.0} ms |"
    );
    println!(
        "| wall ÷ floor (goal: no fixed sleeps — the program's own time dominates) | {:.1}× |",
        wall / floor_ms
    );
    println!();
    println!("| fuzzing `cat` | inputs | inputs/s (median of 3 seeds) | goal |");
    println!("|---|---|---|---|");
    println!(
        "| each input answered and judged before the next | {FUZZ_INPUTS} | {rate:.0} | ≥ 200/s {} |",
        if rate >= 200.0 { "✔" } else { "✘" }
    );
}
