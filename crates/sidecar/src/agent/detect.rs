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

/// Codex's catalogs kept for the sidecar's life (they change only with
/// Codex itself), so opening the Chat view does not start Codex each time.
#[derive(Debug, Default)]
pub struct CodexCatalog(std::sync::Mutex<Option<(String, Vec<String>)>>);

impl CodexCatalog {
    /// [`codex_models`] of `program`, remembered once it named some.
    pub async fn get(&self, program: &str) -> Vec<String> {
        let known = self.0.lock().ok().and_then(|kept| {
            kept.as_ref()
                .filter(|(kept, _)| kept == program)
                .map(|(_, models)| models.clone())
        });
        if let Some(models) = known {
            return models;
        }
        let models = codex_models(program).await;
        if !models.is_empty()
            && let Ok(mut kept) = self.0.lock()
        {
            *kept = Some((program.to_owned(), models.clone()));
        }
        models
    }
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
/// the fall-back to the local server only for `fall_back_kept`, so a
/// developer who signs in to an agent after the window opened is not told
/// there is no model until a restart.
fn still_good(
    resolved: &ResolvedBackend,
    settings: &Settings,
    age: Duration,
    fall_back_kept: Duration,
) -> bool {
    let fell_back = settings.model_backend.is_none()
        && settings.model_url.is_none()
        && resolved.backend == ModelBackend::OpenaiCompatible;
    !fell_back || age < fall_back_kept
}

/// A resolution kept: for which settings, what, since when, and whether
/// it is being asked again.
#[derive(Debug)]
struct Kept {
    key: Key,
    resolved: ResolvedBackend,
    at: std::time::Instant,
    refreshing: bool,
}

/// Resolutions kept, so asking the agents whether they are signed in costs
/// one turn, not every turn; a change of the settings involved asks again.
/// A fall-back older than its keeping time is asked again in the
/// background — the turn in hand goes on with it, the next gets the answer
/// — so a developer using a local server pays no agent check on a turn.
#[derive(Debug, Clone)]
pub struct Resolutions {
    kept: std::sync::Arc<std::sync::Mutex<Option<Kept>>>,
    fall_back_kept: Duration,
}

impl Default for Resolutions {
    fn default() -> Self {
        Self::keeping_fall_backs(FALL_BACK_KEPT)
    }
}

impl Resolutions {
    /// Resolutions whose fall-back is asked again after `fall_back_kept`.
    pub fn keeping_fall_backs(fall_back_kept: Duration) -> Self {
        Self {
            kept: std::sync::Arc::default(),
            fall_back_kept,
        }
    }

    /// [`resolve`], remembered for the same settings.
    pub async fn get(&self, settings: &Settings) -> ResolvedBackend {
        let key = (
            settings.model_backend,
            settings.model_url.clone(),
            settings.claude_code_path.clone(),
            settings.codex_path.clone(),
        );
        let known = self.kept.lock().ok().and_then(|mut kept| {
            let kept = kept.as_mut().filter(|kept| kept.key == key)?;
            let stale = !still_good(
                &kept.resolved,
                settings,
                kept.at.elapsed(),
                self.fall_back_kept,
            );
            if stale && !kept.refreshing {
                kept.refreshing = true;
                let (again, settings, key) = (self.clone(), settings.clone(), key.clone());
                tokio::spawn(async move { again.store(key, resolve(&settings).await) });
            }
            Some(kept.resolved.clone())
        });
        if let Some(resolved) = known {
            return resolved;
        }
        let resolved = resolve(settings).await;
        self.store(key, resolved.clone());
        resolved
    }

    fn store(&self, key: Key, resolved: ResolvedBackend) {
        if let Ok(mut kept) = self.kept.lock() {
            *kept = Some(Kept {
                key,
                resolved,
                at: std::time::Instant::now(),
                refreshing: false,
            });
        }
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
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn only_a_fall_back_to_the_local_server_is_asked_again_after_a_while() {
        let chosen = |backend| ResolvedBackend {
            backend,
            reason: String::new(),
        };
        let later = FALL_BACK_KEPT + Duration::from_secs(1);
        let still_good =
            |resolved: &_, settings: &_, age| still_good(resolved, settings, age, FALL_BACK_KEPT);
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

    #[tokio::test(flavor = "current_thread")]
    async fn a_stale_fall_back_is_asked_again_in_the_background_and_the_next_turn_gets_the_agent() {
        let dir = tempfile::tempdir().unwrap();
        let claude = dir.path().join("claude");
        let settings = Settings {
            claude_code_path: Some(claude.display().to_string()),
            codex_path: Some("/nonexistent/codex".into()),
            ..Settings::default()
        };
        let resolutions = Resolutions::keeping_fall_backs(Duration::ZERO);
        // Nothing signed in yet: the local server.
        assert_eq!(
            resolutions.get(&settings).await.backend,
            ModelBackend::OpenaiCompatible
        );
        // Claude Code is signed in meanwhile.
        std::fs::write(&claude, "#!/bin/sh\necho '{\"loggedIn\": true}'\n").unwrap();
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        // The turn in hand goes on with what was kept, without waiting.
        assert_eq!(
            resolutions.get(&settings).await.backend,
            ModelBackend::OpenaiCompatible
        );
        // A later one gets Claude Code, once the check in the background
        // has answered.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            if resolutions.get(&settings).await.backend == ModelBackend::ClaudeCode {
                break;
            }
            assert!(std::time::Instant::now() < deadline, "never asked again");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}
