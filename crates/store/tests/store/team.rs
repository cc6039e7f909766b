//! opencode-teams' files through the store: the plugin's layout and form,
//! its locks (a second process holding a classic `fcntl` lock, as the
//! plugin does), its rules, and bad files left as they are.

use std::{
    fs,
    io::{BufRead, BufReader, Write},
    path::Path,
    process::{Child, Command, Stdio},
    sync::mpsc,
    time::Duration,
};

use serde_json::{Value, json};
use switchboard_model::{
    Timestamp,
    team::{MessageType, Priority, TaskStatus},
};
use switchboard_store::{
    StoreError,
    team::{
        NewTask, TaskUpdate, Teams, advance_task, claim_task, create_task, edit_dependencies,
        list_tasks, read_messages, send_broadcast, send_message, update_task,
    },
};

const HOLD: &str = "SWITCHBOARD_TEST_HOLD_FCNTL";
const TRY: &str = "SWITCHBOARD_TEST_TRY_FCNTL";

fn now() -> Timestamp {
    Timestamp::parse("2026-02-10T10:00:00.000Z").unwrap()
}

/// A team `alpha` with members lead, b and c.
fn team() -> (tempfile::TempDir, Teams) {
    let dir = tempfile::tempdir().unwrap();
    let teams = Teams::at(dir.path().join(".opencode/opencode-teams"));
    let config = teams.root().join("teams/alpha/config.json");
    fs::create_dir_all(config.parent().unwrap()).unwrap();
    let member = |id: &str, kind: &str| {
        json!({"agentId": id, "agentName": id.to_uppercase(), "agentType": kind,
               "joinedAt": "2026-02-10T09:00:00.000Z"})
    };
    let body = json!({
        "name": "alpha", "created": "2026-02-10T09:00:00.000Z", "leader": "lead",
        "members": [member("lead", "leader"), member("b", "worker"), member("c", "worker")],
        "shutdownApprovals": [], "dispatchRules": [], "dispatchLog": []
    });
    fs::write(&config, serde_json::to_string_pretty(&body).unwrap()).unwrap();
    (dir, teams)
}

#[test]
fn a_team_is_created_as_the_plugin_creates_one_and_only_once() {
    let dir = tempfile::tempdir().unwrap();
    let teams = Teams::at(dir.path().join(".opencode/opencode-teams"));
    let refused = teams
        .create_team("a b", ("leader", "Leader"), now())
        .unwrap_err();
    assert_eq!(
        refused.to_string(),
        "Invalid team name \"a b\": Team name must be alphanumeric with hyphens/underscores"
    );
    assert!(!teams.root().exists(), "nothing written for a refused name");

    teams
        .create_team("web", ("leader", "Leader"), now())
        .unwrap();
    let written = fs::read_to_string(teams.root().join("teams/web/config.json")).unwrap();
    assert!(
        written.starts_with("{\n  \"name\": \"web\",") && !written.ends_with('\n'),
        "2-space JSON without a trailing newline: {written:?}"
    );
    assert_eq!(
        fs::read_to_string(teams.root().join("teams/web/inboxes/leader.json")).unwrap(),
        "[]",
        "the leader's inbox, empty"
    );
    assert!(teams.root().join("tasks/web").is_dir());
    // The queue works at once: docs/team.md's first command.
    let task = create_task(&teams, "web", new("Build the login page", &[]), now()).unwrap();
    assert_eq!(teams.board("web").unwrap().tasks[0].id, task.id);
    assert_eq!(teams.board("web").unwrap().config.leader, "leader");

    let again = teams
        .create_team("web", ("other", "Other"), now())
        .unwrap_err();
    assert_eq!(again.to_string(), "Team \"web\" already exists");
    assert_eq!(
        fs::read_to_string(teams.root().join("teams/web/config.json")).unwrap(),
        written,
        "the team is left as it was"
    );
}

fn new(title: &str, dependencies: &[&str]) -> NewTask {
    NewTask {
        title: title.to_owned(),
        dependencies: dependencies.iter().map(|d| (*d).to_owned()).collect(),
        ..NewTask::default()
    }
}

fn task_file(teams: &Teams, id: &str) -> Value {
    let path = teams.root().join(format!("tasks/alpha/{id}.json"));
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// Not a test of its own: when the environment names a file, this process
/// is the stand-in for the plugin, taking a classic `fcntl` lock on it the
/// way the plugin does.
#[test]
fn fcntl_lock_helper() {
    use nix::{
        fcntl::{FcntlArg, fcntl},
        libc,
    };
    let (path, wait) = match (std::env::var(HOLD), std::env::var(TRY)) {
        (Ok(path), _) => (path, true),
        (_, Ok(path)) => (path, false),
        _ => return,
    };
    let file = fs::File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .unwrap();
    let lock = libc::flock {
        l_type: libc::F_WRLCK as libc::c_short,
        l_whence: libc::SEEK_SET as libc::c_short,
        l_start: 0,
        l_len: 0,
        l_pid: 0,
    };
    let mut out = std::io::stdout();
    if wait {
        fcntl(&file, FcntlArg::F_SETLKW(&lock)).unwrap();
        writeln!(out, "held").unwrap();
        out.flush().unwrap();
        // Hold until the parent closes our stdin.
        let mut line = String::new();
        let _ = std::io::stdin().read_line(&mut line);
    } else {
        let free = fcntl(&file, FcntlArg::F_SETLK(&lock)).is_ok();
        writeln!(out, "{}", if free { "free" } else { "busy" }).unwrap();
    }
}

fn helper(variable: &str, path: &Path) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "team::fcntl_lock_helper",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(variable, path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// What the helper says (the test harness may print the test's name on
/// the same line first).
fn helper_says(child: &mut Child) -> String {
    let stdout = child.stdout.as_mut().unwrap();
    BufReader::new(stdout)
        .lines()
        .map(Result::unwrap)
        .find_map(|line| {
            ["held", "free", "busy"]
                .into_iter()
                .find(|word| line.trim_end().ends_with(word))
        })
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn the_plugins_fcntl_lock_and_ours_exclude_each_other() {
    let (_dir, teams) = team();
    let lock_path = teams.root().join("tasks/alpha/.lock");
    fs::create_dir_all(lock_path.parent().unwrap()).unwrap();

    // The plugin holds its lock: a change here waits for it.
    let mut plugin = helper(HOLD, &lock_path);
    assert_eq!(helper_says(&mut plugin), "held");
    let (done, finished) = mpsc::channel();
    let waiting = teams.clone();
    let change = std::thread::spawn(move || {
        let created = create_task(&waiting, "alpha", new("waits", &[]), now());
        done.send(()).unwrap();
        created
    });
    assert!(
        finished.recv_timeout(Duration::from_millis(300)).is_err(),
        "the change went ahead while the plugin held its lock"
    );
    drop(plugin.stdin.take());
    plugin.wait().unwrap();
    change.join().unwrap().unwrap();

    // We hold ours: the plugin cannot take its lock.
    let held = teams.hold_task_lock("alpha").unwrap();
    let mut plugin = helper(TRY, &lock_path);
    assert_eq!(helper_says(&mut plugin), "busy");
    plugin.wait().unwrap();
    drop(held);
    let mut plugin = helper(TRY, &lock_path);
    assert_eq!(helper_says(&mut plugin), "free", "and can once we let go");
    plugin.wait().unwrap();
}

#[test]
fn tasks_are_written_as_the_plugin_writes_them_and_follow_its_rules() {
    let (_dir, teams) = team();
    let design = create_task(&teams, "alpha", new("Design", &[]), now()).unwrap();
    let mut build = new("Build", &[&design.id]);
    build.priority = Priority::High;
    let build = create_task(&teams, "alpha", build, now()).unwrap();

    // The form: id `{ms}-{8 hex}`, file named after it, 2-space JSON with
    // no trailing newline, `Z` times, no fields of ours.
    let (millis, hex) = build.id.split_once('-').unwrap();
    assert_eq!(millis, now().unix_millis().to_string());
    assert!(
        hex.len() == 8
            && hex
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    );
    let raw =
        fs::read_to_string(teams.root().join(format!("tasks/alpha/{}.json", build.id))).unwrap();
    assert!(
        raw.starts_with("{\n  \"id\": ") && !raw.ends_with('\n'),
        "{raw}"
    );
    assert_eq!(
        task_file(&teams, &build.id),
        json!({"id": build.id, "title": "Build", "priority": "high", "status": "pending",
               "createdAt": "2026-02-10T10:00:00.000Z", "dependencies": [design.id], "blocks": []})
    );
    assert_eq!(task_file(&teams, &design.id)["blocks"], json!([build.id]));

    // A cycle and an unknown dependency, in the plugin's words.
    let cycle = edit_dependencies(
        &teams,
        "alpha",
        &design.id,
        std::slice::from_ref(&build.id),
        &[],
        now(),
    );
    assert_eq!(
        cycle.unwrap_err().to_string(),
        format!("Circular dependency detected: {}", design.id)
    );
    let unknown = create_task(&teams, "alpha", new("x", &["1-00000000"]), now());
    assert_eq!(
        unknown.unwrap_err().to_string(),
        "Dependency task 1-00000000 does not exist"
    );

    // Claiming early warns; completing the dependency cascades.
    let claimed = claim_task(&teams, "alpha", &build.id, "b", now()).unwrap();
    assert_eq!(
        claimed.warning.as_deref(),
        Some(
            format!(
                "Warning: Task {} dependencies are not met. Proceed with caution.",
                build.id
            )
            .as_str()
        )
    );
    let refused = advance_task(&teams, "alpha", &design.id, TaskStatus::Completed, now());
    assert_eq!(
        refused.unwrap_err().to_string(),
        "Invalid status transition: pending -> completed"
    );
    advance_task(&teams, "alpha", &design.id, TaskStatus::InProgress, now()).unwrap();
    let (done, cascaded) =
        advance_task(&teams, "alpha", &design.id, TaskStatus::Completed, now()).unwrap();
    assert_eq!(cascaded, std::slice::from_ref(&build.id));
    assert_eq!(done.completed_at, Some(now()));
    let after = task_file(&teams, &build.id);
    assert_eq!(after["dependencies"], json!([]));
    assert!(after.get("warning").is_none(), "{after}");
    assert_eq!(
        task_file(&teams, &design.id)["completedAt"],
        "2026-02-10T10:00:00.000Z"
    );
}

#[test]
fn bad_files_are_listed_left_alone_and_the_board_still_shows() {
    let (_dir, teams) = team();
    let good = create_task(&teams, "alpha", new("Good", &[]), now()).unwrap();
    let dir = teams.root().join("tasks/alpha");
    let base = fs::read_to_string(dir.join(format!("{}.json", good.id))).unwrap();
    let bad = [
        (
            "1-0000000a.json",
            base.replace(&good.id, "1-0000000a")
                .replace("pending", "done"),
        ),
        (
            "1-0000000b.json",
            base.replace(&good.id, "1-0000000b")
                .replace(".000Z", ".000+00:00"),
        ),
        ("1-0000000c.json", base.clone()),
        ("1-0000000d.json", "{ not json".to_owned()),
    ];
    for (name, text) in &bad {
        fs::write(dir.join(name), text).unwrap();
    }
    let inbox = teams.root().join("teams/alpha/inboxes/b.json");
    fs::create_dir_all(inbox.parent().unwrap()).unwrap();
    fs::write(&inbox, "[{\"from\": \"\"}]").unwrap();

    let board = teams.board("alpha").unwrap();
    assert_eq!(board.tasks.len(), 1, "the good task still shows");
    assert_eq!(board.problems.len(), 5, "{:?}", board.problems);
    for (name, _) in &bad {
        assert!(
            board.problems.iter().any(|p| p.path.ends_with(name)),
            "{name} listed"
        );
    }
    assert!(board.problems.iter().any(|p| p.path.ends_with("b.json")));
    let named = board
        .problems
        .iter()
        .find(|p| p.path.ends_with("1-0000000c.json"))
        .unwrap();
    assert!(named.reason.contains("named"), "{}", named.reason);

    // Changes go on around them, and never touch them.
    advance_task(&teams, "alpha", &good.id, TaskStatus::InProgress, now()).unwrap();
    advance_task(&teams, "alpha", &good.id, TaskStatus::Completed, now()).unwrap();
    let claim_bad = claim_task(&teams, "alpha", "1-0000000d", "b", now()).unwrap_err();
    assert!(
        matches!(claim_bad, StoreError::Corrupt { .. }),
        "{claim_bad}"
    );
    assert!(
        send_message(
            &teams,
            "alpha",
            "lead",
            "b",
            MessageType::Plain,
            "hi",
            now()
        )
        .is_err()
    );
    for (name, text) in &bad {
        assert_eq!(
            &fs::read_to_string(dir.join(name)).unwrap(),
            text,
            "{name} untouched"
        );
    }
    assert_eq!(fs::read_to_string(&inbox).unwrap(), "[{\"from\": \"\"}]");
}

#[test]
fn messages_broadcasts_and_reading_follow_the_plugin() {
    let (_dir, teams) = team();
    send_message(
        &teams,
        "alpha",
        "lead",
        "b",
        MessageType::TaskAssignment,
        "take 1",
        now(),
    )
    .unwrap();
    let not_member = send_message(
        &teams,
        "alpha",
        "lead",
        "zed",
        MessageType::Plain,
        "x",
        now(),
    );
    assert_eq!(
        not_member.unwrap_err().to_string(),
        "Recipient \"zed\" is not a member of team \"alpha\""
    );
    let recipients = send_broadcast(&teams, "alpha", "lead", "stand-up", now()).unwrap();
    assert_eq!(recipients, ["b", "c"]);
    let raw = fs::read_to_string(teams.root().join("teams/alpha/inboxes/b.json")).unwrap();
    let inbox: Value = serde_json::from_str(&raw).unwrap();
    assert_eq!(
        inbox[1],
        json!({"from": "lead", "to": "broadcast", "message": "stand-up", "type": "plain",
               "timestamp": "2026-02-10T10:00:00.000Z", "read": false,
               "recipients": ["lead", "b", "c"]})
    );
    let keys: Vec<&str> = inbox[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys.len(), 6);
    assert!(
        raw.find("\"from\"") < raw.find("\"to\"")
            && raw.find("\"type\"") < raw.find("\"timestamp\"")
    );
    assert!(
        !teams.root().join("teams/alpha/inboxes/lead.json").exists(),
        "not to the sender"
    );

    let unread = read_messages(&teams, "alpha", "b", true).unwrap();
    assert_eq!(unread.len(), 2);
    assert!(
        read_messages(&teams, "alpha", "b", true)
            .unwrap()
            .is_empty(),
        "reading marks read"
    );
    assert_eq!(read_messages(&teams, "alpha", "b", false).unwrap().len(), 2);
}

#[test]
fn eight_writers_keep_every_task_and_no_cycle() {
    let (_dir, teams) = team();
    let seeds: Vec<String> = (0..4)
        .map(|i| {
            create_task(&teams, "alpha", new(&format!("seed {i}"), &[]), now())
                .unwrap()
                .id
        })
        .collect();
    let workers: Vec<_> = (0..8)
        .map(|worker| {
            let teams = teams.clone();
            let seeds = seeds.clone();
            std::thread::spawn(move || {
                let mut mine = Vec::new();
                for round in 0..50 {
                    match round % 4 {
                        0 | 1 => {
                            let dep = &seeds[(worker + round) % seeds.len()];
                            let task =
                                create_task(&teams, "alpha", new("t", &[dep]), now()).unwrap();
                            mine.push(task.id);
                        }
                        2 => {
                            // Two seeds that depend on each other must not
                            // both land, whoever edits first.
                            let (a, b) = (&seeds[worker % 4], &seeds[(worker + 1) % 4]);
                            let _ = edit_dependencies(
                                &teams,
                                "alpha",
                                a,
                                std::slice::from_ref(b),
                                &[],
                                now(),
                            );
                        }
                        _ => {
                            if let Some(id) = mine.last() {
                                let _ =
                                    claim_task(&teams, "alpha", id, &format!("w{worker}"), now());
                            }
                        }
                    }
                }
                mine
            })
        })
        .collect();
    let created: usize = workers.into_iter().map(|w| w.join().unwrap().len()).sum();
    let board = teams.board("alpha").unwrap();
    assert!(board.problems.is_empty(), "{:?}", board.problems);
    assert_eq!(board.tasks.len(), created + seeds.len(), "no task lost");
    for task in &board.tasks {
        if task.status == TaskStatus::InProgress {
            assert!(task.owner.is_some());
        }
    }
    let cyclic = switchboard_model::team::graph::layout(&board.tasks).cyclic;
    assert!(cyclic.is_empty(), "a dependency cycle landed: {cyclic:?}");
}

#[test]
fn the_teams_folder_is_found_where_the_plugin_finds_it() {
    // Without the plugin's variables: the nearest folder up from the
    // workspace that holds a project marker, else the workspace.
    let project = tempfile::tempdir().unwrap();
    let inner = project.path().join("crates/app");
    fs::create_dir_all(&inner).unwrap();
    let open = |path: &Path| switchboard_store::Workspace::open(path).unwrap();
    let alone = Teams::locate(&open(&inner));
    assert_eq!(
        alone.root(),
        open(&inner).root().join(".opencode/opencode-teams")
    );
    fs::create_dir(project.path().join(".git")).unwrap();
    let found = Teams::locate(&open(&inner));
    assert_eq!(
        found.root(),
        open(project.path()).root().join(".opencode/opencode-teams")
    );
    fs::write(inner.join("package.json"), "{}").unwrap();
    assert_eq!(
        Teams::locate(&open(&inner)).root(),
        open(&inner).root().join(".opencode/opencode-teams")
    );
}

#[test]
fn an_update_is_one_change_and_a_refused_one_changes_nothing() {
    let (_dir, teams) = team();
    let design = create_task(&teams, "alpha", new("Design", &[]), now()).unwrap();
    let build = create_task(&teams, "alpha", new("Build", &[]), now()).unwrap();
    let before = (task_file(&teams, &design.id), task_file(&teams, &build.id));

    // A dependency that is fine and a transition that is not: neither.
    let refused = update_task(
        &teams,
        "alpha",
        &build.id,
        &TaskUpdate {
            status: Some(TaskStatus::Completed),
            add: vec![design.id.clone()],
            remove: Vec::new(),
        },
        now(),
    );
    assert_eq!(
        refused.unwrap_err().to_string(),
        "Invalid status transition: pending -> completed"
    );
    assert_eq!(
        (task_file(&teams, &design.id), task_file(&teams, &build.id)),
        before
    );

    // Both at once: the dependency added (and its `blocks`), the task moved.
    let (moved, freed) = update_task(
        &teams,
        "alpha",
        &build.id,
        &TaskUpdate {
            status: Some(TaskStatus::InProgress),
            add: vec![design.id.clone()],
            remove: Vec::new(),
        },
        now(),
    )
    .unwrap();
    assert!(freed.is_empty());
    assert_eq!(moved.status, TaskStatus::InProgress);
    assert_eq!(
        task_file(&teams, &build.id)["dependencies"],
        json!([design.id])
    );
    assert_eq!(task_file(&teams, &design.id)["blocks"], json!([build.id]));

    // The listing across teams, with readiness: Design can start, Build
    // waits for it.
    let listing = list_tasks(&teams, None, &Default::default()).unwrap();
    let mut ready: Vec<(&str, bool)> = listing
        .tasks
        .iter()
        .map(|found| (found.task.title.as_str(), found.ready))
        .collect();
    ready.sort_unstable();
    assert_eq!(ready, [("Build", false), ("Design", true)]);
    assert!(listing.tasks.iter().all(|found| found.team == "alpha"));
}
