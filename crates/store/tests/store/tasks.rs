//! Tool calls run as tasks: made, stepped and ended under the folder's
//! lock; a task whose worker died is failed when read; cancelling hands
//! back a worker that still runs; ended tasks are swept after a week.

use serde_json::{Map, json};
use switchboard_model::{
    Timestamp,
    task::{TaskState, WORKER_LOST},
};
use switchboard_store::{StoreError, Workspace, process, tasks};

fn at(seconds: i64) -> Timestamp {
    Timestamp::from_unix_millis(1_764_000_000_000 + seconds * 1000).unwrap()
}

fn args() -> Map<String, serde_json::Value> {
    json!({"program": "./toy", "seed": 3})
        .as_object()
        .cloned()
        .unwrap()
}

#[test]
fn a_task_is_made_stepped_and_ended_once_and_read_back_whole() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path())
        .unwrap()
        .with_records_dir(dir.path().join(".records"));
    let first = tasks::create(&workspace, "fuzz", args(), Some("ssh:box".into()), at(0)).unwrap();
    let second = tasks::create(&workspace, "fuzz", args(), None, at(0)).unwrap();
    assert_ne!(first.id, second.id, "two tasks in one second");
    assert!(first.id.starts_with("t_"), "{}", first.id);

    let me = process::this_process().unwrap();
    tasks::update(&workspace, &first.id, |task| task.start(me, at(1))).unwrap();
    tasks::update(&workspace, &first.id, |task| {
        task.step(2.0, Some(12.0), "input 2 of 12", at(2))
    })
    .unwrap();
    let read = tasks::get(&workspace, &first.id, at(3)).unwrap();
    assert_eq!(
        read.state,
        TaskState::Working,
        "its worker (this test) runs"
    );
    assert_eq!(read.message, "fuzz: input 2 of 12");
    assert_eq!(read.sent_by.as_deref(), Some("ssh:box"));
    assert_eq!(read.arguments, args());

    let result = json!({"content": [], "isError": false});
    tasks::update(&workspace, &first.id, |task| {
        task.complete(result.as_object().cloned().unwrap(), at(4))
    })
    .unwrap();
    let others = tasks::cancel(&workspace, &first.id, None, at(5)).unwrap_err();
    assert!(
        matches!(others, StoreError::NotFound { .. }),
        "another caller's task is not there for it: {others}"
    );
    let late = tasks::cancel(&workspace, &first.id, Some("ssh:box"), at(5)).unwrap_err();
    assert!(matches!(late, StoreError::Task(_)), "{late}");
    let read = tasks::get(&workspace, &first.id, at(6)).unwrap();
    assert_eq!(read.state, TaskState::Completed);
    assert_eq!(read.result().unwrap()["isError"], false);
}

#[test]
fn a_task_whose_worker_died_fails_and_cancelling_hands_back_a_running_worker() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path())
        .unwrap()
        .with_records_dir(dir.path().join(".records"));
    let mut child = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    let worker = process::mark(child.id()).unwrap();

    let running = tasks::create(&workspace, "investigate", args(), None, at(0)).unwrap();
    tasks::update(&workspace, &running.id, |task| task.start(worker, at(1))).unwrap();
    let (cancelled, to_stop) = tasks::cancel(&workspace, &running.id, None, at(2)).unwrap();
    assert_eq!(cancelled.state, TaskState::Cancelled);
    assert_eq!(to_stop, Some(worker), "the caller stops the worker");

    let lost = tasks::create(&workspace, "fuzz", args(), None, at(0)).unwrap();
    tasks::update(&workspace, &lost.id, |task| task.start(worker, at(1))).unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    let read = tasks::get(&workspace, &lost.id, at(3)).unwrap();
    assert_eq!(read.state, TaskState::Failed);
    assert_eq!(read.error().unwrap()["code"], WORKER_LOST);
    // Stored so: the worker cannot end it after all.
    let stored: serde_json::Value = serde_json::from_slice(
        &std::fs::read(
            tasks::tasks_dir(&workspace)
                .unwrap()
                .join(format!("{}.json", lost.id)),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(stored["state"], "failed");
    // A cancelled task whose worker is gone has nothing to stop.
    let (_, to_stop) = tasks::cancel(
        &workspace,
        &tasks::create(&workspace, "fuzz", args(), None, at(0))
            .unwrap()
            .id,
        None,
        at(4),
    )
    .unwrap();
    assert_eq!(to_stop, None);
}

#[test]
fn a_process_is_signalled_only_when_proven_to_be_what_was_started() {
    use std::io::{BufRead, Write};
    let mut child = std::process::Command::new("cat")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Its echo says `cat` runs (the program, not the fork before it).
    writeln!(child.stdin.as_ref().unwrap(), "up").unwrap();
    let mut echoed = String::new();
    std::io::BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut echoed)
        .unwrap();
    let marked = process::mark(child.id()).unwrap();
    let identity = process::identity(child.id()).unwrap();
    assert_eq!(identity.arguments, ["cat"]);
    assert!(
        identity.executable.ends_with("cat"),
        "{}",
        identity.executable.display()
    );

    // The same id with another start time is another process.
    let other = switchboard_model::process::ProcessMark {
        start: marked.start + 1,
        ..marked
    };
    assert_eq!(
        process::terminate_if(other, |_| true).unwrap(),
        process::Termination::Ended
    );
    assert_eq!(
        process::terminate_if(marked, |identity| identity.arguments[0] == "switchboard").unwrap(),
        process::Termination::NotIt
    );
    assert_eq!(child.try_wait().unwrap(), None, "nothing was sent");
    assert_eq!(
        process::terminate_if(marked, |identity| identity.arguments[0] == "cat").unwrap(),
        process::Termination::Signalled
    );
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(child.wait().unwrap().signal(), Some(15), "SIGTERM");
    assert_eq!(
        process::terminate_if(marked, |_| true).unwrap(),
        process::Termination::Ended
    );
}

#[test]
fn unknown_and_hostile_ids_name_no_task_and_old_ended_tasks_are_swept() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path())
        .unwrap()
        .with_records_dir(dir.path().join(".records"));
    for id in [
        "t_1_001",
        "../t_1_001",
        "s_1764000000_001",
        "t_1_001/../../x",
    ] {
        let error = tasks::get(&workspace, id, at(0)).unwrap_err();
        assert!(
            matches!(error, StoreError::NotFound { .. }),
            "{id}: {error}"
        );
    }
    let ended = tasks::create(&workspace, "fuzz", args(), None, at(0)).unwrap();
    tasks::update(&workspace, &ended.id, |task| task.cancel(at(1))).unwrap();
    let working = tasks::create(&workspace, "fuzz", args(), None, at(0)).unwrap();
    let day = 24 * 60 * 60;
    assert_eq!(tasks::sweep(&workspace, at(6 * day)).unwrap(), 0);
    assert_eq!(tasks::sweep(&workspace, at(8 * day)).unwrap(), 1);
    assert!(tasks::get(&workspace, &ended.id, at(0)).is_err());
    assert_eq!(
        tasks::get(&workspace, &working.id, at(0)).unwrap().state,
        TaskState::Working,
        "a working task is never swept"
    );
}
