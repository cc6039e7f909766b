//! A scripted stand-in for the OpenAI Responses API on loopback, enough
//! for Codex to run whole turns with no key and no network: each request
//! gets the next scripted turn — a function call (plain or in an MCP
//! server's namespace), a custom tool call, text, a text that never ends,
//! or an HTTP error — streamed as the API streams it; every request is
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
    /// Call a function (of `namespace`, when one: how Codex offers an MCP
    /// server's tools) with these arguments.
    Call {
        namespace: Option<String>,
        name: String,
        arguments: Value,
    },
    /// Call a freeform (custom) tool with this input.
    Custom { name: String, input: String },
    /// Say this and end the turn.
    Text(String),
    /// Say this as a whole message (nothing, when empty: a model thinking),
    /// then never end the response (until the client hangs up).
    Stall(String),
    /// Answer with this HTTP status and JSON body.
    Status(u16, String),
}

impl Turn {
    pub fn call(name: &str, arguments: Value) -> Self {
        Self::Call {
            namespace: None,
            name: name.to_owned(),
            arguments,
        }
    }
    /// A call of MCP server `server`'s tool `name`.
    pub fn mcp(server: &str, name: &str, arguments: Value) -> Self {
        Self::Call {
            namespace: Some(format!("mcp__{server}")),
            name: name.to_owned(),
            arguments,
        }
    }
    pub fn custom(name: &str, input: &str) -> Self {
        Self::Custom {
            name: name.to_owned(),
            input: input.to_owned(),
        }
    }
    pub fn text(text: &str) -> Self {
        Self::Text(text.to_owned())
    }
    pub fn stall(text: &str) -> Self {
        Self::Stall(text.to_owned())
    }
    pub fn status(code: u16, body: &str) -> Self {
        Self::Status(code, body.to_owned())
    }
}

struct Shared {
    turns: Mutex<VecDeque<Turn>>,
    requests: Mutex<Vec<Value>>,
    /// Stalled responses whose client hung up.
    hung_up: Mutex<usize>,
}

pub struct ResponsesServer {
    port: u16,
    shared: Arc<Shared>,
}

impl ResponsesServer {
    pub fn start(turns: Vec<Turn>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let shared = Arc::new(Shared {
            turns: Mutex::new(turns.into()),
            requests: Mutex::default(),
            hung_up: Mutex::default(),
        });
        let serving = Arc::clone(&shared);
        super::accept(listener, move |stream| serve(stream, &serving));
        Self { port, shared }
    }

    /// The base URL Codex is given (`…/v1`).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// The `function_call_output` items Codex sent back, in order.
    pub fn function_outputs(&self) -> Vec<Value> {
        self.outputs("function_call_output")
    }

    /// The `custom_tool_call_output` items Codex sent back, in order.
    pub fn custom_outputs(&self) -> Vec<Value> {
        self.outputs("custom_tool_call_output")
    }

    fn outputs(&self, kind: &str) -> Vec<Value> {
        let requests = self.requests();
        let mut outputs: Vec<Value> = Vec::new();
        for body in requests {
            for item in body["input"].as_array().into_iter().flatten() {
                if item["type"] == kind && !outputs.contains(item) {
                    outputs.push(item.clone());
                }
            }
        }
        outputs
    }

    /// The requests' bodies so far, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.shared.requests.lock().unwrap().clone()
    }

    /// How many stalled responses' clients hung up (the agent ended).
    pub fn hung_up(&self) -> usize {
        *self.shared.hung_up.lock().unwrap()
    }
}

/// Whether `body` is Codex's request for a thread's title.
fn is_title_request(body: &Value) -> bool {
    body["tools"].as_array().is_none_or(Vec::is_empty)
        && body.to_string().contains("concise, single-line task title")
}

fn serve(stream: TcpStream, shared: &Shared) {
    let Some((path, _headers, body)) = super::read_request(&stream) else {
        return;
    };
    let mut stream = stream;
    if !path.ends_with("/responses") {
        let _ = write!(
            stream,
            "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        );
        return;
    }
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    // Codex's interactive interface asks for a title for each new thread
    // on the side (no tools, a JSON answer): answered outside the script.
    let turn = if is_title_request(&body) {
        Turn::text(r#"{"title": "Scripted task"}"#)
    } else {
        shared.requests.lock().unwrap().push(body);
        shared
            .turns
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or_else(|| Turn::text("(the script is over)"))
    };
    if let Turn::Status(code, body) = &turn {
        let _ = write!(
            stream,
            "HTTP/1.1 {code} Scripted\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        return;
    }
    let mut pinger = stream.try_clone().unwrap();
    let _ = write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n"
    );
    let mut send = |data: Value| {
        let kind = data["type"].as_str().unwrap_or_default().to_owned();
        let _ = write!(stream, "event: {kind}\ndata: {data}\n\n");
        let _ = stream.flush();
    };
    send(json!({"type": "response.created", "response": {"id": "resp_1"}}));
    match turn {
        Turn::Call {
            namespace,
            name,
            arguments,
        } => {
            let mut item = json!({
                "type": "function_call", "id": "fc_1", "call_id": "call_1",
                "name": name, "arguments": arguments.to_string(),
            });
            if let Some(namespace) = namespace {
                item["namespace"] = json!(namespace);
            }
            send(json!({"type": "response.output_item.added", "output_index": 0, "item": item}));
            send(json!({"type": "response.output_item.done", "output_index": 0, "item": item}));
        }
        Turn::Custom { name, input } => {
            let item = json!({
                "type": "custom_tool_call", "id": "ctc_1", "call_id": "call_c1",
                "name": name, "input": input, "status": "completed",
            });
            send(json!({"type": "response.output_item.added", "output_index": 0, "item": item}));
            send(json!({"type": "response.output_item.done", "output_index": 0, "item": item}));
        }
        Turn::Stall(text) => {
            if !text.is_empty() {
                let item = json!({
                    "type": "message", "id": "msg_1", "role": "assistant",
                    "content": [{"type": "output_text", "text": text}],
                });
                send(
                    json!({"type": "response.output_item.added", "output_index": 0, "item": item}),
                );
                send(json!({"type": "response.output_item.done", "output_index": 0, "item": item}));
            }
            // Comments keep the stream open and find out when the client
            // has gone.
            for _ in 0..600 {
                std::thread::sleep(std::time::Duration::from_millis(100));
                if write!(pinger, ": ping\n\n")
                    .and_then(|()| pinger.flush())
                    .is_err()
                {
                    *shared.hung_up.lock().unwrap() += 1;
                    return;
                }
            }
            return;
        }
        Turn::Status(..) => unreachable!("answered above"),
        Turn::Text(text) => {
            let empty =
                json!({"type": "message", "id": "msg_1", "role": "assistant", "content": []});
            send(json!({"type": "response.output_item.added", "output_index": 0, "item": empty}));
            send(json!({
                "type": "response.output_text.delta", "item_id": "msg_1",
                "output_index": 0, "content_index": 0, "delta": text,
            }));
            let item = json!({
                "type": "message", "id": "msg_1", "role": "assistant",
                "content": [{"type": "output_text", "text": text}],
            });
            send(json!({"type": "response.output_item.done", "output_index": 0, "item": item}));
        }
    }
    send(json!({"type": "response.completed", "response": {
        "id": "resp_1",
        "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
    }}));
}
