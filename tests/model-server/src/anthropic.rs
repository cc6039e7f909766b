//! A scripted stand-in for the Anthropic Messages API on loopback, enough
//! for Claude Code to run whole turns with no key and no network: each
//! request of the agent's loop (one that offers tools) gets the next
//! scripted turn — a `tool_use` or text — streamed as the API streams it;
//! side requests (titles, summaries) get a short text; every request is
//! recorded.

use std::{
    collections::VecDeque,
    io::Write,
    net::{TcpListener, TcpStream},
    sync::{Arc, Mutex},
};

use serde_json::{Value, json};

/// One scripted turn of the model.
#[derive(Debug, Clone)]
pub enum Turn {
    /// Call a tool with this input.
    ToolUse { name: String, input: Value },
    /// Say this and end the turn.
    Text(String),
    /// Say this, then stay silent but for pings until the client hangs up
    /// (a minute at most): a model still thinking.
    Stall(String),
}

impl Turn {
    pub fn tool(name: &str, input: Value) -> Self {
        Self::ToolUse {
            name: name.to_owned(),
            input,
        }
    }
    pub fn text(text: &str) -> Self {
        Self::Text(text.to_owned())
    }
    pub fn stall(text: &str) -> Self {
        Self::Stall(text.to_owned())
    }
}

struct Shared {
    turns: Mutex<VecDeque<Turn>>,
    /// Bodies of the agent loop's requests, in order.
    loop_requests: Mutex<Vec<Value>>,
    served: Mutex<usize>,
    /// Stalled replies whose client hung up.
    hung_up: Mutex<usize>,
}

pub struct MessagesServer {
    port: u16,
    shared: Arc<Shared>,
}

impl MessagesServer {
    pub fn start(turns: Vec<Turn>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let shared = Arc::new(Shared {
            turns: Mutex::new(turns.into()),
            loop_requests: Mutex::default(),
            served: Mutex::new(0),
            hung_up: Mutex::new(0),
        });
        let serving = Arc::clone(&shared);
        super::accept(listener, move |stream| serve(stream, &serving));
        Self { port, shared }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The agent loop's requests so far (each carries the conversation).
    pub fn loop_requests(&self) -> Vec<Value> {
        self.shared.loop_requests.lock().unwrap().clone()
    }

    /// How many stalled replies' clients hung up (the agent process ended).
    pub fn hung_up(&self) -> usize {
        *self.shared.hung_up.lock().unwrap()
    }

    /// How many scripted turns are left.
    pub fn turns_left(&self) -> usize {
        self.shared.turns.lock().unwrap().len()
    }

    /// The `tool_result` blocks the agent sent back, in order.
    pub fn tool_results(&self) -> Vec<Value> {
        self.loop_requests()
            .iter()
            .filter_map(|body| body["messages"].as_array()?.last().cloned())
            .filter_map(|message| message["content"].as_array().cloned())
            .flatten()
            .filter(|block| block["type"] == "tool_result")
            .collect()
    }
}

fn serve(stream: TcpStream, shared: &Shared) {
    let Some((path, _headers, body)) = super::read_request(&stream) else {
        return;
    };
    let mut stream = stream;
    if !path.starts_with("/v1/messages") || path.starts_with("/v1/messages/count_tokens") {
        let body = r#"{"type":"error","error":{"type":"not_found_error","message":"not here"}}"#;
        let _ = write!(
            stream,
            "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        return;
    }
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let agent_loop = body["tools"]
        .as_array()
        .is_some_and(|tools| !tools.is_empty());
    let turn = if agent_loop {
        let turn = shared.turns.lock().unwrap().pop_front();
        shared.loop_requests.lock().unwrap().push(body);
        turn.unwrap_or_else(|| Turn::text("(the script is over)"))
    } else {
        Turn::text("ok")
    };
    let id = {
        let mut served = shared.served.lock().unwrap();
        *served += 1;
        *served
    };
    let _ = write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n"
    );
    let mut pinger = stream.try_clone().unwrap();
    let mut send = |event: &str, data: Value| {
        let _ = write!(stream, "event: {event}\ndata: {data}\n\n");
        let _ = stream.flush();
    };
    send(
        "message_start",
        json!({"type": "message_start", "message": {
            "id": format!("msg_{id}"), "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5", "content": [], "stop_reason": null,
            "stop_sequence": null, "usage": {"input_tokens": 10, "output_tokens": 1},
        }}),
    );
    let stop = match turn {
        Turn::ToolUse { name, input } => {
            send(
                "content_block_start",
                json!({"type": "content_block_start", "index": 0, "content_block":
                    {"type": "tool_use", "id": format!("toolu_{id:04}"), "name": name, "input": {}}}),
            );
            send(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0, "delta":
                    {"type": "input_json_delta", "partial_json": input.to_string()}}),
            );
            "tool_use"
        }
        Turn::Stall(text) => {
            send(
                "content_block_start",
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            );
            send(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
            );
            for _ in 0..600 {
                std::thread::sleep(std::time::Duration::from_millis(100));
                let ping = write!(pinger, "event: ping\ndata: {{\"type\": \"ping\"}}\n\n")
                    .and_then(|()| pinger.flush());
                if ping.is_err() {
                    *shared.hung_up.lock().unwrap() += 1;
                    return;
                }
            }
            "end_turn"
        }
        Turn::Text(text) => {
            send(
                "content_block_start",
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            );
            send(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
            );
            "end_turn"
        }
    };
    send(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    );
    send(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 5}}),
    );
    send("message_stop", json!({"type": "message_stop"}));
}
