//! Terminal tapes in ClaudeControl's format: one recorded session of an
//! interactive program (its command, environment, terminal size), and its
//! exchanges — the prompt seen before each input, the input, the output
//! chunks with their delays, and how the program ended.
//!
//! Tapes are read from any JSON5 (hand-written tapes have comments, single
//! quotes and trailing commas), with the older field names ClaudeControl's
//! decoder still takes, and fields this version does not know kept. They
//! are written exactly as ClaudeControl writes them ([`codec::encode`]).

pub mod codec;
#[cfg(feature = "patterns")]
pub mod diff;
#[cfg(feature = "patterns")]
pub mod export;
#[cfg(feature = "patterns")]
pub mod index;
pub mod playback;
#[cfg(feature = "patterns")]
pub mod record;
#[cfg(feature = "patterns")]
pub mod redact;
pub mod validate;
pub mod view;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// A terminal's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pty {
    /// Rows.
    pub rows: u16,
    /// Columns.
    pub cols: u16,
}

/// A number, or a `[min, max]` range to pick from (latency, error rate).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Spread {
    /// Always this.
    One(Number),
    /// Anywhere in this range.
    Range([Number; 2]),
}

impl Default for Spread {
    fn default() -> Self {
        Self::One(Number::from(0))
    }
}

/// What a tape says about its recording, in ClaudeControl's key order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    /// When it was recorded (as the recorder wrote it).
    #[serde(rename = "createdAt", alias = "created_at", default)]
    pub created_at: String,
    /// The program run (its name as typed).
    pub program: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// The environment variables the recording was given (only those).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The folder it ran in.
    #[serde(default)]
    pub cwd: String,
    /// The terminal's size.
    #[serde(default)]
    pub pty: Option<Pty>,
    /// A free label.
    #[serde(default)]
    pub tag: Option<String>,
    /// Milliseconds added before each replayed chunk.
    #[serde(default)]
    pub latency: Spread,
    /// The share of replayed exchanges that fail on purpose.
    #[serde(rename = "errorRate", default)]
    pub error_rate: Spread,
    /// The seed of the latency and error choices.
    #[serde(default)]
    pub seed: Option<i64>,
    /// Keys this version does not model (ClaudeControl's schema allows
    /// extra keys here; the start-up banner is kept under `banner`).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The recorder's platform.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// E.g. `linux`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<String>,
    /// The recorder's version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Anything else.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What was on screen before an input.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Pre {
    /// The prompt the input answered, or `null` when none was matched.
    #[serde(default)]
    pub prompt: Option<String>,
    /// Anything else (ClaudeControl's seed names a `stateHash`).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// How an input was sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InputKind {
    /// A line (it keeps its trailing newline).
    Line,
    /// Raw bytes (keys, control characters).
    Raw,
}

/// One input. Exactly one of `data_text` (UTF-8) and `data_b64` is set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Input {
    /// Line or raw.
    #[serde(rename = "type", alias = "kind")]
    pub kind: InputKind,
    /// The bytes, when they are UTF-8.
    #[serde(rename = "dataText", alias = "data_text", default)]
    pub data_text: Option<String>,
    /// The bytes, standard padded base64, when they are not.
    #[serde(rename = "dataBytesB64", alias = "data_b64", default)]
    pub data_b64: Option<String>,
    /// Anything else.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One read of the program's output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    /// Milliseconds since the previous chunk (or the input).
    #[serde(default)]
    pub delay_ms: u64,
    /// The bytes, standard padded base64.
    #[serde(rename = "dataB64", alias = "data_b64")]
    pub data_b64: String,
    /// Whether the bytes are UTF-8.
    #[serde(rename = "isUtf8", default = "yes")]
    pub is_utf8: bool,
    /// Anything else.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn yes() -> bool {
    true
}

#[cfg(feature = "patterns")]
impl Chunk {
    /// A read of `bytes`, `delay_ms` after the previous one.
    pub fn of(delay_ms: u64, bytes: &[u8]) -> Self {
        use base64::Engine as _;
        Self {
            delay_ms,
            data_b64: base64::engine::general_purpose::STANDARD.encode(bytes),
            is_utf8: std::str::from_utf8(bytes).is_ok(),
            extra: Map::new(),
        }
    }

    /// The bytes read (none when `dataB64` is not base64).
    pub fn bytes(&self) -> Vec<u8> {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD
            .decode(&self.data_b64)
            .unwrap_or_default()
    }
}

impl Meta {
    /// The start-up banner's reads, kept in `meta.banner.chunks` (none
    /// when the tape has no banner or it does not read).
    pub fn banner(&self) -> Vec<Chunk> {
        self.extra
            .get("banner")
            .and_then(|banner| banner.get("chunks"))
            .and_then(|chunks| serde_json::from_value(chunks.clone()).ok())
            .unwrap_or_default()
    }
}

/// Reads `null` as the type's default.
fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// The output an input drew.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Output {
    /// The reads, in order.
    #[serde(default)]
    pub chunks: Vec<Chunk>,
    /// Anything else.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// How the program ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exit {
    /// Its exit status, when it exited.
    #[serde(default)]
    pub code: Option<i64>,
    /// The signal that ended it, when one did.
    #[serde(default)]
    pub signal: Option<Value>,
    /// Anything else.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One input and what it drew.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    /// What was on screen before it (`null` is read as no prompt).
    #[serde(default, deserialize_with = "null_as_default")]
    pub pre: Pre,
    /// The input.
    pub input: Input,
    /// The output.
    #[serde(default)]
    pub output: Output,
    /// How the program ended, when it ended here.
    #[serde(default)]
    pub exit: Option<Exit>,
    /// How long the exchange took.
    #[serde(default)]
    pub dur_ms: Option<u64>,
    /// Notes.
    #[serde(default)]
    pub annotations: Map<String, Value>,
    /// Anything else.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A whole tape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tape {
    /// The recording.
    pub meta: Meta,
    /// The recorder.
    #[serde(default)]
    pub session: Session,
    /// The exchanges, in order.
    #[serde(default)]
    pub exchanges: Vec<Exchange>,
    /// Anything else (ClaudeControl's validator refuses it; kept here).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
