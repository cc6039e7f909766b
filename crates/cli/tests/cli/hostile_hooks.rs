//! `switchboard hook` fed what a hostile agent (or any process of the
//! user's) can send it: edits of files outside the workspace, links that
//! lead out, kernel files, FIFOs where files should be, huge edits. None
//! of it may copy a file's text into the inbox, hang the hook or the
//! agents list, or eat the machine's memory.

use std::{
    os::unix::fs::{PermissionsExt, symlink},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::Duration,
};

use serde_json::{Value, json};
use switchboard_store::{Workspace, window};

use crate::{
    hooks::{asked, hook_with},
    ok_stdout, stored_now, switchboard,
};

/// A workspace, and beside it (outside) a private file.
struct Setting {
    _dir: tempfile::TempDir,
    root: PathBuf,
    secret: PathBuf,
}

const KEY: &str = "-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAA";
const ENVIRON: &str = "ENVIRON-SECRET-31337";

impl Setting {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let root = base.join("project");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(base.join("home/.ssh")).unwrap();
        let secret = base.join("home/.ssh/id_ed25519");
        std::fs::write(&secret, format!("{KEY}\n")).unwrap();
        Self {
            _dir: dir,
            root,
            secret,
        }
    }
}

/// `switchboard hook` with `event` on stdin, as an agent runs it (with a
/// secret in its environment).
fn hook(root: &Path, event: &Value) -> Child {
    hook_with(root, "60", event, &[("SWITCHBOARD_TEST_SECRET", ENVIRON)])
}

fn permission(root: &Path, tool_name: &str, tool_input: Value) -> Value {
    json!({
        "session_id": "s-1", "transcript_path": "", "cwd": root,
        "hook_event_name": "PermissionRequest", "tool_name": tool_name,
        "tool_input": tool_input,
    })
}

/// Every byte under `dir`, as text.
fn everything_in(dir: &Path) -> String {
    let mut all = String::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            all.push_str(&everything_in(&path));
        } else if path.is_file() {
            all.push_str(&String::from_utf8_lossy(&std::fs::read(&path).unwrap()));
        }
    }
    all
}

/// A child's output, once it ends; killed, and the test failed, if it
/// runs past `limit`.
fn finished_within(child: Child, limit: Duration) -> std::process::Output {
    let pid = child.id();
    let (done, ended) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(child.wait_with_output());
    });
    match ended.recv_timeout(limit) {
        Ok(output) => output.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("still running after {limit:?}");
        }
    }
}

/// Makes a FIFO at `path`.
fn fifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

#[test]
fn no_file_outside_the_workspace_is_copied_into_the_inbox_and_a_decided_question_keeps_no_diff() {
    let setting = Setting::new();
    let root = &setting.root;
    let _window = window::hold(&Workspace::open(root).unwrap()).unwrap();
    symlink(&setting.secret, root.join("innocent.txt")).unwrap();
    std::fs::create_dir(root.join("src")).unwrap();
    let inside = root.join("src/main.rs");
    std::fs::write(&inside, "fn main() {\n    let x = 1;\n}\n").unwrap();
    let secret = setting.secret.display().to_string();
    let cases = [
        // Emptying a private key outside the workspace.
        (
            permission(root, "Write", json!({"file_path": secret, "content": ""})),
            "outside the workspace",
        ),
        // The same through a link inside the workspace.
        (
            permission(
                root,
                "Write",
                json!({"file_path": root.join("innocent.txt"), "content": ""}),
            ),
            "outside the workspace",
        ),
        (
            permission(
                root,
                "Edit",
                json!({"file_path": "../home/.ssh/id_ed25519", "old_string": "BEGIN", "new_string": "x"}),
            ),
            "outside the workspace",
        ),
        // The hook's own environment.
        (
            permission(
                root,
                "Edit",
                json!({"file_path": "/proc/self/environ", "old_string": "PATH", "new_string": "X"}),
            ),
            "outside the workspace",
        ),
    ];
    for (event, why) in cases {
        let child = hook(root, &event);
        let question = asked(root);
        let body = question["content"]["body"].as_str().unwrap();
        assert!(body.contains(why), "{body}");
        assert!(!body.contains("```diff"), "{body}");
        let data = root.join(".visual-delivery/data");
        assert_eq!(
            std::fs::metadata(&data).unwrap().permissions().mode() & 0o777,
            0o700,
            "the inbox's data is its owner's alone"
        );
        let all = everything_in(&root.join(".visual-delivery"));
        assert!(!all.contains("OPENSSH") && !all.contains(ENVIRON), "{all}");
        ok_stdout(&crate::answer_as_shown(
            root,
            question["id"].as_str().unwrap(),
            &["--value", "false"],
            &[],
        ));
        let output = finished_within(child, Duration::from_secs(20));
        assert!(String::from_utf8_lossy(&output.stdout).contains("\"deny\""));
    }
    // A file inside is shown as a diff while asked, and the diff is not
    // kept once decided.
    let child = hook(
        root,
        &permission(
            root,
            "Edit",
            json!({"file_path": inside, "old_string": "let x = 1;", "new_string": "let x = 2;"}),
        ),
    );
    let question = asked(root);
    let body = question["content"]["body"].as_str().unwrap();
    assert!(
        body.contains("--- a/src/main.rs\n+++ b/src/main.rs") && body.contains("-    let x = 1;"),
        "{body}"
    );
    let id = question["id"].as_str().unwrap().to_owned();
    ok_stdout(&crate::answer_as_shown(
        root,
        &id,
        &["--value", "true"],
        &[],
    ));
    let output = finished_within(child, Duration::from_secs(20));
    assert!(String::from_utf8_lossy(&output.stdout).contains("\"allow\""));
    let kept = stored_now(root)
        .unwrap()
        .into_iter()
        .find(|delivery| delivery["id"] == id.as_str())
        .unwrap();
    let body = kept["content"]["body"].as_str().unwrap();
    assert!(
        body.contains("what was shown to decide it is not kept") && !body.contains("let x"),
        "{body}"
    );
}

#[test]
fn fifos_devices_and_huge_edits_neither_hang_the_hook_nor_the_agents_list() {
    let setting = Setting::new();
    let root = &setting.root;
    // A FIFO where the window's lock should be: no window, so the hook
    // decides nothing, at once.
    std::fs::create_dir_all(root.join(".switchboard")).unwrap();
    fifo(&root.join(".switchboard/window.lock"));
    let child = hook(
        root,
        &permission(root, "Bash", json!({"command": "cargo publish"})),
    );
    let output = finished_within(child, Duration::from_secs(20));
    assert!(output.status.success() && output.stdout.is_empty());
    std::fs::remove_file(root.join(".switchboard/window.lock")).unwrap();

    // Transcripts that are a FIFO and a device: the agents list still
    // answers.
    fifo(&root.join("fifo.jsonl"));
    symlink("/dev/zero", root.join("zero.jsonl")).unwrap();
    for (session, transcript) in [("s-fifo", "fifo.jsonl"), ("s-zero", "zero.jsonl")] {
        let child = hook(
            root,
            &json!({
                "session_id": session, "transcript_path": root.join(transcript), "cwd": root,
                "hook_event_name": "Stop",
            }),
        );
        assert!(
            finished_within(child, Duration::from_secs(20))
                .status
                .success()
        );
    }
    let agents = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .arg("-C")
        .arg(root)
        .args(["agents", "--json"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let listed = finished_within(agents, Duration::from_secs(20));
    let rows: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 3, "{rows}");

    // A 3 MB write over a 20,000-line file: asked at once, shown as the
    // edit alone.
    let _window = window::hold(&Workspace::open(root).unwrap()).unwrap();
    let big = root.join("big.txt");
    let lines: String = (0..20_000).map(|n| format!("line {n}\n")).collect();
    std::fs::write(&big, &lines).unwrap();
    let content: String = (0..200_000).map(|n| format!("new {n}\n")).collect();
    assert!(content.len() > 2_000_000);
    let child = hook(
        root,
        &permission(root, "Write", json!({"file_path": big, "content": content})),
    );
    let question = asked(root);
    let body = question["content"]["body"].as_str().unwrap();
    assert!(body.contains("too large to show as a diff"), "{body:.300}");
    assert!(body.len() < 100_000, "{}", body.len());
    ok_stdout(&switchboard(
        root,
        &["answer", question["id"].as_str().unwrap(), "--dismiss"],
    ));
    finished_within(child, Duration::from_secs(20));
}

#[test]
fn sparse_files_of_gigabytes_among_agent_records_and_team_files_are_refused_unread() {
    let setting = Setting::new();
    let root = &setting.root;
    // What anything working in the workspace makes at no cost: files that
    // say they hold a gigabyte each (of nothing), where the agents list and
    // the team board read every file.
    let agents = root.join(".switchboard/agents");
    let team = root.join(".opencode/opencode-teams/teams/web");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::create_dir_all(team.join("tasks")).unwrap();
    let gigabyte = |path: &Path| {
        std::fs::File::create(path)
            .unwrap()
            .set_len(1 << 30)
            .unwrap();
    };
    for n in 0..12 {
        gigabyte(&agents.join(format!("claude-code-s{n}.json")));
    }
    gigabyte(&team.join("config.json"));
    // One real agent beside them.
    let child = hook(
        root,
        &json!({"session_id": "s-real", "transcript_path": "", "cwd": root,
                "hook_event_name": "Stop"}),
    );
    assert!(
        finished_within(child, Duration::from_secs(20))
            .status
            .success()
    );
    // Twelve gigabytes read would take a minute and a gigabyte of memory
    // at a time; refused unread, the list answers at once.
    let listing = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .arg("-C")
        .arg(root)
        .args(["agents", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let listed = finished_within(listing, Duration::from_secs(20));
    let rows: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 1, "{rows}");
    let board = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .arg("-C")
        .arg(root)
        .args(["team", "list", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    finished_within(board, Duration::from_secs(20));
}

#[test]
fn an_edit_that_would_multiply_a_file_is_asked_at_once_and_a_killed_hook_leaves_no_diff() {
    let setting = Setting::new();
    let root = &setting.root;
    let _window = window::hold(&Workspace::open(root).unwrap()).unwrap();
    std::fs::write(root.join("small.txt"), "hello\n").unwrap();
    // 40 doublings: a terabyte, were it carried out to show a diff.
    let edits: Vec<Value> = (0..40)
        .map(|_| json!({"old_string": "l", "new_string": "ll", "replace_all": true}))
        .collect();
    let child = hook(
        root,
        &permission(
            root,
            "MultiEdit",
            json!({"file_path": root.join("small.txt"), "edits": edits}),
        ),
    );
    let question = asked(root);
    assert!(
        question["content"]["body"]
            .as_str()
            .unwrap()
            .contains("too large to show as a diff"),
        "{question}"
    );
    ok_stdout(&switchboard(
        root,
        &["answer", question["id"].as_str().unwrap(), "--dismiss"],
    ));
    finished_within(child, Duration::from_secs(20));

    // The hook is killed (its agent's timeout, an interrupt) while its
    // question waits; answered afterwards, the question keeps no diff.
    std::fs::write(root.join(".env"), "API_KEY=IN-THE-WORKSPACE\n").unwrap();
    let mut child = hook(
        root,
        &permission(
            root,
            "Write",
            json!({"file_path": root.join(".env"), "content": "API_KEY=\n"}),
        ),
    );
    let question = asked(root);
    assert!(
        question["content"]["body"]
            .as_str()
            .unwrap()
            .contains("-API_KEY=IN-THE-WORKSPACE")
    );
    child.kill().unwrap();
    child.wait().unwrap();
    let id = question["id"].as_str().unwrap().to_owned();
    ok_stdout(&crate::answer_as_shown(
        root,
        &id,
        &["--value", "false"],
        &[],
    ));
    let kept = stored_now(root)
        .unwrap()
        .into_iter()
        .find(|delivery| delivery["id"] == id.as_str())
        .unwrap();
    assert!(!kept.to_string().contains("IN-THE-WORKSPACE"), "{kept}");
    assert_eq!(kept["agent_request"]["decided"]["kind"], "denied", "{kept}");
}

#[test]
fn an_inbox_folder_that_is_a_link_is_neither_changed_nor_written_to() {
    let setting = Setting::new();
    let root = &setting.root;
    let elsewhere = root.parent().unwrap().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::set_permissions(&elsewhere, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::create_dir(root.join(".visual-delivery")).unwrap();
    symlink(&elsewhere, root.join(".visual-delivery/data")).unwrap();
    let _window = window::hold(&Workspace::open(root).unwrap()).unwrap();
    let child = hook(
        root,
        &permission(root, "Bash", json!({"command": "cargo publish"})),
    );
    let output = finished_within(child, Duration::from_secs(20));
    assert_eq!(
        output.status.code(),
        Some(1),
        "a failed hook, never a denial"
    );
    assert!(output.stdout.is_empty());
    assert_eq!(
        std::fs::metadata(&elsewhere).unwrap().permissions().mode() & 0o777,
        0o755,
        "the link's target is left as it was"
    );
    assert!(std::fs::read_dir(&elsewhere).unwrap().next().is_none());
}
