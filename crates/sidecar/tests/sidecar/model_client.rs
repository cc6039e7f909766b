//! The model client against a scripted OpenAI-compatible server on
//! loopback: real HTTP, real SSE, replies replayed from a script.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.
#![allow(clippy::disallowed_methods)] // Tests read the files they made.

use std::time::Duration;

use serde_json::{Value, json};
use switchboard_model_server::{Reply, ScriptedServer, text_chunk as delta};
use switchboard_sidecar::model_client::{
    ApiMessage, ClientError, ModelConfig, list_models, stream_chat,
};

fn config(server: &ScriptedServer) -> ModelConfig {
    ModelConfig {
        base_url: server.url(),
        model: "test-model".into(),
        api_key: Some("secret-key".into()),
        first_token_timeout: Duration::from_secs(5),
        idle_timeout: Duration::from_secs(5),
        max_output_bytes: switchboard_sidecar::model_client::DEFAULT_MAX_OUTPUT_BYTES,
        max_tokens: None,
    }
}

fn user(text: &str) -> Vec<ApiMessage> {
    vec![ApiMessage {
        role: "user".into(),
        content: text.into(),
        tool_call_id: None,
        tool_calls: vec![],
    }]
}

/// Runs one completion against `config` that must fail, and returns why.
fn failure(rt: &tokio::runtime::Runtime, config: &ModelConfig) -> ClientError {
    rt.block_on(stream_chat(
        config,
        &user("x"),
        &[],
        |_| {},
        std::future::pending(),
    ))
    .unwrap_err()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn streams_text_deltas_in_order_and_sends_the_request_the_api_expects() {
    let server = ScriptedServer::start(vec![Reply::sse(&[
        &delta("Hel"),
        &delta("lo"),
        &delta(" world"),
        "[DONE]",
    ])]);
    let mut seen = Vec::new();
    let completion = runtime()
        .block_on(stream_chat(
            &config(&server),
            &user("hi"),
            &[],
            |text| seen.push(text.to_owned()),
            std::future::pending(),
        ))
        .unwrap();
    assert_eq!(seen, ["Hel", "lo", " world"]);
    assert_eq!(completion.content, "Hello world");
    assert!(!completion.stopped);

    let request = &server.requests()[0];
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(
        request.header("authorization").as_deref(),
        Some("Bearer secret-key")
    );
    let body: Value = serde_json::from_str(&request.body).unwrap();
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["stream"], true);
    assert_eq!(
        body["messages"][0],
        json!({"role": "user", "content": "hi"})
    );
}

#[test]
fn tool_calls_are_assembled_from_streamed_fragments() {
    let part = |index: u64, id: Option<&str>, name: Option<&str>, arguments: &str| {
        let mut call = json!({"index": index, "function": {"arguments": arguments}});
        if let Some(id) = id {
            call["id"] = id.into();
        }
        if let Some(name) = name {
            call["function"]["name"] = name.into();
        }
        json!({"choices": [{"delta": {"tool_calls": [call]}}]}).to_string()
    };
    let server = ScriptedServer::start(vec![Reply::sse(&[
        &part(
            0,
            Some("call_a"),
            Some("write_file"),
            "{\"path\":\".prompts/",
        ),
        &part(0, None, None, "plan/a.md\",\"content\":\"x\"}"),
        &part(
            1,
            Some("call_b"),
            Some("read_file"),
            "{\"path\":\"README.md\"}",
        ),
        "[DONE]",
    ])]);
    let tools = [
        json!({"type": "function", "function": {"name": "write_file", "parameters": {"type": "object"}}}),
    ];
    let completion = runtime()
        .block_on(stream_chat(
            &config(&server),
            &user("plan"),
            &tools,
            |_| {},
            std::future::pending(),
        ))
        .unwrap();
    assert_eq!(completion.tool_calls.len(), 2);
    assert_eq!(completion.tool_calls[0].id, "call_a");
    assert_eq!(completion.tool_calls[0].function.name, "write_file");
    let arguments: Value =
        serde_json::from_str(&completion.tool_calls[0].function.arguments).unwrap();
    assert_eq!(arguments["path"], ".prompts/plan/a.md");
    assert_eq!(completion.tool_calls[1].function.name, "read_file");
    let body: Value = serde_json::from_str(&server.requests()[0].body).unwrap();
    assert_eq!(
        body["tools"][0]["function"]["name"], "write_file",
        "tools are offered"
    );
}

#[test]
fn each_failure_is_a_clear_error() {
    let rt = runtime();
    let run = |server: &ScriptedServer| failure(&rt, &config(server));
    let unauthorized = ScriptedServer::start(vec![Reply::status(
        401,
        r#"{"error":{"message":"bad key"}}"#,
    )]);
    assert!(matches!(
        run(&unauthorized),
        ClientError::Unauthorized { status: 401 }
    ));
    let unknown = ScriptedServer::start(vec![Reply::status(
        404,
        r#"{"error":{"message":"model \"test-model\" not found"}}"#,
    )]);
    let error = run(&unknown);
    assert!(matches!(error, ClientError::UnknownModel { .. }), "{error}");
    assert!(error.to_string().contains("test-model"));
    let broken = ScriptedServer::start(vec![Reply::status(500, "boom")]);
    assert!(matches!(
        run(&broken),
        ClientError::Http { status: 500, .. }
    ));

    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        port
    };
    let mut unreachable = config(&broken);
    unreachable.base_url = format!("http://127.0.0.1:{closed}");
    let error = failure(&rt, &unreachable);
    assert!(matches!(error, ClientError::Unreachable { .. }), "{error}");
    assert!(
        error.to_string().contains("SWITCHBOARD_MODEL_URL"),
        "the message says what to do"
    );
}

#[test]
fn a_stream_that_never_starts_or_stalls_ends_with_a_timeout() {
    let rt = runtime();
    let silent = ScriptedServer::start(vec![Reply::hang()]);
    let mut quick = config(&silent);
    quick.first_token_timeout = Duration::from_millis(300);
    quick.idle_timeout = Duration::from_millis(300);
    let error = failure(&rt, &quick);
    assert!(matches!(error, ClientError::NoFirstToken(_)), "{error}");

    let stalling = ScriptedServer::start(vec![Reply::sse_then_hang(&[&delta("partial")])]);
    let mut quick = config(&stalling);
    quick.idle_timeout = Duration::from_millis(300);
    let error = failure(&rt, &quick);
    assert!(matches!(error, ClientError::Stalled(_)), "{error}");
}

#[test]
fn stop_ends_the_stream_at_once_keeping_what_arrived() {
    let slow: Vec<String> = (0..50).map(|n| delta(&format!("w{n} "))).collect();
    let slow: Vec<&str> = slow.iter().map(String::as_str).collect();
    let server = ScriptedServer::start(vec![Reply::sse_slow(&slow, Duration::from_millis(100))]);
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let mut stop_tx = Some(stop_tx);
    let completion = runtime()
        .block_on(stream_chat(
            &config(&server),
            &user("x"),
            &[],
            |_| {
                if let Some(stop) = stop_tx.take() {
                    let _ = stop.send(());
                }
            },
            async {
                let _ = stop_rx.await;
            },
        ))
        .unwrap();
    assert!(completion.stopped);
    assert!(
        completion.content.starts_with("w0 "),
        "{:?}",
        completion.content
    );
    assert!(
        completion.content.len() < 20,
        "stopped after the first words: {:?}",
        completion.content
    );
}

#[test]
fn lists_the_servers_models() {
    let server = ScriptedServer::start(vec![Reply::status(
        200,
        r#"{"object":"list","data":[{"id":"llama3.2"},{"id":"qwen2.5-coder"}]}"#,
    )]);
    let models = runtime().block_on(list_models(&config(&server))).unwrap();
    assert_eq!(models, ["llama3.2", "qwen2.5-coder"]);
    assert_eq!(server.requests()[0].path, "/v1/models");
}

/// One streamed tool-call fragment.
fn call_chunk(index: u64, name: &str, arguments: &str) -> String {
    json!({"choices": [{"delta": {"tool_calls": [
        {"index": index, "id": "c", "function": {"name": name, "arguments": arguments}}
    ]}}]})
    .to_string()
}

/// The limit a hostile stream ran into.
fn over_limit(server: &ScriptedServer, config: &ModelConfig) -> &'static str {
    let _ = server;
    match failure(&runtime(), config) {
        ClientError::OverLimit { what, .. } => what,
        other => panic!("expected a limit, got {other}"),
    }
}

#[test]
fn a_hostile_server_cannot_make_the_client_hold_without_bound() {
    use switchboard_sidecar::model_client::{
        MAX_ARGUMENT_BYTES, MAX_ERROR_BODY_BYTES, MAX_TOOL_CALLS,
    };
    // A tool call index of four billion: refused before anything grows.
    let server = ScriptedServer::start(vec![Reply::sse(&[
        &call_chunk(4_000_000_000, "write_file", "{}"),
        "[DONE]",
    ])]);
    assert_eq!(over_limit(&server, &config(&server)), "tool calls");

    // One call more than allowed.
    let calls: Vec<String> = (0..=MAX_TOOL_CALLS as u64)
        .map(|index| call_chunk(index, "read_file", "{}"))
        .collect();
    let mut chunks: Vec<&str> = calls.iter().map(String::as_str).collect();
    chunks.push("[DONE]");
    let server = ScriptedServer::start(vec![Reply::sse(&chunks)]);
    assert_eq!(over_limit(&server, &config(&server)), "tool calls");

    // Arguments streamed past their bound in many fragments.
    let piece = "a".repeat(64 * 1024);
    let pieces: Vec<String> = (0..=MAX_ARGUMENT_BYTES / piece.len())
        .map(|_| call_chunk(0, "", &piece))
        .collect();
    let mut chunks: Vec<&str> = pieces.iter().map(String::as_str).collect();
    chunks.push("[DONE]");
    let server = ScriptedServer::start(vec![Reply::sse(&chunks)]);
    assert_eq!(over_limit(&server, &config(&server)), "tool call arguments");

    // A turn's text past the configured bound; what fits is still streamed.
    let words: Vec<String> = (0..100).map(|_| delta("0123456789")).collect();
    let mut chunks: Vec<&str> = words.iter().map(String::as_str).collect();
    chunks.push("[DONE]");
    let server = ScriptedServer::start(vec![Reply::sse(&chunks)]);
    let small = ModelConfig {
        max_output_bytes: 500,
        ..config(&server)
    };
    assert_eq!(over_limit(&server, &small), "text");

    // One endless event: refused before it is buffered whole.
    let server = ScriptedServer::start(vec![Reply::raw(&[b'a'; 64 * 1024], 200)]);
    let mut flood = config(&server);
    flood.first_token_timeout = Duration::from_secs(20);
    assert_eq!(over_limit(&server, &flood), "a streamed event");

    // A huge error body is cut, not read whole.
    let huge = "x".repeat(MAX_ERROR_BODY_BYTES * 4);
    let server = ScriptedServer::start(vec![Reply::status(500, &huge)]);
    match failure(&runtime(), &config(&server)) {
        ClientError::Http { status, body } => {
            assert_eq!(status, 500);
            assert!(body.len() < 1_000, "{}", body.len());
        }
        other => panic!("expected HTTP 500, got {other}"),
    }

    // The positive control: the same stream under the bound completes.
    let server = ScriptedServer::start(vec![Reply::sse(&[
        &call_chunk(MAX_TOOL_CALLS as u64 - 1, "read_file", "{\"path\": \"a\"}"),
        &delta("ok"),
        "[DONE]",
    ])]);
    let completion = runtime()
        .block_on(stream_chat(
            &config(&server),
            &user("x"),
            &[],
            |_| {},
            std::future::pending(),
        ))
        .unwrap();
    assert_eq!(completion.tool_calls.len(), 1);
    assert_eq!(completion.content, "ok");
}

#[test]
fn max_tokens_is_sent_when_set() {
    let server = ScriptedServer::start(vec![Reply::sse(&[&delta("x"), "[DONE]"])]);
    let limited = ModelConfig {
        max_tokens: Some(256),
        ..config(&server)
    };
    runtime()
        .block_on(stream_chat(
            &limited,
            &user("x"),
            &[],
            |_| {},
            std::future::pending(),
        ))
        .unwrap();
    let body: Value = serde_json::from_str(&server.requests()[0].body).unwrap();
    assert_eq!(body["max_tokens"], 256);
}
