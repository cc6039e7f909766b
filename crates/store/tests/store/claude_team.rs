//! Claude Code's agent teams through the store: read from its config folder
//! as its agents leave them, bad files listed, the teams of other folders
//! left out, and nothing there ever written, locked or created.

use std::{collections::BTreeMap, fs, path::Path, time::SystemTime};

use serde_json::json;
use switchboard_model::team::{MessageType, TaskStatus, TeamSource, readiness};
use switchboard_store::team::ClaudeTeams;

/// Every file under `root` with its bytes and modification time.
fn snapshot(root: &Path) -> BTreeMap<String, (Vec<u8>, SystemTime)> {
    let mut files = BTreeMap::new();
    let mut pending = vec![root.to_owned()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let modified = entry.metadata().unwrap().modified().unwrap();
                files.insert(
                    path.display().to_string(),
                    (fs::read(&path).unwrap(), modified),
                );
            }
        }
    }
    files
}

fn write(path: &Path, value: &serde_json::Value) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
}

/// Team `refactor` working in `workspace`, and team `elsewhere` in
/// another folder, in Claude's layout.
fn claude_folder(root: &Path, workspace: &Path) {
    let member = |name: &str, kind: &str, cwd: &Path| {
        json!({"agentId": format!("{name}@refactor"), "name": name, "agentType": kind,
               "model": "sonnet", "joinedAt": 1_771_000_000_000_i64, "tmuxPaneId": "%3",
               "cwd": cwd, "subscriptions": []})
    };
    write(
        &root.join("teams/refactor/config.json"),
        &json!({"name": "refactor", "description": "Split the parser",
                "createdAt": 1_771_000_000_000_i64, "leadAgentId": "team-lead@refactor",
                "leadSessionId": "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee",
                "members": [member("team-lead", "team-lead", workspace),
                            member("tester", "general-purpose", &workspace.join("crates"))]}),
    );
    write(
        &root.join("teams/elsewhere/config.json"),
        &json!({"name": "elsewhere", "createdAt": 1_771_000_000_000_i64,
                "leadAgentId": "lead@elsewhere",
                "members": [{"agentId": "lead@elsewhere", "name": "lead", "cwd": "/somewhere/else"}]}),
    );
    let task = |id: &str, status: &str, blocked_by: &[&str]| {
        json!({"id": id, "subject": format!("Task {id}"), "description": "",
               "activeForm": "Working", "status": status, "owner": "tester",
               "blocks": [], "blockedBy": blocked_by})
    };
    let tasks = root.join("tasks/refactor");
    write(&tasks.join("1.json"), &task("1", "completed", &[]));
    write(&tasks.join("2.json"), &task("2", "pending", &["1"]));
    write(&tasks.join("10.json"), &task("10", "pending", &["2"]));
    write(&tasks.join("3.json"), &task("3", "done", &[]));
    write(&tasks.join("4.json"), &task("5", "pending", &[]));
    fs::write(tasks.join("6.json"), "{\"id\": \"6\", \"subj").unwrap();
    fs::write(tasks.join(".lock"), "").unwrap();
    write(
        &root.join("teams/refactor/inboxes/team-lead.json"),
        &json!([
            {"from": "tester", "text": "Parser split, tests green", "summary": "done",
             "timestamp": "2026-02-10T10:00:00.000Z", "read": true, "color": "blue"},
            {"from": "tester",
             "text": "{\"type\":\"idle_notification\",\"from\":\"tester\",\"idleReason\":\"available\"}",
             "timestamp": "2026-02-10T10:05:00.000Z", "read": false}
        ]),
    );
    write(
        &root.join("teams/refactor/inboxes/tester.json"),
        &json!([{"from": "team-lead", "text": "hi", "timestamp": "last tuesday", "read": false}]),
    );
}

#[test]
fn claude_teams_are_read_as_its_agents_leave_them_and_never_written() {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let root = home.path().join(".claude");
    claude_folder(&root, workspace.path());
    let before = snapshot(&root);
    let claude = ClaudeTeams::at(&root);

    assert_eq!(claude.team_names(workspace.path()).unwrap(), ["refactor"]);
    assert_eq!(
        claude.team_names(Path::new("/somewhere/else")).unwrap(),
        ["elsewhere"]
    );

    let board = claude.board("refactor").unwrap();
    assert_eq!(board.source, TeamSource::ClaudeCode);
    assert!(!board.source.writable());
    assert_eq!(board.config.leader, "team-lead");
    assert_eq!(board.config.role_of("tester"), Some("general-purpose"));
    let ids: Vec<&str> = board.tasks.iter().map(|task| task.id.as_str()).collect();
    assert_eq!(ids, ["1", "2", "10"], "numeric order, bad files left out");
    assert_eq!(readiness(&board.tasks), [false, true, false]);
    assert_eq!(board.tasks[0].status, TaskStatus::Completed);
    assert_eq!(board.tasks[2].dependencies, ["2"]);

    let reasons: Vec<(String, String)> = board
        .problems
        .iter()
        .map(|problem| {
            let file = Path::new(&problem.path).file_name().unwrap();
            (file.to_string_lossy().into_owned(), problem.reason.clone())
        })
        .collect();
    assert_eq!(reasons.len(), 4, "{reasons:?}");
    assert!(reasons.contains(&(
        "3.json".into(),
        "status \"done\" is not one Claude Code writes".into()
    )));
    assert!(reasons.contains(&(
        "4.json".into(),
        "the file is named \"4\" but holds task \"5\"".into()
    )));
    assert!(
        reasons
            .iter()
            .any(|(file, reason)| file == "6.json" && reason.contains("EOF"))
    );
    assert!(reasons.iter().any(|(file, reason)| file == "tester.json"
        && reason.contains("\"last tuesday\" is not an ISO 8601 time")));

    let lead = &board.inboxes[0];
    assert_eq!(lead.agent, "team-lead");
    assert_eq!(lead.unread(), 1);
    assert_eq!(lead.messages[0].summary.as_deref(), Some("done"));
    assert_eq!(lead.messages[1].kind, MessageType::Idle);
    assert_eq!(lead.messages[1].message, "available");

    assert_eq!(
        snapshot(&root),
        before,
        "reading wrote, locked or made nothing"
    );
    let missing = claude.board("nobody").unwrap_err();
    assert_eq!(missing.to_string(), "Team \"nobody\" does not exist");
    assert!(claude.board("../refactor").is_err());
}
