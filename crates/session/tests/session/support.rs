//! What the host tests (and the sessions bench) share: a client of a host
//! of the test's own, a start request for a program, a process's memory.

use std::path::{Path, PathBuf};

use switchboard_session::{Client, protocol::StartRequest, runtime::RuntimeDir};

/// The host binary under test.
pub const HOST: &str = env!("CARGO_BIN_EXE_switchboard-session-host");

/// Ten seconds, for waits that should end long before.
pub const SECS: u64 = 10_000;

/// A client of a host of its own, in a private folder under `dir`, with
/// `env` given to the host. The host ends a second after its last session
/// and reads the test's (empty) settings, not the developer's.
pub fn client(dir: &Path, env: &[(&str, &str)]) -> Client {
    std::fs::create_dir_all(dir).expect("the test's folder");
    let runtime = RuntimeDir::at(dir.join("rt")).expect("runtime folder");
    let config = dir.join("config").display().to_string();
    let own = [
        ("SWITCHBOARD_SESSION_HOST_LINGER_SECS", "1"),
        ("SWITCHBOARD_CONFIG_DIR", config.as_str()),
    ];
    Client::at(runtime, PathBuf::from(HOST)).with_host_env(
        own.iter()
            .chain(env)
            .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
            .collect(),
    )
}

/// Starting `program ARGS` in `cwd`, with this environment.
pub fn start(program: &str, args: &[&str], cwd: &Path) -> StartRequest {
    StartRequest {
        program: program.into(),
        args: args.iter().map(|arg| (*arg).to_owned()).collect(),
        name: None,
        cwd: cwd.display().to_string(),
        base_env: std::env::vars().collect(),
        env: Vec::new(),
        rows: None,
        cols: None,
        workspace: None,
        record: false,
        prompts: Vec::new(),
        run: None,
        started_by: None,
        launch: None,
    }
}

/// A process's resident memory, in KiB.
#[allow(dead_code)] // Not every test binary that includes this measures memory.
pub fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .expect("the process's status")
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("a VmRSS line")
}

/// What `check` gives once it gives something, looked for every 20 ms for
/// ten seconds (for what the host writes on a thread of its own and
/// announces to no one, such as a log's last line).
#[allow(dead_code)] // Not every test binary that includes this waits on files.
pub async fn eventually<T>(mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(SECS);
    loop {
        if let Some(found) = check() {
            return found;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "not seen in {SECS} ms"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}
