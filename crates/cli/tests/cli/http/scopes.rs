//! What a token may do over HTTP: only its own tasks (another token's
//! answer as if there were none).

use serde_json::{Value, json};

use super::{serve_with, stateless_call, token};

#[test]
fn a_token_sees_and_cancels_only_its_own_tasks() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path();
    let config = tempfile::tempdir().unwrap();
    let host = config.path().join("host");
    let served = serve_with(root, config.path(), &[("SWITCHBOARD_RUNTIME_DIR", &host)]);
    let owner = token(config.path(), "owner");
    let intruder = token(config.path(), "intruder");
    let question = json!({
        "name": "ask",
        "arguments": {"title": "Ship it?", "content": "Tests pass.", "schema": {"type": "confirm"}},
    });
    let asked = stateless_call(
        &served,
        &owner,
        1,
        "tools/call",
        Some("ask"),
        question.clone(),
    );
    let task = asked["result"]["taskId"].as_str().unwrap().to_owned();
    let of = |bearer: &str, method: &str, task: &str| {
        stateless_call(
            &served,
            bearer,
            2,
            method,
            Some(task),
            json!({"taskId": task}),
        )
    };
    let no_task = |answer: &Value| {
        answer["error"]["message"]
            .as_str()
            .is_some_and(|message| message.contains("no task"))
    };
    // Another token: as if there were no such task.
    assert!(
        no_task(&of(&intruder, "tasks/get", &task)),
        "the question is not the intruder's"
    );
    assert!(no_task(&of(&intruder, "tasks/cancel", &task)));
    let stored = crate::stored(root);
    assert!(stored[0].get("withdrawn_at").is_none(), "{stored:?}");
    // The same words from another token are another question.
    let echoed = stateless_call(&served, &intruder, 3, "tools/call", Some("ask"), question);
    assert_ne!(echoed["result"]["taskId"], task.as_str(), "{echoed}");
    assert_eq!(crate::stored(root).len(), 2);
    let own = of(&owner, "tasks/get", &task);
    assert_eq!(own["result"]["status"], "working", "{own}");

    // A run too: another token can neither read nor stop it.
    std::fs::create_dir_all(root.join(".switchboard/chains")).unwrap();
    std::fs::write(
        root.join(".switchboard/chains/slow.json"),
        r#"{"commands": [{"sequence_order": 1, "command": "sleep 120"}]}"#,
    )
    .unwrap();
    let chain = json!({"name": "run_chain", "arguments": {"name": "slow"}});
    let run = stateless_call(&served, &owner, 4, "tools/call", Some("run_chain"), chain);
    let run = run["result"]["taskId"].as_str().unwrap().to_owned();
    assert!(no_task(&of(&intruder, "tasks/get", &run)));
    assert!(no_task(&of(&intruder, "tasks/cancel", &run)));
    assert_eq!(of(&owner, "tasks/get", &run)["result"]["status"], "working");
    let cancelled = of(&owner, "tasks/cancel", &run);
    assert!(cancelled.get("error").is_none(), "{cancelled}");
    assert_eq!(
        of(&owner, "tasks/get", &run)["result"]["status"],
        "cancelled"
    );
}
