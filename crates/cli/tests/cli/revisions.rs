//! The 2026-07-28 revision as rmcp's own client speaks it (`server/discover`,
//! no `initialize`, per-request metadata), against the real `switchboard
//! mcp` over stdio: every tool listed, tools called, resources listed and
//! read, a resource's updates on a `subscriptions/listen` stream, progress
//! notifications of a long wait, a plain `ask` answered from another
//! process, and — for a client that takes tasks — `ask` and a long call as
//! tasks followed with `tasks/get`. (The 2025-11-25 handshake is what the
//! other MCP tests speak.) And the real Claude Code, which speaks
//! 2026-07-28 to a stdio server, asking and getting its answer.

use std::{path::Path, sync::Arc, time::Duration};

use rmcp::{
    ClientHandler, RoleClient,
    model::{
        CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, GetTaskParams,
        Implementation, ProgressNotificationParam, ProtocolVersion, ServerNotification,
        SubscriptionFilter, TaskPayload,
    },
    service::{ClientLifecycleMode, ClientServiceExt, NotificationContext, RunningService},
    transport::TokioChildProcess,
};
use serde_json::{Value, json};

use crate::{ok_stdout, stored, switchboard};

/// A 2026-07-28 client that counts progress notifications, taking tasks
/// when told to.
#[derive(Clone, Default)]
struct Modern {
    tasks: bool,
    progress: Arc<tokio::sync::watch::Sender<usize>>,
}

impl ClientHandler for Modern {
    async fn on_progress(
        &self,
        _params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.send_modify(|seen| *seen += 1);
    }

    fn get_info(&self) -> ClientConfig {
        let capabilities = if self.tasks {
            ClientCapabilities::builder().enable_tasks().build()
        } else {
            ClientCapabilities::default()
        };
        ClientConfig::new(capabilities, Implementation::new("modern-test", "1"))
    }
}

async fn discover(workspace: &Path, client: Modern) -> RunningService<RoleClient, Modern> {
    let session = client
        .serve_with_lifecycle(
            TokioChildProcess::new(crate::mcp::server_command(workspace)).unwrap(),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap();
    assert_eq!(
        session.peer_info().unwrap().protocol_version,
        ProtocolVersion::V_2026_07_28,
        "no fallback to the handshake"
    );
    session
}

async fn call(
    session: &RunningService<RoleClient, Modern>,
    tool: &str,
    args: Value,
) -> CallToolResponse {
    let Value::Object(arguments) = args else {
        panic!("arguments must be an object");
    };
    session
        .call_tool_once(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments))
        .await
        .unwrap()
}

async fn done(session: &RunningService<RoleClient, Modern>, tool: &str, args: Value) -> Value {
    match call(session, tool, args).await {
        CallToolResponse::Complete(result) => {
            assert_ne!(result.is_error, Some(true), "{tool}: {result:?}");
            result.structured_content.unwrap()
        }
        other => panic!("{tool} did not complete: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn rmcps_own_client_speaks_2026_07_28_to_every_part_of_the_server() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path();
    let client = Modern::default();
    let session = discover(root, client.clone()).await;

    let tools = session.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), crate::mcp::TOOLS.len());
    let delivered = done(
        &session,
        "deliver",
        json!({"title": "Pick one", "content": "x", "mode": "interactive",
               "schema": {"type": "select", "options": ["a", "b"]}}),
    )
    .await;
    let id = delivered["id"].as_str().unwrap().to_owned();
    let uri = format!("switchboard://delivery/{id}");
    let listed = session.list_all_resources().await.unwrap();
    assert!(listed.iter().any(|resource| resource.uri == uri));
    let read = session
        .read_resource(rmcp::model::ReadResourceRequestParams::new(uri.clone()))
        .await
        .unwrap();
    assert_eq!(read.contents.len(), 1);

    // Updates of a resource on a listen stream.
    let mut listening = session
        .peer()
        .listen(
            SubscriptionFilter::builder()
                .resource_subscription(uri.clone())
                .build(),
        )
        .await
        .unwrap();
    ok_stdout(&switchboard(root, &["answer", &id, "--value", "b"]));
    let heard = tokio::time::timeout(Duration::from_secs(10), listening.next())
        .await
        .expect("an update within 10 s")
        .unwrap()
        .unwrap();
    let ServerNotification::ResourceUpdatedNotification(updated) = heard else {
        panic!("not an update: {heard:?}");
    };
    assert_eq!(updated.params.uri, uri);
    drop(listening);

    // A plain ask waits, beating, and gets the answer given elsewhere.
    let asking = {
        let peer = session.peer().clone();
        tokio::spawn(async move {
            peer.call_tool(
                CallToolRequestParams::new("ask").with_arguments(
                    json!({"title": "Ship it?", "content": "c", "schema": {"type": "confirm"}})
                        .as_object()
                        .cloned()
                        .unwrap(),
                ),
            )
            .await
        })
    };
    let asked_in = root.to_owned();
    let question = tokio::task::spawn_blocking(move || {
        crate::when_stored(&asked_in, || {
            crate::stored_now(&asked_in)?
                .into_iter()
                .find(|delivery| delivery["title"] == "Ship it?")
        })
    })
    .await
    .unwrap();
    let mut beats = client.progress.subscribe();
    tokio::time::timeout(Duration::from_secs(10), beats.wait_for(|seen| *seen >= 2))
        .await
        .expect("progress notifications while it waits")
        .unwrap();
    ok_stdout(&switchboard(
        root,
        &[
            "answer",
            question["id"].as_str().unwrap(),
            "--value",
            "true",
        ],
    ));
    let answered = asking.await.unwrap().unwrap();
    assert_eq!(
        answered.structured_content.unwrap()["response"],
        json!({"value": true})
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_2026_07_28_client_that_takes_tasks_gets_ask_and_long_calls_as_tasks() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path();
    let session = discover(
        root,
        Modern {
            tasks: true,
            ..Modern::default()
        },
    )
    .await;
    let CallToolResponse::Task(asked) = call(
        &session,
        "ask",
        json!({"title": "Go?", "content": "c", "schema": {"type": "confirm"}}),
    )
    .await
    else {
        panic!("ask is a task");
    };
    done(
        &session,
        "session_start",
        json!({"program": "sh", "name": "modern"}),
    )
    .await;
    let CallToolResponse::Task(waiting) = call(
        &session,
        "session_wait",
        json!({"session": "modern", "for": "exit", "timeout": 60}),
    )
    .await
    else {
        panic!("a long wait is a task");
    };
    let question = stored(root)
        .into_iter()
        .find(|delivery| delivery["title"] == "Go?")
        .unwrap();
    ok_stdout(&switchboard(
        root,
        &[
            "answer",
            question["id"].as_str().unwrap(),
            "--value",
            "false",
        ],
    ));
    done(
        &session,
        "session_send",
        json!({"session": "modern", "text": "exit 3", "line": true}),
    )
    .await;
    for (task, check) in [
        (asked.task.task_id, "response"),
        (waiting.task.task_id, "exit"),
    ] {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        let result = loop {
            assert!(
                std::time::Instant::now() < deadline,
                "task {task} never completed"
            );
            let got = session
                .get_task(GetTaskParams::new(task.clone()))
                .await
                .unwrap();
            match got.task.payload {
                TaskPayload::Working => {
                    tokio::time::sleep(Duration::from_millis(
                        got.task.task.poll_interval_ms.unwrap_or(250),
                    ))
                    .await
                }
                TaskPayload::Completed { result } => break result,
                other => panic!("{task}: {other:?}"),
            }
        };
        let content = &result["structuredContent"];
        match check {
            "response" => assert_eq!(content["response"], json!({"value": false})),
            _ => assert_eq!(content["exit_code"], 3, "{content:#}"),
        }
    }
}

/// The real Claude Code (2.1.332) speaks 2026-07-28 to `switchboard mcp`
/// over stdio: `server/discover`, then stateless calls. It does not take
/// tasks there, so its `ask` waits as a plain call and the developer's
/// answer comes back as its tool result. (A wrapper records what it sends
/// on the server's stdin.)
#[test]
fn claude_code_speaks_2026_07_28_and_gets_its_answer_from_the_window() {
    use switchboard_model_server::{
        anthropic::{MessagesServer, Turn},
        claude_code::ClaudeCode,
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("project")).unwrap();
    let root = dir.path().join("project").canonicalize().unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_switchboard"))
        .parent()
        .unwrap();
    let sent = dir.path().join("sent.jsonl");
    let server_command = format!(
        "tee -a '{}' | '{}/switchboard' mcp",
        sent.display(),
        bin.display()
    );
    std::fs::write(
        root.join(".mcp.json"),
        json!({"mcpServers": {"switchboard": {"command": "sh", "args": ["-c", server_command]}}})
            .to_string(),
    )
    .unwrap();
    let claude = ClaudeCode::configure(&dir.path().join("claude-config"), &root);
    claude.enable_project_servers(&["switchboard"]);
    let model = MessagesServer::start(vec![
        Turn::tool(
            "mcp__switchboard__ask",
            json!({"title": "Ship it?", "content": "Ready.", "schema": {"type": "confirm"}}),
        ),
        Turn::text("Shipped."),
    ]);
    let answering = {
        let root = root.clone();
        std::thread::spawn(move || {
            let question = crate::when_stored(&root, || {
                crate::stored_now(&root)?
                    .into_iter()
                    .find(|delivery| delivery["title"] == "Ship it?")
            });
            ok_stdout(&switchboard(
                &root,
                &[
                    "answer",
                    question["id"].as_str().unwrap(),
                    "--value",
                    "true",
                ],
            ));
        })
    };
    let output = claude
        .print(&model, "ship it", bin)
        .args(["--allowedTools", "mcp__switchboard__ask"])
        .output()
        .unwrap();
    answering.join().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(result["result"], "Shipped.");
    let tool_result = model.tool_results()[0]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    let answer: Value = serde_json::from_str(&tool_result).unwrap();
    assert_eq!(answer["response"], json!({"value": true}), "{tool_result}");

    let sent: Vec<Value> = std::fs::read_to_string(&sent)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(
        sent[0]["method"], "server/discover",
        "no handshake: {sent:?}"
    );
    let call = sent
        .iter()
        .find(|message| message["method"] == "tools/call")
        .unwrap();
    assert_eq!(
        call["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
}
