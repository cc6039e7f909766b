//! A scripted OpenAI-compatible server on loopback: each request gets the
//! next scripted reply (a status with a body, an SSE stream, or silence),
//! and every request is recorded for the test to inspect. A server started
//! [`ScriptedServer::with_models`] also answers `GET /v1/models` from a
//! fixed list, outside the script (the window asks for it at any time).

#![allow(clippy::unwrap_used)] // A test fixture: failing loudly is right.
#![allow(clippy::disallowed_methods)] // Tests read the files they made.
#![allow(missing_docs)] // A test fixture; each item says what it does in its name.

pub mod anthropic;
pub mod claude_code;
pub mod codex;
pub mod responses;

use std::{
    collections::VecDeque,
    io::{BufRead, BufReader, Read, Write},
    net::{TcpListener, TcpStream},
    sync::{Arc, Condvar, Mutex},
    thread,
    time::Duration,
};

/// An SSE chunk carrying `text` as a content delta.
pub fn text_chunk(text: &str) -> String {
    serde_json::json!({"choices": [{"index": 0, "delta": {"content": text}}]}).to_string()
}

/// An SSE chunk carrying a whole `write_file` tool call.
pub fn write_file_chunk(index: u64, id: &str, path: &str, content: &str) -> String {
    let arguments = serde_json::json!({"path": path, "content": content}).to_string();
    serde_json::json!({"choices": [{"delta": {"tool_calls": [
        {"index": index, "id": id, "function": {"name": "write_file", "arguments": arguments}}
    ]}}]})
    .to_string()
}

/// One scripted reply.
pub enum Reply {
    Status(u16, String),
    Sse {
        chunks: Vec<String>,
        gap: Duration,
        hang_after: bool,
    },
    Hang,
    /// An SSE stream that sends `before`, waits for `gate`, then sends `after`.
    Gated {
        before: Vec<String>,
        gate: Gate,
        after: Vec<String>,
    },
    /// A 200 event stream whose body is these bytes, unframed, repeated
    /// `times` times (for floods).
    Raw {
        bytes: Vec<u8>,
        times: usize,
    },
}

impl Reply {
    pub fn status(code: u16, body: &str) -> Self {
        Self::Status(code, body.to_owned())
    }
    pub fn sse(chunks: &[&str]) -> Self {
        Self::Sse {
            chunks: chunks.iter().map(|c| (*c).to_owned()).collect(),
            gap: Duration::ZERO,
            hang_after: false,
        }
    }
    pub fn sse_slow(chunks: &[&str], gap: Duration) -> Self {
        Self::Sse {
            chunks: chunks.iter().map(|c| (*c).to_owned()).collect(),
            gap,
            hang_after: false,
        }
    }
    pub fn sse_then_hang(chunks: &[&str]) -> Self {
        Self::Sse {
            chunks: chunks.iter().map(|c| (*c).to_owned()).collect(),
            gap: Duration::ZERO,
            hang_after: true,
        }
    }
    pub fn hang() -> Self {
        Self::Hang
    }
    pub fn sse_gated(before: &[&str], gate: &Gate, after: &[&str]) -> Self {
        let owned = |chunks: &[&str]| chunks.iter().map(|c| (*c).to_owned()).collect();
        Self::Gated {
            before: owned(before),
            gate: gate.clone(),
            after: owned(after),
        }
    }
    pub fn raw(bytes: &[u8], times: usize) -> Self {
        Self::Raw {
            bytes: bytes.to_vec(),
            times,
        }
    }
}

/// A point a scripted reply waits at until the test opens it (or a minute
/// passes, so a failed test leaves no thread behind for long).
#[derive(Clone, Default)]
pub struct Gate(Arc<(Mutex<bool>, Condvar)>);

impl Gate {
    pub fn open(&self) {
        let (open, changed) = &*self.0;
        *open.lock().unwrap() = true;
        changed.notify_all();
    }

    fn wait(&self) {
        let (open, changed) = &*self.0;
        let guard = open.lock().unwrap();
        let _ = changed
            .wait_timeout_while(guard, Duration::from_secs(60), |open| !*open)
            .unwrap();
    }
}

/// A request as received.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.clone())
    }
}

pub struct ScriptedServer {
    port: u16,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

/// How long a hanging reply holds the connection: past any test timeout.
const HANG: Duration = Duration::from_secs(5);

/// What the serving threads share.
struct Script {
    replies: Mutex<VecDeque<Reply>>,
    models: Option<Vec<String>>,
    recorded: Arc<Mutex<Vec<Recorded>>>,
}

impl ScriptedServer {
    pub fn start(script: Vec<Reply>) -> Self {
        Self::serve_script(script, None)
    }

    /// Also answers `GET /v1/models` with `models`, without using the script.
    pub fn with_models(script: Vec<Reply>, models: &[&str]) -> Self {
        Self::serve_script(
            script,
            Some(models.iter().map(|m| (*m).to_owned()).collect()),
        )
    }

    fn serve_script(script: Vec<Reply>, models: Option<Vec<String>>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests: Arc<Mutex<Vec<Recorded>>> = Arc::default();
        let shared = Arc::new(Script {
            replies: Mutex::new(script.into()),
            models,
            recorded: Arc::clone(&requests),
        });
        accept(listener, move |stream| serve(stream, &shared));
        Self { port, requests }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }
}

/// Serves each connection `listener` accepts on a thread of its own.
fn accept(listener: TcpListener, serve: impl Fn(TcpStream) + Send + Sync + 'static) {
    let serve = Arc::new(serve);
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let serve = Arc::clone(&serve);
            thread::spawn(move || serve(stream));
        }
    });
}

/// One HTTP request: its path, headers and body.
type Request = (String, Vec<(String, String)>, Vec<u8>);

/// Reads one HTTP request.
fn read_request(stream: &TcpStream) -> Option<Request> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let path = line.split_whitespace().nth(1)?.to_owned();
    let mut headers = Vec::new();
    loop {
        line.clear();
        reader.read_line(&mut line).ok()?;
        let trimmed = line.trim_end();
        if trimmed.is_empty() {
            break;
        }
        if let Some((key, value)) = trimmed.split_once(':') {
            headers.push((key.trim().to_owned(), value.trim().to_owned()));
        }
    }
    let length: usize = headers
        .iter()
        .find(|(key, _)| key.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some((path, headers, body))
}

fn serve(stream: TcpStream, script: &Script) {
    let Some((path, headers, body)) = read_request(&stream) else {
        return;
    };
    let reply = match &script.models {
        Some(models) if path.ends_with("/models") => {
            let data: Vec<_> = models
                .iter()
                .map(|id| serde_json::json!({"id": id}))
                .collect();
            Reply::Status(
                200,
                serde_json::json!({"object": "list", "data": data}).to_string(),
            )
        }
        _ => {
            script.recorded.lock().unwrap().push(Recorded {
                path,
                headers,
                body: String::from_utf8_lossy(&body).into_owned(),
            });
            // Past the end of the script the connection just closes.
            let Some(reply) = script.replies.lock().unwrap().pop_front() else {
                return;
            };
            reply
        }
    };

    let mut stream = stream;
    match reply {
        Reply::Status(code, body) => {
            let _ = write!(
                stream,
                "HTTP/1.1 {code} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
        Reply::Hang => thread::sleep(HANG),
        Reply::Raw { bytes, times } => {
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
            );
            for _ in 0..times {
                if stream.write_all(&bytes).is_err() {
                    return;
                }
            }
        }
        Reply::Sse {
            chunks,
            gap,
            hang_after,
        } => {
            if send_sse(&mut stream, &chunks, gap, true).is_ok() && hang_after {
                thread::sleep(HANG);
            }
        }
        Reply::Gated {
            before,
            gate,
            after,
        } => {
            if send_sse(&mut stream, &before, Duration::ZERO, true).is_ok() {
                gate.wait();
                let _ = send_sse(&mut stream, &after, Duration::ZERO, false);
            }
        }
    }
}

/// Writes `chunks` as SSE events, `gap` apart, after the response head if
/// `head`; an error once the client hung up.
fn send_sse(
    stream: &mut TcpStream,
    chunks: &[String],
    gap: Duration,
    head: bool,
) -> std::io::Result<()> {
    if head {
        write!(
            stream,
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
        )?;
    }
    for chunk in chunks {
        stream.write_all(format!("data: {chunk}\n\n").as_bytes())?;
        stream.flush()?;
        thread::sleep(gap);
    }
    Ok(())
}
