//! Issue 39, item 14d: `switchboard agents | head` panicked once `head`
//! left. Every command writing to a pipe whose reader is gone ends at once
//! and quietly, by SIGPIPE as a Unix filter does — whether it prints with
//! `println!`, writes with `writeln!` or reports a failure as JSON.

use std::{
    os::unix::process::ExitStatusExt,
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
};

/// `switchboard -C workspace ARGS…` with the test's session host, its
/// stdout a pipe whose reader closed before it started (`closed`) or an
/// ordinary one.
fn run(workspace: &Path, runtime: &Path, args: &[&str], closed: bool) -> Output {
    let cli = PathBuf::from(env!("CARGO_BIN_EXE_switchboard"));
    let mut command = Command::new(&cli);
    command
        .arg("-C")
        .arg(workspace)
        .args(args)
        .env("SWITCHBOARD_RUNTIME_DIR", runtime)
        .env(
            "SWITCHBOARD_SESSION_HOST",
            cli.with_file_name("switchboard-session-host"),
        )
        .env("SWITCHBOARD_SESSION_HOST_LINGER_SECS", "1")
        .stdin(Stdio::null())
        .stderr(Stdio::piped());
    if closed {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        command.stdout(writer);
    } else {
        command.stdout(Stdio::piped());
    }
    command.spawn().unwrap().wait_with_output().unwrap()
}

#[test]
fn output_to_a_closed_pipe_ends_quietly_by_sigpipe() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("ws");
    std::fs::create_dir_all(&workspace).unwrap();
    let runtime = dir.path().join("rt");
    let commands: [&[&str]; 6] = [
        &["agents"],
        &["agents", "--json"],
        &["session", "list"],
        &["session", "list", "--json"],
        // Written with `writeln!(…)?`, not `println!`.
        &["validate"],
        // A failure told as JSON on stdout.
        &["show", "d_1_001", "--json"],
    ];
    for args in commands {
        let open = run(&workspace, &runtime, args, false);
        assert!(
            !open.stdout.is_empty(),
            "{args:?} prints something when read: {}",
            String::from_utf8_lossy(&open.stderr)
        );
        let closed = run(&workspace, &runtime, args, true);
        assert_eq!(
            closed.status.signal(),
            Some(13),
            "{args:?} ends by SIGPIPE, as `head` expects of a filter: {:?}, stderr: {}",
            closed.status,
            String::from_utf8_lossy(&closed.stderr)
        );
        assert!(
            closed.stderr.is_empty(),
            "{args:?} ends quietly: {}",
            String::from_utf8_lossy(&closed.stderr)
        );
    }
}
