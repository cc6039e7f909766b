//! Questions through the store API: asking opens the session with the
//! delivery, replies wake a waiting agent, and no session can be opened on
//! a question already answered.

use std::time::Duration;

use serde_json::json;
use switchboard_model::{
    ContentType, DeliveryMode, DeliveryStatus, NewDelivery, ReplyRefusal, Timestamp,
    blocking::{AwaitOutcome, BlockingStatus, Reply},
};
use switchboard_store::{StoreError, Workspace, clock, deliveries, feedback};

fn question() -> NewDelivery {
    NewDelivery {
        mode: DeliveryMode::Blocking,
        title: "Ship?".into(),
        content_type: ContentType::Markdown,
        body: "Ready.".into(),
        feedback_schema: Some(json!({"type": "confirm"})),
    }
}

fn later(seconds: i64) -> Timestamp {
    Timestamp::from_unix_millis(clock::now().unix_millis() + seconds * 1000).unwrap()
}

#[test]
fn a_reply_wakes_the_waiting_agent_and_closes_the_question() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path()).unwrap();
    let (appended, session) =
        feedback::ask(&workspace, question(), clock::now(), later(60)).unwrap();
    assert_eq!(
        session.delivery_id, appended.delivery.id,
        "asked and opened together"
    );
    assert_eq!(session.status, BlockingStatus::Waiting);

    let id = appended.delivery.id.clone();
    // The answer comes once the agent waits: its first beat says so.
    let (waiting, under_way) = std::sync::mpsc::channel();
    let answerer = {
        let workspace = workspace.clone();
        std::thread::spawn(move || {
            under_way
                .recv_timeout(Duration::from_secs(10))
                .expect("the wait began");
            feedback::reply(
                &workspace,
                &id,
                Reply::Answer {
                    answer: json!({"value": true}),
                },
                clock::now(),
            )
            .unwrap();
        })
    };
    // With an hour between safety polls, only the watcher's notification
    // can wake the waiter before the bound below.
    let (done, finished) = std::sync::mpsc::channel();
    {
        let workspace = workspace.clone();
        let session = session.id.clone();
        std::thread::spawn(move || {
            let outcome = feedback::ReplyWait::new()
                .safety_poll(Duration::from_secs(3600))
                .heartbeat(Duration::from_secs(3600))
                .run(&workspace, &session, clock::now, |_| {
                    let _ = waiting.send(());
                });
            let _ = done.send(outcome);
        });
    }
    let outcome = finished
        .recv_timeout(Duration::from_secs(30))
        .expect("the answer woke the waiting agent")
        .unwrap();
    let feedback::Waited::Settled(outcome) = outcome else {
        panic!("settled, not withdrawn: {outcome:?}");
    };
    answerer.join().unwrap();
    assert_eq!(
        outcome,
        AwaitOutcome::Responded {
            delivery_id: appended.delivery.id.clone(),
            response: json!({"value": true})
        }
    );
    let delivery = deliveries::get(&workspace, &appended.delivery.id).unwrap();
    assert_eq!(delivery.status, DeliveryStatus::Completed);

    let refused =
        feedback::open_session(&workspace, &delivery.id, clock::now(), later(60)).unwrap_err();
    assert!(
        matches!(refused, StoreError::Refused(ReplyRefusal::AlreadyResponded)),
        "no agent may wait on an answered question: {refused}"
    );
}

#[test]
fn a_wait_that_runs_out_times_out_both_records() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path()).unwrap();
    let (appended, session) =
        feedback::ask(&workspace, question(), clock::now(), clock::now()).unwrap();
    let outcome = feedback::wait_for_reply(&workspace, &session.id, clock::now).unwrap();
    assert_eq!(
        outcome,
        AwaitOutcome::Timeout {
            delivery_id: appended.delivery.id.clone()
        }
    );
    assert_eq!(
        feedback::session(&workspace, &session.id).unwrap().status,
        BlockingStatus::Timeout
    );
    assert_eq!(
        deliveries::get(&workspace, &appended.delivery.id)
            .unwrap()
            .status,
        DeliveryStatus::Timeout
    );
}

/// What a waiter written to the seed reads: the session's `status` in
/// `sessions.json`, done when it is one of the seed's closed statuses.
fn seed_waiter_is_done(workspace: &Workspace, session_id: &str) -> bool {
    let text = std::fs::read_to_string(workspace.inbox_data_dir().join("sessions.json")).unwrap();
    let sessions: serde_json::Value = serde_json::from_str(&text).unwrap();
    let status = sessions
        .as_array()
        .unwrap()
        .iter()
        .find(|session| session["id"] == session_id)
        .unwrap()["status"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        ["waiting", "responded", "timeout"].contains(&status.as_str()),
        "{status:?} is not a status of the seed"
    );
    status != "waiting"
}

#[test]
fn a_waiter_that_knows_only_the_seed_returns_at_once_on_decline_and_dismiss() {
    for (reply, expected) in [(Reply::Decline, "declined"), (Reply::Dismiss, "dismissed")] {
        let dir = tempfile::tempdir().unwrap();
        let workspace = Workspace::open(dir.path()).unwrap();
        let (appended, session) =
            feedback::ask(&workspace, question(), clock::now(), later(60)).unwrap();
        assert!(
            !seed_waiter_is_done(&workspace, &session.id),
            "the control waits"
        );
        feedback::reply(&workspace, &appended.delivery.id, reply, clock::now()).unwrap();
        assert!(seed_waiter_is_done(&workspace, &session.id), "{expected}");
        // Switchboard's own line still says which.
        let outcome = feedback::wait_for_reply(&workspace, &session.id, clock::now).unwrap();
        assert_eq!(
            serde_json::to_value(&outcome).unwrap()["status"],
            expected,
            "{outcome:?}"
        );
    }
}

#[test]
fn a_wait_beats_until_it_is_cancelled_and_then_leaves_the_question() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path()).unwrap();
    let (_, session) = feedback::ask(&workspace, question(), clock::now(), later(600)).unwrap();
    let wait = feedback::ReplyWait::new().heartbeat(Duration::from_millis(20));
    let canceller = wait.canceller();
    let mut beats = Vec::new();
    let ended = wait
        .run(&workspace, &session.id, clock::now, |waited| {
            beats.push(waited);
            // The client gives up after the third beat.
            if beats.len() == 3 {
                canceller.cancel();
            }
        })
        .unwrap();
    assert_eq!(ended, feedback::Waited::Left(None));
    assert_eq!(beats.len(), 3);
    assert!(beats.windows(2).all(|pair| pair[0] < pair[1]), "{beats:?}");
    assert!(
        beats[0] < Duration::from_millis(20) && beats[1] >= Duration::from_millis(20),
        "a beat when the wait begins, then one each heartbeat: {beats:?}"
    );
    // The question stays, waiting for the developer; its asker has left.
    let after = feedback::session(&workspace, &session.id).unwrap();
    assert_eq!(after.status, BlockingStatus::Waiting);
    assert!(after.left_at().is_some(), "{after:?}");
    let question = deliveries::get(&workspace, &session.delivery_id).unwrap();
    assert_eq!(question.status, DeliveryStatus::AwaitingFeedback);
}

#[test]
fn asking_the_same_again_rejoins_the_question_or_takes_the_answer_given_after_its_asker_left() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path()).unwrap();
    let ask = || {
        feedback::ask_again(
            &workspace,
            question(),
            Default::default(),
            clock::now(),
            later(600),
        )
        .unwrap()
    };
    let (first, waiting) = ask();
    // Asked again while the first asker waits: one question, two waiters.
    let (same, beside) = ask();
    assert_eq!(same.id, first.id);
    assert_ne!(beside.id, waiting.id);
    // The first asker leaves; asked again, its session is taken up again.
    assert_eq!(
        feedback::leave(&workspace, &waiting.id, clock::now()).unwrap(),
        None
    );
    let (_, resumed) = ask();
    assert_eq!(resumed.id, waiting.id);
    assert!(resumed.left_at().is_none());
    // Both leave; the developer answers meanwhile.
    feedback::leave(&workspace, &waiting.id, clock::now()).unwrap();
    feedback::leave(&workspace, &beside.id, clock::now()).unwrap();
    feedback::reply(
        &workspace,
        &first.id,
        Reply::Answer {
            answer: json!({"value": true}),
        },
        clock::now(),
    )
    .unwrap();
    // Asked again: the answer, at once — once per session that left.
    for _ in 0..2 {
        let (again, answered) = ask();
        assert_eq!(again.id, first.id);
        assert_eq!(
            AwaitOutcome::of_session(&answered),
            Some(AwaitOutcome::Responded {
                delivery_id: first.id.clone(),
                response: json!({"value": true}),
            })
        );
        assert!(answered.taken_at().is_some());
    }
    // Every answer taken: the same words are a new question.
    let (fresh, open) = ask();
    assert_ne!(fresh.id, first.id);
    assert_eq!(open.status, BlockingStatus::Waiting);
    // Another question is never joined.
    let mut other = question();
    other.title = "Ship to staging?".into();
    let (_, elsewhere) = feedback::ask_again(
        &workspace,
        other,
        Default::default(),
        clock::now(),
        later(600),
    )
    .unwrap();
    assert_ne!(elsewhere.delivery_id, fresh.id);
}

#[test]
fn an_answer_to_an_inbox_whose_file_does_not_parse_is_refused_and_the_file_left_where_it_lies() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path()).unwrap();
    let (appended, _) = feedback::ask(&workspace, question(), clock::now(), later(60)).unwrap();
    let data = workspace.inbox_data_dir();
    let answer = || {
        feedback::reply(
            &workspace,
            &appended.delivery.id,
            Reply::Answer {
                answer: json!({"value": true}),
            },
            clock::now(),
        )
    };
    for broken in ["deliveries.json", "sessions.json"] {
        let path = data.join(broken);
        let whole = std::fs::read_to_string(&path).unwrap();
        // Another tool's write cut short.
        std::fs::write(&path, &whole[..whole.len() / 2]).unwrap();
        let refused = answer();
        assert!(
            matches!(refused, Err(StoreError::Corrupt { .. })),
            "{broken}: {refused:?}"
        );
        let names: Vec<String> = std::fs::read_dir(&data)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            !names.iter().any(|name| name.contains(".corrupted.")),
            "{broken} was moved aside: {names:?}"
        );
        assert!(!data.join("feedback.json").exists(), "nothing was written");
        std::fs::write(&path, whole).unwrap();
    }
    // Mended, the answer goes through and wakes the agent.
    let replied = answer().unwrap();
    assert_eq!(replied.sessions_told, 1);
}

#[test]
fn awaiting_an_answer_after_the_fact_gets_it_at_once_and_a_passive_delivery_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path()).unwrap();
    let (appended, _) = feedback::ask(&workspace, question(), clock::now(), later(60)).unwrap();
    let id = appended.delivery.id.clone();
    feedback::reply(
        &workspace,
        &id,
        Reply::Answer {
            answer: json!({"value": true}),
        },
        clock::now(),
    )
    .unwrap();
    let outcome = feedback::await_answer(&workspace, &id, later(60), clock::now).unwrap();
    assert_eq!(
        outcome,
        AwaitOutcome::Responded {
            delivery_id: id,
            response: json!({"value": true}),
        }
    );
    let passive = deliveries::append(
        &workspace,
        NewDelivery {
            mode: DeliveryMode::Passive,
            feedback_schema: None,
            ..question()
        },
        clock::now(),
    )
    .unwrap();
    assert!(matches!(
        feedback::await_answer(&workspace, &passive.delivery.id, later(60), clock::now),
        Err(StoreError::Refused(ReplyRefusal::NoFeedbackExpected))
    ));
}

#[test]
fn an_answer_to_a_question_rewritten_since_the_page_showed_it_is_refused_and_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path()).unwrap();
    let (appended, _session) =
        feedback::ask(&workspace, question(), clock::now(), later(60)).unwrap();
    let id = appended.delivery.id.clone();
    let seen = switchboard_model::receipt::shown(&appended.delivery);
    // Opened in the window: what it says is unchanged.
    deliveries::mark_opened(&workspace, &id, clock::now()).unwrap();
    // Then a process in the workspace rewrites its title in the files.
    let path = workspace.inbox_data_dir().join("deliveries.json");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("Ship?", "Run the tests?")).unwrap();
    let yes = || Reply::Answer {
        answer: json!({"value": true}),
    };
    let refused =
        feedback::reply_as_seen(&workspace, &id, yes(), Some(&seen), clock::now()).unwrap_err();
    assert!(
        matches!(
            refused,
            StoreError::Refused(ReplyRefusal::ChangedSinceShown)
        ),
        "{refused:?}"
    );
    assert_eq!(refused.code(), switchboard_model::ErrorCode::Conflict);
    assert_eq!(
        deliveries::get(&workspace, &id).unwrap().status,
        DeliveryStatus::AwaitingFeedback,
        "nothing was written"
    );
    // Shown again as it reads now, it is answered.
    let now_shown = switchboard_model::receipt::shown(&deliveries::get(&workspace, &id).unwrap());
    feedback::reply_as_seen(&workspace, &id, yes(), Some(&now_shown), clock::now()).unwrap();
    assert_eq!(
        deliveries::get(&workspace, &id).unwrap().status,
        DeliveryStatus::Completed
    );
}
