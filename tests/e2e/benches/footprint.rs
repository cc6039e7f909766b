//! What Switchboard costs to keep open, printed as tables (run by `make
//! bench` on a release build):
//! - start: spawn to the first painted inbox of 1,000 deliveries, as a user
//!   starts the app (median of 5);
//! - where that memory goes: the largest mappings (libraries, the heap,
//!   anonymous memory) summed over the app's processes;
//! - idle memory: the app on an inbox of 1,000 deliveries, left alone 60 s,
//!   then the PSS of every process in its tree (the app, WebKit's web and
//!   network processes, the sidecar), summed — started as a user starts it,
//!   with and without WebKit's `WEBKIT_DISABLE_COMPOSITING_MODE=1`, and
//!   opened by WebDriver (which runs with that knob) to measure again after
//!   opening each view once;
//! - bytes: the UI's wasm raw and gzipped, and the .deb when `make package`
//!   built one.

#![allow(clippy::disallowed_methods)] // Test and build code reads the files it made.
use std::{
    collections::BTreeMap,
    io::Write as _,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use anyhow::{Context, Result};
use switchboard_e2e::{
    Binaries, Display, Driver, Session,
    memory::{Memory, app_pid, pss_of, summed, tree_memory, tree_pss_by_mapping},
};
use switchboard_model::{ContentType, DeliveryMode, NewDelivery};
use switchboard_store::{Workspace, clock, deliveries};

const DELIVERIES: usize = 1_000;
const IDLE: Duration = Duration::from_secs(60);
const COLD_STARTS: usize = 5;
/// The figure a Tauri port of an Electron app is reported at.
const GOAL_MB: f64 = 150.0;

fn main() -> Result<()> {
    let binaries = Binaries::locate()?;
    let display = Display::start()?;
    let driver = Driver::start(&display)?;
    let workspace = tempfile::tempdir()?;
    let store = Workspace::open(workspace.path())?;
    for n in 0..DELIVERIES {
        let new = NewDelivery {
            mode: DeliveryMode::Passive,
            title: format!("delivery {n}"),
            content_type: ContentType::Markdown,
            body: format!("# Result {n}\n\n{}", "Some text of the result. ".repeat(20)),
            feedback_schema: None,
        };
        deliveries::append(&store, new, clock::now())?;
    }
    let config = tempfile::tempdir()?;
    let config_dir = config.path().display().to_string();
    let starts = cold_starts(&binaries, &display, workspace.path(), &config_dir)?;
    let (plain_memory, mappings) =
        idle_alone(&binaries, &display, workspace.path(), &config_dir, false)?;
    let (knob_memory, _) = idle_alone(&binaries, &display, workspace.path(), &config_dir, true)?;
    let (plain, knob) = (pss_of(&plain_memory), pss_of(&knob_memory));
    let app_memory = summed(&plain_memory);
    let mut floor = std::process::Command::new(env!("CARGO_BIN_EXE_switchboard-floor"));
    floor.arg("--stay");
    let bare = idle_floor(floor, &display)?;
    let mini = if Path::new(MINIBROWSER).exists() {
        let mut browser = std::process::Command::new(MINIBROWSER);
        browser.arg("about:blank");
        Some(idle_floor(browser, &display)?)
    } else {
        None
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let (idle, visited) = runtime.block_on(async {
        let session = Session::open_with(
            &driver,
            &binaries,
            workspace.path(),
            &["--config-dir", &config_dir],
        )
        .await?;
        session.find("#view-inbox").await?;
        tokio::time::sleep(IDLE).await;
        let app = app_pid(&binaries.app, workspace.path()).context("the app's process")?;
        let idle = pss_of(&tree_memory(app));
        for view in ["chat", "knowledge", "team", "tapes", "settings", "inbox"] {
            session.find(&format!("#nav-{view}")).await?.click().await?;
            session.find(&format!("#view-{view}")).await?;
        }
        tokio::time::sleep(Duration::from_secs(5)).await;
        let visited = pss_of(&tree_memory(app));
        session.close().await?;
        anyhow::Ok((idle, visited))
    })?;

    let mut out = std::io::stdout().lock();
    writeln!(out)?;
    writeln!(
        out,
        "| memory (PSS, MB), {DELIVERIES} deliveries; process (its comm) | {} s idle | {} s idle, compositing off | under WebDriver (compositing off): idle | …after opening each view | goal |",
        IDLE.as_secs(),
        IDLE.as_secs()
    )?;
    writeln!(out, "|---|---|---|---|---|---|")?;
    let names: Vec<&String> = plain
        .keys()
        .chain(knob.keys())
        .chain(idle.keys())
        .chain(visited.keys())
        .collect();
    let mut seen = Vec::new();
    for name in names {
        if seen.contains(&name) {
            continue;
        }
        seen.push(name);
        let mb = |tree: &BTreeMap<String, f64>| {
            tree.get(name)
                .map_or("–".to_owned(), |kb| format!("{:.1}", kb / 1024.0))
        };
        writeln!(
            out,
            "| {name} | {} | {} | {} | {} | – |",
            mb(&plain),
            mb(&knob),
            mb(&idle),
            mb(&visited)
        )?;
    }
    let total = |tree: &BTreeMap<String, f64>| tree.values().sum::<f64>() / 1024.0;
    writeln!(
        out,
        "| **total** | {:.1} | {:.1} | {:.1} | {:.1} | ≤ {GOAL_MB:.0} |",
        total(&plain),
        total(&knob),
        total(&idle),
        total(&visited)
    )?;

    writeln!(out)?;
    writeln!(
        out,
        "| memory against its floor, {} s idle, whole process tree (MB) | PSS | USS | PSS ÷ floor | USS ÷ floor |",
        IDLE.as_secs()
    )?;
    writeln!(out, "|---|---|---|---|---|")?;
    let floor_of = mini.unwrap_or(bare);
    let row = |name: &str, (pss, uss): (f64, f64)| {
        format!(
            "| {name} | {:.1} | {:.1} | {:.2} | {:.2} |",
            pss / 1024.0,
            uss / 1024.0,
            pss / floor_of.0.max(1.0),
            uss / floor_of.1.max(1.0)
        )
    };
    writeln!(
        out,
        "{}",
        row(
            &format!("Switchboard, {DELIVERIES} deliveries, as users start it"),
            app_memory
        )
    )?;
    writeln!(
        out,
        "{}",
        row("bare wry webview, static page (`switchboard-floor`)", bare)
    )?;
    match mini {
        Some(mini) => writeln!(
            out,
            "{}",
            row("WebKitGTK MiniBrowser, blank page (the floor)", mini)
        )?,
        None => writeln!(
            out,
            "| WebKitGTK MiniBrowser | (not installed) | – | – | – |"
        )?,
    }
    writeln!(out, "| goal | – | – | ≤ 1.2 | ≤ 1.2 |")?;

    writeln!(out)?;
    writeln!(
        out,
        "| where the {} s idle PSS goes, all processes (mapping) | MB |",
        IDLE.as_secs()
    )?;
    writeln!(out, "|---|---|")?;
    let mut largest: Vec<(&String, &f64)> = mappings.iter().collect();
    largest.sort_by(|a, b| b.1.total_cmp(a.1));
    for (mapping, kb) in largest.iter().take(12) {
        writeln!(out, "| {mapping} | {:.1} |", *kb / 1024.0)?;
    }
    let rest: f64 = largest.iter().skip(12).map(|(_, kb)| **kb).sum();
    writeln!(out, "| everything else | {:.1} |", rest / 1024.0)?;

    writeln!(out)?;
    writeln!(
        out,
        "| start, {DELIVERIES} deliveries | n | median | min | max |"
    )?;
    writeln!(out, "|---|---|---|---|---|")?;
    writeln!(
        out,
        "| spawn → first paint of the inbox | {} | {:.0} ms | {:.0} ms | {:.0} ms |",
        starts.len(),
        starts[starts.len() / 2],
        starts[0],
        starts[starts.len() - 1],
    )?;

    writeln!(out)?;
    writeln!(out, "| bytes | size | goal |")?;
    writeln!(out, "|---|---|---|")?;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    if let Some(wasm) = first_with(&root.join("ui/dist"), ".wasm") {
        let bytes = std::fs::read(&wasm)?;
        writeln!(
            out,
            "| UI wasm, raw | {:.2} MB | – |",
            bytes.len() as f64 / 1e6
        )?;
        writeln!(
            out,
            "| UI wasm, gzip -9 | {:.2} MB | ≤ 1 MB |",
            gzipped(&wasm)? as f64 / 1e6
        )?;
    }
    match first_with(&root.join("target/release/bundle/deb"), ".deb") {
        Some(deb) => writeln!(
            out,
            "| .deb | {:.1} MB | ≤ 15 MB |",
            std::fs::metadata(deb)?.len() as f64 / 1e6
        )?,
        None => writeln!(out, "| .deb | (run `make package`) | ≤ 15 MB |")?,
    }
    Ok(())
}

/// The app started directly on `workspace`, as a user starts it
/// (compositing off when `knob`), once it reports its first paint: the
/// process and the time from spawning it to that report.
fn launch(
    binaries: &Binaries,
    display: &Display,
    workspace: &Path,
    config_dir: &str,
    knob: bool,
) -> Result<(std::process::Child, Duration)> {
    use std::io::BufRead as _;
    let mut command = std::process::Command::new(&binaries.app);
    command
        .arg(workspace)
        .args(["--config-dir", config_dir])
        .env("DISPLAY", &display.name)
        .env("DBUS_SESSION_BUS_ADDRESS", &display.bus)
        .env("NO_AT_BRIDGE", "1")
        .env_remove("WEBKIT_DISABLE_COMPOSITING_MODE")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    if knob {
        command.env("WEBKIT_DISABLE_COMPOSITING_MODE", "1");
    }
    let started = Instant::now();
    let mut child = command.spawn().context("could not start the app")?;
    let stderr = child.stderr.take().context("no stderr")?;
    let (painted, paint) = std::sync::mpsc::channel();
    // Reads stderr to its end, so the app never blocks on a full pipe.
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            if line.contains("first paint") {
                let _ = painted.send(started.elapsed());
            }
        }
    });
    match paint.recv_timeout(Duration::from_secs(60)) {
        Ok(elapsed) => Ok((child, elapsed)),
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            anyhow::bail!("the app never painted")
        }
    }
}

/// Stops an app [`launch`] started.
fn stop(mut child: std::process::Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// Spawn to first paint of the inbox on `workspace`, [`COLD_STARTS`] times,
/// in milliseconds, sorted.
fn cold_starts(
    binaries: &Binaries,
    display: &Display,
    workspace: &Path,
    config_dir: &str,
) -> Result<Vec<f64>> {
    let mut samples = Vec::new();
    for _ in 0..COLD_STARTS {
        let (child, elapsed) = launch(binaries, display, workspace, config_dir, false)?;
        stop(child);
        samples.push(elapsed.as_secs_f64() * 1000.0);
    }
    samples.sort_by(f64::total_cmp);
    Ok(samples)
}

/// The app's tree's PSS and USS by process, and its PSS by mapping, after
/// [`IDLE`], started as [`launch`] starts it.
fn idle_alone(
    binaries: &Binaries,
    display: &Display,
    workspace: &Path,
    config_dir: &str,
    knob: bool,
) -> Result<(Memory, BTreeMap<String, f64>)> {
    let (child, _) = launch(binaries, display, workspace, config_dir, knob)?;
    std::thread::sleep(IDLE);
    let by_process = tree_memory(child.id());
    let measured = tree_pss_by_mapping(child.id()).map(|by_mapping| (by_process, by_mapping));
    stop(child);
    measured
}

/// The first file in `dir` whose name ends with `suffix`.
fn first_with(dir: &Path, suffix: &str) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .find(|path| path.to_string_lossy().ends_with(suffix))
}

/// The gzip -9 size of `path`.
fn gzipped(path: &Path) -> Result<usize> {
    let output = std::process::Command::new("gzip")
        .args(["-9", "-c"])
        .arg(path)
        .output()?;
    Ok(output.stdout.len())
}

/// `command` started on the display, left alone [`IDLE`], then the PSS and
/// USS (kB) of its whole process tree; the floors the app is measured
/// against.
fn idle_floor(mut command: std::process::Command, display: &Display) -> Result<(f64, f64)> {
    let child = command
        .env("DISPLAY", &display.name)
        .env("DBUS_SESSION_BUS_ADDRESS", &display.bus)
        .env("NO_AT_BRIDGE", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .with_context(|| format!("could not start {command:?}"))?;
    std::thread::sleep(IDLE);
    let measured = summed(&tree_memory(child.id()));
    stop(child);
    Ok(measured)
}

/// Debian's WebKitGTK MiniBrowser (in libwebkit2gtk-4.1-0), when present.
const MINIBROWSER: &str = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";
