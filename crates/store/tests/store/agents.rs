//! Agents' sessions as files: hook calls recorded and listed, a permission
//! request asked as a question and answered or taken back, transcripts
//! read from their end, and the watcher's word on each change.

use std::{io::Write, sync::mpsc, time::Duration};

use serde_json::json;
use switchboard_model::{
    DeliveryStatus, Timestamp,
    agent::{
        AgentKind, AgentState,
        hook::{HookInput, Verdict},
        permission::mark_of,
    },
    blocking::{AwaitOutcome, Reply},
    ipc::StoreChange,
};
use switchboard_store::{Workspace, WorkspaceWatcher, agents, deliveries, feedback};

fn at(seconds: i64) -> Timestamp {
    // A fixed moment: every time in a test is reckoned from it.
    Timestamp::from_unix_millis(1_795_000_000_000 + seconds * 1000).unwrap()
}

fn hook(workspace: &Workspace, event: serde_json::Value) -> HookInput {
    let mut input = json!({
        "session_id": "5c23dece",
        "cwd": workspace.root(),
        "transcript_path": "",
    });
    input
        .as_object_mut()
        .unwrap()
        .extend(event.as_object().unwrap().clone());
    HookInput::parse(input.to_string().as_bytes(), None).unwrap()
}

#[test]
fn hook_calls_move_an_agent_through_its_states_and_the_list_shows_them() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path()).unwrap();
    assert!(agents::list(&workspace, at(0)).unwrap().is_empty());

    agents::observe(
        &workspace,
        &hook(&workspace, json!({"hook_event_name": "SessionStart"})),
        None,
        at(0),
    )
    .unwrap();
    let notification =
        json!({"hook_event_name": "Notification", "message": "Claude is waiting for your input"});
    agents::observe(&workspace, &hook(&workspace, notification), None, at(5)).unwrap();
    let rows = agents::list(&workspace, at(6)).unwrap();
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(
        (row.shown, row.record.agent),
        (AgentState::WaitingForInput, AgentKind::ClaudeCode)
    );
    assert_eq!(
        row.record.reason.as_deref(),
        Some("Claude is waiting for your input")
    );
    assert_eq!((row.record.since, row.record.started_at), (at(5), at(0)));

    agents::observe(
        &workspace,
        &hook(&workspace, json!({"hook_event_name": "UserPromptSubmit"})),
        None,
        at(7),
    )
    .unwrap();
    assert_eq!(
        agents::list(&workspace, at(8)).unwrap()[0].record.reason,
        None
    );
    agents::observe(
        &workspace,
        &hook(&workspace, json!({"hook_event_name": "SessionEnd"})),
        None,
        at(9),
    )
    .unwrap();
    assert_eq!(
        agents::list(&workspace, at(10)).unwrap()[0].shown,
        AgentState::Gone
    );
    // A day later it is no longer listed, and a sweep removes its file.
    let next_day = at(9 + agents::GONE_KEPT_MS / 1000 + 1);
    assert!(agents::list(&workspace, next_day).unwrap().is_empty());
    assert_eq!(agents::sweep(&workspace, next_day).unwrap(), 1);
    assert_eq!(agents::sweep(&workspace, next_day).unwrap(), 0);
}

#[test]
fn the_idle_notification_after_a_finished_turn_leaves_it_finished_and_waiting_on_nobody() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path()).unwrap();
    let observe = |event: serde_json::Value, seconds| {
        agents::observe(&workspace, &hook(&workspace, event), None, at(seconds)).unwrap();
    };
    observe(json!({"hook_event_name": "UserPromptSubmit"}), 0);
    observe(json!({"hook_event_name": "Stop"}), 5);
    // Claude Code's idle notification a minute later, and again.
    let idle = json!({"hook_event_name": "Notification", "notification_type": "idle_prompt",
                      "message": "Claude is waiting for your input"});
    observe(idle.clone(), 65);
    observe(idle, 125);
    let row = &agents::list(&workspace, at(126)).unwrap()[0];
    assert_eq!(row.shown, AgentState::TurnFinished, "no question came");
    assert_eq!(row.record.since, at(5), "finished since its turn ended");
    assert_eq!(row.record.reason, None);
    assert!(
        switchboard_model::agent::waiting_at_own_prompt(std::slice::from_ref(row)).is_empty(),
        "nothing to count or announce as waiting"
    );
}

#[test]
fn an_agent_whose_process_ended_is_gone_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path()).unwrap();
    let mut child = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    let process = switchboard_store::process::mark(child.id()).unwrap();
    agents::observe(
        &workspace,
        &hook(&workspace, json!({"hook_event_name": "SessionStart"})),
        Some(process),
        at(0),
    )
    .unwrap();
    assert_eq!(
        agents::list(&workspace, at(1)).unwrap()[0].shown,
        AgentState::Working
    );
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(
        agents::list(&workspace, at(1)).unwrap()[0].shown,
        AgentState::Gone
    );
}

#[test]
fn the_last_messages_are_read_from_the_end_of_a_long_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path()).unwrap();
    let transcript = dir.path().join("session.jsonl");
    let mut file = std::fs::File::create(&transcript).unwrap();
    for n in 0..10_000 {
        let line = json!({"type": if n % 2 == 0 { "user" } else { "assistant" }, "message": {"role": if n % 2 == 0 { "user" } else { "assistant" }, "content": format!("message {n} {}", "x".repeat(100))}});
        writeln!(file, "{line}").unwrap();
    }
    // A line being written when it is read: cut off, skipped.
    write!(file, r#"{{"type":"user","message":{{"role":"us"#).unwrap();
    drop(file);
    let messages = agents::transcript_tail(&transcript, 3);
    let first_words: Vec<&str> = messages.iter().map(|m| &m.text[..12]).collect();
    assert_eq!(
        first_words,
        ["message 9997", "message 9998", "message 9999"]
    );
    // Only JSONL transcripts are read.
    assert!(agents::transcript_tail(&dir.path().join("nothing.jsonl"), 3).is_empty());
    std::fs::write(
        dir.path().join("secret.txt"),
        "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"x\"}}",
    )
    .unwrap();
    assert!(agents::transcript_tail(&dir.path().join("secret.txt"), 3).is_empty());

    let with_transcript = json!({"hook_event_name": "Stop", "transcript_path": transcript});
    agents::observe(&workspace, &hook(&workspace, with_transcript), None, at(0)).unwrap();
    let row = &agents::list(&workspace, at(1)).unwrap()[0];
    assert_eq!(row.last_messages.len(), agents::LAST_MESSAGES);
    assert_eq!(row.shown, AgentState::TurnFinished);
}

#[test]
fn a_permission_request_is_a_marked_question_answered_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path()).unwrap();
    std::fs::write(dir.path().join("main.rs"), "let x = 1;\n").unwrap();
    let input = hook(
        &workspace,
        json!({
            "hook_event_name": "PermissionRequest",
            "tool_name": "Edit",
            "tool_input": {"file_path": dir.path().join("main.rs"), "old_string": "let x = 1;", "new_string": "let x = 2;"},
        }),
    );
    let request = agents::permission_request(&input).unwrap();
    let (delivery, session) =
        agents::ask_permission(&workspace, &request, Default::default(), at(0), at(60)).unwrap();
    assert_eq!(delivery.status, DeliveryStatus::AwaitingFeedback);
    assert!(
        delivery.content.body.contains("-let x = 1;\n+let x = 2;"),
        "{}",
        delivery.content.body
    );
    let mark = mark_of(&delivery.extra).unwrap();
    assert_eq!((mark.tool_name.as_str(), mark.has_terminal), ("Edit", true));
    let row = &agents::list(&workspace, at(1)).unwrap()[0];
    assert_eq!(
        (row.shown, row.record.waiting_on.as_deref()),
        (AgentState::NeedsPermission, Some(delivery.id.as_str()))
    );

    let answer = json!({"value": false, "comment": "keep x"});
    feedback::reply(&workspace, &delivery.id, Reply::Answer { answer }, at(2)).unwrap();
    // Its caller gave up just as the answer came: the answer still decides,
    // and stays.
    assert_eq!(
        agents::settle_permission(&workspace, &request, &delivery, &session.id, None, at(3))
            .unwrap(),
        Verdict::Deny {
            message: "The developer denied this in Switchboard: keep x".into()
        }
    );
    assert_eq!(
        deliveries::get(&workspace, &delivery.id).unwrap().status,
        DeliveryStatus::Completed
    );
    let row = &agents::list(&workspace, at(4)).unwrap()[0];
    assert_eq!(
        (row.shown, row.record.waiting_on.as_deref()),
        (AgentState::Working, None)
    );
}

#[test]
fn a_question_its_agent_decided_elsewhere_leaves_the_inbox() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path()).unwrap();
    let input = hook(
        &workspace,
        json!({
            "hook_event_name": "PermissionRequest",
            "tool_name": "Bash",
            "tool_input": {"command": "rm -rf build"},
        }),
    );
    let request = agents::permission_request(&input).unwrap();
    let (delivery, session) =
        agents::ask_permission(&workspace, &request, Default::default(), at(0), at(60)).unwrap();
    let other = deliveries::append(
        &workspace,
        switchboard_model::NewDelivery {
            mode: switchboard_model::DeliveryMode::Passive,
            title: "kept".into(),
            content_type: switchboard_model::ContentType::Markdown,
            body: "b".into(),
            feedback_schema: None,
        },
        at(1),
    )
    .unwrap();
    let ran_out = AwaitOutcome::Timeout {
        delivery_id: delivery.id.clone(),
    };
    assert_eq!(
        agents::settle_permission(
            &workspace,
            &request,
            &delivery,
            &session.id,
            Some(&ran_out),
            at(2)
        )
        .unwrap(),
        Verdict::FallThrough
    );
    let left: Vec<String> = deliveries::list(&workspace)
        .unwrap()
        .deliveries
        .into_iter()
        .map(|d| d.id)
        .collect();
    assert_eq!(left, [other.delivery.id]);
    assert!(deliveries::get(&workspace, &delivery.id).is_err());
    // The agent asks at its own prompt now, and waits on no question.
    let row = &agents::list(&workspace, at(3)).unwrap()[0];
    assert_eq!(
        (row.shown, row.record.waiting_on.as_deref()),
        (AgentState::NeedsPermission, None)
    );
}

#[test]
fn the_watcher_reports_agents_appearing_in_a_fresh_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path()).unwrap();
    let (sender, receiver) = mpsc::channel();
    let _watcher = WorkspaceWatcher::start(&workspace, move |change| {
        let _ = sender.send(change);
    })
    .unwrap();
    let wait = |receiver: &mpsc::Receiver<StoreChange>| loop {
        match receiver.recv_timeout(Duration::from_secs(10)) {
            Ok(StoreChange::Agents) => return,
            Ok(_) => continue,
            Err(error) => panic!("no Agents change: {error}"),
        }
    };
    agents::observe(
        &workspace,
        &hook(&workspace, json!({"hook_event_name": "SessionStart"})),
        None,
        at(0),
    )
    .unwrap();
    wait(&receiver);
    while receiver.recv_timeout(Duration::from_millis(200)).is_ok() {}
    agents::observe(
        &workspace,
        &hook(&workspace, json!({"hook_event_name": "Stop"})),
        None,
        at(1),
    )
    .unwrap();
    wait(&receiver);
}

#[test]
fn a_hook_that_asks_moves_its_agent_with_the_question_and_never_before() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path()).unwrap();
    let asking = hook(
        &workspace,
        json!({"hook_event_name": "PermissionRequest", "tool_name": "Bash", "tool_input": {"command": "ls"}}),
    );
    let waiting_at_prompt = |now| {
        let rows = agents::states(&workspace, now).unwrap();
        switchboard_model::agent::waiting_at_own_prompt(&rows).len()
    };
    // Seen by the hook that is about to ask: not yet waiting, so no
    // notification of its own beside the question's.
    agents::observe_before_asking(&workspace, &asking, None, at(0)).unwrap();
    assert_eq!(waiting_at_prompt(at(0)), 0);
    let request = agents::permission_request(&asking).unwrap();
    agents::ask_permission(&workspace, &request, Default::default(), at(1), at(60)).unwrap();
    let [row] = agents::states(&workspace, at(1))
        .unwrap()
        .try_into()
        .unwrap();
    assert_eq!(row.shown, AgentState::NeedsPermission);
    assert!(row.record.waiting_on.is_some());
    assert_eq!(waiting_at_prompt(at(1)), 0, "its question announces it");
}
