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

/// The variables that override the limits, with the limit each sets.
pub const LIMIT_OVERRIDES: [(&str, &str); 4] = [
    ("SWITCHBOARD_MAX_SESSIONS", "maxSessions"),
    ("SWITCHBOARD_SESSION_IDLE_SECS", "idleSecs"),
    ("SWITCHBOARD_SESSION_MAX_SECS", "maxRuntimeSecs"),
    ("SWITCHBOARD_SESSION_HOST_LINGER_SECS", "hostLingerSecs"),
];

impl Limits {
    /// These limits with the variables `env` knows laid over them; a value
    /// that is not a whole number is ignored.
    pub fn with_env(mut self, env: impl Fn(&str) -> Option<String>) -> Self {
        let number = |name: &str| env(name).and_then(|value| value.trim().parse::<u64>().ok());
        if let Some(max) = number("SWITCHBOARD_MAX_SESSIONS") {
            self.max_sessions = usize::try_from(max).unwrap_or(usize::MAX);
        }
        if let Some(secs) = number("SWITCHBOARD_SESSION_IDLE_SECS") {
            self.idle_secs = secs;
        }
        if let Some(secs) = number("SWITCHBOARD_SESSION_MAX_SECS") {
            self.max_runtime_secs = secs;
        }
        if let Some(secs) = number("SWITCHBOARD_SESSION_HOST_LINGER_SECS") {
            self.host_linger_secs = secs;
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_overrides_what_parses() {
        let limits = Limits::default().with_env(|name| match name {
            "SWITCHBOARD_MAX_SESSIONS" => Some("3".into()),
            "SWITCHBOARD_SESSION_IDLE_SECS" => Some(" 5 ".into()),
            "SWITCHBOARD_SESSION_MAX_SECS" => Some("soon".into()),
            _ => None,
        });
        assert_eq!(limits.max_sessions, 3);
        assert_eq!(limits.idle_secs, 5);
        assert_eq!(limits.max_runtime_secs, 3_600);
    }
}
