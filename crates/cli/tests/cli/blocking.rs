//! Questions: blocking deliveries answered, declined, dismissed or timed out
//! from another process, as an agent and a developer at a terminal would.

use std::{
    path::Path,
    process::{Child, Command, Stdio},
};

use serde_json::{Value, json};

use crate::{data_file, ok_stdout, stored, switchboard};

const CONFIRM: &str = r#"{"type":"confirm","prompt":"Ship it?"}"#;

/// Publishes an interactive question with `schema` and returns its id.
fn ask_interactive(workspace: &Path, title: &str, schema: &str) -> String {
    ok_stdout(&switchboard(
        workspace,
        &[
            "deliver",
            "--mode",
            "interactive",
            "--title",
            title,
            "--content",
            "b",
            "--schema",
            schema,
        ],
    ))
}

/// Starts a blocking `deliver` and waits until its question is stored;
/// returns the waiting process and the delivery id.
fn ask(workspace: &Path, schema: &str, timeout: &str) -> (Child, String) {
    let child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .arg("-C")
        .arg(workspace)
        .args([
            "deliver",
            "--mode",
            "blocking",
            "--title",
            "Question",
            "--content",
            "body",
        ])
        .args(["--schema", schema, "--timeout", timeout])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    (child, first_session_delivery(workspace))
}

/// Waits for the first session to be stored and returns its delivery id.
fn first_session_delivery(workspace: &Path) -> String {
    let sessions = workspace.join(".visual-delivery/data/sessions.json");
    crate::when_stored(workspace, || {
        let text = std::fs::read_to_string(&sessions).ok()?;
        let sessions: Vec<Value> = serde_json::from_str(&text).ok()?;
        sessions.first()?["delivery_id"].as_str().map(str::to_owned)
    })
}

/// The one line the waiting process printed, parsed, and whether it exited 0.
fn outcome(child: Child) -> (Value, bool) {
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<_> = stdout.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "exactly one JSON line on stdout: {stdout:?}"
    );
    (
        serde_json::from_str(lines[0]).unwrap(),
        output.status.success(),
    )
}

#[test]
fn an_answer_from_another_process_reaches_the_waiting_agent() {
    let workspace = tempfile::tempdir().unwrap();
    let (child, id) = ask(
        workspace.path(),
        r#"{"type":"select","options":["staging","prod"]}"#,
        "60",
    );
    ok_stdout(&switchboard(
        workspace.path(),
        &["answer", &id, "--value", "staging"],
    ));
    let (line, success) = outcome(child);
    assert!(success);
    assert_eq!(
        line,
        json!({"status": "responded", "delivery_id": id, "response": {"value": "staging"}})
    );

    let feedback = data_file(workspace.path(), "feedback-responses.json");
    assert_eq!(feedback.len(), 1);
    assert_eq!(feedback[0]["values"], json!({"value": "staging"}));
    assert!(feedback[0]["id"].as_str().unwrap().starts_with("f_"));
    let session = &data_file(workspace.path(), "sessions.json")[0];
    assert_eq!(session["status"], "responded");
    assert_eq!(session["response"], json!({"value": "staging"}));
    assert!(session["responded_at"].is_string());
    let delivery = &stored(workspace.path())[0];
    assert_eq!(delivery["status"], "completed");
    assert!(delivery["completed_at"].is_string());
}

#[test]
fn a_second_answer_is_refused_and_changes_nothing() {
    let workspace = tempfile::tempdir().unwrap();
    let id = ask_interactive(workspace.path(), "Q", CONFIRM);
    assert_eq!(stored(workspace.path())[0]["status"], "awaiting_feedback");
    ok_stdout(&switchboard(
        workspace.path(),
        &["answer", &id, "--value", "true"],
    ));
    let before = std::fs::read_to_string(
        workspace
            .path()
            .join(".visual-delivery/data/feedback-responses.json"),
    )
    .unwrap();
    let again = switchboard(workspace.path(), &["answer", &id, "--value", "false"]);
    assert_eq!(again.status.code(), Some(4), "ALREADY_RESPONDED exits 4");
    assert!(
        String::from_utf8_lossy(&again.stderr).starts_with("error[ALREADY_RESPONDED]: "),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let after = std::fs::read_to_string(
        workspace
            .path()
            .join(".visual-delivery/data/feedback-responses.json"),
    )
    .unwrap();
    assert_eq!(before, after, "a refused answer writes nothing");
}

#[test]
fn a_timeout_is_reported_and_a_late_answer_is_still_kept() {
    let workspace = tempfile::tempdir().unwrap();
    let (child, id) = ask(workspace.path(), CONFIRM, "1");
    let (line, success) = outcome(child);
    assert!(success, "a timeout is a normal outcome (exit 0)");
    assert_eq!(line, json!({"status": "timeout", "delivery_id": id}));
    assert_eq!(
        data_file(workspace.path(), "sessions.json")[0]["status"],
        "timeout"
    );
    assert_eq!(stored(workspace.path())[0]["status"], "timeout");

    ok_stdout(&switchboard(
        workspace.path(),
        &["answer", &id, "--value", "true"],
    ));
    assert_eq!(stored(workspace.path())[0]["status"], "completed");
    let awaited = ok_stdout(&switchboard(workspace.path(), &["await", &id]));
    let awaited: Value = serde_json::from_str(&awaited).unwrap();
    assert_eq!(
        awaited,
        json!({"status": "responded", "delivery_id": id, "response": {"value": true}}),
        "await on an answered delivery returns the answer at once"
    );
}

#[test]
fn decline_and_dismiss_reach_the_agent_as_distinct_statuses() {
    for (flag, status) in [("--decline", "declined"), ("--dismiss", "dismissed")] {
        let workspace = tempfile::tempdir().unwrap();
        let (child, id) = ask(workspace.path(), CONFIRM, "60");
        ok_stdout(&switchboard(workspace.path(), &["answer", &id, flag]));
        let (line, success) = outcome(child);
        assert!(success);
        assert_eq!(line, json!({"status": status, "delivery_id": id}), "{flag}");
        // The file keeps to the seed's statuses; the response says which.
        let session = &data_file(workspace.path(), "sessions.json")[0];
        assert_eq!(session["status"], "responded");
        assert_eq!(
            session["response"],
            json!({"closed_without_answer": status})
        );
        assert_eq!(stored(workspace.path())[0]["status"], "completed");
        assert!(
            !workspace
                .path()
                .join(".visual-delivery/data/feedback-responses.json")
                .exists(),
            "{flag} records no answer values"
        );
    }
}

#[test]
fn await_picks_up_a_question_delivered_earlier() {
    let workspace = tempfile::tempdir().unwrap();
    let id = ask_interactive(workspace.path(), "Q", r#"{"type":"rating","max":3}"#);
    let waiter = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .arg("-C")
        .arg(workspace.path())
        .args(["await", &id, "--timeout", "60"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    assert_eq!(first_session_delivery(workspace.path()), id);
    let rejected = switchboard(workspace.path(), &["answer", &id, "--value", "4"]);
    assert!(
        !rejected.status.success(),
        "4 stars on a 3-star scale is refused"
    );
    ok_stdout(&switchboard(
        workspace.path(),
        &["answer", &id, "--value", "3"],
    ));
    let (line, _) = outcome(waiter);
    assert_eq!(line["response"], json!({"value": 3}));
}

#[test]
fn form_answers_are_checked_field_by_field() {
    let workspace = tempfile::tempdir().unwrap();
    let schema = r#"{"type":"form","fields":[
        {"name":"priority","type":"select","options":["P0","P1"],"required":true},
        {"name":"notes","type":"textarea"}]}"#;
    let id = ask_interactive(workspace.path(), "Triage", schema);
    let bad = switchboard(
        workspace.path(),
        &["answer", &id, "--values", r#"{"notes":"x"}"#],
    );
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("priority: is required"));
    ok_stdout(&switchboard(
        workspace.path(),
        &[
            "answer",
            &id,
            "--values",
            r#"{"priority":"P1","notes":"soon"}"#,
        ],
    ));
    let feedback = data_file(workspace.path(), "feedback-responses.json");
    assert_eq!(
        feedback[0]["values"],
        json!({"priority": "P1", "notes": "soon"}),
        "seed shape for forms"
    );
}

#[test]
fn bad_questions_are_refused_before_anything_is_written() {
    let workspace = tempfile::tempdir().unwrap();
    let cases: [&[&str]; 4] = [
        &[
            "--mode",
            "blocking",
            "--schema",
            r#"{"type":"select","options":[]}"#,
        ],
        &["--mode", "interactive"],
        &["--mode", "passive", "--schema", CONFIRM],
        &["--mode", "blocking", "--schema", "{not json"],
    ];
    for extra in cases {
        let mut args = vec!["deliver", "--title", "Q", "--content", "b"];
        args.extend_from_slice(extra);
        let output = switchboard(workspace.path(), &args);
        assert_eq!(output.status.code(), Some(2), "{extra:?} must be refused");
        assert!(
            String::from_utf8_lossy(&output.stderr).starts_with("error[INVALID_REQUEST]: "),
            "{extra:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    assert!(
        !workspace.path().join(".visual-delivery").exists(),
        "nothing was written"
    );
}

#[test]
fn await_reports_errors_as_one_json_line_with_exit_1() {
    let workspace = tempfile::tempdir().unwrap();
    let passive = ok_stdout(&switchboard(
        workspace.path(),
        &["deliver", "--title", "P", "--content", "b"],
    ));
    for id in [passive.as_str(), "d_1_999"] {
        let output = switchboard(workspace.path(), &["await", id, "--timeout", "5"]);
        assert_eq!(output.status.code(), Some(1));
        let line: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(line["status"], "error", "{id}");
        assert!(
            line["message"].as_str().unwrap().len() > 10,
            "the message says why: {line}"
        );
    }
}

#[test]
fn list_filters_by_mode_and_status() {
    let workspace = tempfile::tempdir().unwrap();
    switchboard(
        workspace.path(),
        &["deliver", "--title", "P", "--content", "b"],
    );
    let asked = ask_interactive(workspace.path(), "I", CONFIRM);
    let titles = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["list", "--json"];
        all.extend_from_slice(args);
        let listed: Vec<Value> =
            serde_json::from_str(&ok_stdout(&switchboard(workspace.path(), &all))).unwrap();
        listed
            .iter()
            .map(|d| d["title"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(titles(&["--mode", "passive"]), ["P"]);
    assert_eq!(titles(&["--status", "awaiting_feedback"]), ["I"]);
    ok_stdout(&switchboard(workspace.path(), &["close", &asked]));
    assert_eq!(titles(&["--status", "completed"]), ["I"]);
    assert!(
        !switchboard(workspace.path(), &["list", "--status", "done"])
            .status
            .success()
    );
}

#[test]
fn list_and_show_tell_an_answer_in_words_and_obey_nothing_an_agent_wrote() {
    let workspace = tempfile::tempdir().unwrap();
    // A title that, printed raw, would clear the terminal's screen.
    let id = ask_interactive(workspace.path(), "Ship it?\u{1b}[2J", CONFIRM);
    ok_stdout(&switchboard(
        workspace.path(),
        &[
            "answer",
            &id,
            "--value",
            "false",
            "--comment",
            "not on a Friday",
        ],
    ));
    let listed = ok_stdout(&switchboard(workspace.path(), &["list"]));
    assert!(listed.contains("Ship it?\\x1b[2J"), "{listed}");
    let shown = ok_stdout(&switchboard(workspace.path(), &["show", &id]));
    assert!(shown.contains(": No — not on a Friday"), "{shown}");
    assert!(!shown.contains("{\"value\""), "no raw JSON: {shown}");
    assert!(
        !listed.contains('\u{1b}') && !shown.contains('\u{1b}'),
        "{listed:?} {shown:?}"
    );
}
