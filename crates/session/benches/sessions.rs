//! Program sessions measured beside their floor — the same program read
//! directly on a pseudo-terminal of this process — printed as tables (run
//! by `make bench`): a send answered and seen by an expect, 100 MB of output
//! through the host with an expect for its very last line, start to first
//! output with a warm and a cold host, and the host's memory idle and with
//! 20 busy sessions.

#![allow(clippy::unwrap_used)] // A benchmark: failing loudly is right.
#![allow(clippy::disallowed_methods)] // Tests read the files they made.

use std::{
    io::Read,
    path::Path,
    time::{Duration, Instant},
};

use portable_pty::PtySize;
use switchboard_session::{
    Client,
    protocol::{ExpectOutcome, Input, Pattern},
    pty::live::{Live, Spawn},
};

#[path = "../tests/session/support.rs"]
mod support;

use support::{SECS, rss_kib, start};

/// A client of a host of its own in `dir` (not started yet).
fn client(dir: &Path) -> Client {
    support::client(dir, &[])
}
const ROUND_TRIPS: usize = 300;
const FLOOD_BYTES: u64 = 100 * 1024 * 1024;
const BUSY: usize = 20;

fn percentile(samples: &[f64], p: f64) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn size() -> PtySize {
    PtySize {
        rows: 24,
        cols: 80,
        pixel_width: 0,
        pixel_height: 0,
    }
}

/// A program on a pty of this process, and everything it printed so far.
struct Direct {
    live: Live,
    reader: Box<dyn Read + Send>,
    seen: Vec<u8>,
}

impl Direct {
    fn start(program: &str, args: &[String], cwd: &Path) -> Self {
        let (live, reader) = Live::start(&Spawn {
            program,
            args,
            cwd,
            env: &[],
            inherit_env: true,
            size: size(),
        })
        .unwrap();
        Self {
            live,
            reader,
            seen: Vec::new(),
        }
    }

    /// Reads until `needle` shows after `from`; where it ends.
    fn read_until(&mut self, needle: &[u8], from: usize) -> usize {
        let mut chunk = [0_u8; 16 * 1024];
        loop {
            if let Some(at) = self.seen[from.min(self.seen.len())..]
                .windows(needle.len())
                .position(|window| window == needle)
            {
                return from + at + needle.len();
            }
            let read = self.reader.read(&mut chunk).unwrap();
            assert!(read > 0, "the program ended early");
            self.seen.extend_from_slice(&chunk[..read]);
        }
    }
}

fn main() {
    let temp = tempfile::tempdir().unwrap();
    let cwd = temp.path();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();

    // A send answered by `cat`, seen: directly, then through the host.
    let mut direct = Direct::start("cat", &[], cwd);
    let mut floor = Vec::new();
    let mut from = 0;
    for n in 0..ROUND_TRIPS {
        let token = format!("tok{n:05}");
        let started = Instant::now();
        direct.live.write(format!("{token}\r").as_bytes()).unwrap();
        // The echo, then cat's copy: the second sighting is the answer.
        let echoed = direct.read_until(token.as_bytes(), from);
        from = direct.read_until(token.as_bytes(), echoed);
        floor.push(started.elapsed().as_secs_f64() * 1e3);
    }
    let host_dir = cwd.join("warm");
    let client = client(&host_dir);
    let (host_ms, host_pid) = runtime.block_on(async {
        let id = client.start(start("cat", &[], cwd)).await.unwrap().id;
        let mut samples = Vec::new();
        for n in 0..ROUND_TRIPS {
            let token = format!("tok{n:05}");
            let started = Instant::now();
            client
                .send(&id, Input::Line(token.clone()), false)
                .await
                .unwrap();
            let outcome = client
                .expect(&id, vec![Pattern::Exact(token)], SECS, |_| {})
                .await
                .unwrap();
            assert!(matches!(outcome, ExpectOutcome::Matched { .. }));
            samples.push(started.elapsed().as_secs_f64() * 1e3);
        }
        client.kill(&id, Some("KILL".into())).await.unwrap();
        (samples, client.hello().await.unwrap())
    });

    // 100 MB of output, and its last line.
    let script = format!("head -c {FLOOD_BYTES} /dev/zero | tr '\\0' x; echo; echo END-MARK");
    let args = vec!["-c".to_owned(), script.clone()];
    let started = Instant::now();
    let mut direct = Direct::start("sh", &args, cwd);
    let mut chunk = vec![0_u8; 64 * 1024];
    let mut total = 0_u64;
    let mut tail = Vec::new();
    loop {
        let read = direct.reader.read(&mut chunk).unwrap_or(0);
        if read == 0 {
            break;
        }
        total += read as u64;
        tail.extend_from_slice(&chunk[..read]);
        if tail.len() > 64 {
            tail.drain(..tail.len() - 64);
        }
        if tail.windows(8).any(|window| window == b"END-MARK") {
            break;
        }
    }
    let direct_secs = started.elapsed().as_secs_f64();
    assert!(total >= FLOOD_BYTES);
    let rss_before = rss_kib(host_pid);
    let (host_secs, rss_after) = runtime.block_on(async {
        let started = Instant::now();
        let id = client
            .start(start("sh", &["-c", &script], cwd))
            .await
            .unwrap()
            .id;
        let outcome = client
            .expect(
                &id,
                vec![Pattern::Regex("^END-MARK$".into())],
                600_000,
                |_| {},
            )
            .await
            .unwrap();
        let secs = started.elapsed().as_secs_f64();
        assert!(
            matches!(outcome, ExpectOutcome::Matched { .. }),
            "{outcome:?}"
        );
        (secs, rss_kib(host_pid))
    });
    let mb = FLOOD_BYTES as f64 / 1e6;

    // Start → first output, warm host and cold.
    let mut warm = Vec::new();
    runtime.block_on(async {
        for _ in 0..20 {
            let started = Instant::now();
            let id = client
                .start(start("echo", &["ready"], cwd))
                .await
                .unwrap()
                .id;
            client
                .expect(&id, vec![Pattern::Exact("ready".into())], SECS, |_| {})
                .await
                .unwrap();
            warm.push(started.elapsed().as_secs_f64() * 1e3);
        }
    });
    let mut cold = Vec::new();
    for n in 0..5 {
        let fresh = client_for_cold(cwd, n);
        runtime.block_on(async {
            let started = Instant::now();
            let id = fresh
                .start(start("echo", &["ready"], cwd))
                .await
                .unwrap()
                .id;
            fresh
                .expect(&id, vec![Pattern::Exact("ready".into())], SECS, |_| {})
                .await
                .unwrap();
            cold.push(started.elapsed().as_secs_f64() * 1e3);
        });
    }

    // Host memory: idle (a fresh host), then with 20 busy sessions.
    let idle_client = client_for_cold(cwd, 99);
    let (idle_rss, busy_rss) = runtime.block_on(async {
        let pid = idle_client.hello().await.unwrap();
        let idle = rss_kib(pid);
        let mut ids = Vec::new();
        for _ in 0..BUSY {
            let id = idle_client
                .start(start(
                    "sh",
                    &["-c", "while :; do echo tick $$; sleep 0.01; done"],
                    cwd,
                ))
                .await
                .unwrap()
                .id;
            ids.push(id);
        }
        tokio::time::sleep(Duration::from_secs(3)).await;
        let busy = rss_kib(pid);
        for id in ids {
            idle_client.kill(&id, Some("KILL".into())).await.unwrap();
        }
        (idle, busy)
    });

    println!();
    println!("| program sessions | n | p50 | p99 | floor (direct pty) p50 / p99 | goal |");
    println!("|---|---|---|---|---|---|");
    println!(
        "| send → answer seen by an expect (cat) | {ROUND_TRIPS} | {:.2} ms | {:.2} ms | {:.2} / {:.2} ms | p99 ≤ 5 ms |",
        percentile(&host_ms, 50.0),
        percentile(&host_ms, 99.0),
        percentile(&floor, 50.0),
        percentile(&floor, 99.0),
    );
    println!(
        "| start → first output, warm host | {} | {:.1} ms | {:.1} ms | – | – |",
        warm.len(),
        percentile(&warm, 50.0),
        percentile(&warm, 99.0),
    );
    println!(
        "| start → first output, cold host (host started too) | {} | {:.1} ms | {:.1} ms | – | – |",
        cold.len(),
        percentile(&cold, 50.0),
        percentile(&cold, 99.0),
    );
    println!();
    println!("| 100 MB of output | host | direct pty | host ÷ direct | goal |");
    println!("|---|---|---|---|---|");
    println!(
        "| throughput, to an expect for the very last line | {:.0} MB/s | {:.0} MB/s | {:.0} % | ≥ 80 % |",
        mb / host_secs,
        mb / direct_secs,
        100.0 * direct_secs / host_secs,
    );
    println!(
        "| host RSS before → after the flood | {:.1} → {:.1} MiB | – | – | flat |",
        rss_before as f64 / 1024.0,
        rss_after as f64 / 1024.0,
    );
    println!(
        "| host RSS idle → with {BUSY} busy sessions | {:.1} → {:.1} MiB | – | – | – |",
        idle_rss as f64 / 1024.0,
        busy_rss as f64 / 1024.0,
    );
}

/// A client of a host of its own (not started yet).
fn client_for_cold(cwd: &Path, n: usize) -> Client {
    client(&cwd.join(format!("cold-{n}")))
}
