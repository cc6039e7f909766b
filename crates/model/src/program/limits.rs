//! The host's limits (ClaudeControl's numbers, enforced here), and their
//! environment overrides.

use serde::{Deserialize, Serialize};

/// What the session host allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Limits {
    /// Live sessions at once; the next start is refused.
    pub max_sessions: usize,
    /// Seconds without input or output before a session is ended (0: never).
    pub idle_secs: u64,
    /// Seconds a session may run before it is ended (0: never).
    pub max_runtime_secs: u64,
    /// Lines of output kept in memory per session.
    pub buffer_lines: usize,
    /// Bytes of output kept in memory per session.
    pub buffer_bytes: usize,
    /// Size at which a session's output log is rotated.
    pub log_rotate_bytes: u64,
    /// Seconds a killed program has between `SIGTERM` and `SIGKILL`.
    pub kill_grace_secs: u64,
    /// Seconds the host stays up after its last session is gone.
    pub host_linger_secs: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_sessions: 20,
            idle_secs: 300,
            max_runtime_secs: 3_600,
            buffer_lines: 10_000,
            buffer_bytes: 2 * 1024 * 1024,
            log_rotate_bytes: 10 * 1024 * 1024,
            kill_grace_secs: 2,
            host_linger_secs: 60,
        }
    }
}

impl Limits {
    /// These limits with the settings' session limits (already under their
    /// environment overrides: `SWITCHBOARD_MAX_SESSIONS`,
    /// `SWITCHBOARD_SESSION_IDLE_SECS`, `SWITCHBOARD_SESSION_MAX_SECS`) laid
    /// over them.
    pub fn with_settings(mut self, settings: &crate::settings::Settings) -> Self {
        if let Some(max) = settings.max_sessions {
            self.max_sessions = usize::try_from(max).unwrap_or(usize::MAX);
        }
        if let Some(secs) = settings.session_idle_secs {
            self.idle_secs = secs;
        }
        if let Some(secs) = settings.session_max_secs {
            self.max_runtime_secs = secs;
        }
        self
    }

    /// These limits with the host's own variable laid over them
    /// (`SWITCHBOARD_SESSION_HOST_LINGER_SECS`); a value that is not a whole
    /// number is ignored.
    pub fn with_host_env(mut self, env: impl Fn(&str) -> Option<String>) -> Self {
        if let Some(secs) = env("SWITCHBOARD_SESSION_HOST_LINGER_SECS")
            .and_then(|value| value.trim().parse::<u64>().ok())
        {
            self.host_linger_secs = secs;
        }
        self
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn settings_and_their_overrides_set_the_limits() {
        let settings = crate::settings::Settings {
            max_sessions: Some(5),
            session_idle_secs: Some(60),
            ..Default::default()
        }
        .with_env(|name| match name {
            "SWITCHBOARD_MAX_SESSIONS" => Some("3".into()),
            "SWITCHBOARD_SESSION_MAX_SECS" => Some("soon".into()),
            _ => None,
        });
        let limits = Limits::default()
            .with_settings(&settings)
            .with_host_env(|name| {
                (name == "SWITCHBOARD_SESSION_HOST_LINGER_SECS").then(|| "1".into())
            });
        assert_eq!(limits.max_sessions, 3, "the variable over the file");
        assert_eq!(limits.idle_secs, 60, "the file over the default");
        assert_eq!(
            limits.max_runtime_secs, 3_600,
            "a value that is no number is ignored"
        );
        assert_eq!(limits.host_linger_secs, 1);
    }
}
