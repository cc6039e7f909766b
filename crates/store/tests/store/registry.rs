//! The machine's running Switchboards: registrations held by real
//! processes, found live while they run and stale once they are killed,
//! and what waits in each registered workspace.

use std::{
    io::{BufRead, BufReader, Write as _},
    process::{Child, Command, Stdio},
    sync::mpsc,
    time::Duration,
};

use serde_json::json;
use switchboard_model::{
    ContentType, DeliveryMode, NewDelivery, Timestamp,
    registry::{Presence, Registration},
};
use switchboard_store::{Workspace, clock, everywhere, feedback, registry::Registry};

/// The environment naming what the helper registers: folder, workspace,
/// presence.
const REGISTER: &str = "SWITCHBOARD_TEST_REGISTER";

/// Not a test of its own: when the environment says so, this process
/// registers a workspace and holds it until its stdin closes.
#[test]
fn registering_helper() {
    let Ok(what) = std::env::var(REGISTER) else {
        return;
    };
    let mut parts = what.split('\n');
    let (folder, root, presence) = (
        parts.next().unwrap(),
        parts.next().unwrap(),
        parts.next().unwrap(),
    );
    let registry = Registry::at(folder.into()).unwrap();
    let workspace = Workspace::open(root.as_ref()).unwrap();
    let _held = registry
        .register(&workspace, Presence::parse(presence).unwrap(), clock::now())
        .unwrap();
    let mut out = std::io::stdout();
    writeln!(out, "registered").unwrap();
    out.flush().unwrap();
    let mut line = String::new();
    let _ = std::io::stdin().read_line(&mut line);
}

/// Another process registering `root` as `presence` in `registry`;
/// returns once it holds its registration.
fn registered_elsewhere(registry: &Registry, root: &std::path::Path, presence: Presence) -> Child {
    let mut helper = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "registry::registering_helper",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(
            REGISTER,
            format!(
                "{}\n{}\n{}",
                registry.folder().display(),
                root.display(),
                presence.as_str()
            ),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let said = BufReader::new(helper.stdout.as_mut().unwrap())
        .lines()
        .map(Result::unwrap)
        .find(|line| line.trim_end().ends_with("registered"));
    assert!(said.is_some(), "the helper registered");
    helper
}

#[test]
fn a_window_in_another_process_counts_until_that_process_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let registry = Registry::at(dir.path().join("workspaces")).unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    let project = project.canonicalize().unwrap();

    let mut window = registered_elsewhere(&registry, &project, Presence::Window);
    let listed = registry.list();
    assert!(listed.problems.is_empty(), "{:?}", listed.problems);
    assert_eq!(listed.registrations.len(), 1);
    let registration = &listed.registrations[0];
    assert_eq!(registration.pid, window.id());
    assert_eq!(registration.workspace, project.to_string_lossy());
    assert!(listed.any_window() && listed.has(&project));

    // Someone waits for no window to be open: it ends when the window's
    // process is killed (no chance to remove its file).
    let (ended, waited) = mpsc::channel();
    let waiting = registry.clone();
    std::thread::spawn(move || ended.send(waiting.wait_no_window().is_ok()));
    assert!(
        waited.recv_timeout(Duration::from_millis(300)).is_err(),
        "still waiting while the window runs"
    );
    window.kill().unwrap();
    window.wait().unwrap();
    assert_eq!(waited.recv_timeout(Duration::from_secs(10)), Ok(true));

    let listed = registry.list();
    assert!(listed.registrations.is_empty() && !listed.any_window());
    let stale = std::fs::read_dir(registry.folder()).unwrap().count();
    assert_eq!(stale, 1, "the killed window's file is left behind");

    // The next registration clears it; dropping its own removes it.
    let workspace = Workspace::open(&project).unwrap();
    let own = registry
        .register(&workspace, Presence::Server, clock::now())
        .unwrap();
    let names: Vec<_> = std::fs::read_dir(registry.folder())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(names, [own.path().to_owned()]);
    assert_eq!(registry.list().registrations[0].presence, Presence::Server);
    drop(own);
    assert_eq!(std::fs::read_dir(registry.folder()).unwrap().count(), 0);
}

#[test]
fn what_is_put_in_the_folder_by_hand_is_never_taken_nor_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let registry = Registry::at(dir.path().join("workspaces")).unwrap();
    let registration = Registration {
        workspace: "/somewhere".into(),
        presence: Presence::Window,
        pid: 7,
        since: Timestamp::EPOCH,
        origin: None,
    };
    let name = registration.file_name();
    // A FIFO under a registration's name: opening it would wait forever.
    nix_mkfifo(&registry.folder().join(&name));
    // Another workspace's registration under this one's name.
    let other = Registration {
        workspace: "/elsewhere".into(),
        ..registration.clone()
    };
    let held = std::fs::File::create(
        registry
            .folder()
            .join(name.replace(".window.7.", ".window.8.")),
    )
    .unwrap();
    std::fs::write(
        registry
            .folder()
            .join(name.replace(".window.7.", ".window.8.")),
        serde_json::to_string(&other).unwrap(),
    )
    .unwrap();
    held.lock().unwrap();
    // A huge one, held.
    let huge_path = registry
        .folder()
        .join(name.replace(".window.7.", ".window.9."));
    let huge = std::fs::File::create(&huge_path).unwrap();
    huge.set_len(64 * 1024 * 1024).unwrap();
    huge.lock().unwrap();

    let listed = registry.list();
    assert!(
        listed.registrations.is_empty(),
        "{:?}",
        listed.registrations
    );
    assert_eq!(listed.problems.len(), 3, "{:?}", listed.problems);
    assert!(
        listed
            .problems
            .iter()
            .any(|problem| problem.contains("not a regular file")),
        "{:?}",
        listed.problems
    );
    assert!(
        listed
            .problems
            .iter()
            .any(|problem| problem.contains("does not match"))
    );
    // Nothing there is a window: waiting for none returns at once.
    registry.wait_no_window().unwrap();
}

fn nix_mkfifo(path: &std::path::Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

#[test]
fn all_workspaces_show_what_waits_in_each_and_answer_only_in_registered_ones() {
    let dir = tempfile::tempdir().unwrap();
    let registry = Registry::at(dir.path().join("workspaces")).unwrap();
    let make = |name: &str| {
        let root = dir.path().join(name);
        std::fs::create_dir(&root).unwrap();
        Workspace::open(&root).unwrap()
    };
    let (here, api, unregistered) = (make("here"), make("api"), make("unregistered"));
    let later = Timestamp::from_unix_millis(clock::now().unix_millis() + 60_000).unwrap();
    let question = NewDelivery {
        mode: DeliveryMode::Blocking,
        title: "Run the migration?".into(),
        content_type: ContentType::Markdown,
        body: "It drops a column.".into(),
        feedback_schema: Some(json!({"type": "confirm"})),
    };
    let (asked, _) = feedback::ask(&api, question.clone(), clock::now(), later).unwrap();
    feedback::ask(&unregistered, question, clock::now(), later).unwrap();
    let mut asking = registered_elsewhere(&registry, api.root(), Presence::Asking);

    let listed = registry.list();
    let lines = everywhere::attention(&listed, &here, clock::now());
    let names: Vec<_> = lines.iter().map(|line| line.name.as_str()).collect();
    assert_eq!(
        names,
        ["here", "api"],
        "the current one first; only registered ones"
    );
    assert!(lines[0].current && lines[0].questions.is_empty());
    let api_line = &lines[1];
    assert_eq!(api_line.presences, [Presence::Asking]);
    assert_eq!(api_line.questions.len(), 1);
    assert_eq!(api_line.questions[0].id, asked.delivery.id);
    assert_eq!(api_line.questions[0].title, "Run the migration?");
    assert_eq!(api_line.waiting(), 1);

    // Answering reaches the registered workspace, nothing else.
    let reached = everywhere::reachable(&listed, &here, &api.root().to_string_lossy()).unwrap();
    assert_eq!(reached.root(), api.root());
    let refused =
        everywhere::reachable(&listed, &here, &unregistered.root().to_string_lossy()).unwrap_err();
    assert_eq!(refused.code(), switchboard_model::ErrorCode::NotFound);
    let through_link = dir.path().join("link");
    std::os::unix::fs::symlink(api.root(), &through_link).unwrap();
    assert!(everywhere::reachable(&listed, &here, &through_link.to_string_lossy()).is_err());

    drop(asking.stdin.take());
    asking.wait().unwrap();
    let lines = everywhere::attention(&registry.list(), &here, clock::now());
    assert_eq!(lines.len(), 1, "it ended: only the current one is left");
}

#[test]
fn following_other_workspaces_is_not_woken_by_its_own_reading() {
    let dir = tempfile::tempdir().unwrap();
    let registry = Registry::at(dir.path().join("workspaces")).unwrap();
    let make = |name: &str| {
        let root = dir.path().join(name);
        std::fs::create_dir(&root).unwrap();
        Workspace::open(&root).unwrap()
    };
    let (here, api) = (make("here"), make("api"));
    let later = Timestamp::from_unix_millis(clock::now().unix_millis() + 60_000).unwrap();
    let question = NewDelivery {
        mode: DeliveryMode::Blocking,
        title: "Run the migration?".into(),
        content_type: ContentType::Markdown,
        body: "It drops a column.".into(),
        feedback_schema: Some(json!({"type": "confirm"})),
    };
    feedback::ask(&api, question, clock::now(), later).unwrap();
    let _here = registry
        .register(&here, Presence::Window, clock::now())
        .unwrap();
    let (told, changes) = mpsc::channel();
    let (reading, current) = (registry.clone(), here.clone());
    // As the window does: each change is read at once, everywhere (the
    // registrations' files, the other workspace's inbox and agents).
    let _follower = everywhere::follow(&registry, &here, move || {
        let lines = everywhere::attention(&reading.list(), &current, clock::now());
        let _ = told.send(lines.len());
    })
    .unwrap();
    let _api = registry
        .register(&api, Presence::Window, clock::now())
        .unwrap();
    assert_eq!(
        changes.recv_timeout(Duration::from_secs(10)),
        Ok(2),
        "a window opening elsewhere is a change"
    );
    let again = changes.recv_timeout(Duration::from_millis(500));
    assert!(
        again.is_err(),
        "reading what changed is no change (else it reads forever): {again:?}"
    );
}

#[test]
fn two_questions_of_one_process_keep_their_workspace_listed_until_the_last_ends() {
    let dir = tempfile::tempdir().unwrap();
    let registry = Registry::at(dir.path().join("workspaces")).unwrap();
    let root = dir.path().join("api");
    std::fs::create_dir(&root).unwrap();
    let api = Workspace::open(&root).unwrap();
    // One MCP server asks two questions in the same workspace at once.
    let first = registry
        .register(&api, Presence::Asking, clock::now())
        .unwrap();
    let second = registry
        .register(&api, Presence::Asking, clock::now())
        .unwrap();
    drop(first);
    assert!(
        registry.list().has(api.root()),
        "the second question still waits there"
    );
    drop(second);
    assert!(!registry.list().has(api.root()), "none waits there now");
    assert_eq!(std::fs::read_dir(registry.folder()).unwrap().count(), 0);
}

#[test]
fn the_first_question_and_the_first_agent_of_a_fresh_workspace_are_followed() {
    let dir = tempfile::tempdir().unwrap();
    let registry = Registry::at(dir.path().join("workspaces")).unwrap();
    let make = |name: &str| {
        let root = dir.path().join(name);
        std::fs::create_dir(&root).unwrap();
        Workspace::open(&root).unwrap()
    };
    let (here, api) = (make("here"), make("api"));
    // A window on a workspace where nothing was ever asked: no inbox
    // folder, no agents' folder yet.
    let _api = registry
        .register(&api, Presence::Window, clock::now())
        .unwrap();
    let (told, changes) = mpsc::channel();
    let (reading, current) = (registry.clone(), here.clone());
    let _follower = everywhere::follow(&registry, &here, move || {
        let lines = everywhere::attention(&reading.list(), &current, clock::now());
        let _ = told.send((lines[1].questions.len(), lines[1].agents.len()));
    })
    .unwrap();
    // Once the follower watches (a registration is a change it reports),
    // the first question is asked there.
    let _here = registry
        .register(&here, Presence::Window, clock::now())
        .unwrap();
    assert_eq!(changes.recv_timeout(Duration::from_secs(10)), Ok((0, 0)));
    let later = Timestamp::from_unix_millis(clock::now().unix_millis() + 60_000).unwrap();
    let question = NewDelivery {
        mode: DeliveryMode::Blocking,
        title: "Run the migration?".into(),
        content_type: ContentType::Markdown,
        body: "It drops a column.".into(),
        feedback_schema: Some(json!({"type": "confirm"})),
    };
    feedback::ask(&api, question.clone(), clock::now(), later).unwrap();
    assert!(
        told_within(&changes, |(questions, _)| questions == 1),
        "the first question there is followed"
    );
    // Its inbox removed by hand, and a question asked again.
    std::fs::remove_dir_all(api.visual_delivery_dir()).unwrap();
    assert!(told_within(&changes, |(questions, _)| questions == 0));
    feedback::ask(&api, question, clock::now(), later).unwrap();
    assert!(
        told_within(&changes, |(questions, _)| questions == 1),
        "a question in an inbox made anew is followed"
    );
    let seen = switchboard_model::agent::hook::HookInput::parse(
        json!({"session_id": "5c23dece", "cwd": api.root(), "transcript_path": "",
               "hook_event_name": "SessionStart"})
        .to_string()
        .as_bytes(),
        None,
    )
    .unwrap();
    switchboard_store::agents::observe(&api, &seen, None, clock::now()).unwrap();
    assert!(
        told_within(&changes, |(_, agents)| agents == 1),
        "the first agent there is followed"
    );
}

/// Whether the follower tells of a reading that `wanted` within ten
/// seconds.
fn told_within<T>(changes: &mpsc::Receiver<T>, wanted: impl Fn(T) -> bool) -> bool {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while let Ok(told) =
        changes.recv_timeout(deadline.saturating_duration_since(std::time::Instant::now()))
    {
        if wanted(told) {
            return true;
        }
    }
    false
}

#[test]
fn registering_clears_only_stale_registrations_never_other_files() {
    // The runtime folder is the user's to choose (SWITCHBOARD_RUNTIME_DIR):
    // its `workspaces/` may be a folder of theirs.
    let dir = tempfile::tempdir().unwrap();
    let registry = Registry::at(dir.path().join("workspaces")).unwrap();
    let theirs = ["notes.txt", "project.json", "a.window.1.json"];
    for name in theirs {
        std::fs::write(registry.folder().join(name), "keep me").unwrap();
    }
    let stale = Registration {
        workspace: "/somewhere".into(),
        presence: Presence::Window,
        pid: 7,
        since: Timestamp::EPOCH,
        origin: None,
    };
    std::fs::write(
        registry.folder().join(stale.file_name()),
        serde_json::to_string(&stale).unwrap(),
    )
    .unwrap();
    let root = dir.path().join("api");
    std::fs::create_dir(&root).unwrap();
    let own = registry
        .register(
            &Workspace::open(&root).unwrap(),
            Presence::Server,
            clock::now(),
        )
        .unwrap();
    assert!(
        !registry.folder().join(stale.file_name()).exists(),
        "the stale registration is cleared"
    );
    for name in theirs {
        assert_eq!(
            std::fs::read_to_string(registry.folder().join(name))
                .ok()
                .as_deref(),
            Some("keep me"),
            "{name} is not a registration: it is left alone"
        );
    }
    drop(own);
}
