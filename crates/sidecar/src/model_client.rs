//! The one model client: the OpenAI-compatible chat API (`/v1/models`,
//! `/v1/chat/completions` with SSE streaming and tool calls), which Ollama,
//! llama.cpp's server, vLLM, LM Studio, OpenAI and GitHub Models all speak.
//!
//! Every failure is a [`ClientError`] that says what to do: no server, a
//! rejected key, an unknown model, a stream that never starts or stalls.
//! Stopping is dropping the future (or [`stream_chat`]'s `stop` firing):
//! the connection closes at once.
//!
//! A misbehaving or hostile server cannot make the sidecar hold without
//! bound: tool calls, their index, names, ids and arguments, the text of a
//! turn, each streamed event and every non-streamed body have limits, and
//! going past one ends the completion with [`ClientError::OverLimit`].

use std::time::Duration;

use eventsource_stream::Eventsource;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use switchboard_model::settings::Settings;
use thiserror::Error;

/// Most tool calls one completion may make (and so the largest index + 1).
pub const MAX_TOOL_CALLS: usize = 16;
/// Largest arguments of one tool call, in bytes (a whole file for
/// `write_file`).
pub const MAX_ARGUMENT_BYTES: usize = 1024 * 1024;
/// Longest tool name or call id, in bytes.
pub const MAX_NAME_BYTES: usize = 256;
/// Text a turn may produce when not configured, in bytes.
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 2 * 1024 * 1024;
/// Largest single streamed event (bytes between blank lines).
pub const MAX_EVENT_BYTES: usize = 2 * 1024 * 1024 + 64 * 1024;
/// Largest error body read, in bytes (the rest is not read).
pub const MAX_ERROR_BODY_BYTES: usize = 64 * 1024;
/// Largest model list read, in bytes.
pub const MAX_MODELS_BODY_BYTES: usize = 4 * 1024 * 1024;

/// How to reach the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelConfig {
    /// Base URL, without `/v1`.
    pub base_url: String,
    /// Model name.
    pub model: String,
    /// Bearer token, if the server wants one.
    pub api_key: Option<String>,
    /// Longest wait for the first token.
    pub first_token_timeout: Duration,
    /// Longest silence inside a stream.
    pub idle_timeout: Duration,
    /// Text (content and tool arguments) this completion may still produce,
    /// in bytes.
    pub max_output_bytes: usize,
    /// The most tokens asked of the server (`max_tokens`), if set.
    pub max_tokens: Option<u32>,
}

impl ModelConfig {
    /// The model part of `settings` (environment overrides already laid
    /// over them by the caller).
    pub fn from_settings(settings: &Settings) -> Self {
        Self {
            base_url: settings.model_url().to_owned(),
            model: settings.model().to_owned(),
            api_key: settings.api_key.clone().filter(|key| !key.is_empty()),
            first_token_timeout: Duration::from_secs(settings.first_token_secs()),
            idle_timeout: Duration::from_secs(settings.idle_secs()),
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
            max_tokens: settings.max_output_tokens(),
        }
    }

    fn endpoint(&self, path: &str) -> String {
        let base = self.base_url.trim_end_matches('/');
        let base = base.strip_suffix("/v1").unwrap_or(base);
        format!("{base}/v1/{path}")
    }
}

/// Why talking to the model failed, in words the chat shows.
#[derive(Debug, Error)]
pub enum ClientError {
    /// Nothing answers at the URL.
    #[error(
        "no model server answers at {url}; start one (e.g. `ollama serve`) or set SWITCHBOARD_MODEL_URL"
    )]
    Unreachable {
        /// The URL tried.
        url: String,
    },
    /// 401/403.
    #[error("the model server refused the API key (HTTP {status}); set SWITCHBOARD_API_KEY")]
    Unauthorized {
        /// The HTTP status.
        status: u16,
    },
    /// The server does not know the model.
    #[error(
        "the model server has no model {model:?}; pick one from the model list or set SWITCHBOARD_MODEL"
    )]
    UnknownModel {
        /// The model asked for.
        model: String,
    },
    /// Any other HTTP error.
    #[error("the model server answered HTTP {status}: {body}")]
    Http {
        /// The HTTP status.
        status: u16,
        /// The start of its body.
        body: String,
    },
    /// No first token in time.
    #[error(
        "the model sent nothing for {0:?}; it may still be loading — try again, or raise SWITCHBOARD_FIRST_TOKEN_SECS"
    )]
    NoFirstToken(Duration),
    /// The stream went silent.
    #[error("the model stream stalled for {0:?} and was stopped")]
    Stalled(Duration),
    /// The stream broke or sent something unreadable.
    #[error("the model stream broke: {0}")]
    Stream(String),
    /// The server sent more than a limit allows; the completion was ended.
    #[error("the model server sent {what} over the limit of {limit}; the reply was stopped there")]
    OverLimit {
        /// What went over, e.g. "tool calls".
        what: &'static str,
        /// The limit.
        limit: usize,
    },
}

/// Frames the raw stream for the SSE parser: it passes on whole lines only
/// (the parser re-scans everything it holds on every chunk, so a partial
/// line growing in many chunks would cost quadratic time), and counts the
/// bytes of the event under way (since the last blank line), so one
/// endless line or event is refused before it is buffered whole.
#[derive(Debug, Default)]
struct Framer {
    partial: Vec<u8>,
    event: usize,
    after_newline: bool,
}

impl Framer {
    /// Takes the next bytes; returns the whole lines they complete, or
    /// `None` once the event under way is too large.
    fn feed(&mut self, bytes: &[u8]) -> Option<Vec<u8>> {
        for &byte in bytes {
            match byte {
                b'\n' if self.after_newline => self.event = 0,
                b'\n' => self.after_newline = true,
                b'\r' => {}
                _ => self.after_newline = false,
            }
            self.event += 1;
        }
        if self.event > MAX_EVENT_BYTES {
            return None;
        }
        self.partial.extend_from_slice(bytes);
        let whole = self
            .partial
            .iter()
            .rposition(|byte| *byte == b'\n' || *byte == b'\r')
            .map_or(0, |last| last + 1);
        let rest = self.partial.split_off(whole);
        Some(std::mem::replace(&mut self.partial, rest))
    }
}

/// What the raw byte stream can fail with.
#[derive(Debug, Error)]
enum RawError {
    #[error("{0}")]
    Http(#[from] reqwest::Error),
    #[error("an event over {MAX_EVENT_BYTES} bytes")]
    EventTooLarge,
}

/// Reads at most `limit` bytes of `response`'s body; `None` when the body
/// is larger (the rest is not read).
async fn read_capped(
    mut response: reqwest::Response,
    limit: usize,
) -> Result<Option<Vec<u8>>, reqwest::Error> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        if body.len() + chunk.len() > limit {
            return Ok(None);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Some(body))
}

/// One chat message in the API's shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiMessage {
    /// `system`, `user`, `assistant` or `tool`.
    pub role: String,
    /// The text (may be empty for a tool-calling assistant turn).
    #[serde(default)]
    pub content: String,
    /// For `tool` messages: the call answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// For assistant turns that call tools.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
}

/// A tool call the model made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The call's id, echoed by the tool result.
    pub id: String,
    /// Always `function`.
    #[serde(rename = "type", default = "function_type")]
    pub kind: String,
    /// The function and its JSON arguments.
    pub function: FunctionCall,
}

fn function_type() -> String {
    "function".to_owned()
}

/// The function part of a tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// The tool's name.
    pub name: String,
    /// Its arguments, as a JSON string.
    pub arguments: String,
}

/// What a streamed completion produced.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Completion {
    /// The text.
    pub content: String,
    /// Tool calls, assembled from their streamed fragments.
    pub tool_calls: Vec<ToolCall>,
    /// Whether `stop` ended it early.
    pub stopped: bool,
}

/// One HTTP client for the process: building one sets up TLS, which costs
/// milliseconds, and sharing it keeps connections to the server alive.
fn client() -> reqwest::Client {
    static CLIENT: std::sync::LazyLock<reqwest::Client> =
        std::sync::LazyLock::new(|| reqwest::Client::builder().build().unwrap_or_default());
    CLIENT.clone()
}

fn request(config: &ModelConfig, builder: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
    match &config.api_key {
        Some(key) => builder.bearer_auth(key),
        None => builder,
    }
}

async fn check_status(
    config: &ModelConfig,
    response: reqwest::Response,
) -> Result<reqwest::Response, ClientError> {
    let status = response.status().as_u16();
    if response.status().is_success() {
        return Ok(response);
    }
    let body = match read_capped(response, MAX_ERROR_BODY_BYTES).await {
        Ok(Some(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
        Ok(None) => "(a body too large to read)".to_owned(),
        Err(_) => String::new(),
    };
    let lower = body.to_ascii_lowercase();
    Err(match status {
        401 | 403 => ClientError::Unauthorized { status },
        404 | 400
            if lower.contains("model")
                && (lower.contains("not found") || lower.contains("does not exist")) =>
        {
            ClientError::UnknownModel {
                model: config.model.clone(),
            }
        }
        _ => ClientError::Http {
            status,
            body: body.chars().take(300).collect(),
        },
    })
}

fn send_error(config: &ModelConfig, error: reqwest::Error) -> ClientError {
    if error.is_connect() || error.is_timeout() {
        ClientError::Unreachable {
            url: config.base_url.clone(),
        }
    } else {
        ClientError::Stream(error.to_string())
    }
}

/// The models the server offers.
pub async fn list_models(config: &ModelConfig) -> Result<Vec<String>, ClientError> {
    #[derive(Deserialize)]
    struct Models {
        data: Vec<Model>,
    }
    #[derive(Deserialize)]
    struct Model {
        id: String,
    }
    let response = request(config, client().get(config.endpoint("models")))
        .send()
        .await
        .map_err(|error| send_error(config, error))?;
    let body = read_capped(check_status(config, response).await?, MAX_MODELS_BODY_BYTES)
        .await
        .map_err(|error| ClientError::Stream(error.to_string()))?
        .ok_or(ClientError::OverLimit {
            what: "a model list",
            limit: MAX_MODELS_BODY_BYTES,
        })?;
    let models: Models =
        serde_json::from_slice(&body).map_err(|error| ClientError::Stream(error.to_string()))?;
    Ok(models.data.into_iter().map(|model| model.id).collect())
}

/// Streams one completion of `messages` (offering `tools`, JSON schemas in
/// the API's `tools` form), calling `on_text` with each text delta. Ends
/// early, keeping what arrived, when `stop` resolves.
pub async fn stream_chat(
    config: &ModelConfig,
    messages: &[ApiMessage],
    tools: &[Value],
    mut on_text: impl FnMut(&str),
    stop: impl std::future::Future<Output = ()>,
) -> Result<Completion, ClientError> {
    let mut body =
        serde_json::json!({ "model": config.model, "messages": messages, "stream": true });
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools.to_vec());
    }
    if let Some(max_tokens) = config.max_tokens {
        body["max_tokens"] = Value::from(max_tokens);
    }
    let mut completion = Completion::default();
    let mut partial_calls: Vec<(String, String, String)> = Vec::new();
    tokio::pin!(stop);
    let send = request(
        config,
        client()
            .post(config.endpoint("chat/completions"))
            .json(&body),
    )
    .send();
    let response = tokio::select! {
        sent = tokio::time::timeout(config.first_token_timeout, send) => match sent {
            Ok(sent) => sent.map_err(|error| send_error(config, error))?,
            Err(_) => return Err(ClientError::NoFirstToken(config.first_token_timeout)),
        },
        () = &mut stop => {
            completion.stopped = true;
            return Ok(completion);
        }
    };
    let mut framer = Framer::default();
    let mut events = check_status(config, response)
        .await?
        .bytes_stream()
        .map(move |bytes| match bytes {
            Ok(bytes) => framer.feed(&bytes).ok_or(RawError::EventTooLarge),
            Err(error) => Err(RawError::from(error)),
        })
        .eventsource();
    let mut output_bytes = 0_usize;
    let over = |what, limit| Err(ClientError::OverLimit { what, limit });
    let mut first = true;
    loop {
        let wait = if first {
            config.first_token_timeout
        } else {
            config.idle_timeout
        };
        let next = tokio::select! {
            next = tokio::time::timeout(wait, events.next()) => next,
            () = &mut stop => {
                completion.stopped = true;
                break;
            }
        };
        let event = match next {
            Err(_) if first => return Err(ClientError::NoFirstToken(wait)),
            Err(_) => return Err(ClientError::Stalled(wait)),
            Ok(None) => break,
            Ok(Some(Err(eventsource_stream::EventStreamError::Transport(
                RawError::EventTooLarge,
            )))) => return over("a streamed event", MAX_EVENT_BYTES),
            Ok(Some(Err(error))) => return Err(ClientError::Stream(error.to_string())),
            Ok(Some(Ok(event))) => event,
        };
        first = false;
        if event.data.trim() == "[DONE]" {
            break;
        }
        let chunk: Value = serde_json::from_str(&event.data).map_err(|error| {
            ClientError::Stream(format!("unreadable chunk {:?}: {error}", event.data))
        })?;
        if let Some(message) = chunk.pointer("/error/message").and_then(Value::as_str) {
            return Err(ClientError::Stream(message.to_owned()));
        }
        let Some(delta) = chunk.pointer("/choices/0/delta") else {
            continue;
        };
        if let Some(text) = delta.get("content").and_then(Value::as_str)
            && !text.is_empty()
        {
            output_bytes += text.len();
            if output_bytes > config.max_output_bytes {
                return over("text", config.max_output_bytes);
            }
            completion.content.push_str(text);
            on_text(text);
        }
        for call in delta
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let index = call.get("index").and_then(Value::as_u64).unwrap_or(0);
            let Some(index) = usize::try_from(index)
                .ok()
                .filter(|index| *index < MAX_TOOL_CALLS)
            else {
                return over("tool calls", MAX_TOOL_CALLS);
            };
            while partial_calls.len() <= index {
                partial_calls.push(Default::default());
            }
            let slot = &mut partial_calls[index];
            if let Some(id) = call.get("id").and_then(Value::as_str) {
                if id.len() > MAX_NAME_BYTES {
                    return over("a tool call id", MAX_NAME_BYTES);
                }
                slot.0 = id.to_owned();
            }
            if let Some(name) = call.pointer("/function/name").and_then(Value::as_str) {
                if slot.1.len() + name.len() > MAX_NAME_BYTES {
                    return over("a tool name", MAX_NAME_BYTES);
                }
                slot.1.push_str(name);
            }
            if let Some(arguments) = call.pointer("/function/arguments").and_then(Value::as_str) {
                output_bytes += arguments.len();
                if slot.2.len() + arguments.len() > MAX_ARGUMENT_BYTES {
                    return over("tool call arguments", MAX_ARGUMENT_BYTES);
                }
                if output_bytes > config.max_output_bytes {
                    return over("text", config.max_output_bytes);
                }
                slot.2.push_str(arguments);
            }
        }
    }
    completion.tool_calls = partial_calls
        .into_iter()
        .enumerate()
        .filter(|(_, (_, name, _))| !name.is_empty())
        .map(|(index, (id, name, arguments))| ToolCall {
            id: if id.is_empty() {
                format!("call_{index}")
            } else {
                id
            },
            kind: function_type(),
            function: FunctionCall { name, arguments },
        })
        .collect();
    Ok(completion)
}
