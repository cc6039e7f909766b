//! The `switchboard` binary as agents run it: real processes on temp folders.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.
#![allow(clippy::disallowed_methods)] // Tests read the files they made.

mod blocking;
mod conformance;
mod connect;
mod deliver;
mod docs;
mod durability;
mod flood;
mod forged_answers;
mod hooks;
mod hostile_hooks;
mod http;
mod ignored;
mod knowledge;
mod launch;
mod mcp;
mod mcp_fuzz;
mod pipe;
mod play;
mod probe;
mod rec;
mod revisions;
mod serve;
mod session;
mod tapes;
mod tasks;
mod team;
mod terminal;

use std::{
    fs,
    path::Path,
    process::{Command, Output},
};

use serde_json::Value;

/// The folder Switchboard keeps its own records of the workspace at `root`
/// in, under the config folder `config` (outside the workspace).
pub fn records(config: &Path, root: &Path) -> std::path::PathBuf {
    switchboard_store::Workspace::open(root)
        .unwrap()
        .records_dir_in(config)
}

/// Runs `switchboard -C workspace ARGS…` to completion.
pub fn switchboard(workspace: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .arg("-C")
        .arg(workspace)
        .args(args)
        .output()
        .unwrap()
}

/// Runs `switchboard -C workspace ARGS…` with `envs` to completion.
pub fn switchboard_with(workspace: &Path, args: &[&str], envs: &[(&str, &Path)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .arg("-C")
        .arg(workspace)
        .args(args)
        .envs(envs.iter().copied())
        .output()
        .unwrap()
}

/// Answers question `id` as the developer does at a script's pace: reads
/// it with `switchboard show`, then runs `switchboard answer id ARGS…`
/// with the `--seen` that `show` printed (for a question whose answer
/// Switchboard acts on; none is printed for another).
pub fn answer_as_shown(
    workspace: &Path,
    id: &str,
    args: &[&str],
    envs: &[(&str, &Path)],
) -> Output {
    let shown = switchboard_with(workspace, &["show", id], envs);
    let text = String::from_utf8_lossy(&shown.stdout).into_owned();
    let seen = text
        .split_once("--seen ")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .map(str::to_owned);
    let mut all = vec!["answer", id];
    if let Some(seen) = &seen {
        all.extend(["--seen", seen.as_str()]);
    }
    all.extend_from_slice(args);
    switchboard_with(workspace, &all, envs)
}

/// A data file of the inbox, parsed.
pub fn data_file(workspace: &Path, name: &str) -> Vec<Value> {
    let text = fs::read_to_string(workspace.join(".visual-delivery/data").join(name)).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `deliveries.json`, parsed.
pub fn stored(workspace: &Path) -> Vec<Value> {
    data_file(workspace, "deliveries.json")
}

/// What `check` finds once it finds something: looked for now and after
/// each change the store's own watcher reports in `workspace` (the signal
/// the window follows too), for ten seconds at most.
pub fn when_stored<T>(workspace: &Path, check: impl FnMut() -> Option<T>) -> T {
    when_stored_within(workspace, std::time::Duration::from_secs(10), check)
}

/// [`when_stored`] with its own bound: for what a real agent's process
/// has to start up, think and ask first, which a loaded machine slows.
pub fn when_stored_within<T>(
    workspace: &Path,
    within: std::time::Duration,
    mut check: impl FnMut() -> Option<T>,
) -> T {
    let opened = switchboard_store::Workspace::open(workspace).unwrap();
    let (changed, changes) = std::sync::mpsc::channel();
    let _watcher = switchboard_store::watch::WorkspaceWatcher::start(&opened, move |_| {
        let _ = changed.send(());
    })
    .unwrap();
    let deadline = std::time::Instant::now() + within;
    loop {
        if let Some(found) = check() {
            return found;
        }
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        assert!(!left.is_zero(), "not in the workspace within {within:?}");
        let _ = changes.recv_timeout(left);
    }
}

/// `deliveries.json`, parsed, when it exists.
pub fn stored_now(workspace: &Path) -> Option<Vec<Value>> {
    let path = workspace.join(".visual-delivery/data/deliveries.json");
    let text = fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

/// Stdout of a successful run, trimmed.
pub fn ok_stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "switchboard failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone())
        .unwrap()
        .trim()
        .to_owned()
}

/// A small deterministic generator, so a failure replays exactly.
pub struct Lcg(pub u64);

impl Lcg {
    /// A number below `bound`.
    pub fn below(&mut self, bound: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % bound
    }
}
