//! The developer's settings: how to reach the model and how the chat
//! behaves. Kept in the OS config directory (never in the workspace, since
//! they may hold an API key); environment variables override them.

mod saved;

pub use saved::saved_note;

use serde::{Deserialize, Serialize};

/// Where the model is when nothing is configured: a local Ollama.
pub const DEFAULT_MODEL_URL: &str = "http://127.0.0.1:11434";
/// The model asked for when nothing is configured.
pub const DEFAULT_MODEL: &str = "llama3.2";
/// Longest wait for a first token, in seconds, by default (Naide's).
pub const DEFAULT_FIRST_TOKEN_SECS: u64 = 180;
/// Longest silence inside a stream, in seconds, by default (Naide's).
pub const DEFAULT_IDLE_SECS: u64 = 120;
/// Prompt token budget by default.
pub const DEFAULT_CONTEXT_TOKENS: usize = 8_000;
/// Most tokens asked of the model per reply by default (`max_tokens`), so a
/// model that rambles stops on its own.
pub const DEFAULT_MAX_OUTPUT_TOKENS: u32 = 4_096;

/// What the chat talks to for its model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModelBackend {
    /// A server speaking the OpenAI chat API (Ollama, vLLM, a hosted one).
    OpenaiCompatible,
    /// The developer's signed-in Claude Code, run for each turn.
    ClaudeCode,
    /// The developer's signed-in Codex, run for each turn.
    Codex,
}

impl ModelBackend {
    /// Every backend, in the order a new install tries them after a
    /// configured server.
    pub const ALL: [Self; 3] = [Self::OpenaiCompatible, Self::ClaudeCode, Self::Codex];

    /// As written in `settings.json` and `SWITCHBOARD_MODEL_BACKEND`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OpenaiCompatible => "openai-compatible",
            Self::ClaudeCode => "claude-code",
            Self::Codex => "codex",
        }
    }

    /// The backend `text` names, if it names one.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|backend| backend.as_str() == text.trim())
    }

    /// Its short name, as the chat's header shows it.
    pub fn short_label(self) -> &'static str {
        match self {
            Self::OpenaiCompatible => "model server",
            Self::ClaudeCode => "Claude Code",
            Self::Codex => "Codex",
        }
    }

    /// Its name for people.
    pub fn label(self) -> &'static str {
        match self {
            Self::OpenaiCompatible => "an OpenAI-compatible server",
            Self::ClaudeCode => "Claude Code",
            Self::Codex => "Codex",
        }
    }
}

/// The backend a chat uses, and why: the one the settings name, or the
/// first that works on this machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResolvedBackend {
    /// The backend.
    pub backend: ModelBackend,
    /// Why it, in words (with how to change it).
    pub reason: String,
}

/// `settings.json` in the config directory. Every field is optional, so a
/// file from an older or newer version still loads.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    /// Base URL of the OpenAI-compatible server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_url: Option<String>,
    /// Model name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Bearer token, if the server wants one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    /// Seconds to wait for the first token.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_token_secs: Option<u64>,
    /// Seconds of silence after which a stream counts as stalled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idle_secs: Option<u64>,
    /// Prompt token budget.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_tokens: Option<usize>,
    /// Most tokens the model may answer with, sent as `max_tokens`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u32>,
    /// Live program sessions at once (default 20).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_sessions: Option<u64>,
    /// Seconds a program session may sit idle before it is ended (default
    /// 300; 0: never).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_idle_secs: Option<u64>,
    /// Seconds a program session may run before it is ended (default
    /// 3,600; 0: never).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_max_secs: Option<u64>,
    /// Building mode's extra writable globs; none means the allow-list's
    /// default (`src/**`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub build_globs: Option<Vec<String>>,
    /// Show the model's writes for approval instead of applying them.
    pub dry_run: bool,
    /// Notify when an agent's turn finishes (agents waiting on the
    /// developer always notify); written only when on.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub notify_turn_finished: bool,
    /// The window serves `switchboard mcp --http` for its workspace on
    /// loopback while it is open (off by default; every request still
    /// needs a token).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub serve_http: bool,
    /// The port it serves on (default [`DEFAULT_HTTP_PORT`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_port: Option<u16>,
    /// The window serves the inbox to browsers (`switchboard serve`) on
    /// loopback while it is open (off by default; a browser must be paired).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub serve_browser: bool,
    /// The port it serves browsers on (default [`DEFAULT_BROWSER_PORT`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub browser_port: Option<u16>,
    /// Paired browsers may take program sessions over: type into them,
    /// hand them back, end them (off: they watch only).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub browser_take_over: bool,
    /// Paired browsers may start agents (and type follow-ups into them,
    /// stop them); off by default.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub browser_start: bool,
    /// Paired browsers may start agents in a mode that acts without
    /// asking (`acceptEdits`, `bypassPermissions`, `never`), with
    /// [`Settings::browser_start`]; off by default.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub browser_unattended: bool,
    /// What the chat talks to; none: the first that works.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_backend: Option<ModelBackend>,
    /// Claude Code's `claude`, when it is not on `PATH`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claude_code_path: Option<String>,
    /// Codex's `codex`, when it is not on `PATH`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub codex_path: Option<String>,
    /// Agents started from Switchboard running at once (default
    /// [`crate::agent::launch::DEFAULT_RUNNING_LIMIT`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub running_agents: Option<usize>,
}

/// The port the window's HTTP server uses unless told otherwise.
pub const DEFAULT_HTTP_PORT: u16 = 47_331;

/// The port the window serves browsers on unless told otherwise (and
/// `switchboard serve`'s).
pub const DEFAULT_BROWSER_PORT: u16 = 8_766;

impl Settings {
    /// The port the window's HTTP server uses.
    pub fn http_port(&self) -> u16 {
        self.http_port.unwrap_or(DEFAULT_HTTP_PORT)
    }

    /// The port the window serves browsers on.
    pub fn browser_port(&self) -> u16 {
        self.browser_port.unwrap_or(DEFAULT_BROWSER_PORT)
    }
}

/// An environment variable that overrides a setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EnvOverride {
    /// The variable.
    pub variable: &'static str,
    /// The setting it overrides, as in `settings.json`.
    pub setting: &'static str,
}

/// Every override, in the order the settings view lists them.
pub const ENV_OVERRIDES: [EnvOverride; 12] = [
    EnvOverride {
        variable: "SWITCHBOARD_MODEL_BACKEND",
        setting: "modelBackend",
    },
    EnvOverride {
        variable: "SWITCHBOARD_MODEL_URL",
        setting: "modelUrl",
    },
    EnvOverride {
        variable: "SWITCHBOARD_MODEL",
        setting: "model",
    },
    EnvOverride {
        variable: "SWITCHBOARD_API_KEY",
        setting: "apiKey",
    },
    EnvOverride {
        variable: "SWITCHBOARD_FIRST_TOKEN_SECS",
        setting: "firstTokenSecs",
    },
    EnvOverride {
        variable: "SWITCHBOARD_IDLE_SECS",
        setting: "idleSecs",
    },
    EnvOverride {
        variable: "SWITCHBOARD_CONTEXT_TOKENS",
        setting: "contextTokens",
    },
    EnvOverride {
        variable: "SWITCHBOARD_BUILD_GLOBS",
        setting: "buildGlobs",
    },
    EnvOverride {
        variable: "SWITCHBOARD_MAX_OUTPUT_TOKENS",
        setting: "maxOutputTokens",
    },
    EnvOverride {
        variable: "SWITCHBOARD_MAX_SESSIONS",
        setting: "maxSessions",
    },
    EnvOverride {
        variable: "SWITCHBOARD_SESSION_IDLE_SECS",
        setting: "sessionIdleSecs",
    },
    EnvOverride {
        variable: "SWITCHBOARD_SESSION_MAX_SECS",
        setting: "sessionMaxSecs",
    },
];

fn non_empty(value: Option<String>) -> Option<String> {
    value.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
}

impl Settings {
    /// These settings with every variable `env` knows laid over them.
    /// Values that do not parse are ignored (the file's value stays).
    pub fn with_env(mut self, env: impl Fn(&str) -> Option<String>) -> Self {
        let number = |name: &str| env(name).and_then(|v| v.trim().parse::<u64>().ok());
        if let Some(backend) =
            env("SWITCHBOARD_MODEL_BACKEND").and_then(|v| ModelBackend::parse(&v))
        {
            self.model_backend = Some(backend);
        }
        if let Some(url) = non_empty(env("SWITCHBOARD_MODEL_URL")) {
            self.model_url = Some(url);
        }
        if let Some(model) = non_empty(env("SWITCHBOARD_MODEL")) {
            self.model = Some(model);
        }
        if let Some(key) = non_empty(env("SWITCHBOARD_API_KEY")) {
            self.api_key = Some(key);
        }
        if let Some(secs) = number("SWITCHBOARD_FIRST_TOKEN_SECS") {
            self.first_token_secs = Some(secs);
        }
        if let Some(secs) = number("SWITCHBOARD_IDLE_SECS") {
            self.idle_secs = Some(secs);
        }
        if let Some(tokens) = number("SWITCHBOARD_CONTEXT_TOKENS") {
            self.context_tokens = usize::try_from(tokens).ok();
        }
        if let Some(tokens) = number("SWITCHBOARD_MAX_OUTPUT_TOKENS") {
            self.max_output_tokens = u32::try_from(tokens).ok();
        }
        if let Some(max) = number("SWITCHBOARD_MAX_SESSIONS") {
            self.max_sessions = Some(max);
        }
        if let Some(secs) = number("SWITCHBOARD_SESSION_IDLE_SECS") {
            self.session_idle_secs = Some(secs);
        }
        if let Some(secs) = number("SWITCHBOARD_SESSION_MAX_SECS") {
            self.session_max_secs = Some(secs);
        }
        if let Some(globs) = env("SWITCHBOARD_BUILD_GLOBS") {
            self.build_globs = Some(split_globs(&globs));
        }
        self
    }

    /// The model URL in effect.
    pub fn model_url(&self) -> &str {
        self.model_url.as_deref().unwrap_or(DEFAULT_MODEL_URL)
    }

    /// The model name in effect.
    pub fn model(&self) -> &str {
        self.model.as_deref().unwrap_or(DEFAULT_MODEL)
    }

    /// The first-token wait in effect, in seconds.
    pub fn first_token_secs(&self) -> u64 {
        self.first_token_secs.unwrap_or(DEFAULT_FIRST_TOKEN_SECS)
    }

    /// The stall limit in effect, in seconds.
    pub fn idle_secs(&self) -> u64 {
        self.idle_secs.unwrap_or(DEFAULT_IDLE_SECS)
    }

    /// The prompt budget in effect.
    pub fn context_tokens(&self) -> usize {
        self.context_tokens.unwrap_or(DEFAULT_CONTEXT_TOKENS)
    }

    /// The reply bound in effect, in tokens (0 in the file means no bound).
    pub fn max_output_tokens(&self) -> Option<u32> {
        match self.max_output_tokens {
            Some(0) => None,
            Some(tokens) => Some(tokens),
            None => Some(DEFAULT_MAX_OUTPUT_TOKENS),
        }
    }

    /// How `setting` (named as in `settings.json`) is shown beside its
    /// override: its value, globs comma-separated, `(default)` when unset;
    /// the API key is never shown.
    pub fn shown_value(&self, setting: &str) -> String {
        if setting == "apiKey" {
            return "(hidden)".to_owned();
        }
        match serde_json::to_value(self)
            .ok()
            .and_then(|json| json.get(setting).cloned())
        {
            Some(serde_json::Value::String(text)) => text,
            Some(serde_json::Value::Array(items)) => items
                .iter()
                .filter_map(|item| item.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            Some(other) => other.to_string(),
            None => "(default)".to_owned(),
        }
    }

    /// Building mode's extra globs in effect (empty: the default).
    pub fn build_globs(&self) -> &[String] {
        self.build_globs.as_deref().unwrap_or_default()
    }
}

/// Comma-separated globs, trimmed, empties dropped.
pub fn split_globs(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|glob| !glob.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The settings view's data: the file's settings, which of them the
/// environment overrides right now, and the values in effect.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SettingsView {
    /// As stored.
    pub settings: Settings,
    /// What the next message uses: the stored settings under the overrides.
    #[serde(default)]
    pub effective: Settings,
    /// `(variable, setting)` for each override in force.
    pub overridden: Vec<(String, String)>,
    /// Where the file is.
    pub path: String,
    /// The URL the window serves MCP over HTTP at, while it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_url: Option<String>,
    /// Why the server the settings ask for did not start, when it did not
    /// (told by the save that asked for it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_error: Option<String>,
    /// The address the window serves browsers at, while it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser_url: Option<String>,
    /// Why serving browsers did not start, when the settings asked for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser_error: Option<String>,
}

impl SettingsView {
    /// The view with the window's `--model-url` in force: it wins over the
    /// file and the environment, and is listed as an override.
    pub fn with_model_url(mut self, url: &str) -> Self {
        self.overridden
            .push(("--model-url".to_owned(), "modelUrl".to_owned()));
        self.effective.model_url = Some(url.to_owned());
        self
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn the_windows_model_url_wins_and_is_listed_as_an_override() {
        let mut view = SettingsView::default();
        view.settings.model_url = Some("http://stored:1".into());
        view.effective.model_url = Some("http://from-env:2".into());
        let view = view.with_model_url("http://flag:3");
        assert_eq!(view.effective.model_url.as_deref(), Some("http://flag:3"));
        assert_eq!(view.settings.model_url.as_deref(), Some("http://stored:1"));
        assert!(
            view.overridden
                .contains(&("--model-url".to_owned(), "modelUrl".to_owned()))
        );
    }

    #[test]
    fn defaults_fill_what_is_unset_and_env_wins() {
        let stored = Settings {
            model_url: Some("http://gpu:8000".into()),
            model: Some("qwen".into()),
            build_globs: None,
            ..Settings::default()
        };
        assert_eq!(stored.model_url(), "http://gpu:8000");
        assert_eq!(stored.first_token_secs(), 180);
        assert!(stored.build_globs().is_empty());
        let env = |name: &str| match name {
            "SWITCHBOARD_MODEL" => Some("llama3.1".to_owned()),
            "SWITCHBOARD_IDLE_SECS" => Some("5".to_owned()),
            "SWITCHBOARD_FIRST_TOKEN_SECS" => Some("soon".to_owned()),
            "SWITCHBOARD_BUILD_GLOBS" => Some("lib/**, ,tests/**".to_owned()),
            "SWITCHBOARD_API_KEY" => Some("  ".to_owned()),
            _ => None,
        };
        let effective = stored.clone().with_env(env);
        assert_eq!(effective.model_url(), "http://gpu:8000");
        assert_eq!(effective.model(), "llama3.1");
        assert_eq!(effective.idle_secs(), 5);
        assert_eq!(
            effective.first_token_secs(),
            180,
            "unparsable values are ignored"
        );
        assert_eq!(effective.api_key, None, "blank values are ignored");
        assert_eq!(effective.build_globs(), vec!["lib/**", "tests/**"]);
        assert_eq!(effective.model_backend, None);
        let chosen = stored.clone().with_env(|name| {
            (name == "SWITCHBOARD_MODEL_BACKEND").then(|| " claude-code".to_owned())
        });
        assert_eq!(chosen.model_backend, Some(ModelBackend::ClaudeCode));
        let unknown =
            stored.with_env(|name| (name == "SWITCHBOARD_MODEL_BACKEND").then(|| "gpt".to_owned()));
        assert_eq!(unknown.model_backend, None, "an unknown backend is ignored");
    }

    #[test]
    fn the_backend_is_written_as_its_name() {
        let settings = Settings {
            model_backend: Some(ModelBackend::OpenaiCompatible),
            claude_code_path: Some("/opt/claude".into()),
            ..Settings::default()
        };
        let json = serde_json::to_value(&settings).unwrap();
        assert_eq!(json["modelBackend"], "openai-compatible");
        assert_eq!(json["claudeCodePath"], "/opt/claude");
        assert_eq!(settings.shown_value("modelBackend"), "openai-compatible");
        for backend in ModelBackend::ALL {
            assert_eq!(ModelBackend::parse(backend.as_str()), Some(backend));
        }
    }

    #[test]
    fn values_are_shown_but_never_the_key() {
        let settings = Settings {
            model: Some("qwen".into()),
            api_key: Some("sk-secret".into()),
            max_output_tokens: Some(512),
            build_globs: Some(vec!["lib/**".into(), "tests/**".into()]),
            ..Settings::default()
        };
        assert_eq!(settings.shown_value("model"), "qwen");
        assert_eq!(settings.shown_value("maxOutputTokens"), "512");
        assert_eq!(settings.shown_value("buildGlobs"), "lib/**, tests/**");
        assert_eq!(settings.shown_value("modelUrl"), "(default)");
        assert_eq!(settings.shown_value("apiKey"), "(hidden)");
    }

    #[test]
    fn files_from_other_versions_load() {
        let settings: Settings =
            serde_json::from_str(r#"{"model":"m","dryRun":true,"theme":"dark"}"#).unwrap();
        assert!(settings.dry_run);
        assert_eq!(settings.model(), "m");
        let written = serde_json::to_string(&Settings::default()).unwrap();
        assert_eq!(written, r#"{"dryRun":false}"#);
        let asked = Settings {
            notify_turn_finished: true,
            ..Settings::default()
        };
        let written = serde_json::to_string(&asked).unwrap();
        assert_eq!(written, r#"{"dryRun":false,"notifyTurnFinished":true}"#);
        assert_eq!(serde_json::from_str::<Settings>(&written).unwrap(), asked);
    }
}
