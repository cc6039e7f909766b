//! `switchboard learn` and `switchboard validate` as processes.

use std::{
    io::Write,
    process::{Command, Stdio},
};

use crate::{ok_stdout, switchboard};

#[test]
fn learn_appends_stdin_in_naide_format() {
    let workspace = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .arg("-C")
        .arg(workspace.path())
        .args([
            "learn",
            "--category",
            "Build & Tooling",
            "--title",
            "Pin trunk",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"**What happened:** a new trunk broke the build.\n")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(ok_stdout(&output), ".naide/learnings/build-tooling.md:1");
    let again = switchboard(
        workspace.path(),
        &[
            "learn",
            "--category",
            "build-tooling",
            "--title",
            "Cache cargo",
            "--body",
            "Saves minutes.",
        ],
    );
    assert_eq!(ok_stdout(&again), ".naide/learnings/build-tooling.md:5");
    let text = std::fs::read_to_string(workspace.path().join(".naide/learnings/build-tooling.md"))
        .unwrap();
    let date = &text[text.find('(').unwrap() + 1..text.find(')').unwrap()];
    assert_eq!(date.len(), 10, "dated heading: {text}");
    assert!(text.starts_with("## Pin trunk ("), "{text}");
    assert!(text.contains("\n\n## Cache cargo ("), "{text}");

    let empty = switchboard(
        workspace.path(),
        &["learn", "--category", "x", "--title", "T", "--body", "  "],
    );
    assert_eq!(empty.status.code(), Some(2), "INVALID_REQUEST exits 2");
    assert!(String::from_utf8_lossy(&empty.stderr).starts_with("error[INVALID_REQUEST]: "));
}

#[test]
fn validate_exits_non_zero_until_fixed_and_names_file_and_bullet() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path();
    std::fs::create_dir_all(root.join(".delia/playbooks")).unwrap();
    std::fs::create_dir_all(root.join(".delia/profiles")).unwrap();
    std::fs::create_dir_all(root.join(".delia/memories")).unwrap();
    std::fs::write(root.join(".delia/profiles/core.md"), "# Core").unwrap();
    std::fs::write(root.join(".delia/memories/notes.md"), "Notes").unwrap();
    std::fs::write(
        root.join(".delia/playbooks/coding.json"),
        r#"[{"content": "Prefer iterators over index loops"}, {"id": "strat-0000000b", "content": "Tiny"}]"#,
    )
    .unwrap();

    let check = switchboard(root, &["validate"]);
    assert_eq!(check.status.code(), Some(1));
    let out = String::from_utf8_lossy(&check.stdout);
    assert!(
        out.contains(".delia/playbooks/coding.json: schema v1"),
        "{out}"
    );
    assert!(
        out.contains(".delia/playbooks/coding.json [#1]: bullet #1 has no id"),
        "{out}"
    );
    assert!(
        out.contains("[strat-0000000b]: content is 4 characters"),
        "{out}"
    );

    let fixed = switchboard(root, &["validate", "--fix"]);
    assert_eq!(fixed.status.code(), Some(1), "the short bullet is left");
    let out = String::from_utf8_lossy(&fixed.stdout);
    assert!(out.contains("fixed .delia/playbooks/coding.json"), "{out}");
    assert!(out.contains("1 problem(s), 1 fixed"), "{out}");

    let playbook: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join(".delia/playbooks/coding.json")).unwrap(),
    )
    .unwrap();
    let mut playbook = playbook;
    playbook["bullets"][1]["content"] = "Keep functions under forty lines".into();
    std::fs::write(
        root.join(".delia/playbooks/coding.json"),
        serde_json::to_string(&playbook).unwrap(),
    )
    .unwrap();
    let clean = switchboard(
        root,
        &["validate", ".delia/playbooks/coding.json", "--json"],
    );
    let report: serde_json::Value = serde_json::from_str(&ok_stdout(&clean)).unwrap();
    assert_eq!(report["problems"], serde_json::json!([]));
    assert_eq!(report["checked"], 1);
}

#[test]
fn search_finds_what_learn_just_wrote_as_json() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path();
    std::fs::create_dir_all(root.join(".delia/playbooks")).unwrap();
    std::fs::write(
        root.join(".delia/playbooks/coding.json"),
        r#"{"schema_version": 2, "task_type": "coding", "updated_at": "2026-11-01T00:00:00.000000",
            "bullets": [{"id": "strat-0000000a", "content": "Use tempfile for scratch directories in tests", "helpful_count": 3}]}"#,
    )
    .unwrap();
    let none = switchboard(root, &["search", "flaky", "--json"]);
    let results: serde_json::Value = serde_json::from_str(&ok_stdout(&none)).unwrap();
    assert_eq!(results["hits"], serde_json::json!([]));

    ok_stdout(&switchboard(
        root,
        &[
            "learn",
            "--category",
            "testing",
            "--title",
            "Flaky watcher tests",
            "--body",
            "Wait for the event, never sleep.",
        ],
    ));
    let found = switchboard(root, &["search", "flaky", "watcher", "--json"]);
    let results: serde_json::Value = serde_json::from_str(&ok_stdout(&found)).unwrap();
    let hit = &results["hits"][0];
    assert_eq!(hit["kind"], "learning");
    assert_eq!(hit["path"], ".naide/learnings/testing.md");
    assert_eq!(hit["line"], 1);
    assert_eq!(hit["title"], "Flaky watcher tests");

    let bullets = switchboard(root, &["search", "tempfile", "--kind", "bullet"]);
    let text = ok_stdout(&bullets);
    assert!(
        text.starts_with(".delia/playbooks/coding.json  bullet  coding  +3 -0"),
        "{text}"
    );
    assert!(text.contains("Use tempfile for scratch"), "{text}");
}
