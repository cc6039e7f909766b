//! A scripted stand-in for the OpenAI Responses API on loopback, enough
//! for Codex to run whole turns with no key and no network: each request
//! gets the next scripted turn — a function call or text — streamed as the
//! API streams it; every request is recorded.

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
    /// Call a function with these arguments.
    Call { name: String, arguments: Value },
    /// Say this and end the turn.
    Text(String),
}

impl Turn {
    pub fn call(name: &str, arguments: Value) -> Self {
        Self::Call {
            name: name.to_owned(),
            arguments,
        }
    }
    pub fn text(text: &str) -> Self {
        Self::Text(text.to_owned())
    }
}

struct Shared {
    turns: Mutex<VecDeque<Turn>>,
    requests: Mutex<Vec<Value>>,
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
        let requests = self.shared.requests.lock().unwrap().clone();
        let mut outputs: Vec<Value> = Vec::new();
        for body in requests {
            for item in body["input"].as_array().into_iter().flatten() {
                if item["type"] == "function_call_output" && !outputs.contains(item) {
                    outputs.push(item.clone());
                }
            }
        }
        outputs
    }
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
    shared.requests.lock().unwrap().push(body);
    let turn = shared
        .turns
        .lock()
        .unwrap()
        .pop_front()
        .unwrap_or_else(|| Turn::text("(the script is over)"));
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
        Turn::Call { name, arguments } => {
            let item = json!({
                "type": "function_call", "id": "fc_1", "call_id": "call_1",
                "name": name, "arguments": arguments.to_string(),
            });
            send(json!({"type": "response.output_item.added", "output_index": 0, "item": item}));
            send(json!({"type": "response.output_item.done", "output_index": 0, "item": item}));
        }
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
