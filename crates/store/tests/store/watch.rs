//! The watcher reports data changes, including in a workspace whose data
//! folder does not exist yet when watching starts.

use std::{sync::mpsc, time::Duration};

use switchboard_model::{ContentType, DeliveryMode, NewDelivery, ipc::StoreChange};
use switchboard_store::{Workspace, WorkspaceWatcher, clock, deliveries};

/// Generous bound for an inotify event to arrive; not a performance goal.
const EVENT_WAIT: Duration = Duration::from_secs(10);

fn note(title: &str) -> NewDelivery {
    NewDelivery {
        mode: DeliveryMode::Passive,
        title: title.into(),
        content_type: ContentType::Markdown,
        body: "body".into(),
        feedback_schema: None,
    }
}

fn watch(workspace: &Workspace) -> (WorkspaceWatcher, mpsc::Receiver<StoreChange>) {
    let (sender, receiver) = mpsc::channel();
    let watcher = WorkspaceWatcher::start(workspace, move |change| {
        let _ = sender.send(change);
    })
    .unwrap();
    (watcher, receiver)
}

fn wait_for(receiver: &mpsc::Receiver<StoreChange>, wanted: StoreChange) {
    let deadline = std::time::Instant::now() + EVENT_WAIT;
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match receiver.recv_timeout(left) {
            Ok(change) if change == wanted => return,
            Ok(_) => continue,
            Err(error) => panic!("no {wanted:?} change reported: {error}"),
        }
    }
}

#[test]
fn reports_deliveries_in_a_fresh_workspace_and_after() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path()).unwrap();
    let (_watcher, changes) = watch(&workspace);

    deliveries::append(&workspace, note("first"), clock::now()).unwrap();
    wait_for(&changes, StoreChange::Deliveries);
    // Drain whatever the first burst produced, then a second write must be
    // seen through the now-watched data directory.
    while changes.recv_timeout(Duration::from_millis(200)).is_ok() {}
    deliveries::append(&workspace, note("second"), clock::now()).unwrap();
    wait_for(&changes, StoreChange::Deliveries);
    assert_eq!(deliveries::list(&workspace).unwrap().deliveries.len(), 2);
}

/// Waits, as the window does, for a change to the deliveries after which
/// reading them lists `titles` (newest first): a report that was on its
/// way before the last write only makes the view read too early, and it
/// waits for the next one.
fn wait_until_listed(
    receiver: &mpsc::Receiver<StoreChange>,
    workspace: &Workspace,
    titles: &[&str],
) {
    let deadline = std::time::Instant::now() + EVENT_WAIT;
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match receiver.recv_timeout(left) {
            Ok(StoreChange::Deliveries) => {
                let listed = deliveries::list(workspace).unwrap().deliveries;
                if listed
                    .iter()
                    .map(|delivery| delivery.title.as_str())
                    .eq(titles.iter().copied())
                {
                    return;
                }
            }
            Ok(_) => continue,
            Err(error) => panic!(
                "no change reported after which the inbox lists {titles:?} (a view following it \
                 would show what it read before): {error}"
            ),
        }
    }
}

#[test]
fn keeps_watching_when_the_data_folder_is_deleted_and_recreated() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path()).unwrap();
    deliveries::append(&workspace, note("before"), clock::now()).unwrap();
    let (_watcher, changes) = watch(&workspace);

    // notify forgets a removed folder's watch by its path, perhaps after
    // the folder was made again; a folder made inside the new one before
    // that one is watched reports nothing, nor do the files of one made
    // again and removed before it is watched: whichever way the watcher's
    // thread and the writer interleave, each state is reported and the new
    // folders are followed. Each round is one interleaving, so several are
    // tried.
    for round in 0..12 {
        std::fs::remove_dir_all(workspace.visual_delivery_dir()).unwrap();
        if round % 2 == 0 {
            // The removal seen before the folder is made again; in the
            // other rounds it is made again at once.
            wait_until_listed(&changes, &workspace, &[]);
        }
        let made_again = format!("made again {round}");
        deliveries::append(&workspace, note(&made_again), clock::now()).unwrap();
        wait_until_listed(&changes, &workspace, &[&made_again]);
        // And what is written next is reported too: the new data folder
        // is followed, not only announced once when it was found.
        let after = format!("after {round}");
        deliveries::append(&workspace, note(&after), clock::now()).unwrap();
        wait_until_listed(&changes, &workspace, &[&after, &made_again]);
    }
}

#[test]
fn ignores_files_that_are_not_data() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path()).unwrap();
    deliveries::append(&workspace, note("seed"), clock::now()).unwrap();
    let (_watcher, changes) = watch(&workspace);
    std::fs::write(workspace.inbox_data_dir().join("notes.txt"), "x").unwrap();
    // Reading is not a change: a UI that re-reads on every change would
    // otherwise refresh itself forever.
    deliveries::list(&workspace).unwrap();
    std::fs::write(dir.path().join("README.md"), "x").unwrap();
    assert!(
        changes.recv_timeout(Duration::from_millis(500)).is_err(),
        "unrelated files must not look like inbox changes"
    );
}

#[test]
fn reports_theme_changes_in_the_custom_folder() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path()).unwrap();
    let (_watcher, changes) = watch(&workspace);
    // The custom folder does not exist yet: it is picked up when it appears.
    switchboard_store::write_atomic(
        &workspace.custom_dir().join("theme.json"),
        br##"{"colors": {"primary": "#ff6600"}}"##,
    )
    .unwrap();
    wait_for(&changes, StoreChange::Theme);
    let theme = switchboard_store::theme::load(&workspace).unwrap();
    assert_eq!(
        theme.variables,
        [("--vds-colors-primary".to_owned(), "#ff6600".to_owned())]
    );
}

#[test]
fn reports_knowledge_files_in_folders_that_appear_later() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path()).unwrap();
    let (_watcher, changes) = watch(&workspace);

    switchboard_store::knowledge::learnings::append(
        &workspace,
        "testing",
        "Wait for events",
        "Never sleep in tests.",
        clock::now(),
    )
    .unwrap();
    wait_for(&changes, StoreChange::Knowledge);
    while changes.recv_timeout(Duration::from_millis(200)).is_ok() {}
    let playbooks = dir.path().join(".delia/playbooks");
    std::fs::create_dir_all(&playbooks).unwrap();
    wait_for(&changes, StoreChange::Knowledge);
    while changes.recv_timeout(Duration::from_millis(200)).is_ok() {}
    std::fs::write(playbooks.join("coding.json"), "[]").unwrap();
    wait_for(&changes, StoreChange::Knowledge);
}

#[test]
fn reports_spec_files_in_nested_folders_made_while_watching() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path()).unwrap();
    std::fs::create_dir_all(dir.path().join(".prompts/features")).unwrap();
    let (_watcher, changes) = watch(&workspace);

    let deep = dir.path().join(".prompts/features/auth/flows/sso");
    std::fs::create_dir_all(&deep).unwrap();
    wait_for(&changes, StoreChange::Knowledge);
    // Drain what the folders' creation reported, then the file alone.
    while changes.recv_timeout(Duration::from_millis(200)).is_ok() {}
    std::fs::write(deep.join("spec.md"), "# SSO").unwrap();
    wait_for(&changes, StoreChange::Knowledge);
    while changes.recv_timeout(Duration::from_millis(200)).is_ok() {}
    std::fs::write(deep.join("spec.md"), "# SSO, edited").unwrap();
    wait_for(&changes, StoreChange::Knowledge);
}

#[test]
fn reports_team_files_the_plugin_writes_in_folders_made_later() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path()).unwrap();
    let (_watcher, changes) = watch(&workspace);

    // The plugin makes its folders after the window opened.
    let tasks = dir.path().join(".opencode/opencode-teams/tasks/alpha");
    std::fs::create_dir_all(&tasks).unwrap();
    wait_for(&changes, StoreChange::Team);
    while changes.recv_timeout(Duration::from_millis(200)).is_ok() {}
    // Its write: a hidden temp file renamed onto the task's name.
    let temp = tasks.join(".1-abcdef01.json.42.1.tmp");
    std::fs::write(&temp, "{}").unwrap();
    std::fs::rename(&temp, tasks.join("1-abcdef01.json")).unwrap();
    wait_for(&changes, StoreChange::Team);
    while changes.recv_timeout(Duration::from_millis(200)).is_ok() {}
    // Taking a lock changes nothing worth a refresh.
    std::fs::write(tasks.join(".lock"), "").unwrap();
    assert!(
        changes.recv_timeout(Duration::from_millis(300)).is_err(),
        "a lock file is not a change"
    );
}

#[test]
fn reports_a_tape_written_in_a_program_folder_made_later() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path()).unwrap();
    let (_watcher, changes) = watch(&workspace);

    // `rec` makes `tapes/<program>/` and writes the tape through its
    // `.json5.tmp`, as ClaudeControl does.
    let tapes = switchboard_store::tapes::Tapes::in_workspace(&workspace);
    let path = tapes.path_for("sqlite3", "first").unwrap();
    let tape = switchboard_model::tape::codec::decode(
        "{meta: {program: 'sqlite3', args: [], env: {}, cwd: '/w'}, session: {}, exchanges: []}",
    )
    .unwrap();
    tapes.write(&path, &tape).unwrap();
    wait_for(&changes, StoreChange::Tapes);
    while changes.recv_timeout(Duration::from_millis(200)).is_ok() {}
    tapes.annotate("sqlite3/first", 0, "x").unwrap_err();
    tapes.write(&path, &tape).unwrap();
    wait_for(&changes, StoreChange::Tapes);
}

#[test]
fn reports_saved_into_claude_controls_folders_are_reported() {
    use switchboard_store::probe_reports::{ProbeReports, ReportFolder};
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("ws")).unwrap();
    let workspace = Workspace::open(&dir.path().join("ws")).unwrap();
    // ClaudeControl's home exists, its reports folders not yet.
    let home = dir.path().join("cc");
    std::fs::create_dir_all(&home).unwrap();
    let reports = ProbeReports::at(home);
    let (sender, changes) = mpsc::channel();
    let _watcher = WorkspaceWatcher::start_with(
        &workspace,
        Vec::new(),
        vec![
            reports.dir(ReportFolder::Investigations),
            reports.dir(ReportFolder::TestReports),
        ],
        move |change| {
            let _ = sender.send(change);
        },
    )
    .unwrap();
    let report = switchboard_model::probe::InvestigationReport::default();
    reports
        .save_investigation(&report, "/bin/toy", clock::now())
        .unwrap();
    wait_for(&changes, StoreChange::ProbeReports);
    while changes.recv_timeout(Duration::from_millis(200)).is_ok() {}
    reports
        .save_investigation(&report, "/bin/toy", clock::now())
        .unwrap();
    wait_for(&changes, StoreChange::ProbeReports);
}
