//! Which backend the chat uses when the settings name none: the first that
//! works here, in this order — a configured model server; a signed-in
//! Claude Code (`claude auth status`); a signed-in Codex (`codex login
//! status`); a local model server (Ollama's address).

use std::{process::Stdio, time::Duration};

use switchboard_model::settings::{ModelBackend, ResolvedBackend, Settings};

/// Longest wait for an agent to say whether it is signed in.
const ASK_LIMIT: Duration = Duration::from_secs(5);

/// The `claude` these settings start.
pub fn claude_program(settings: &Settings) -> String {
    settings
        .claude_code_path
        .clone()
        .filter(|path| !path.trim().is_empty())
        .unwrap_or_else(|| "claude".to_owned())
}

/// The `codex` these settings start.
pub fn codex_program(settings: &Settings) -> String {
    settings
        .codex_path
        .clone()
        .filter(|path| !path.trim().is_empty())
        .unwrap_or_else(|| "codex".to_owned())
}

/// Whether Codex (`program`) is installed and signed in: its `login
/// status` succeeds.
pub async fn codex_signed_in(program: &str) -> bool {
    let asked = tokio::process::Command::new(program)
        .args(["login", "status"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .status();
    matches!(
        tokio::time::timeout(ASK_LIMIT, asked).await,
        Ok(Ok(status)) if status.success()
    )
}

/// The models Codex offers (its catalog's listed ones, `codex debug
/// models`), best first; none when it cannot say.
pub async fn codex_models(program: &str) -> Vec<String> {
    let asked = tokio::process::Command::new(program)
        .args(["debug", "models"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .output();
    let Ok(Ok(output)) = tokio::time::timeout(ASK_LIMIT, asked).await else {
        return Vec::new();
    };
    let Ok(catalog) = serde_json::from_slice::<serde_json::Value>(&output.stdout) else {
        return Vec::new();
    };
    let mut listed: Vec<(i64, String)> = catalog["models"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|model| model["visibility"] == "list")
        .filter_map(|model| {
            let slug = model["slug"].as_str()?.to_owned();
            Some((model["priority"].as_i64().unwrap_or(i64::MAX), slug))
        })
        .collect();
    listed.sort();
    listed.into_iter().map(|(_, slug)| slug).collect()
}

/// Whether Claude Code (`program`) is installed and signed in: its `auth
/// status` says `loggedIn`.
pub async fn claude_signed_in(program: &str) -> bool {
    let asked = tokio::process::Command::new(program)
        .args(["auth", "status"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .output();
    let Ok(Ok(output)) = tokio::time::timeout(ASK_LIMIT, asked).await else {
        return false;
    };
    serde_json::from_slice::<serde_json::Value>(&output.stdout)
        .ok()
        .and_then(|status| status["loggedIn"].as_bool())
        .unwrap_or(false)
}

/// The backend for `settings` and why.
pub async fn resolve(settings: &Settings) -> ResolvedBackend {
    let chosen = |backend: ModelBackend, reason: String| ResolvedBackend { backend, reason };
    if let Some(backend) = settings.model_backend {
        return chosen(
            backend,
            format!(
                "{} is set in Settings (modelBackend, or SWITCHBOARD_MODEL_BACKEND)",
                backend.label()
            ),
        );
    }
    if settings.model_url.is_some() {
        return chosen(
            ModelBackend::OpenaiCompatible,
            "a model server is configured (modelUrl); change it in Settings".to_owned(),
        );
    }
    // Both are asked at once; Claude Code is preferred when both answer.
    let (claude, codex) = (claude_program(settings), codex_program(settings));
    let (claude, codex) = tokio::join!(claude_signed_in(&claude), codex_signed_in(&codex));
    if claude {
        return chosen(
            ModelBackend::ClaudeCode,
            "Claude Code is signed in here; pick another backend in Settings".to_owned(),
        );
    }
    if codex {
        return chosen(
            ModelBackend::Codex,
            "Codex is signed in here (and Claude Code is not); pick another backend in Settings"
                .to_owned(),
        );
    }
    chosen(
        ModelBackend::OpenaiCompatible,
        format!(
            "no model server is configured and no signed-in Claude Code or Codex was found: trying a local one at {}; sign in to Claude Code or Codex, or set a server in Settings",
            settings.model_url()
        ),
    )
}

/// The settings a resolution depends on.
type Key = (
    Option<ModelBackend>,
    Option<String>,
    Option<String>,
    Option<String>,
);

/// How long the fall-back to the local server is kept before the agents are
/// asked again (one may have been signed in meanwhile).
const FALL_BACK_KEPT: Duration = Duration::from_secs(30);

/// Whether a resolution made `age` ago for `settings` is still good: one the
/// settings decided, or an agent found, is kept while they stay the same;
/// the fall-back to the local server only for [`FALL_BACK_KEPT`], so a
/// developer who signs in to an agent after the window opened is not told
/// there is no model until a restart.
fn still_good(resolved: &ResolvedBackend, settings: &Settings, age: Duration) -> bool {
    let fell_back = settings.model_backend.is_none()
        && settings.model_url.is_none()
        && resolved.backend == ModelBackend::OpenaiCompatible;
    !fell_back || age < FALL_BACK_KEPT
}

/// Resolutions kept, so asking the agents whether they are signed in costs
/// one turn, not every turn; a change of the settings involved asks again
/// (and so does a fall-back older than [`FALL_BACK_KEPT`]).
#[derive(Debug, Default)]
pub struct Resolutions(std::sync::Mutex<Option<(Key, ResolvedBackend, std::time::Instant)>>);

impl Resolutions {
    /// [`resolve`], remembered for the same settings.
    pub async fn get(&self, settings: &Settings) -> ResolvedBackend {
        let key = (
            settings.model_backend,
            settings.model_url.clone(),
            settings.claude_code_path.clone(),
            settings.codex_path.clone(),
        );
        let known = self.0.lock().ok().and_then(|kept| {
            kept.as_ref()
                .filter(|(kept, resolved, at)| {
                    *kept == key && still_good(resolved, settings, at.elapsed())
                })
                .map(|(_, resolved, _)| resolved.clone())
        });
        if let Some(resolved) = known {
            return resolved;
        }
        let resolved = resolve(settings).await;
        if let Ok(mut kept) = self.0.lock() {
            *kept = Some((key, resolved.clone(), std::time::Instant::now()));
        }
        resolved
    }
}

/// The models Claude Code offers by name (its aliases for the newest of
/// each family).
pub const CLAUDE_MODELS: [&str; 3] = ["sonnet", "opus", "haiku"];

/// `error` from the local server tried because nothing else was found,
/// told as what it is: no backend works here, and what to do about it.
pub fn explained(error: crate::SidecarError, settings: &Settings) -> crate::SidecarError {
    let fell_back = settings.model_backend.is_none() && settings.model_url.is_none();
    match error {
        crate::SidecarError::Model(crate::model_client::ClientError::Unreachable { url })
            if fell_back =>
        {
            crate::SidecarError::NoBackend(format!(
                "the chat has no model here: no signed-in Claude Code or Codex was found, no model server is configured, and none answers at {url}; sign in to Claude Code (run `claude`) or Codex (`codex login`), or start a local server (`ollama serve`), or set a server or backend in Settings"
            ))
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_fall_back_to_the_local_server_is_asked_again_after_a_while() {
        let chosen = |backend| ResolvedBackend {
            backend,
            reason: String::new(),
        };
        let later = FALL_BACK_KEPT + Duration::from_secs(1);
        let nothing_set = Settings::default();
        let fell_back = chosen(ModelBackend::OpenaiCompatible);
        assert!(still_good(&fell_back, &nothing_set, Duration::ZERO));
        assert!(!still_good(&fell_back, &nothing_set, later));
        for backend in [ModelBackend::ClaudeCode, ModelBackend::Codex] {
            assert!(still_good(&chosen(backend), &nothing_set, later));
        }
        let configured = Settings {
            model_url: Some("http://127.0.0.1:8080/v1".into()),
            ..Settings::default()
        };
        assert!(still_good(&fell_back, &configured, later));
        let named = Settings {
            model_backend: Some(ModelBackend::OpenaiCompatible),
            ..Settings::default()
        };
        assert!(still_good(&fell_back, &named, later));
    }
}
