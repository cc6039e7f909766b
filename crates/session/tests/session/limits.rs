//! The host's limits and its refusals, with a host of each test's own:
//! sessions idle or running past their time end (recorded as such), two
//! clients expecting on one session share its output without racing, and
//! hostile requests are refused with a clear code; a thousand sessions
//! leave nothing behind.

use std::path::Path;

use switchboard_model::{
    ErrorCode,
    program::{EndReason, SessionState},
};
use switchboard_session::{
    Client,
    protocol::{ExpectOutcome, Input, Pattern, StartRequest, WaitFor, WaitOutcome},
};

use crate::support::{SECS, client, rss_kib, start};

#[tokio::test(flavor = "multi_thread")]
async fn idle_and_long_sessions_end_and_say_why() {
    let temp = tempfile::tempdir().unwrap();
    let client = client(
        temp.path(),
        &[
            ("SWITCHBOARD_SESSION_IDLE_SECS", "1"),
            ("SWITCHBOARD_SESSION_MAX_SECS", "3"),
        ],
    );
    let idle = client
        .start(start("cat", &[], temp.path()))
        .await
        .unwrap()
        .id;
    // Busy (output every 100 ms), so only the runtime limit ends it.
    let busy = client
        .start(start(
            "sh",
            &["-c", "while :; do echo .; sleep 0.1; done"],
            temp.path(),
        ))
        .await
        .unwrap()
        .id;
    for (id, reason) in [(idle, EndReason::Idle), (busy, EndReason::Runtime)] {
        let ended = client.wait(&id, WaitFor::Exit, SECS, |_| {}).await.unwrap();
        assert!(matches!(ended, WaitOutcome::Exit { .. }), "{ended:?}");
        let info = client.read(&id, None, false).await.unwrap().session;
        assert_eq!(info.state, SessionState::Killed);
        assert_eq!(info.ended_by, Some(reason), "{info:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_started_agent_outlives_the_idle_and_runtime_limits() {
    let temp = tempfile::tempdir().unwrap();
    let client = client(
        temp.path(),
        &[
            ("SWITCHBOARD_SESSION_IDLE_SECS", "1"),
            ("SWITCHBOARD_SESSION_MAX_SECS", "2"),
        ],
    );
    // An agent at its prompt: silent, started before the plain sessions
    // below, so every limit that ends them has passed for it too.
    let agent = client
        .start(StartRequest {
            launch: Some("tidy".into()),
            ..start("cat", &[], temp.path())
        })
        .await
        .unwrap();
    assert_eq!(agent.launch.as_deref(), Some("tidy"), "it says whose it is");
    let idle = client
        .start(start("cat", &[], temp.path()))
        .await
        .unwrap()
        .id;
    let busy = client
        .start(start(
            "sh",
            &["-c", "while :; do echo .; sleep 0.1; done"],
            temp.path(),
        ))
        .await
        .unwrap()
        .id;
    for id in [idle, busy] {
        let ended = client.wait(&id, WaitFor::Exit, SECS, |_| {}).await.unwrap();
        assert!(matches!(ended, WaitOutcome::Exit { .. }), "{ended:?}");
    }
    // The sweep that ended the busy one passed the agent by.
    let info = client.read(&agent.id, None, false).await.unwrap().session;
    assert_eq!(
        (info.state, info.ended_by),
        (SessionState::Running, None),
        "{info:?}"
    );
    client.kill(&agent.id, None).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn two_clients_expecting_on_one_session_each_get_their_own_match() {
    let temp = tempfile::tempdir().unwrap();
    let client = client(temp.path(), &[]);
    let id = client
        .start(start("cat", &[], temp.path()))
        .await
        .unwrap()
        .id;
    let expecting = |client: Client, id: String| {
        tokio::spawn(async move {
            client
                .expect(&id, vec![Pattern::Regex(r"^item \d$".into())], SECS, |_| {})
                .await
                .unwrap()
        })
    };
    let first = expecting(client.clone(), id.clone());
    let second = expecting(client.clone(), id.clone());
    client
        .send(&id, Input::Line("item 1".into()), false)
        .await
        .unwrap();
    client
        .send(&id, Input::Line("item 2".into()), false)
        .await
        .unwrap();
    let mut matched = Vec::new();
    for waiting in [first, second] {
        match waiting.await.unwrap() {
            ExpectOutcome::Matched { matched: text, .. } => matched.push(text),
            other => panic!("{other:?}"),
        }
    }
    matched.sort();
    assert_eq!(matched, ["item 1", "item 2"], "each line matched once");
    client.kill(&id, None).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn hostile_starts_are_refused() {
    let temp = tempfile::tempdir().unwrap();
    let client = client(temp.path(), &[]);
    let refused = |request: StartRequest| {
        let client = client.clone();
        async move { client.start(request).await.unwrap_err().payload().code }
    };
    let mut relative = start("cat", &[], temp.path());
    relative.cwd = "../..".into();
    assert_eq!(refused(relative).await, ErrorCode::InvalidRequest);
    let mut missing = start("cat", &[], temp.path());
    missing.cwd = temp.path().join("nowhere").display().to_string();
    assert_eq!(refused(missing).await, ErrorCode::InvalidRequest);
    for name in ["../etc", "a/b", ".hidden", "ps-0123456789ab", "-rf", ""] {
        let mut named = start("cat", &[], temp.path());
        named.name = Some(name.into());
        assert_eq!(refused(named).await, ErrorCode::InvalidRequest, "{name:?}");
    }
    let mut bad_env = start("cat", &[], temp.path());
    bad_env.env = vec![("A=B".into(), "c".into())];
    assert_eq!(refused(bad_env).await, ErrorCode::InvalidRequest);
    let mut nul = start("cat", &[], temp.path());
    nul.args = vec!["a\0b".into()];
    assert_eq!(refused(nul).await, ErrorCode::InvalidRequest);
    // Ids and names never reach a path: a lookup by one is just not found.
    let error = client
        .read("../../../etc/passwd", None, false)
        .await
        .unwrap_err();
    assert_eq!(error.payload().code, ErrorCode::NotFound);
}

/// The host's open descriptors.
fn fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .count()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_thousand_sessions_started_and_killed_leave_no_descriptor_behind() {
    let temp = tempfile::tempdir().unwrap();
    let client = client(temp.path(), &[]);
    let host = client.hello().await.unwrap();
    let cycle = || async {
        let id = client
            .start(start("cat", &[], temp.path()))
            .await
            .unwrap()
            .id;
        let info = client.kill(&id, None).await.unwrap();
        assert_eq!(info.state, SessionState::Killed);
    };
    // Warm up (threads, allocator), then measure.
    for _ in 0..50 {
        cycle().await;
    }
    let (fds_before, rss_before) = (fds(host), rss_kib(host));
    for _ in 0..1_000 {
        cycle().await;
    }
    let (fds_after, rss_after) = (fds(host), rss_kib(host));
    assert!(
        fds_after <= fds_before + 2,
        "descriptors: {fds_before} before, {fds_after} after"
    );
    assert!(
        rss_after < rss_before + 32 * 1024,
        "memory: {rss_before} KiB before, {rss_after} KiB after"
    );
    // No zombie among the host's children.
    let children =
        std::fs::read_to_string(format!("/proc/{host}/task/{host}/children")).unwrap_or_default();
    for child in children.split_whitespace() {
        let stat = std::fs::read_to_string(format!("/proc/{child}/stat")).unwrap_or_default();
        assert!(!stat.contains(") Z "), "a zombie: {stat}");
    }
}

/// A Python every user can run (a version manager's shim in root's home is
/// not one).
const SYSTEM_PYTHON: &str = "/usr/bin/python3";

/// Runs a Python snippet as `nobody` (uid 65534); its stdout.
fn as_nobody(script: &str) -> String {
    let output = std::process::Command::new("setpriv")
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            SYSTEM_PYTHON,
            "-c",
            script,
        ])
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// Says, past the test harness's capture of `eprintln!` (so it shows in a
/// passing run), that a test did not run and why.
fn skipped(why: &str) {
    use std::io::Write as _;
    let _ = writeln!(
        std::io::stderr().lock(),
        "another_user_cannot_reach_the_host: SKIPPED, {why}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn another_user_cannot_reach_the_host() {
    if !nix::unistd::geteuid().is_root() {
        skipped("making another user's process needs root (CI runs as root)");
        return;
    }
    if std::process::Command::new("setpriv")
        .arg("--version")
        .output()
        .is_err()
    {
        skipped("setpriv (util-linux) is not installed");
        return;
    }
    let temp = tempfile::tempdir().unwrap();
    // The test folder must be enterable for the other user to get as far
    // as the host's own folder.
    std::fs::set_permissions(
        temp.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let client = client(temp.path(), &[]);
    client.hello().await.unwrap();
    let socket = temp.path().join("rt/host.sock");
    let connect = format!(
        "import socket\n\
         s = socket.socket(socket.AF_UNIX)\n\
         try:\n    s.connect({:?})\nexcept PermissionError:\n    print('refused: folder'); raise SystemExit\n\
         try:\n    s.sendall(b'{{\"version\":1,\"request\":{{\"op\":\"hello\"}}}}\\n')\n    \
         answer = s.recv(4096)\nexcept (BrokenPipeError, ConnectionResetError):\n    answer = b''\n\
         print('answered' if answer else 'refused: uid')",
        socket.display().to_string()
    );
    // The private folder keeps them out.
    assert_eq!(as_nobody(&connect), "refused: folder");
    // Were the folder and socket opened up, the peer's uid still is.
    let mode = |path: &Path, mode: u32| {
        std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(mode)).unwrap();
    };
    mode(&temp.path().join("rt"), 0o711);
    mode(&socket, 0o666);
    assert_eq!(as_nobody(&connect), "refused: uid");
    mode(&temp.path().join("rt"), 0o700);
    mode(&socket, 0o600);
    client.hello().await.unwrap();
}
