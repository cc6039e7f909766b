//! What a token may do over HTTP: only its scopes' tools (listed and
//! called), only its own tasks (another token's answer as if there were
//! none), and a permission it asks through `approve` is its agent's, named
//! by the token.

use serde_json::{Value, json};
use switchboard_store::{Workspace, window};

use super::{serve, serve_with, stateless_call, switchboard_in, token, token_allowing};

#[test]
fn a_token_calls_only_the_tools_of_its_scopes_and_an_old_one_holds_the_default_ones() {
    let workspace = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let host = config.path().join("host");
    let served = serve_with(
        workspace.path(),
        config.path(),
        &[("SWITCHBOARD_RUNTIME_DIR", &host)],
    );
    let plain = token(config.path(), "plain");
    let runner = token_allowing(config.path(), "runner", &["programs"]);
    let listed = |bearer: &str| -> Vec<String> {
        let list = switchboard_remote_test::stateless("client", 1, "tools/list", json!({}), false);
        let answer = switchboard_remote_test::post_stateless(&served.address, bearer, &list);
        answer["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let tools = listed(&plain);
    for allowed in [
        "deliver",
        "ask",
        "approve",
        "search_knowledge",
        "list_tasks",
    ] {
        assert!(
            tools.iter().any(|tool| tool == allowed),
            "{allowed}: {tools:?}"
        );
    }
    for refused in [
        "session_start",
        "agent_start",
        "session_send",
        "investigate",
        "fuzz",
        "run_chain",
    ] {
        assert!(
            !tools.iter().any(|tool| tool == refused),
            "{refused}: {tools:?}"
        );
    }
    assert!(listed(&runner).iter().any(|tool| tool == "session_start"));

    // Called anyway: refused with a code, and nothing started.
    let start = switchboard_remote_test::stateless_call(
        "client",
        "session_start",
        json!({"program": "sh", "name": "not-allowed"}),
        false,
    );
    let refused = switchboard_remote_test::post_stateless(&served.address, &plain, &start);
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let text = refused["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("error[FORBIDDEN]") && text.contains("--allow programs"),
        "{text}"
    );
    assert_eq!(
        refused["result"]["structuredContent"]["error"]["code"],
        "FORBIDDEN"
    );
    assert!(
        !host.join("host.lock").exists(),
        "no session host was even started for the refused call"
    );
    // As a task too (a client that takes tasks).
    let chain = switchboard_remote_test::stateless_call(
        "client",
        "run_chain",
        json!({"name": "anything"}),
        true,
    );
    let refused = switchboard_remote_test::post_stateless(&served.address, &plain, &chain);
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert!(
        !crate::records(config.path(), workspace.path())
            .join("tasks")
            .exists()
    );

    // A tokens file from before scopes: its tokens hold the default ones.
    let old = "sbt_from_an_older_version";
    let file = config.path().join("mcp-tokens.json");
    let mut tokens: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    tokens["tokens"].as_array_mut().unwrap().push(json!({
        "name": "old", "sha256": switchboard_model::token::digest(old),
        "created_at": "2026-01-01T00:00:00.000Z",
    }));
    std::fs::write(&file, tokens.to_string()).unwrap();
    let tools = listed(old);
    assert!(tools.iter().any(|tool| tool == "deliver"), "{tools:?}");
    assert!(
        !tools.iter().any(|tool| tool == "session_start"),
        "{tools:?}"
    );
    let listing = crate::ok_stdout(
        &switchboard_in(config.path())
            .args(["mcp", "token", "--list"])
            .output()
            .unwrap(),
    );
    assert!(
        listing.contains("runner\t") && listing.contains("inbox, knowledge, tasks, programs"),
        "{listing}"
    );
    assert!(listing.contains("old\t"), "{listing}");
}

#[test]
fn a_token_sees_and_cancels_only_its_own_tasks() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path();
    let config = tempfile::tempdir().unwrap();
    let host = config.path().join("host");
    let served = serve_with(root, config.path(), &[("SWITCHBOARD_RUNTIME_DIR", &host)]);
    let owner = token_allowing(config.path(), "owner", &["programs"]);
    let intruder = token_allowing(config.path(), "intruder", &["programs"]);
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

#[test]
fn approve_over_http_is_the_tokens_agents_question_not_what_its_client_calls_itself() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path().to_owned();
    let _window = window::hold(&Workspace::open(&root).unwrap()).unwrap();
    let config = tempfile::tempdir().unwrap();
    let served = serve(&root, config.path());
    let bearer = token(config.path(), "ssh:buildbox");
    let address = served.address.clone();
    // Its client says it is Claude Code; the token says who it is.
    let call = switchboard_remote_test::stateless_call(
        "Claude Code",
        "approve",
        json!({"tool_name": "Bash", "input": {"command": "ls"}}),
        false,
    );
    let asking = std::thread::spawn(move || {
        switchboard_remote_test::post_stateless(&address, &bearer, &call)
    });
    let question = crate::when_stored(&root, || {
        crate::stored_now(&root)?.into_iter().find(|delivery| {
            delivery.get("agent_request").is_some() && delivery.get("sent_by").is_some()
        })
    });
    assert_eq!(
        question["title"], "ssh:buildbox wants to run `ls`",
        "{question}"
    );
    assert_eq!(question["sent_by"], "ssh:buildbox");
    assert_eq!(question["agent_request"]["session_id"], "http-ssh:buildbox");
    let id = question["id"].as_str().unwrap();
    // The developer answers with the server's config folder (the user's),
    // where the answer's receipt is kept.
    crate::ok_stdout(&crate::answer_as_shown(
        &root,
        id,
        &["--value", "true"],
        &[("SWITCHBOARD_CONFIG_DIR", config.path())],
    ));
    let answer = asking.join().unwrap();
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("\"allow\""), "{answer}");
}

#[test]
fn a_token_reads_no_file_of_this_machine_and_no_delivery_it_did_not_send() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path().canonicalize().unwrap();
    let _window = window::hold(&Workspace::open(&root).unwrap()).unwrap();
    std::fs::write(root.join(".env"), "API_KEY=INSIDE-DOTENV-SECRET\n").unwrap();
    let config = tempfile::tempdir().unwrap();
    let served = serve(&root, config.path());
    let local = crate::ok_stdout(&crate::switchboard(
        &root,
        &[
            "deliver",
            "--title",
            "Local plan",
            "--content",
            "LOCAL-PRIVATE",
        ],
    ));
    let local_id = local.split_whitespace().next().unwrap().to_owned();
    let bearer = token(config.path(), "remote");
    let post = |method: &str, params: Value| {
        let body = switchboard_remote_test::stateless("client", 7, method, params, false);
        switchboard_remote_test::post_stateless(&served.address, &bearer, &body)
    };
    // An edit it asks about names a file on its own machine: nothing of
    // this one's `.env` is read into the question.
    let address = served.address.clone();
    let asker = bearer.clone();
    let call = switchboard_remote_test::stateless_call(
        "client",
        "approve",
        json!({"tool_name": "Write", "input": {"file_path": ".env", "content": ""}}),
        false,
    );
    let asking = std::thread::spawn(move || {
        switchboard_remote_test::post_stateless(&address, &asker, &call)
    });
    let question = crate::when_stored(&root, || {
        crate::stored_now(&root)?
            .into_iter()
            .find(|delivery| delivery.get("agent_request").is_some())
    });
    let body = question["content"]["body"].as_str().unwrap();
    assert!(
        !body.contains("INSIDE-DOTENV-SECRET") && body.contains("another machine"),
        "{body}"
    );
    // It sees its own question, never the developer's other deliveries.
    let listed = post("resources/list", json!({}));
    let uris: Vec<&str> = listed["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|resource| resource["uri"].as_str())
        .collect();
    assert!(
        uris.iter()
            .any(|uri| uri.ends_with(question["id"].as_str().unwrap())),
        "{listed}"
    );
    assert!(!uris.iter().any(|uri| uri.ends_with(&local_id)), "{listed}");
    let read = post(
        "resources/read",
        json!({"uri": format!("switchboard://delivery/{local_id}")}),
    );
    assert!(
        read.get("error").is_some() && !read.to_string().contains("LOCAL-PRIVATE"),
        "{read}"
    );
    let list =
        switchboard_remote_test::stateless_call("client", "list_deliveries", json!({}), false);
    let listed = switchboard_remote_test::post_stateless(&served.address, &bearer, &list);
    assert!(!listed.to_string().contains("Local plan"), "{listed}");
    let feedback = switchboard_remote_test::stateless_call(
        "client",
        "get_feedback",
        json!({"id": local_id}),
        false,
    );
    let refused = switchboard_remote_test::post_stateless(&served.address, &bearer, &feedback);
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    crate::ok_stdout(&crate::answer_as_shown(
        &root,
        question["id"].as_str().unwrap(),
        &["--value", "false"],
        &[],
    ));
    asking.join().unwrap();
}
