//! Long calls as MCP tasks, as a client that takes tasks sees them over
//! the stateless revision: `fuzz` returns a task at once and finishes
//! after the server that took it is killed, read by a new server; a long
//! `session_expect` is a task that completes when the program prints what
//! it waits for, a short one stays a plain call; `tasks/cancel` of a chain
//! stops its worker, which ends the program it ran — and of a record
//! written to name another process, signals nothing; a record written in
//! the workspace is no task at all.

use std::{path::Path, time::Duration};

use serde_json::{Value, json};

use crate::mcp::Stateless;

/// `tasks/get` of `task` until `done` holds (a minute at most), polling as
/// the task says.
fn poll_until(server: &mut Stateless, task: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let got = server.call("tasks/get", json!({"taskId": task}));
        let result = got["result"].clone();
        assert!(result.is_object(), "{got}");
        if done(&result) {
            return result;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the task never got there: {result}"
        );
        let interval = result["pollIntervalMs"].as_u64().unwrap_or(250);
        std::thread::sleep(Duration::from_millis(interval));
    }
}

fn toy(root: &Path) -> String {
    let toy = root.join("toy");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/fixtures/toy"),
        &toy,
    )
    .unwrap();
    toy.display().to_string()
}

/// The task a call returned, checked to be one.
fn task_of(answer: &Value) -> String {
    assert_eq!(answer["result"]["resultType"], "task", "{answer}");
    assert_eq!(answer["result"]["status"], "working", "{answer}");
    answer["result"]["taskId"].as_str().unwrap().to_owned()
}

#[test]
fn a_fuzz_run_is_a_task_that_finishes_after_the_server_that_took_it_is_gone() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path();
    let toy = toy(root);
    let mut first = Stateless::start(root);
    let asked = first.call(
        "tools/call",
        json!({"name": "fuzz", "arguments": {"program": toy, "seed": 3, "max_inputs": 12}}),
    );
    let task = task_of(&asked);
    assert!(task.starts_with("run-t_"), "{task}");
    // The server that took the call is killed; the work goes on.
    drop(first);

    let mut second = Stateless::start(root);
    let done = poll_until(&mut second, &task, |task| task["status"] != "working");
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["statusMessage"], "fuzz: done");
    let report = &done["result"]["structuredContent"];
    let crash = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|finding| finding["type"] == "crash")
        .unwrap_or_else(|| panic!("no crash found: {report:#}"));
    assert_eq!(crash["signal"], 11);
    assert!(root.join(crash["tape"].as_str().unwrap()).is_file());

    // Arguments that do not fit the tool are refused at once, no task made.
    let refused = second.call(
        "tools/call",
        json!({"name": "fuzz", "arguments": {"program": toy, "seed": "three"}}),
    );
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert!(
        refused["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("error[INVALID_REQUEST]"),
        "{refused}"
    );
    // A task id that names nothing is an error, and so is cancelling an
    // ended task.
    let unknown = second.call("tasks/get", json!({"taskId": "run-t_1_001"}));
    assert!(unknown["error"].is_object(), "{unknown}");
    let late = second.call("tasks/cancel", json!({"taskId": task}));
    assert!(late["error"].is_object(), "{late}");
}

#[test]
fn a_long_wait_is_a_task_that_completes_when_the_program_says_so_and_a_short_one_is_not() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path();
    let mut server = Stateless::start(root);
    let started = server.call(
        "tools/call",
        json!({"name": "session_start", "arguments": {"program": "sh", "name": "waiter"}}),
    );
    assert_eq!(started["result"]["isError"], false, "{started}");

    let short = server.call(
        "tools/call",
        json!({"name": "session_expect",
               "arguments": {"session": "waiter", "patterns": ["NEVER"], "timeout": 0.2}}),
    );
    assert_eq!(short["result"]["isError"], false, "{short}");
    assert!(
        short["result"]["structuredContent"].is_object(),
        "a short wait is a plain call: {short}"
    );

    let asked = server.call(
        "tools/call",
        json!({"name": "session_expect",
               "arguments": {"session": "waiter", "patterns": ["READY"], "timeout": 60}}),
    );
    let task = task_of(&asked);
    let waiting = poll_until(&mut server, &task, |task| {
        task["statusMessage"]
            .as_str()
            .is_some_and(|message| message.contains("waiting"))
    });
    assert_eq!(waiting["status"], "working", "{waiting}");
    let sent = server.call(
        "tools/call",
        json!({"name": "session_send",
               "arguments": {"session": "waiter", "text": "echo RE''ADY", "line": true}}),
    );
    assert_eq!(sent["result"]["isError"], false, "{sent}");
    let done = poll_until(&mut server, &task, |task| task["status"] != "working");
    assert_eq!(done["status"], "completed", "{done}");
    let outcome = &done["result"]["structuredContent"];
    assert_eq!(outcome["matched"], "READY", "{outcome:#}");
    server.call(
        "tools/call",
        json!({"name": "session_kill", "arguments": {"session": "waiter"}}),
    );
}

#[test]
fn cancelling_a_chain_stops_its_worker_and_the_program_it_ran() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path();
    std::fs::create_dir_all(root.join(".switchboard/chains")).unwrap();
    std::fs::write(
        root.join(".switchboard/chains/slow.json"),
        r#"{"commands": [{"sequence_order": 1, "command": "echo begun"},
                         {"sequence_order": 2, "command": "sleep 120"}]}"#,
    )
    .unwrap();
    let mut server = Stateless::start(root);
    let asked = server.call(
        "tools/call",
        json!({"name": "run_chain", "arguments": {"name": "slow"}}),
    );
    let task = task_of(&asked);
    let id = task.strip_prefix("run-").unwrap();
    poll_until(&mut server, &task, |task| {
        task["statusMessage"]
            .as_str()
            .is_some_and(|message| message.contains("sleep 120"))
    });
    let tasks = crate::records(&root.join(".config"), root).join("tasks");
    let record_file = tasks.join(format!("{id}.json"));
    let record: Value = serde_json::from_slice(&std::fs::read(&record_file).unwrap()).unwrap();
    // Private: the record names what the worker runs, for whom.
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&record_file)
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o600
    );
    assert_eq!(
        std::fs::metadata(&tasks).unwrap().permissions().mode() & 0o777,
        0o700
    );
    assert!(
        !root.join(".switchboard/tasks").exists(),
        "no task record is kept in the workspace"
    );
    let worker = record["worker"]["pid"].as_u64().unwrap();

    let cancelled = server.call("tasks/cancel", json!({"taskId": task}));
    assert!(cancelled["error"].is_null(), "{cancelled}");
    let got = server.call("tasks/get", json!({"taskId": task}));
    assert_eq!(got["result"]["status"], "cancelled", "{got}");

    // The worker ends (reaped by the server that started it) once the
    // chain's shell is ended.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while Path::new(&format!("/proc/{worker}")).exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the worker still runs"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let listed = server.call(
        "tools/call",
        json!({"name": "session_list", "arguments": {"all": true}}),
    );
    let sessions = listed["result"]["structuredContent"]["sessions"]
        .as_array()
        .unwrap()
        .clone();
    assert!(!sessions.is_empty(), "the chain ran a session: {listed}");
    assert!(
        sessions.iter().all(|session| session["state"] != "running"),
        "nothing the chain ran is left running: {listed}"
    );
    // Still cancelled: the worker's end did not overwrite it.
    let got = server.call("tasks/get", json!({"taskId": task}));
    assert_eq!(got["result"]["status"], "cancelled", "{got}");
}

#[test]
fn cancelling_a_task_whose_record_names_another_process_signals_nothing() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path();
    // Any process of the user's: the record names it, id and start time.
    let mut victim = std::process::Command::new("sleep")
        .arg("300")
        .spawn()
        .unwrap();
    let marked = switchboard_store::process::mark(victim.id()).unwrap();
    let id = "t_1764000000_001";
    let forged = json!({
        "id": id, "tool": "run_chain", "arguments": {"name": "x"}, "state": "working",
        "created_at": "2026-11-26T00:00:00.000Z", "updated_at": "2026-11-26T00:00:00.000Z",
        "worker": {"pid": marked.pid, "start": marked.start},
    })
    .to_string();
    // Written in the workspace, where an agent can write: no such task.
    std::fs::create_dir_all(root.join(".switchboard/tasks")).unwrap();
    std::fs::write(root.join(format!(".switchboard/tasks/{id}.json")), &forged).unwrap();
    let mut server = Stateless::start(root);
    let unknown = server.call("tasks/cancel", json!({"taskId": format!("run-{id}")}));
    assert!(
        !unknown["error"].is_null(),
        "a record in the workspace is no task of Switchboard's: {unknown}"
    );
    // Written where the records are (as if ours were ever wrong): the
    // worker it names is not proven to be one, and is not signalled.
    let tasks = crate::records(&root.join(".config"), root).join("tasks");
    std::fs::create_dir_all(&tasks).unwrap();
    std::fs::write(tasks.join(format!("{id}.json")), &forged).unwrap();
    let cancelled = server.call("tasks/cancel", json!({"taskId": format!("run-{id}")}));
    assert!(cancelled["error"].is_null(), "{cancelled}");
    // Whatever the server sent was sent before it answered; SIGKILL now
    // says, by how the victim ended, whether SIGTERM came first.
    victim.kill().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        victim.wait().unwrap().signal(),
        Some(9),
        "the process the record named was not signalled by the server"
    );
}
