//! `switchboard mcp` as agents use it: rmcp's own client spawning the real
//! binary over stdio, answers given by another `switchboard` process.

use std::{path::Path, sync::Arc, time::Duration};

use rmcp::{
    ClientHandler, RoleClient, ServiceExt,
    model::{
        CallToolRequestParams, CallToolResult, ClientRequest, ProgressNotificationParam, Request,
        ServerResult,
    },
    service::{NotificationContext, PeerRequestOptions, RunningService},
    transport::TokioChildProcess,
};
use serde_json::{Value, json};
use switchboard_model::{Timestamp, annotation::AnnotationKind, annotation::NewAnnotation};
use switchboard_store::{Workspace, annotations};

use crate::{ok_stdout, stored, switchboard};

/// A client that counts the progress notifications it receives.
#[derive(Clone, Default)]
struct Client {
    progress: Arc<tokio::sync::watch::Sender<usize>>,
}

impl Client {
    /// How many progress notifications came so far.
    fn progress_count(&self) -> usize {
        *self.progress.borrow()
    }

    /// Waits (ten seconds at most) until `count` progress notifications
    /// came: the server's own word that a call is still going.
    async fn progress_reaches(&self, count: usize) {
        let mut heard = self.progress.subscribe();
        tokio::time::timeout(
            Duration::from_secs(10),
            heard.wait_for(|seen| *seen >= count),
        )
        .await
        .expect("progress notifications within 10 s")
        .unwrap();
    }
}

impl ClientHandler for Client {
    async fn on_progress(
        &self,
        _params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.send_modify(|seen| *seen += 1);
    }
}

type Session = RunningService<RoleClient, Client>;

/// `switchboard mcp` on `workspace` as the tests run it: `ask` beats every
/// 50 ms; program sessions on a host of the test's own, gone a second
/// after its last session; ClaudeControl's reports and configurations the
/// test's own.
pub(crate) fn server_command(workspace: &Path) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"));
    command
        .arg("-C")
        .arg(workspace)
        .args(["mcp", "--heartbeat-ms", "50"])
        .env("SWITCHBOARD_RUNTIME_DIR", workspace.join(".session-host"))
        .env("SWITCHBOARD_SESSION_HOST_LINGER_SECS", "1")
        .env("CLAUDE_CONTROL_HOME", workspace.join(".claude-control"));
    command
}

/// The server on `workspace`, initialized (see [`server_command`]).
async fn connect(workspace: &Path) -> (Session, Client) {
    let transport = TokioChildProcess::new(server_command(workspace)).unwrap();
    let client = Client::default();
    let session = client.clone().serve(transport).await.unwrap();
    (session, client)
}

fn arguments(value: Value) -> serde_json::Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("arguments must be an object: {other}"),
    }
}

async fn call<H: ClientHandler>(
    session: &RunningService<RoleClient, H>,
    tool: &'static str,
    args: Value,
) -> CallToolResult {
    session
        .call_tool(CallToolRequestParams::new(tool).with_arguments(arguments(args)))
        .await
        .unwrap()
}

/// The structured result of a call that must succeed, checked against the
/// tool's output schema as a validating client (the TypeScript SDK's, with
/// Ajv) checks it.
async fn ok<H: ClientHandler>(
    session: &RunningService<RoleClient, H>,
    tool: &'static str,
    args: Value,
) -> Value {
    let result = call(session, tool, args).await;
    assert_ne!(result.is_error, Some(true), "{tool} failed: {result:?}");
    let content = result.structured_content.unwrap();
    let tools = session.list_all_tools().await.unwrap();
    let listed = tools.iter().find(|listed| listed.name == tool).unwrap();
    let schema = Value::Object(listed.output_schema.as_deref().unwrap().clone());
    let validator = strict_validator(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&content)
        .map(|error| format!("{} at {}", error, error.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{tool}'s result does not fit its output schema: {errors:?}\n{content:#}"
    );
    content
}

/// A JSON Schema validator that refuses what strict clients warn about:
/// formats it does not know, and schemas its meta-schema rejects.
fn strict_validator(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::options()
        .should_validate_formats(true)
        .should_ignore_unknown_formats(false)
        .build(schema)
        .map_err(|error| error.to_string())
}

/// The keywords a portable schema node may use: what Gemini's function
/// declarations, OpenAI's and Anthropic's tool schemas and Ajv's strict mode
/// all accept.
const PORTABLE_KEYWORDS: [&str; 17] = [
    "type",
    "title",
    "description",
    "properties",
    "required",
    "items",
    "additionalProperties",
    "enum",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "format",
    "default",
    "pattern",
];

/// The ways `node` (at `path`) and the schemas in it leave the subset.
fn unportable(path: &str, node: &Value, problems: &mut Vec<String>) {
    let Some(map) = node.as_object() else {
        problems.push(format!("{path}: a schema that is not an object: {node}"));
        return;
    };
    for key in map.keys() {
        if !PORTABLE_KEYWORDS.contains(&key.as_str()) {
            problems.push(format!("{path}: keyword {key}"));
        }
    }
    let kind = match map.get("type") {
        Some(Value::String(kind)) if kind != "null" => kind.as_str(),
        other => {
            problems.push(format!("{path}: type {other:?}, not one scalar type"));
            ""
        }
    };
    if let Some(format) = map.get("format") {
        let standard = ["date-time", "date", "time", "email", "uri", "uuid"];
        if kind != "string" || !standard.iter().any(|name| format == name) {
            problems.push(format!("{path}: format {format} on {kind}"));
        }
    }
    if let Some(values) = map.get("enum") {
        let fits = values.as_array().is_some_and(|values| {
            values.iter().all(|value| match kind {
                "string" => value.is_string(),
                "integer" => value.is_i64() || value.is_u64(),
                _ => false,
            })
        });
        if !fits {
            problems.push(format!("{path}: enum {values} of type {kind}"));
        }
    }
    if let Some(properties) = map.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            unportable(&format!("{path}.{name}"), property, problems);
        }
        for name in map
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if !name
                .as_str()
                .is_some_and(|name| properties.contains_key(name))
            {
                problems.push(format!("{path}: required {name} is no property"));
            }
        }
    }
    if let Some(items) = map.get("items") {
        unportable(&format!("{path}[]"), items, problems);
    }
    match map.get("additionalProperties") {
        None | Some(Value::Bool(_)) => {}
        Some(values) => unportable(&format!("{path}{{}}"), values, problems),
    }
}

/// The error code of a call that must fail as a tool error.
async fn refused<H: ClientHandler>(
    session: &RunningService<RoleClient, H>,
    tool: &'static str,
    args: Value,
) -> (String, String) {
    let result = call(session, tool, args).await;
    assert_eq!(
        result.is_error,
        Some(true),
        "{tool} should fail: {result:?}"
    );
    let error = &result.structured_content.unwrap()["error"];
    (
        error["code"].as_str().unwrap().to_owned(),
        error["message"].as_str().unwrap().to_owned(),
    )
}

pub(crate) const TOOLS: [&str; 29] = [
    "add_learning",
    "agent_list",
    "agent_start",
    "approve",
    "ask",
    "claim_task",
    "create_task",
    "deliver",
    "fuzz",
    "get_annotations",
    "get_feedback",
    "investigate",
    "list_deliveries",
    "list_tasks",
    "probe",
    "rate_bullet",
    "read_messages",
    "run_chain",
    "search_knowledge",
    "send_message",
    "session_expect",
    "session_kill",
    "session_list",
    "session_read",
    "session_send",
    "session_start",
    "session_wait",
    "test_program",
    "update_task",
];

#[tokio::test(flavor = "multi_thread")]
async fn tools_are_listed_in_a_stable_order_with_object_schemas() {
    let workspace = tempfile::tempdir().unwrap();
    let (session, _) = connect(workspace.path()).await;
    let info = session.peer_info().unwrap();
    assert_eq!(info.server_info.as_ref().unwrap().name, "switchboard");
    let first = session.list_all_tools().await.unwrap();
    let names: Vec<&str> = first.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, TOOLS);
    for tool in &first {
        assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
        // `approve` answers as Claude Code's permission prompt tool must:
        // one text block, so no structured result and no output schema.
        if tool.name != "approve" {
            let output = tool.output_schema.as_ref().unwrap();
            assert_eq!(output["type"], "object", "{}", tool.name);
        }
        assert!(
            tool.description
                .as_ref()
                .is_some_and(|text| text.len() > 40),
            "{} says what it does",
            tool.name
        );
    }
    let second = session.list_all_tools().await.unwrap();
    assert_eq!(
        serde_json::to_value(&first).unwrap(),
        serde_json::to_value(&second).unwrap()
    );
    session.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn every_tool_schema_is_in_the_subset_every_client_accepts() {
    let workspace = tempfile::tempdir().unwrap();
    let (session, _) = connect(workspace.path()).await;
    let tools = session.list_all_tools().await.unwrap();
    let mut problems = Vec::new();
    let mut optional = 0;
    for tool in &tools {
        let input = Value::Object(tool.input_schema.as_ref().clone());
        let output = tool.output_schema.as_deref().map_or_else(
            || serde_json::json!({"type": "object"}),
            |schema| Value::Object(schema.clone()),
        );
        for (side, schema) in [("input", &input), ("output", &output)] {
            let path = format!("{}.{side}", tool.name);
            unportable(&path, schema, &mut problems);
            if let Err(error) = strict_validator(schema) {
                problems.push(format!("{path}: a strict validator refuses it: {error}"));
            }
        }
        let required = input["required"].as_array().map_or(0, Vec::len);
        optional += input["properties"].as_object().map_or(0, |p| p.len()) - required;
    }
    assert!(problems.is_empty(), "{problems:#?}");
    // Optional fields are there, simply not required.
    assert!(optional > 10, "only {optional} optional input fields");
    session.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn results_answers_and_annotations_round_trip() {
    let workspace = tempfile::tempdir().unwrap();
    let (session, _) = connect(workspace.path()).await;

    let passive = ok(
        &session,
        "deliver",
        json!({"title": "Cache design", "content": "The cache layer cuts latency."}),
    )
    .await;
    let id = passive["id"].as_str().unwrap().to_owned();
    assert_eq!(passive["status"], "delivered");
    let schema = json!({"type": "confirm", "prompt": "Ship it?"});
    let question = ok(
        &session,
        "deliver",
        json!({"title": "Ship?", "content": "<p>Ready</p>", "type": "html",
               "mode": "interactive", "schema": schema}),
    )
    .await;
    let question_id = question["id"].as_str().unwrap().to_owned();
    assert_eq!(question["status"], "awaiting_feedback");
    assert_eq!(stored(workspace.path()).len(), 2, "both in the inbox file");

    let listed = ok(&session, "list_deliveries", json!({"mode": "interactive"})).await;
    assert_eq!(listed["total"], 1);
    assert_eq!(listed["deliveries"][0]["id"], question_id.as_str());

    let open = ok(&session, "get_feedback", json!({"id": question_id})).await;
    assert_eq!(open["status"], "awaiting_feedback");
    assert!(open.get("outcome").is_none());
    ok_stdout(&switchboard(
        workspace.path(),
        &["answer", &question_id, "--value", "true"],
    ));
    let answered = ok(&session, "get_feedback", json!({"id": question_id})).await;
    assert_eq!(answered["outcome"], "responded");
    assert_eq!(answered["responses"][0]["values"], json!({"value": true}));

    // A comment on "cache layer" as the window makes it.
    let store = Workspace::open(workspace.path()).unwrap();
    annotations::add(
        &store,
        NewAnnotation {
            delivery_id: id.clone(),
            kind: AnnotationKind::Comment,
            content: "Say which cache".into(),
            range: Some((4, 15)),
        },
        Timestamp::parse("2026-02-10T10:00:00.000Z").unwrap(),
    )
    .unwrap();
    let notes = ok(&session, "get_annotations", json!({"id": id})).await;
    let note = &notes["annotations"][0];
    assert_eq!(note["range"], json!({"start": 4, "end": 15}));
    assert_eq!(note["quote"], "cache layer");
    assert_eq!(note["comment"], "Say which cache");

    // Bad input: a tool error with the store's code, never a crash.
    let (code, message) = refused(&session, "get_feedback", json!({"id": "d_1_999"})).await;
    assert_eq!(
        (code.as_str(), message.as_str()),
        ("NOT_FOUND", "no delivery with id \"d_1_999\"")
    );
    let (code, _) = refused(&session, "get_annotations", json!({"id": "d_1_999"})).await;
    assert_eq!(code, "NOT_FOUND");
    let (code, _) = refused(&session, "get_annotations", json!({})).await;
    assert_eq!(code, "INVALID_REQUEST", "a missing id");
    let (code, _) = refused(&session, "deliver", json!({"title": " ", "content": "x"})).await;
    assert_eq!(code, "INVALID_REQUEST");
    let (code, message) = refused(
        &session,
        "deliver",
        json!({"title": "Form", "content": "x", "mode": "interactive"}),
    )
    .await;
    assert_eq!(code, "INVALID_REQUEST");
    assert!(message.contains("needs a feedback schema"), "{message}");
    let (code, message) = refused(&session, "list_deliveries", json!({"status": "done"})).await;
    assert_eq!(code, "INVALID_REQUEST");
    assert!(
        message.contains("awaiting_feedback"),
        "names the statuses: {message}"
    );
    let (code, message) = refused(
        &session,
        "deliver",
        json!({"title": "t", "content": "c", "colour": "red"}),
    )
    .await;
    assert_eq!(code, "INVALID_REQUEST");
    assert!(message.contains("unknown field `colour`"), "{message}");
    let missing = session
        .call_tool(CallToolRequestParams::new("no_such_tool"))
        .await;
    assert!(missing.is_err(), "an unknown tool is a protocol error");
    session.cancel().await.unwrap();
}

/// Waits until the inbox holds a blocking question with `title` (any
/// blocking question when `None`); returns its id.
async fn question_id(workspace: &Path) -> String {
    question_titled(workspace, None).await
}

async fn question_titled(workspace: &Path, title: Option<&str>) -> String {
    let workspace = workspace.to_owned();
    let title = title.map(str::to_owned);
    tokio::task::spawn_blocking(move || {
        crate::when_stored(&workspace, || {
            crate::stored_now(&workspace)?
                .iter()
                .find(|delivery| {
                    delivery["mode"] == "blocking"
                        && title
                            .as_deref()
                            .is_none_or(|title| delivery["title"] == title)
                })
                .and_then(|delivery| delivery["id"].as_str().map(str::to_owned))
        })
    })
    .await
    .unwrap()
}

fn ask_request(args: Value) -> ClientRequest {
    ClientRequest::CallToolRequest(Request::new(
        CallToolRequestParams::new("ask").with_arguments(arguments(args)),
    ))
}

#[tokio::test(flavor = "multi_thread")]
async fn ask_waits_for_an_answer_from_another_process_and_keeps_the_client_alive() {
    let workspace = tempfile::tempdir().unwrap();
    let (session, client) = connect(workspace.path()).await;
    // The client gives up after 500 ms without word; progress keeps the
    // call alive while the developer takes longer than that.
    let options =
        PeerRequestOptions::with_timeout(Duration::from_millis(500)).reset_timeout_on_progress();
    let handle = session
        .send_cancellable_request(
            ask_request(
                json!({"title": "Which database?", "content": "For the cache.",
                               "schema": {"type": "select", "prompt": "Pick one",
                                          "options": ["sqlite", "postgres"]}}),
            ),
            options,
        )
        .await
        .unwrap();
    let id = question_id(workspace.path()).await;
    // The developer answers once the call has outlived the client's 500 ms
    // patience twice over: 20 heartbeats of 50 ms, each a notification.
    client.progress_reaches(20).await;
    ok_stdout(&switchboard(
        workspace.path(),
        &["answer", &id, "--value", "postgres"],
    ));
    let ServerResult::CallToolResult(result) = handle.await_response().await.unwrap() else {
        panic!("not a tool result");
    };
    let answer = result.structured_content.unwrap();
    assert_eq!(answer["status"], "responded");
    assert_eq!(answer["id"], id.as_str());
    assert_eq!(answer["response"], json!({"value": "postgres"}));
    let beats = client.progress_count();
    assert!(beats >= 10, "progress while waiting: {beats}");

    // With a timeout the agent asked for, the wait ends as `timeout`.
    let result = call(
        &session,
        "ask",
        json!({"title": "Quick?", "content": "c", "schema": {"type": "confirm", "prompt": "ok?"},
               "timeout": 1}),
    )
    .await;
    assert_eq!(result.structured_content.unwrap()["status"], "timeout");
    session.cancel().await.unwrap();
}

/// A client that gives up on an `ask` (its own timeout, the user's
/// interrupt) leaves the question in the window; the developer answers
/// later, and the agent asking the same again gets that answer at once —
/// once: asked after that, the same words are a new question.
#[tokio::test(flavor = "multi_thread")]
async fn a_cancelled_ask_leaves_the_question_and_asking_again_gets_its_answer() {
    let workspace = tempfile::tempdir().unwrap();
    let (session, _) = connect(workspace.path()).await;
    let asked = json!({"title": "Rename the crate?", "content": "c",
                       "schema": {"type": "confirm", "prompt": "Rename?"}});
    let handle = session
        .send_cancellable_request(ask_request(asked.clone()), PeerRequestOptions::no_options())
        .await
        .unwrap();
    let id = question_id(workspace.path()).await;
    handle
        .cancel(Some("the client timed out".into()))
        .await
        .unwrap();
    // The server notes that its asker left; the question stays waiting.
    let root = workspace.path().to_owned();
    tokio::task::spawn_blocking(move || {
        crate::when_stored(&root, || {
            let path = root.join(".visual-delivery/data/sessions.json");
            let sessions: Vec<Value> =
                serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
            sessions
                .into_iter()
                .find(|session| session.get("left_at").is_some())
        })
    })
    .await
    .unwrap();
    let question = crate::stored(workspace.path())
        .into_iter()
        .find(|delivery| delivery["id"] == id.as_str())
        .unwrap();
    assert_eq!(question["status"], "awaiting_feedback", "{question}");
    assert!(question.get("withdrawn_at").is_none(), "{question}");

    // The developer answers; the agent asks the same again and gets it.
    ok_stdout(&switchboard(
        workspace.path(),
        &["answer", &id, "--value", "true"],
    ));
    let again = ok(&session, "ask", asked.clone()).await;
    assert_eq!(again["id"], id.as_str());
    assert_eq!(again["status"], "responded");
    assert_eq!(again["response"], json!({"value": true}));
    let feedback = ok(&session, "get_feedback", json!({"id": id})).await;
    assert_eq!(feedback["outcome"], "responded");

    // Asked once more, it is a new question.
    let handle = session
        .send_cancellable_request(ask_request(asked), PeerRequestOptions::no_options())
        .await
        .unwrap();
    let root = workspace.path().to_owned();
    let fresh = tokio::task::spawn_blocking(move || {
        crate::when_stored(&root, || {
            let stored = crate::stored_now(&root)?;
            (stored.len() == 2).then_some(stored)
        })
    })
    .await
    .unwrap();
    assert!(
        fresh
            .iter()
            .any(|delivery| delivery["id"] != id.as_str()
                && delivery["status"] == "awaiting_feedback")
    );
    handle.cancel(None).await.unwrap();
    session.cancel().await.unwrap();
}

/// `approve`'s answer: the one text block Claude Code reads.
fn approve_answer(result: &CallToolResult) -> Value {
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let text = result.content[0].as_text().unwrap().text.clone();
    serde_json::from_str(&text).unwrap()
}

/// As the hook, `approve` asks only while a window is open on the
/// workspace, and a window that closes ends its wait: an agent never waits
/// on a window nobody has open, and its question leaves the inbox.
#[tokio::test(flavor = "multi_thread")]
async fn approve_asks_only_while_a_window_is_open_and_ends_when_it_closes() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path().canonicalize().unwrap();
    let (session, _) = connect(&root).await;
    let asked = json!({"tool_name": "Bash", "input": {"command": "cargo publish"}});
    let approve = || {
        ClientRequest::CallToolRequest(Request::new(
            CallToolRequestParams::new("approve").with_arguments(arguments(asked.clone())),
        ))
    };
    let answered = |handle: rmcp::service::RequestHandle<RoleClient>| async move {
        let response = tokio::time::timeout(Duration::from_secs(20), handle.await_response())
            .await
            .expect("answered without anybody deciding")
            .unwrap();
        let ServerResult::CallToolResult(result) = response else {
            panic!("not a tool result: {response:?}");
        };
        approve_answer(&result)
    };

    // No window: nothing is asked, and the call is denied at once.
    let handle = session
        .send_cancellable_request(approve(), PeerRequestOptions::no_options())
        .await
        .unwrap();
    let denied = answered(handle).await;
    assert_eq!(denied["behavior"], "deny", "{denied}");
    assert!(
        !root.join(".visual-delivery").exists(),
        "no question nobody would see was asked"
    );

    // A window open: the question is asked; the window closes: the call
    // is denied and the question leaves the inbox.
    let window = switchboard_store::window::hold(&Workspace::open(&root).unwrap()).unwrap();
    let handle = session
        .send_cancellable_request(approve(), PeerRequestOptions::no_options())
        .await
        .unwrap();
    let waiting = root.clone();
    tokio::task::spawn_blocking(move || {
        crate::when_stored(&waiting, || {
            crate::stored_now(&waiting)?
                .into_iter()
                .find(|delivery| delivery.get("agent_request").is_some())
        })
    })
    .await
    .unwrap();
    drop(window);
    let denied = answered(handle).await;
    assert_eq!(denied["behavior"], "deny", "{denied}");
    assert!(
        crate::stored_now(&root).unwrap_or_default().is_empty(),
        "the question left the inbox"
    );
    session.cancel().await.unwrap();
}

/// Two `approve` calls of one server waiting at once in a workspace with
/// no window of its own: the first answered, the second still shows in
/// another workspace's window ("All workspaces"), and is answered there.
#[tokio::test(flavor = "multi_thread")]
async fn two_approvals_waiting_at_once_stay_listed_everywhere_until_the_last_is_answered() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path().canonicalize().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let other = elsewhere.path().canonicalize().unwrap();
    // A window on the other workspace, in the server's runtime folder.
    let runtime = switchboard_store::runtime::private(root.join(".session-host")).unwrap();
    let window = switchboard_store::registry::Registry::at(runtime.join("workspaces"))
        .unwrap()
        .register(
            &Workspace::open(&other).unwrap(),
            switchboard_model::registry::Presence::Window,
            switchboard_store::clock::now(),
        )
        .unwrap();
    let (session, _) = connect(&root).await;
    let approve = |command: &str| {
        let asked = json!({"tool_name": "Bash", "input": {"command": command}});
        ClientRequest::CallToolRequest(Request::new(
            CallToolRequestParams::new("approve").with_arguments(arguments(asked)),
        ))
    };
    let first = session
        .send_cancellable_request(approve("cargo publish"), PeerRequestOptions::no_options())
        .await
        .unwrap();
    let second = session
        .send_cancellable_request(approve("git push"), PeerRequestOptions::no_options())
        .await
        .unwrap();
    let waiting_everywhere = {
        let (other, runtime) = (other.clone(), runtime.clone());
        move || -> Vec<Value> {
            let output = std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
                .arg("-C")
                .arg(&other)
                .args(["list", "--all", "--waiting", "--json"])
                .env("SWITCHBOARD_RUNTIME_DIR", &runtime)
                .output()
                .unwrap();
            serde_json::from_str(&ok_stdout(&output)).unwrap()
        }
    };
    let listed = {
        let (root, waiting_everywhere) = (root.clone(), waiting_everywhere.clone());
        tokio::task::spawn_blocking(move || {
            crate::when_stored(&root, || {
                let rows = waiting_everywhere();
                (rows.len() == 2).then_some(rows)
            })
        })
        .await
        .unwrap()
    };
    let id_of = |command: &str| {
        listed
            .iter()
            .find(|row| row["title"].as_str().unwrap().contains(command))
            .unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let answer = |id: String| {
        ok_stdout(&crate::answer_as_shown(
            &root,
            &id,
            &["--value", "true"],
            &[],
        ))
    };
    answer(id_of("cargo publish"));
    let result = tokio::time::timeout(Duration::from_secs(20), first.await_response())
        .await
        .expect("the first answered")
        .unwrap();
    let ServerResult::CallToolResult(result) = result else {
        panic!("not a tool result: {result:?}");
    };
    assert_eq!(approve_answer(&result)["behavior"], "allow");

    let still = tokio::task::spawn_blocking(waiting_everywhere)
        .await
        .unwrap();
    assert_eq!(
        still.len(),
        1,
        "the second still waits, listed in the other window: {still:?}"
    );
    assert_eq!(still[0]["workspace"], root.display().to_string());
    answer(id_of("git push"));
    let result = tokio::time::timeout(Duration::from_secs(20), second.await_response())
        .await
        .expect("the second answered")
        .unwrap();
    let ServerResult::CallToolResult(result) = result else {
        panic!("not a tool result: {result:?}");
    };
    assert_eq!(approve_answer(&result)["behavior"], "allow");
    drop(window);
    session.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn knowledge_is_searched_added_to_and_voted_on() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path();
    std::fs::create_dir_all(root.join(".delia/playbooks")).unwrap();
    std::fs::write(
        root.join(".delia/playbooks/coding.json"),
        r#"{"schema_version": 2, "task_type": "coding", "updated_at": "2026-11-01T00:00:00.000000",
            "bullets": [{"id": "strat-0000000a", "content": "Use tempfile for scratch directories in tests", "helpful_count": 3}]}"#,
    )
    .unwrap();
    let (session, _) = connect(root).await;
    let none = ok(&session, "search_knowledge", json!({"query": "flaky"})).await;
    assert_eq!(none["hits"], json!([]));
    let learned = ok(
        &session,
        "add_learning",
        json!({"category": "testing", "title": "Flaky watcher tests",
               "body": "Wait for the event, never sleep."}),
    )
    .await;
    assert_eq!(
        learned,
        json!({"path": ".naide/learnings/testing.md", "line": 1})
    );
    // The index kept open by the server sees the new entry at once.
    let found = ok(
        &session,
        "search_knowledge",
        json!({"query": "flaky watcher"}),
    )
    .await;
    assert_eq!(found["hits"][0]["title"], "Flaky watcher tests");
    assert_eq!(found["hits"][0]["kind"], "learning");

    let bullets = ok(
        &session,
        "search_knowledge",
        json!({"query": "tempfile", "kinds": ["bullet"]}),
    )
    .await;
    let hit = &bullets["hits"][0];
    assert_eq!(
        (hit["task_type"].as_str(), hit["bullet_id"].as_str()),
        (Some("coding"), Some("strat-0000000a"))
    );
    let rated = ok(
        &session,
        "rate_bullet",
        json!({"task_type": "coding", "bullet_id": "strat-0000000a", "helpful": false}),
    )
    .await;
    assert_eq!(
        rated,
        json!({"bullet_id": "strat-0000000a", "helpful": 3, "harmful": 1})
    );
    let stored: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join(".delia/playbooks/coding.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        stored["bullets"][0]["harmful_count"], 1,
        "the vote is in the playbook"
    );

    let (code, _) = refused(
        &session,
        "rate_bullet",
        json!({"task_type": "coding", "bullet_id": "strat-ffffffff", "helpful": true}),
    )
    .await;
    assert_eq!(code, "NOT_FOUND");
    let (code, message) = refused(
        &session,
        "search_knowledge",
        json!({"query": "x", "kinds": ["gossip"]}),
    )
    .await;
    assert_eq!(code, "INVALID_REQUEST");
    assert!(message.contains("learning, bullet"), "{message}");
    let (code, _) = refused(
        &session,
        "add_learning",
        json!({"category": "testing", "title": "", "body": "b"}),
    )
    .await;
    assert_eq!(code, "INVALID_REQUEST");
    session.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_team_queue_is_worked_in_the_plugins_words() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path();
    let config = root.join(".opencode/opencode-teams/teams/alpha/config.json");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    let member = |id: &str, kind: &str| {
        json!({"agentId": id, "agentName": id, "agentType": kind,
               "joinedAt": "2026-02-10T09:00:00.000Z"})
    };
    std::fs::write(
        &config,
        serde_json::to_string_pretty(&json!({
            "name": "alpha", "created": "2026-02-10T09:00:00.000Z", "leader": "lead",
            "members": [member("lead", "leader"), member("b", "worker"), member("c", "worker")],
            "dispatchRules": [], "dispatchLog": []
        }))
        .unwrap(),
    )
    .unwrap();
    let (session, _) = connect(root).await;
    let design = ok(
        &session,
        "create_task",
        json!({"team": "alpha", "title": "Design", "priority": "high"}),
    )
    .await;
    let design_id = design["id"].as_str().unwrap().to_owned();
    assert_eq!(
        (design["ready"].as_bool(), design["priority"].as_str()),
        (Some(true), Some("high"))
    );
    let build = ok(
        &session,
        "create_task",
        json!({"team": "alpha", "title": "Build", "dependencies": [design_id]}),
    )
    .await;
    let build_id = build["id"].as_str().unwrap().to_owned();
    assert_eq!(build["ready"], false);

    let ready = ok(&session, "list_tasks", json!({"ready": true})).await;
    let ids: Vec<&str> = ready["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [design_id.as_str()]);

    let (code, message) = refused(
        &session,
        "update_task",
        json!({"id": design_id, "add_dependencies": [build_id]}),
    )
    .await;
    assert_eq!(code, "INVALID_REQUEST");
    assert_eq!(
        message,
        format!("Circular dependency detected: {design_id}")
    );

    let claimed = ok(
        &session,
        "claim_task",
        json!({"id": design_id, "agent": "b"}),
    )
    .await;
    assert_eq!(
        (claimed["status"].as_str(), claimed["owner"].as_str()),
        (Some("in_progress"), Some("b"))
    );
    let (code, message) = refused(
        &session,
        "claim_task",
        json!({"id": design_id, "agent": "c"}),
    )
    .await;
    assert_eq!(code, "INVALID_REQUEST");
    assert_eq!(
        message,
        format!("Task {design_id} is not available (status: in_progress)")
    );
    let done = ok(
        &session,
        "update_task",
        json!({"id": design_id, "status": "completed"}),
    )
    .await;
    assert_eq!(done["unblocked"], json!([build_id]));
    let (code, message) = refused(
        &session,
        "update_task",
        json!({"id": design_id, "status": "pending"}),
    )
    .await;
    assert_eq!(code, "INVALID_REQUEST");
    assert_eq!(message, "Invalid status transition: completed -> pending");
    let now_ready = ok(
        &session,
        "list_tasks",
        json!({"team": "alpha", "status": "pending"}),
    )
    .await;
    assert_eq!(now_ready["tasks"][0]["ready"], true);

    let sent = ok(
        &session,
        "send_message",
        json!({"team": "alpha", "from": "lead", "to": "b", "type": "task_assignment",
               "text": "Build is yours"}),
    )
    .await;
    assert_eq!(sent["recipients"], json!(["b"]));
    let everyone = ok(
        &session,
        "send_message",
        json!({"team": "alpha", "from": "lead", "text": "Stand-up"}),
    )
    .await;
    assert_eq!(everyone["recipients"], json!(["b", "c"]));
    let read = ok(
        &session,
        "read_messages",
        json!({"team": "alpha", "agent": "b"}),
    )
    .await;
    let kinds: Vec<&str> = read["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["task_assignment", "plain"]);
    let again = ok(
        &session,
        "read_messages",
        json!({"team": "alpha", "agent": "b", "unread": true}),
    )
    .await;
    assert_eq!(again["messages"], json!([]), "reading marked them read");

    let (code, message) = refused(
        &session,
        "send_message",
        json!({"team": "alpha", "from": "lead", "to": "zed", "text": "hi"}),
    )
    .await;
    assert_eq!(code, "INVALID_REQUEST");
    assert_eq!(
        message,
        "Recipient \"zed\" is not a member of team \"alpha\""
    );
    let (code, message) = refused(&session, "list_tasks", json!({"status": "done"})).await;
    assert_eq!(code, "INVALID_REQUEST");
    assert!(
        message.contains("pending, in_progress or completed"),
        "{message}"
    );
    let (code, _) = refused(
        &session,
        "create_task",
        json!({"team": "alpha", "title": "x", "priority": "urgent"}),
    )
    .await;
    assert_eq!(code, "INVALID_REQUEST");
    let (code, message) = refused(
        &session,
        "create_task",
        json!({"team": "alpha", "title": "x", "dependencies": ["1-00000000"]}),
    )
    .await;
    assert_eq!(code, "INVALID_REQUEST");
    assert_eq!(message, "Dependency task 1-00000000 does not exist");
    let (code, _) = refused(&session, "list_tasks", json!({"team": "nope"})).await;
    assert_eq!(code, "NOT_FOUND");
    let (code, _) = refused(
        &session,
        "claim_task",
        json!({"id": "1-deadbeef", "agent": "b"}),
    )
    .await;
    assert_eq!(code, "NOT_FOUND");
    let (code, _) = refused(&session, "update_task", json!({"id": build_id})).await;
    assert_eq!(code, "INVALID_REQUEST");
    session.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn an_elicitation_schema_becomes_the_form_and_its_answer_comes_back_as_content() {
    let workspace = tempfile::tempdir().unwrap();
    let (session, _) = connect(workspace.path()).await;
    let requested = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Release name", "minLength": 3},
            "build": {"type": "integer", "minimum": 1},
            "channels": {"type": "array", "items": {"type": "string", "enum": ["beta", "stable"]}},
            "notify": {"type": "boolean", "default": true}
        },
        "required": ["name", "channels"]
    });
    let handle = session
        .send_cancellable_request(
            ask_request(json!({"title": "Release?", "content": "c", "requestedSchema": requested})),
            PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    let id = question_id(workspace.path()).await;
    let stored_form = stored(workspace.path())[0]["feedback_schema"].clone();
    assert_eq!(stored_form["type"], "form", "{stored_form}");
    let channels = stored_form["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|field| field["name"] == "channels")
        .unwrap();
    assert_eq!(channels["multiple"], true);

    // An answer the schema refuses is refused field by field.
    let short = switchboard(
        workspace.path(),
        &[
            "answer",
            &id,
            "--values",
            r#"{"name": "v1", "channels": ["beta"]}"#,
        ],
    );
    assert_eq!(short.status.code(), Some(2));
    let said = String::from_utf8_lossy(&short.stderr);
    assert!(said.contains("must be at least 3 characters"), "{said}");

    let values =
        json!({"name": "v1.2", "build": 7, "channels": ["beta", "stable"], "notify": false});
    ok_stdout(&switchboard(
        workspace.path(),
        &["answer", &id, "--values", &values.to_string()],
    ));
    let ServerResult::CallToolResult(result) = handle.await_response().await.unwrap() else {
        panic!("not a tool result");
    };
    let answer = result.structured_content.unwrap();
    assert_eq!(answer["action"], "accept");
    assert_eq!(answer["content"], values, "elicitation's shape");
    assert_eq!(answer["response"], values, "visual-delivery's shape");

    // Declined: elicitation's `decline`, no content.
    let handle = session
        .send_cancellable_request(
            ask_request(json!({"title": "Again?", "content": "c",
                               "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}})),
            PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    let second = question_titled(workspace.path(), Some("Again?")).await;
    ok_stdout(&switchboard(
        workspace.path(),
        &["answer", &second, "--decline"],
    ));
    let ServerResult::CallToolResult(result) = handle.await_response().await.unwrap() else {
        panic!("not a tool result");
    };
    let answer = result.structured_content.unwrap();
    assert_eq!(
        (answer["status"].as_str(), answer["action"].as_str()),
        (Some("declined"), Some("decline"))
    );
    assert!(answer.get("content").is_none());

    let (code, message) = refused(
        &session,
        "ask",
        json!({"title": "t", "content": "c", "requestedSchema": {"type": "object",
               "properties": {"x": {"type": "object"}}}}),
    )
    .await;
    assert_eq!(code, "INVALID_REQUEST");
    assert!(
        message.starts_with("requestedSchema: x: type \"object\""),
        "{message}"
    );
    let (code, message) = refused(&session, "ask", json!({"title": "t", "content": "c"})).await;
    assert_eq!(code, "INVALID_REQUEST");
    assert!(message.contains("exactly one of schema"), "{message}");
    assert!(
        !message.contains("  "),
        "one space between words: {message:?}"
    );
    session.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn install_writes_an_entry_that_starts_the_server_and_keeps_the_rest() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path();
    std::fs::create_dir_all(root.join(".vscode")).unwrap();
    let mine = "{\n  // shared with the team\n  \"servers\": {\n    \"docs\": {\"type\": \"http\", \"url\": \"https://example.com/mcp\"}\n  }\n}\n";
    std::fs::write(root.join(".vscode/mcp.json"), mine).unwrap();
    let printed = ok_stdout(&switchboard(root, &["mcp", "install", "vscode"]));
    assert!(printed.contains("\"${workspaceFolder}\""), "{printed}");
    assert_eq!(
        std::fs::read_to_string(root.join(".vscode/mcp.json")).unwrap(),
        mine,
        "printing writes nothing"
    );
    let said = ok_stdout(&switchboard(root, &["mcp", "install", "vscode", "--write"]));
    assert!(said.starts_with("updated "), "{said}");
    let edited = std::fs::read_to_string(root.join(".vscode/mcp.json")).unwrap();
    assert!(edited.contains("// shared with the team"), "{edited}");
    assert!(
        edited.contains("\"docs\": {\"type\": \"http\", \"url\": \"https://example.com/mcp\"}"),
        "{edited}"
    );
    let again = ok_stdout(&switchboard(root, &["mcp", "install", "vscode", "--write"]));
    assert!(again.ends_with("already starts switchboard mcp"), "{again}");

    // Claude Code's entry, started as Claude Code starts it (in the
    // project folder), is a working server.
    ok_stdout(&switchboard(
        root,
        &["mcp", "install", "claude-code", "--write"],
    ));
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join(".mcp.json")).unwrap()).unwrap();
    let entry = &config["mcpServers"]["switchboard"];
    assert_eq!(entry["command"], "switchboard");
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"));
    command.current_dir(root);
    for arg in entry["args"].as_array().unwrap() {
        command.arg(arg.as_str().unwrap());
    }
    let session = Client::default()
        .serve(TokioChildProcess::new(command).unwrap())
        .await
        .unwrap();
    let delivered = ok(
        &session,
        "deliver",
        json!({"title": "From Claude Code", "content": "hi"}),
    )
    .await;
    assert!(delivered["id"].as_str().unwrap().starts_with("d_"));
    assert_eq!(
        stored(root)[0]["title"],
        "From Claude Code",
        "in this project's inbox"
    );
    session.cancel().await.unwrap();

    // Gemini CLI's project settings keep the user's own, and its entry
    // starts the server the same way (in the project folder).
    std::fs::create_dir_all(root.join(".gemini")).unwrap();
    let settings = "{\n  \"theme\": \"GitHub\", // mine\n  \"mcpServers\": {}\n}\n";
    std::fs::write(root.join(".gemini/settings.json"), settings).unwrap();
    ok_stdout(&switchboard(root, &["mcp", "install", "gemini", "--write"]));
    let edited = std::fs::read_to_string(root.join(".gemini/settings.json")).unwrap();
    assert!(
        edited.contains("\"theme\": \"GitHub\", // mine"),
        "{edited}"
    );
    let config: Value = serde_json::from_str(&edited.replace("// mine", "")).unwrap();
    assert_eq!(
        config["mcpServers"]["switchboard"],
        json!({"command": "switchboard", "args": ["mcp"]})
    );

    let broken = "{ not json";
    std::fs::create_dir_all(root.join(".cursor")).unwrap();
    std::fs::write(root.join(".cursor/mcp.json"), broken).unwrap();
    let refused = switchboard(root, &["mcp", "install", "cursor", "--write"]);
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("was left as it is"), "{said}");
    assert_eq!(
        std::fs::read_to_string(root.join(".cursor/mcp.json")).unwrap(),
        broken
    );
}

/// A client that offers one root, as VS Code or Claude Code do.
#[derive(Clone)]
struct Rooted {
    uri: String,
}

#[allow(deprecated)] // Roots: deprecated by the next protocol revision, offered by clients today.
impl ClientHandler for Rooted {
    async fn list_roots(
        &self,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ListRootsResult, rmcp::ErrorData> {
        Ok(rmcp::model::ListRootsResult::new(vec![
            rmcp::model::Root::new("https://example.com/not-a-folder"),
            rmcp::model::Root::new(self.uri.clone()),
        ]))
    }

    fn get_info(&self) -> rmcp::model::ClientConfig {
        rmcp::model::ClientConfig::new(
            rmcp::model::ClientCapabilities::builder()
                .enable_roots()
                .build(),
            rmcp::model::Implementation::new("rooted", "1"),
        )
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_workspace_the_clients_root_is_the_workspace() {
    let started_in = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let spaced = project.path().join("my project");
    std::fs::create_dir(&spaced).unwrap();
    let uri = format!("file://{}", spaced.display()).replace(' ', "%20");
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"));
    command.current_dir(started_in.path()).arg("mcp");
    let session = Rooted { uri }
        .serve(TokioChildProcess::new(command).unwrap())
        .await
        .unwrap();
    let result = session
        .call_tool(
            CallToolRequestParams::new("deliver").with_arguments(arguments(
                json!({"title": "Where am I?", "content": "In the root."}),
            )),
        )
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    assert_eq!(stored(&spaced)[0]["title"], "Where am I?");
    assert!(
        !started_in.path().join(".visual-delivery").exists(),
        "nothing lands in the folder it was started in"
    );
    session.cancel().await.unwrap();

    // Named with -C, the workspace stays put whatever the roots say.
    let named = tempfile::tempdir().unwrap();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"));
    command.arg("-C").arg(named.path()).arg("mcp");
    let session = Rooted {
        uri: format!("file://{}", spaced.display()).replace(' ', "%20"),
    }
    .serve(TokioChildProcess::new(command).unwrap())
    .await
    .unwrap();
    session
        .call_tool(
            CallToolRequestParams::new("deliver")
                .with_arguments(arguments(json!({"title": "Named", "content": "Here."}))),
        )
        .await
        .unwrap();
    assert_eq!(stored(named.path())[0]["title"], "Named");
    assert_eq!(stored(&spaced).len(), 1);
    session.cancel().await.unwrap();
}

/// A client that keeps the resource updates it is told of.
#[derive(Clone, Default)]
struct Subscriber {
    updated: Arc<std::sync::Mutex<Vec<String>>>,
    notify: Arc<tokio::sync::Notify>,
}

impl ClientHandler for Subscriber {
    async fn on_resource_updated(
        &self,
        params: rmcp::model::ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.updated.lock().unwrap().push(params.uri);
        self.notify.notify_waiters();
    }
}

impl Subscriber {
    /// Waits until `uri` was announced `times` times.
    async fn announced(&self, uri: &str, times: usize) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            let notified = self.notify.notified();
            let count = self
                .updated
                .lock()
                .unwrap()
                .iter()
                .filter(|seen| *seen == uri)
                .count();
            if count >= times {
                return;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{uri} never announced"
            );
            let _ = tokio::time::timeout(Duration::from_millis(200), notified).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
#[allow(deprecated)] // resources/subscribe: what clients speak today.
async fn deliveries_and_learnings_are_resources_and_subscribers_hear_of_changes() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"));
    command.arg("-C").arg(root).arg("mcp");
    let client = Subscriber::default();
    let session = client
        .clone()
        .serve(TokioChildProcess::new(command).unwrap())
        .await
        .unwrap();
    let caps = session
        .peer_info()
        .unwrap()
        .capabilities
        .resources
        .clone()
        .unwrap();
    assert_eq!(caps.subscribe, Some(true));

    let question = ok(
        &session,
        "deliver",
        json!({"title": "Pick a name", "content": "For the crate.", "mode": "interactive",
               "schema": {"type": "select", "options": ["alpha", "beta"]}}),
    )
    .await;
    let id = question["id"].as_str().unwrap().to_owned();
    let other = ok(
        &session,
        "deliver",
        json!({"title": "Other", "content": "x"}),
    )
    .await;
    ok(
        &session,
        "add_learning",
        json!({"category": "naming", "title": "Short names", "body": "Keep crate names short."}),
    )
    .await;
    let listed = session.list_all_resources().await.unwrap();
    let uris: Vec<&str> = listed
        .iter()
        .map(|resource| resource.uri.as_str())
        .collect();
    let delivery_uri = format!("switchboard://delivery/{id}");
    let learnings_uri = "switchboard://learnings/.naide/learnings/naming.md".to_owned();
    assert!(uris.contains(&delivery_uri.as_str()), "{uris:?}");
    assert!(uris.contains(&learnings_uri.as_str()), "{uris:?}");

    let read = session
        .read_resource(rmcp::model::ReadResourceRequestParams::new(
            delivery_uri.clone(),
        ))
        .await
        .unwrap();
    let rmcp::model::ResourceContents::TextResourceContents {
        text, mime_type, ..
    } = &read.contents[0]
    else {
        panic!("text");
    };
    assert_eq!(mime_type.as_deref(), Some("application/json"));
    let shown: Value = serde_json::from_str(text).unwrap();
    assert_eq!(shown["delivery"]["title"], "Pick a name");
    assert_eq!(shown["feedback"], json!([]));

    session
        .subscribe(rmcp::model::SubscribeRequestParams::new(
            delivery_uri.clone(),
        ))
        .await
        .unwrap();
    session
        .subscribe(rmcp::model::SubscribeRequestParams::new(
            learnings_uri.clone(),
        ))
        .await
        .unwrap();
    // The developer answers from another process: the delivery is announced.
    ok_stdout(&switchboard(root, &["answer", &id, "--value", "beta"]));
    client.announced(&delivery_uri, 1).await;
    let read = session
        .read_resource(rmcp::model::ReadResourceRequestParams::new(
            delivery_uri.clone(),
        ))
        .await
        .unwrap();
    let rmcp::model::ResourceContents::TextResourceContents { text, .. } = &read.contents[0] else {
        panic!("text");
    };
    assert!(text.contains("\"beta\""), "the answer is in it now: {text}");
    // A learning added to the file: the file is announced.
    ok_stdout(&switchboard(
        root,
        &[
            "learn",
            "--category",
            "naming",
            "--title",
            "No abbreviations",
            "--body",
            "Spell it out.",
        ],
    ));
    client.announced(&learnings_uri, 1).await;
    // Another delivery, or a refused second answer, changes
    // nothing the client reads: no announcement. (One more learning after
    // them is announced; changes are handled in order, so by then any
    // announcement they caused would have arrived.)
    assert!(other["id"].is_string());
    ok(
        &session,
        "deliver",
        json!({"title": "Yet another", "content": "y"}),
    )
    .await;
    let second = switchboard(root, &["answer", &id, "--value", "alpha"]);
    assert_eq!(second.status.code(), Some(4), "ALREADY_RESPONDED");
    ok_stdout(&switchboard(
        root,
        &[
            "learn",
            "--category",
            "naming",
            "--title",
            "Verbs for commands",
            "--body",
            "run, not runner.",
        ],
    ));
    client.announced(&learnings_uri, 2).await;
    let told = client.updated.lock().unwrap().clone();
    assert_eq!(
        told.iter().filter(|uri| **uri == delivery_uri).count(),
        1,
        "announced once per change of its text: {told:?}"
    );

    let missing = session
        .read_resource(rmcp::model::ReadResourceRequestParams::new(
            "switchboard://delivery/d_1_404",
        ))
        .await;
    assert!(missing.is_err(), "{missing:?}");
    let outside = session
        .read_resource(rmcp::model::ReadResourceRequestParams::new(
            "switchboard://learnings/../../etc/passwd",
        ))
        .await;
    assert!(outside.is_err(), "{outside:?}");
    let refused = session
        .subscribe(rmcp::model::SubscribeRequestParams::new(
            "switchboard://nothing",
        ))
        .await;
    assert!(refused.is_err());
    session.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_drives_a_program_session_with_server_side_waits() {
    let workspace = tempfile::tempdir().unwrap();
    let (session, client) = connect(workspace.path()).await;
    let started = ok(
        &session,
        "session_start",
        json!({"program": "python3", "args": ["-i", "-q"], "name": "py", "env": ["SB_MCP=1"]}),
    )
    .await;
    assert_eq!(started["state"], "running");
    assert_eq!(started["command"], "python3 -i -q");
    let prompt = ok(
        &session,
        "session_wait",
        json!({"session": "py", "for": "prompt"}),
    )
    .await;
    assert_eq!(prompt["outcome"], "prompt");
    assert_eq!(prompt["prompt"], ">>>");
    ok(
        &session,
        "session_send",
        json!({"session": "py", "text": "import os, time; time.sleep(2.2); print('slept', os.environ['SB_MCP'])", "line": true}),
    )
    .await;
    // A wait longer than the client's patience: progress keeps it alive.
    let options =
        PeerRequestOptions::with_timeout(Duration::from_millis(1_500)).reset_timeout_on_progress();
    let handle = session
        .send_cancellable_request(
            ClientRequest::CallToolRequest(Request::new(
                CallToolRequestParams::new("session_expect").with_arguments(arguments(
                    json!({"session": "py", "patterns": ["never here", "slept (\\d)"]}),
                )),
            )),
            options,
        )
        .await
        .unwrap();
    let ServerResult::CallToolResult(result) = handle.await_response().await.unwrap() else {
        panic!("not a tool result");
    };
    let matched = result.structured_content.unwrap();
    assert_eq!(matched["outcome"], "matched", "{matched}");
    assert_eq!(matched["index"], 1);
    assert_eq!(matched["matched"], "slept 1");
    assert!(client.progress_count() >= 2, "progress while waiting");
    let read = ok(
        &session,
        "session_read",
        json!({"session": "py", "screen": true}),
    )
    .await;
    assert!(read["text"].as_str().unwrap().contains("slept 1"));
    assert_eq!(read["session"]["name"], "py");
    let listed = ok(&session, "session_list", json!({})).await;
    assert_eq!(listed["sessions"].as_array().unwrap().len(), 1);
    let timeout = ok(
        &session,
        "session_expect",
        json!({"session": "py", "patterns": ["nothing"], "timeout": 0.2}),
    )
    .await;
    assert_eq!(timeout["outcome"], "timeout");
    let (code, _) = refused(
        &session,
        "session_send",
        json!({"session": "nobody", "text": "x"}),
    )
    .await;
    assert_eq!(code, "NOT_FOUND");
    let (code, _) = refused(
        &session,
        "session_send",
        json!({"session": "py", "key": "hyper"}),
    )
    .await;
    assert_eq!(code, "INVALID_REQUEST");
    let killed = ok(&session, "session_kill", json!({"session": "py"})).await;
    assert_eq!(killed["state"], "killed");
    session.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_investigates_fuzzes_tests_and_runs_a_chain() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path();
    let toy = root.join("toy");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/fixtures/toy"),
        &toy,
    )
    .unwrap();
    let toy = toy.display().to_string();
    let (session, client) = connect(root).await;
    // An investigation, its steps told as progress.
    let options =
        PeerRequestOptions::with_timeout(Duration::from_secs(60)).reset_timeout_on_progress();
    let handle = session
        .send_cancellable_request(
            ClientRequest::CallToolRequest(Request::new(
                CallToolRequestParams::new("investigate")
                    .with_arguments(arguments(json!({"program": toy, "timeout": 2}))),
            )),
            options,
        )
        .await
        .unwrap();
    let ServerResult::CallToolResult(result) = handle.await_response().await.unwrap() else {
        panic!("not a tool result");
    };
    let report = result.structured_content.unwrap();
    let prompts: Vec<&str> = report["states"]
        .as_array()
        .unwrap()
        .iter()
        .map(|state| state["prompt"].as_str().unwrap())
        .collect();
    assert_eq!(prompts, ["toy>", "toy(config)#"], "{report:#}");
    assert!(!root.join("WIPED").exists(), "nothing destructive was sent");
    assert!(
        client.progress_count() >= 5,
        "each step is a progress notification"
    );
    assert!(
        Path::new(report["report_path"].as_str().unwrap())
            .starts_with(root.join(".claude-control/investigations"))
    );
    // The same through the schema-checking client.
    let checked = ok(
        &session,
        "investigate",
        json!({"program": toy, "max_depth": 1}),
    )
    .await;
    assert_eq!(checked["states"].as_array().unwrap().len(), 2);
    let probed = ok(&session, "probe", json!({"program": toy})).await;
    assert_eq!(probed["interactive"], true);
    // Fuzzing: the crash, its input and its tape.
    let fuzzed = ok(
        &session,
        "fuzz",
        json!({"program": toy, "seed": 3, "max_inputs": 12}),
    )
    .await;
    let crash = fuzzed["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|finding| finding["type"] == "crash")
        .unwrap();
    assert_eq!(crash["signal"], 11);
    assert!(root.join(crash["tape"].as_str().unwrap()).is_file());
    let (code, message) = refused(&session, "fuzz", json!({"program": "bash"})).await;
    assert_eq!(code, "INVALID_REQUEST", "{message}");
    // The seven checks.
    let tested = ok(
        &session,
        "test_program",
        json!({"program": toy, "seed": 3, "max_inputs": 12}),
    )
    .await;
    assert_eq!(tested["results"].as_array().unwrap().len(), 7);
    assert_eq!(tested["failed"], 1, "{tested:#}");
    // A chain in one shell.
    std::fs::create_dir_all(root.join(".switchboard/chains")).unwrap();
    std::fs::write(
        root.join(".switchboard/chains/two.json"),
        r#"{"commands": [{"sequence_order": 1, "command": "X=7"},
                         {"sequence_order": 2, "command": "echo x=$X"}]}"#,
    )
    .unwrap();
    let ran = ok(&session, "run_chain", json!({"name": "two"})).await;
    assert_eq!(ran["passed"], true, "{ran:#}");
    assert!(ran["steps"][1]["output"].as_str().unwrap().contains("x=7"));
    let (code, _) = refused(&session, "run_chain", json!({"name": "nope"})).await;
    assert_eq!(code, "NOT_FOUND");
    session.cancel().await.unwrap();
}

/// Issue 30: the developer takes over a session an agent drives (through
/// the host's client, as the window does), types `cd DIR && ls` and hands
/// it back: the agent's next `session_expect` carries what was typed and
/// what it answered, once; `session_list` says who held it meanwhile.
#[tokio::test(flavor = "multi_thread")]
async fn an_agent_hears_what_the_developer_did_with_its_session() {
    use switchboard_model::program::Controller;
    use switchboard_session::protocol::{Input, Pattern};
    let workspace = tempfile::tempdir().unwrap();
    let dir = workspace.path().join("looked-at");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("answered-here"), "").unwrap();
    let (session, _) = connect(workspace.path()).await;
    ok(
        &session,
        "session_start",
        json!({"program": "bash", "args": ["--norc", "--noprofile", "-i"], "name": "sh",
               "env": ["PS1=$ "]}),
    )
    .await;
    let prompt = json!({"session": "sh", "patterns": ["$ "], "exact": true});
    ok(&session, "session_expect", prompt.clone()).await;

    // The window's side: the same host, through its client.
    let window = switchboard_session::Client::at(
        switchboard_session::runtime::RuntimeDir::at(workspace.path().join(".session-host"))
            .unwrap(),
        Path::new(env!("CARGO_BIN_EXE_switchboard")).with_file_name("switchboard-session-host"),
    )
    .without_starting();
    window.control("sh", Controller::User).await.unwrap();
    let listed = ok(&session, "session_list", json!({})).await;
    assert_eq!(listed["sessions"][0]["controller"], "user");
    let typed = format!("cd {} && ls", dir.display());
    window
        .send_as("sh", Input::Line(typed.clone()), false, true)
        .await
        .unwrap();
    window
        .expect(
            "sh",
            vec![Pattern::Exact("answered-here".into())],
            10_000,
            |_| {},
        )
        .await
        .unwrap();
    window.control("sh", Controller::Agent).await.unwrap();

    let seen = ok(&session, "session_expect", prompt).await;
    let note = &seen["handed_back"];
    assert_eq!(note["typed"], json!([typed]), "{seen}");
    assert!(
        note["output"].as_str().unwrap().contains("answered-here"),
        "what it answered: {note}"
    );
    assert!(note["cursor"].as_u64().is_some() && note["taken_at"].is_string());
    let again = ok(&session, "session_read", json!({"session": "sh"})).await;
    assert!(again.get("handed_back").is_none(), "told once: {again}");
    ok(
        &session,
        "session_kill",
        json!({"session": "sh", "signal": "KILL"}),
    )
    .await;
    session.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_connected_client_is_shown_as_an_agent_until_it_leaves() {
    let workspace = tempfile::tempdir().unwrap();
    let (session, _) = connect(workspace.path()).await;
    session.list_all_tools().await.unwrap();
    let agents = |root: &Path| -> Vec<Value> {
        let output = crate::switchboard(root, &["agents", "--json"]);
        serde_json::from_str(&crate::ok_stdout(&output)).unwrap()
    };
    // Recorded once the handshake is done, off the protocol's loop.
    let root = workspace.path().to_owned();
    let listed = crate::when_stored(workspace.path(), || {
        let listed = agents(&root);
        (!listed.is_empty()).then_some(listed)
    });
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["record"]["agent"], "mcp");
    assert_eq!(listed[0]["shown"], "working");
    let name = listed[0]["record"]["name"].as_str().unwrap_or_default();
    assert!(!name.is_empty(), "the client's name: {listed:?}");
    // Its process is the client's (this test's).
    assert_eq!(listed[0]["record"]["process"]["pid"], std::process::id());
    session.cancel().await.unwrap();
    crate::when_stored(workspace.path(), || {
        let listed = agents(&root);
        (listed[0]["shown"] == "gone").then_some(())
    });
}

/// One line in, one line out, to a `switchboard mcp` on stdio, in the
/// stateless revision (no `initialize`; each request carries `_meta`).
pub(crate) struct Stateless {
    child: std::process::Child,
    lines: std::io::Lines<std::io::BufReader<std::process::ChildStdout>>,
    next: u64,
}

impl Stateless {
    /// `switchboard mcp` on `workspace`, with a session host, a config
    /// folder (`.config`) and ClaudeControl's folders of the workspace's
    /// own.
    pub(crate) fn start(workspace: &Path) -> Self {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .arg("-C")
            .arg(workspace)
            .arg("mcp")
            .env("SWITCHBOARD_RUNTIME_DIR", workspace.join(".session-host"))
            .env("SWITCHBOARD_CONFIG_DIR", workspace.join(".config"))
            .env("SWITCHBOARD_SESSION_HOST_LINGER_SECS", "1")
            .env("CLAUDE_CONTROL_HOME", workspace.join(".claude-control"))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        Self {
            child,
            lines: std::io::BufRead::lines(std::io::BufReader::new(stdout)),
            next: 0,
        }
    }

    /// The answer to `method` with `params`, sent as a stateless request
    /// of a client that takes tasks.
    pub(crate) fn call(&mut self, method: &str, mut params: Value) -> Value {
        use std::io::Write;
        self.next += 1;
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
            "io.modelcontextprotocol/clientInfo": {"name": "stateless-stdio", "version": "1"},
        });
        let request =
            json!({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params});
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{request}").unwrap();
        stdin.flush().unwrap();
        loop {
            let line = self.lines.next().unwrap().unwrap();
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == self.next {
                return message;
            }
        }
    }
}

impl Drop for Stateless {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_stateless_revision_over_stdio_discovers_serves_tools_resources_and_tasks() {
    let workspace = tempfile::tempdir().unwrap();
    let mut server = Stateless::start(workspace.path());
    let discovered = server.call("server/discover", json!({}));
    let versions = discovered["result"]["supportedVersions"].to_string();
    assert!(
        versions.contains("2025-11-25") && versions.contains("2026-07-28"),
        "{discovered}"
    );
    assert!(
        discovered["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/tasks"]
            .is_object()
    );

    let tools = server.call("tools/list", json!({}));
    assert_eq!(
        tools["result"]["tools"].as_array().map(Vec::len),
        Some(TOOLS.len())
    );
    let delivered = server.call(
        "tools/call",
        json!({"name": "deliver", "arguments": {"title": "Stateless", "content": "body"}}),
    );
    assert_eq!(delivered["result"]["isError"], false, "{delivered}");
    let resources = server.call("resources/list", json!({}));
    assert!(
        resources["result"]["resources"]
            .to_string()
            .contains("switchboard://delivery/"),
        "{resources}"
    );

    let asked = server.call("tools/call", json!({"name": "ask", "arguments": {"title": "Go?", "content": "c", "schema": {"type": "confirm"}}}));
    assert_eq!(asked["result"]["resultType"], "task", "{asked}");
    let task = asked["result"]["taskId"].as_str().unwrap().to_owned();
    let question = crate::stored(workspace.path())
        .into_iter()
        .find(|delivery| delivery["title"] == "Go?")
        .unwrap();
    crate::ok_stdout(&crate::switchboard(
        workspace.path(),
        &[
            "answer",
            question["id"].as_str().unwrap(),
            "--value",
            "true",
        ],
    ));
    let done = server.call("tasks/get", json!({"taskId": task}));
    assert_eq!(done["result"]["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["result"]["structuredContent"]["response"],
        json!({"value": true})
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_starts_a_helper_agent_in_its_own_worktree_and_follows_it() {
    use switchboard_model_server::{
        anthropic::{MessagesServer, Turn},
        claude_code::{self, ClaudeCode},
    };
    let server = MessagesServer::start(vec![Turn::text("Looked; nothing to do.")]);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    std::fs::create_dir_all(&root).unwrap();
    let root = root.canonicalize().unwrap();
    for args in [
        &["init", "-q", "-b", "main"][..],
        &[
            "-c",
            "user.name=D",
            "-c",
            "user.email=d@e.f",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "First",
        ],
    ] {
        assert!(
            std::process::Command::new("git")
                .arg("-C")
                .arg(&root)
                .args(args)
                .status()
                .unwrap()
                .success()
        );
    }
    let claude = ClaudeCode::configure(&dir.path().join("claude"), &root);
    let mut command = server_command(&root);
    command
        .env(
            "PATH",
            format!(
                "{}:{}",
                claude_code::binary().parent().unwrap().display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .envs(claude.environment(&server.url()))
        .env("SWITCHBOARD_CONFIG_DIR", dir.path().join("config"));
    let session = Client::default()
        .serve(TokioChildProcess::new(command).unwrap())
        .await
        .unwrap();

    let (code, message) = refused(
        &session,
        "agent_start",
        json!({"agent": "claude-code", "prompt": "Look", "name": "../../escape"}),
    )
    .await;
    assert_eq!(code, "INVALID_REQUEST", "{message}");

    let started = ok(
        &session,
        "agent_start",
        json!({"agent": "claude-code", "prompt": "Look around", "name": "helper", "worktree": true}),
    )
    .await;
    assert_eq!(started["branch"], "switchboard/helper");
    assert!(root.join(".claude/worktrees/helper").is_dir());
    let finished = crate::when_stored_within(&root, Duration::from_secs(60), || {
        let listed = std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    tokio::runtime::Runtime::new()
                        .unwrap()
                        .block_on(async { call(&session, "agent_list", json!({})).await })
                })
                .join()
                .unwrap()
        });
        let agents = listed.structured_content?["agents"].clone();
        agents
            .as_array()?
            .iter()
            .find(|agent| agent["name"] == "helper" && agent["state"] == "turn finished")
            .cloned()
    });
    assert_eq!(finished["agent"], "claude-code");
    ok(
        &session,
        "session_kill",
        json!({"session": started["session"]}),
    )
    .await;
    session.cancel().await.unwrap();
}
