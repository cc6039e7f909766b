//! Started agents in the real window, printed as tables (run by `make
//! bench` on a release build), with the real Claude Code whose model is
//! scripted on loopback:
//! - "New agent" → the agent's first frame in the Terminals view (median
//!   and p95 of 10): Start clicked in the Agents view, its row's Terminal
//!   button clicked the moment the row shows (by the page's own observer,
//!   so no WebDriver round trip is counted), until the screen shows Claude
//!   Code's banner; beside the same Claude Code started directly in a
//!   pseudo-terminal of the same size until its output holds the banner
//!   (alone, and with `claude auth status` beside it as a start runs it),
//!   and the ratios of the medians;
//! - 8 agents working at once (each on a model that is still thinking, so
//!   its interface redraws its spinner): `switchboard deliver` returning →
//!   the title in the inbox's DOM (median and p95 of 20), and the window's
//!   memory (PSS of the app and its web processes; the session host and
//!   its agents apart), beside the same with no agent running.

#![allow(clippy::disallowed_methods)] // Test and build code reads the files it made.
use std::{
    io::Read,
    path::Path,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail, ensure};
use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use serde_json::Value;
use switchboard_e2e::{
    Binaries, Display, Driver, Session,
    measure::{INBOX_OBSERVER, deliveries_to_dom, percentile, recorded},
    memory::{app_pid, memory_of, name_of, pss_of, tree_of},
    project::{claude_code_settings, git_project},
};
use switchboard_model_server::{
    anthropic::{MessagesServer, Turn},
    claude_code::{self, ClaudeCode},
};

const STARTS: usize = 10;
const RUNNING: usize = 8;
const DELIVERIES: usize = 20;
/// What Claude Code's first frame shows.
const BANNER: &str = "Claude Code";
/// The size of a started agent's terminal (`switchboard_launch`'s).
const ROWS: u16 = 40;
const COLS: u16 = 120;
/// How long the window is left before its memory is read.
const SETTLE: Duration = Duration::from_secs(5);

fn main() -> Result<()> {
    let binaries = Binaries::locate()?;
    let display = Display::start()?;
    let driver = Driver::start(&display)?;
    let dir = tempfile::tempdir()?;
    let project = git_project(dir.path(), &[("README.md", "# Project\n")])?;
    let claude = ClaudeCode::configure(&dir.path().join("claude-config"), &project);
    // One turn for each agent started in the window and directly; the
    // busy agents' model thinks until they are stopped.
    let greeter = MessagesServer::start((0..3 * STARTS).map(|_| Turn::text("Hello.")).collect());
    let thinker = MessagesServer::start((0..RUNNING).map(|_| Turn::stall("Thinking")).collect());
    let environment = claude.environment(&greeter.url());
    let config = claude_code_settings(dir.path(), &claude_code::binary(), &environment)?;
    let busy_dir = dir.path().join("busy");
    std::fs::create_dir_all(&busy_dir)?;
    let busy_config = claude_code_settings(
        &busy_dir,
        &claude_code::binary(),
        &claude.environment(&thinker.url()),
    )?;
    let direct = direct_starts(&project, &environment, false)?;
    let direct_asked = direct_starts(&project, &environment, true)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let outcome = runtime.block_on(in_the_window(
        &driver,
        &binaries,
        &project,
        &config,
        &busy_config,
    ));
    // Whatever happened, no agent is left running.
    for name in started_names() {
        let _ = binaries
            .cli(&project)
            .args(["agent", "stop", &name])
            .output();
    }
    let measured = outcome?;

    println!();
    println!("| started agents in the window | n | median | p95 | goal |");
    println!("|---|---|---|---|---|");
    let row = |what: &str, samples: &[f64], goal: &str| {
        println!(
            "| {what} | {} | {:.0} ms | {:.0} ms | {goal} |",
            samples.len(),
            percentile(samples, 50.0),
            percentile(samples, 95.0)
        );
    };
    row(
        "\"New agent\" Start → its first frame in Terminals (worktree made, Claude Code started in a program session)",
        &measured.first_frames,
        "–",
    );
    row(
        "the same Claude Code started directly in a pty → its first frame",
        &direct,
        "–",
    );
    row(
        "the same, with `claude auth status` run beside it (as a start asks whether it is signed in)",
        &direct_asked,
        "–",
    );
    let ratio = |floor: &[f64]| percentile(&measured.first_frames, 50.0) / percentile(floor, 50.0);
    println!(
        "| ratio of the medians: window ÷ direct; ÷ direct with the sign-in asked | | {:.2}; {:.2} | | – |",
        ratio(&direct),
        ratio(&direct_asked)
    );
    row(
        "deliver → DOM, no agent running",
        &measured.idle_delivers,
        "–",
    );
    row(
        &format!("deliver → DOM, {RUNNING} agents working"),
        &measured.busy_delivers,
        "p95 ≤ 100 ms",
    );
    println!();
    println!("| window memory (PSS, MB) | no agent running | {RUNNING} agents working |");
    println!("|---|---|---|");
    let names: std::collections::BTreeSet<&String> = measured
        .idle_memory
        .keys()
        .chain(measured.busy_memory.keys())
        .collect();
    for name in names {
        let mb = |memory: &std::collections::BTreeMap<String, f64>| {
            memory.get(name).copied().unwrap_or(0.0) / 1024.0
        };
        println!(
            "| {name} | {:.1} | {:.1} |",
            mb(&measured.idle_memory),
            mb(&measured.busy_memory)
        );
    }
    let total = |memory: &std::collections::BTreeMap<String, f64>| memory.values().sum::<f64>();
    println!(
        "| whole window | {:.1} | {:.1} |",
        total(&measured.idle_memory) / 1024.0,
        total(&measured.busy_memory) / 1024.0
    );
    println!(
        "| (not the window: the session host and the {RUNNING} agents it runs) | | {:.1} |",
        measured.agents_memory / 1024.0
    );
    Ok(())
}

/// The names of the agents this benchmark starts.
fn started_names() -> Vec<String> {
    (0..STARTS)
        .map(|round| format!("first-{round}"))
        .chain((0..RUNNING).map(|agent| format!("busy-{agent}")))
        .collect()
}

/// What was measured in the window.
struct Measured {
    first_frames: Vec<f64>,
    idle_delivers: Vec<f64>,
    busy_delivers: Vec<f64>,
    idle_memory: std::collections::BTreeMap<String, f64>,
    busy_memory: std::collections::BTreeMap<String, f64>,
    /// The session host and the agents it runs, with the agents working.
    agents_memory: f64,
}

/// Milliseconds from spawning Claude Code in a pty of the agents' size to
/// its output holding its banner, [`STARTS`] times; with `claude auth
/// status` run beside it when `asked_signed_in` (as a start asks).
fn direct_starts(
    project: &Path,
    environment: &[(&str, String)],
    asked_signed_in: bool,
) -> Result<Vec<f64>> {
    let mut samples = Vec::new();
    for _ in 0..STARTS {
        let asking = asked_signed_in
            .then(|| {
                std::process::Command::new(claude_code::binary())
                    .args(["auth", "status"])
                    .envs(environment.iter().map(|(key, value)| (*key, value)))
                    .stdout(std::process::Stdio::null())
                    .spawn()
            })
            .transpose()?;
        let pty = native_pty_system().openpty(PtySize {
            rows: ROWS,
            cols: COLS,
            pixel_width: 0,
            pixel_height: 0,
        })?;
        let mut command = CommandBuilder::new(claude_code::binary());
        command.args(["--permission-mode", "default", "Say hello"]);
        command.cwd(project);
        command.env("TERM", "xterm-256color");
        for (key, value) in environment {
            command.env(key, value);
        }
        let started = Instant::now();
        let mut child = pty.slave.spawn_command(command)?;
        drop(pty.slave);
        let mut reader = pty.master.try_clone_reader()?;
        let (seen, banner) = std::sync::mpsc::channel();
        // Reads to the end, so the program never blocks on a full pty.
        std::thread::spawn(move || {
            let mut output = Vec::new();
            let mut buffer = [0u8; 8192];
            let mut told = false;
            while let Ok(read) = reader.read(&mut buffer) {
                if read == 0 {
                    break;
                }
                output.extend_from_slice(&buffer[..read]);
                if !told && String::from_utf8_lossy(&output).contains(BANNER) {
                    told = true;
                    let _ = seen.send(started.elapsed());
                }
            }
        });
        let elapsed = banner.recv_timeout(Duration::from_secs(60));
        child.kill()?;
        child.wait()?;
        if let Some(mut asking) = asking {
            asking.wait()?;
        }
        let elapsed = elapsed.context("Claude Code never drew its banner in a pty")?;
        samples.push(elapsed.as_secs_f64() * 1000.0);
    }
    Ok(samples)
}

/// Clicks Start, then the new row's Terminal button the moment it shows,
/// and records when the Terminals screen first shows the banner (in
/// `window.__frame`, ms after Start).
const START_AND_WATCH: &str = r#"
const name = arguments[0];
const banner = arguments[1];
window.__frame = null;
let clicked = false;
const started = Date.now();
const tick = () => {
  const open = document.querySelector(`#launch-${name} .launch-terminal`);
  if (open && !clicked) { clicked = true; open.click(); }
  const screen = document.querySelector('#terminal-screen');
  if (clicked && screen && window.__frame === null && screen.textContent.includes(banner)) {
    window.__frame = Date.now() - started;
    window.__watch.disconnect();
  }
};
window.__watch = new MutationObserver(tick);
window.__watch.observe(document.body, {childList: true, subtree: true, characterData: true});
document.querySelector('#new-agent-start').click();
"#;

/// The starts timed in the window, then its deliveries and memory with no
/// agent running and with [`RUNNING`] working.
async fn in_the_window(
    driver: &Driver,
    binaries: &Binaries,
    project: &Path,
    config: &Path,
    busy_config: &Path,
) -> Result<Measured> {
    let config_arg = config.display().to_string();
    let session =
        Session::open_with(driver, binaries, project, &["--config-dir", &config_arg]).await?;
    session.find("#view-inbox").await?;
    let mut first_frames = Vec::new();
    for round in 0..STARTS {
        let name = format!("first-{round}");
        session.fill_new_agent("Say hello", &name).await?;
        session
            .client
            .execute(
                START_AND_WATCH,
                vec![Value::from(name.as_str()), Value::from(BANNER)],
            )
            .await?;
        first_frames.push(recorded(&session, "return window.__frame", None).await?);
        let stopped = binaries
            .cli(project)
            .args(["agent", "stop", &name])
            .output()?;
        ensure!(
            stopped.status.success(),
            "{}",
            String::from_utf8_lossy(&stopped.stderr)
        );
    }

    session.find("#nav-inbox").await?.click().await?;
    session.find("#view-inbox").await?;
    session.client.execute(INBOX_OBSERVER, vec![]).await?;
    let app = app_pid(&binaries.app, project).context("the app's process")?;
    let idle_delivers = deliveries_to_dom(&session, binaries, project, "idle", DELIVERIES).await?;
    tokio::time::sleep(SETTLE).await;
    let (idle_memory, _) = window_memory(app)?;

    for agent in 0..RUNNING {
        let name = format!("busy-{agent}");
        let started = binaries
            .cli(project)
            .args(["agent", "start", "claude-code", "--name", &name, "Think"])
            .env("SWITCHBOARD_CONFIG_DIR", busy_config)
            .output()?;
        ensure!(
            started.status.success(),
            "{}",
            String::from_utf8_lossy(&started.stderr)
        );
    }
    working(binaries, project).await?;
    let busy_delivers = deliveries_to_dom(&session, binaries, project, "busy", DELIVERIES).await?;
    tokio::time::sleep(SETTLE).await;
    let (busy_memory, agents_memory) = window_memory(app)?;
    // Still working while measured (a thinking model holds a minute).
    let still = working_now(binaries, project)?;
    ensure!(
        still == RUNNING,
        "only {still} agents were still working when measured"
    );
    session.close().await?;
    Ok(Measured {
        first_frames,
        idle_delivers,
        busy_delivers,
        idle_memory,
        busy_memory,
        agents_memory,
    })
}

/// The PSS (kB, by process name) of the window — the app and its web
/// processes, not the session host it started nor the agents that run
/// there — and the whole PSS of the session host's tree.
fn window_memory(app: u32) -> Result<(std::collections::BTreeMap<String, f64>, f64)> {
    let tree = tree_of(app);
    let hosted: Vec<u32> = tree
        .iter()
        .filter(|pid| name_of(**pid).is_some_and(|name| name.starts_with("switchboard-ses")))
        .flat_map(|host| tree_of(*host))
        .collect();
    let window: Vec<u32> = tree
        .into_iter()
        .filter(|pid| !hosted.contains(pid))
        .collect();
    // A host started before the window (not its child) would be counted
    // nowhere: measured only with the window's own.
    ensure!(
        !hosted.is_empty(),
        "the session host is not the window's: stop the running one (switchboard session list --all)"
    );
    let hosted_pss = pss_of(&memory_of(&hosted)).values().sum();
    Ok((pss_of(&memory_of(&window)), hosted_pss))
}

/// How many busy agents `switchboard agent list` shows working.
fn working_now(binaries: &Binaries, project: &Path) -> Result<usize> {
    let listed = binaries
        .cli(project)
        .args(["agent", "list", "--json"])
        .output()?;
    ensure!(
        listed.status.success(),
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    let rows: Vec<Value> = serde_json::from_slice(&listed.stdout)?;
    Ok(rows
        .iter()
        .filter(|row| {
            row["launch"]["name"]
                .as_str()
                .is_some_and(|name| name.starts_with("busy-"))
                && row["shown"]["agent"] == "working"
        })
        .count())
}

/// Waits until every busy agent works (its prompt submitted, its model
/// thinking): looked at now and at each change the store reports.
async fn working(binaries: &Binaries, project: &Path) -> Result<()> {
    let store = switchboard_store::Workspace::open(project)?;
    let (changed, changes) = std::sync::mpsc::channel();
    let _watcher = switchboard_store::WorkspaceWatcher::start(&store, move |_| {
        let _ = changed.send(());
    })?;
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if working_now(binaries, project)? == RUNNING {
            return Ok(());
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            bail!("the {RUNNING} agents never all worked");
        }
        let _ = changes.recv_timeout(left);
    }
}
