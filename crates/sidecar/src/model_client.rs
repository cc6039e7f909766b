//! The one model client: the OpenAI-compatible chat API (`/v1/models`,
//! `/v1/chat/completions` with SSE streaming and tool calls), which Ollama,
//! llama.cpp's server, vLLM, LM Studio, OpenAI and GitHub Models all speak.
//!
//! Every failure is a [`ClientError`] that says what to do: no server, a
//! rejected key, an unknown model, a stream that never starts or stalls.
//! Stopping is dropping the future (or [`stream_chat`]'s `stop` firing):
//! the connection closes at once.

use std::time::Duration;

use eventsource_stream::Eventsource;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use switchboard_model::settings::Settings;
use thiserror::Error;

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
    let body = response.text().await.unwrap_or_default();
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
    let models: Models = check_status(config, response)
        .await?
        .json()
        .await
        .map_err(|error| ClientError::Stream(error.to_string()))?;
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
    let mut events = check_status(config, response)
        .await?
        .bytes_stream()
        .eventsource();
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
            completion.content.push_str(text);
            on_text(text);
        }
        for call in delta
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let index = call.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
            while partial_calls.len() <= index {
                partial_calls.push(Default::default());
            }
            let slot = &mut partial_calls[index];
            if let Some(id) = call.get("id").and_then(Value::as_str) {
                slot.0 = id.to_owned();
            }
            if let Some(name) = call.pointer("/function/name").and_then(Value::as_str) {
                slot.1.push_str(name);
            }
            if let Some(arguments) = call.pointer("/function/arguments").and_then(Value::as_str) {
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
