//! Issue 39, item 14c: `.switchboard/` held logs and records `git add -A`
//! committed. Each folder Switchboard makes in a workspace comes with a
//! `.gitignore` (`store::own_folders`): after real commands have filled
//! them, git stages only what a team may share.

use std::{
    io::Write,
    path::{Path, PathBuf},
    process::{Command, Stdio},
};

use crate::{ok_stdout, switchboard};

fn git(root: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(args)
        .current_dir(root)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn git_add_all_stages_nothing_private_switchboard_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir_all(&root).unwrap();
    git(&root, &["init", "-q"]);
    std::fs::write(root.join("README.md"), "# project\n").unwrap();

    // Opening the workspace makes nothing.
    ok_stdout(&switchboard(&root, &["list"]));
    assert!(!root.join(".switchboard").exists());

    // A delivery (the inbox's data), an agent's hook (its record), a
    // program session (its log).
    ok_stdout(&switchboard(
        &root,
        &[
            "deliver",
            "--title",
            "Done",
            "--content",
            "secret-ish answer",
        ],
    ));
    let mut hook = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["hook", "--agent", "claude-code"])
        .current_dir(&root)
        .env_remove("CLAUDE_PROJECT_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    hook.stdin
        .take()
        .unwrap()
        .write_all(
            serde_json::json!({"session_id": "s-1", "transcript_path": "", "cwd": root,
                "hook_event_name": "SessionStart"})
            .to_string()
            .as_bytes(),
        )
        .unwrap();
    assert!(hook.wait().unwrap().success());
    let cli = PathBuf::from(env!("CARGO_BIN_EXE_switchboard"));
    let session = Command::new(&cli)
        .arg("-C")
        .arg(&root)
        .args(["session", "start", "--", "echo", "hello"])
        .env("SWITCHBOARD_RUNTIME_DIR", dir.path().join("rt"))
        .env(
            "SWITCHBOARD_SESSION_HOST",
            cli.with_file_name("switchboard-session-host"),
        )
        .env("SWITCHBOARD_SESSION_HOST_LINGER_SECS", "1")
        .output()
        .unwrap();
    let id = ok_stdout(&session);
    // A chain the developer wrote, which a team shares.
    std::fs::create_dir_all(root.join(".switchboard/chains")).unwrap();
    std::fs::write(root.join(".switchboard/chains/build.json"), "{}").unwrap();

    let log = root.join(format!(".switchboard/sessions/{id}.cast"));
    assert!(log.is_file(), "the session's log is there to be ignored");
    assert!(root.join(".switchboard/agents").is_dir());
    assert!(root.join(".visual-delivery/data/deliveries.json").is_file());

    git(&root, &["add", "-A"]);
    let staged = git(&root, &["diff", "--cached", "--name-only"]);
    let staged: Vec<&str> = staged.lines().collect();
    assert_eq!(
        staged,
        [
            ".switchboard/.gitignore",
            ".switchboard/chains/build.json",
            ".visual-delivery/.gitignore",
            "README.md",
        ],
        "only what a team shares is staged"
    );
}
