//! `switchboard mcp` under 10,000 hostile lines: malformed, truncated,
//! oversized and out-of-order JSON-RPC. The server never crashes or hangs,
//! answers every request that names an id with that id (before
//! `initialize` too), says `Invalid request` once for each line that opens
//! with a JSON value but is not a message, ignores what is not JSON at all
//! (rmcp's choice, as the official SDKs do, so two confused peers cannot
//! feed each other errors forever), drops lines over the length limit, and
//! writes nothing but JSON-RPC to stdout; closing stdin ends it with 0.

use std::{
    collections::{BTreeMap, BTreeSet},
    io::{BufRead, BufReader, Write},
    process::{Command, Stdio},
    sync::mpsc,
    time::Duration,
};

use serde_json::{Value, json};

use crate::Lcg;

/// What a line is, and so what it is due.
enum Due {
    /// A reply with this id.
    Reply(String),
    /// An id-less `Invalid request`.
    Invalid,
    /// Nothing.
    Nothing,
}

fn request(id: &str, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

fn hostile(random: &mut Lcg, n: usize) -> (Vec<u8>, Due) {
    let id = format!("r{n}");
    match random.below(10) {
        0 => {
            // Not JSON: printable noise, or bytes that are not UTF-8.
            let mut line: Vec<u8> = (0..random.below(80) + 1)
                .map(|_| b"{[}]\":,abc xyz\\"[random.below(15) as usize])
                .collect();
            if random.below(2) == 0 {
                line.extend([0xff, 0xfe, 0xc3]);
            }
            let due = not_json_unless_it_is(&line);
            (line, due)
        }
        1 => {
            // A request cut short.
            let whole = request(&id, "ping", json!({}));
            let cut = random.below(whole.len() as u64 - 1) as usize + 1;
            let line = whole.as_bytes()[..cut].to_vec();
            let due = not_json_unless_it_is(&line);
            (line, due)
        }
        2 => {
            // JSON, but no message.
            let shapes = [
                json!(42),
                json!([1, 2]),
                json!("text"),
                json!(null),
                json!({"id": 6}),
                json!({"jsonrpc": "1.0", "id": 1, "method": "ping"}),
                json!({"jsonrpc": "2.0", "id": {"x": 1}, "method": "ping"}),
            ];
            let shape = &shapes[random.below(shapes.len() as u64) as usize];
            (shape.to_string().into_bytes(), Due::Invalid)
        }
        3 => (
            request(
                &id,
                &format!("no/such/method{}", random.below(5)),
                json!({}),
            )
            .into_bytes(),
            Due::Reply(id),
        ),
        4 => {
            // A tool call with arguments of the wrong shape.
            let arguments = [
                json!({"title": 7}),
                json!({"id": ["d_1"]}),
                json!({"query": null}),
                json!({}),
                json!({"title": "t", "content": "c", "mode": "sideways"}),
            ];
            let tools = [
                "deliver",
                "get_feedback",
                "search_knowledge",
                "list_tasks",
                "ask",
            ];
            let pick = random.below(5) as usize;
            let line = request(
                &id,
                "tools/call",
                json!({"name": tools[pick], "arguments": arguments[pick]}),
            );
            (line.into_bytes(), Due::Reply(id))
        }
        5 => (request(&id, "ping", json!({})).into_bytes(), Due::Reply(id)),
        6 => (
            request(&id, "tools/list", json!({})).into_bytes(),
            Due::Reply(id),
        ),
        7 => {
            // Out of order: a reply to a request never made, a second
            // initialized notification, an unknown notification.
            let lines = [
                json!({"jsonrpc": "2.0", "id": 99_999, "result": {}}),
                json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                json!({"jsonrpc": "2.0", "method": "notifications/who_knows", "params": {"a": 1}}),
                json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                       "params": {"requestId": "never-sent"}}),
            ];
            let line = &lines[random.below(lines.len() as u64) as usize];
            (line.to_string().into_bytes(), Due::Nothing)
        }
        8 if random.below(200) == 0 => {
            // Over the line limit: dropped without being buffered.
            let body = "x".repeat(switchboard_mcp_limit() + 10);
            (
                request(&id, "ping", json!({"pad": body})).into_bytes(),
                Due::Nothing,
            )
        }
        _ => (
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": "list_deliveries", "arguments": {"limit": random.below(5)}}})
            .to_string()
            .into_bytes(),
            Due::Reply(id),
        ),
    }
}

/// Noise that opens with a whole JSON value (`[]`, `"" ]…`) is read as a
/// message of the wrong shape (the value is decoded before what trails it
/// is looked at); the rest is not JSON and is due nothing.
fn not_json_unless_it_is(line: &[u8]) -> Due {
    match serde_json::Deserializer::from_slice(line)
        .into_iter::<Value>()
        .next()
    {
        Some(Ok(_)) => Due::Invalid,
        _ => Due::Nothing,
    }
}

/// The server's line limit (`switchboard mcp` drops longer lines).
fn switchboard_mcp_limit() -> usize {
    8 * 1024 * 1024
}

#[test]
fn ten_thousand_hostile_lines_get_protocol_answers_and_nothing_else() {
    let workspace = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .arg("-C")
        .arg(workspace.path())
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (lines, received) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).split(b'\n') {
            if lines.send(line.unwrap()).is_err() {
                break;
            }
        }
    });

    let mut random = Lcg(0x5eed_2026);
    let mut due_replies = BTreeSet::new();
    let mut due_invalid = 0_usize;
    let mut script: Vec<Vec<u8>> = Vec::new();
    // Before initialize: a request is answered (with an error), not lost.
    script.push(request("early", "tools/list", json!({})).into_bytes());
    due_replies.insert("early".to_owned());
    script.push(
        json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "fuzz", "version": "1"}}})
        .to_string()
        .into_bytes(),
    );
    due_replies.insert("init".to_owned());
    script.push(
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
            .to_string()
            .into_bytes(),
    );
    for n in 0..10_000 {
        let (line, due) = hostile(&mut random, n);
        match due {
            Due::Reply(id) => {
                due_replies.insert(id);
            }
            Due::Invalid => due_invalid += 1,
            Due::Nothing => {}
        }
        script.push(line);
    }
    script.push(request("last", "ping", json!({})).into_bytes());
    due_replies.insert("last".to_owned());

    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        for line in script {
            stdin.write_all(&line).unwrap();
            stdin.write_all(b"\n").unwrap();
        }
        stdin.flush().unwrap();
        stdin
    });

    let mut replies: BTreeMap<String, Value> = BTreeMap::new();
    let mut invalid = 0_usize;
    while !replies.contains_key("last") {
        let line = received
            .recv_timeout(Duration::from_secs(120))
            .expect("the server answers within two minutes (no hang)");
        let message: Value = serde_json::from_slice(&line).unwrap_or_else(|error| {
            panic!(
                "stdout carries only JSON-RPC: {error}: {}",
                String::from_utf8_lossy(&line)
            )
        });
        assert_eq!(message["jsonrpc"], "2.0", "{message}");
        match message.get("id").and_then(Value::as_str) {
            Some(id) => {
                assert!(
                    message.get("result").is_some() || message.get("error").is_some(),
                    "{message}"
                );
                assert!(
                    replies.insert(id.to_owned(), message.clone()).is_none(),
                    "one reply per request: {id}"
                );
            }
            None => {
                assert_eq!(message["error"]["code"], -32600, "{message}");
                invalid += 1;
            }
        }
    }
    // Closing stdin ends the server, cleanly.
    drop(writer.join().unwrap());
    let status = child.wait().unwrap();
    assert!(status.success(), "exits 0 when stdin closes: {status}");
    reader.join().unwrap();
    while let Ok(line) = received.try_recv() {
        let message: Value = serde_json::from_slice(&line).unwrap();
        if let Some(id) = message.get("id").and_then(Value::as_str) {
            replies.insert(id.to_owned(), message);
        } else {
            invalid += 1;
        }
    }

    let answered: BTreeSet<String> = replies.keys().cloned().collect();
    let missing: Vec<&String> = due_replies.difference(&answered).collect();
    assert!(missing.is_empty(), "requests without a reply: {missing:?}");
    assert_eq!(
        invalid, due_invalid,
        "one Invalid request per JSON non-message"
    );
    let unknown = replies
        .values()
        .filter(|reply| reply["error"]["code"] == -32601)
        .count();
    assert!(unknown > 500, "unknown methods are errors: {unknown}");
    let tool_errors = replies
        .values()
        .filter(|reply| reply["result"]["isError"] == true)
        .count();
    assert!(
        tool_errors > 500,
        "bad arguments are tool errors: {tool_errors}"
    );
    assert!(
        replies["early"].get("error").is_some(),
        "{}",
        replies["early"]
    );
}
