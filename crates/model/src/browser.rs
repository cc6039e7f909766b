//! Browsers paired with `switchboard serve`: the one-time pairing codes
//! and the sessions they became, as `browser-sessions.json` in the config
//! folder keeps them (SHA-256 digests only, never a code or a cookie), and
//! the rules: a code works once, within [`PAIRING_LIFETIME_MS`]; a session
//! works until it is revoked.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use thiserror::Error;

use crate::{
    Timestamp,
    token::{digest, same},
};

/// How many event streams one paired browser holds open at once (a page
/// holds one; a few tabs, a reload not yet noticed as closed); past them,
/// `switchboard serve` answers 429.
pub const STREAMS_PER_BROWSER: usize = 8;

/// How long a pairing code works, unused: 10 minutes.
pub const PAIRING_LIFETIME_MS: i64 = 10 * 60 * 1000;

/// A pairing code not used yet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pairing {
    /// The code's SHA-256, lowercase hex.
    pub sha256: String,
    /// When it was made.
    pub created_at: Timestamp,
}

/// A paired browser.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BrowserSession {
    /// What names it in lists and `--revoke`: `b` and 8 hex digits.
    pub id: String,
    /// Its cookie's SHA-256, lowercase hex.
    pub sha256: String,
    /// When it was paired.
    pub created_at: Timestamp,
    /// The browser's own name for itself (its `User-Agent`, cut short).
    #[serde(default)]
    pub label: String,
    /// Fields newer versions wrote.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `browser-sessions.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BrowserFile {
    /// Codes not used yet (expired ones are dropped at the next change).
    #[serde(default)]
    pub pairings: Vec<Pairing>,
    /// The paired browsers, oldest first.
    #[serde(default)]
    pub sessions: Vec<BrowserSession>,
    /// Fields newer versions wrote.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Why a code or a session is refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BrowserError {
    /// The code was never made, was used, or is older than 10 minutes.
    #[error(
        "this pairing link was used already, has expired (10 minutes) or was never made; run `switchboard serve --pair` for a new one"
    )]
    BadCode,
    /// No session has that id.
    #[error("no paired browser is {0:?}; `switchboard serve --sessions` lists them")]
    Unknown(String),
}

impl BrowserFile {
    /// Drops the codes older than their lifetime at `now`.
    pub fn forget_expired(&mut self, now: Timestamp) {
        self.pairings.retain(|pairing| {
            now.unix_millis() - pairing.created_at.unix_millis() < PAIRING_LIFETIME_MS
        });
    }

    /// Uses `code` at `now`: it is removed (it works once) and a session
    /// with `cookie`'s digest, named `id`, takes its place.
    pub fn pair(
        &mut self,
        code: &str,
        cookie: &str,
        id: String,
        label: &str,
        now: Timestamp,
    ) -> Result<BrowserSession, BrowserError> {
        self.forget_expired(now);
        let presented = digest(code);
        let found = self
            .pairings
            .iter()
            .position(|pairing| same(&pairing.sha256, &presented))
            .ok_or(BrowserError::BadCode)?;
        self.pairings.remove(found);
        let session = BrowserSession {
            id,
            sha256: digest(cookie),
            created_at: now,
            // One line, as lists show it: control characters (a tab, a
            // newline in a hostile User-Agent) become spaces.
            label: label
                .chars()
                .take(120)
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect(),
            extra: Map::new(),
        };
        self.sessions.push(session.clone());
        Ok(session)
    }

    /// The session `cookie` belongs to, if it is paired now.
    pub fn holder(&self, cookie: &str) -> Option<&BrowserSession> {
        let presented = digest(cookie);
        self.sessions
            .iter()
            .find(|session| same(&session.sha256, &presented))
    }

    /// Removes session `id`; its cookie stops working at once.
    pub fn revoke(&mut self, id: &str) -> Result<BrowserSession, BrowserError> {
        let found = self
            .sessions
            .iter()
            .position(|session| session.id == id)
            .ok_or_else(|| BrowserError::Unknown(id.to_owned()))?;
        Ok(self.sessions.remove(found))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    fn at(ms: i64) -> Timestamp {
        Timestamp::from_unix_millis(ms).unwrap()
    }

    fn with_code(code: &str, made: i64) -> BrowserFile {
        BrowserFile {
            pairings: vec![Pairing {
                sha256: digest(code),
                created_at: at(made),
            }],
            ..BrowserFile::default()
        }
    }

    #[test]
    fn a_code_pairs_once_and_its_session_works_until_revoked() {
        let mut file = with_code("code", 1_000);
        let session = file
            .pair(
                "code",
                "cookie",
                "b1".into(),
                "Fire\tfox\nb2\tforged",
                at(2_000),
            )
            .unwrap();
        assert_eq!(session.label, "Fire fox b2 forged", "one line, no tabs");
        assert_eq!(file.holder("cookie").map(|s| s.id.as_str()), Some("b1"));
        assert_eq!(file.holder("other"), None);
        assert_eq!(
            file.pair("code", "cookie2", "b2".into(), "", at(3_000)),
            Err(BrowserError::BadCode),
            "a code works once"
        );
        let text = serde_json::to_string(&file).unwrap();
        assert!(
            !text.contains("cookie") && !text.contains("\"code\""),
            "{text}"
        );
        file.revoke("b1").unwrap();
        assert_eq!(file.holder("cookie"), None);
        assert_eq!(file.revoke("b1"), Err(BrowserError::Unknown("b1".into())));
    }

    #[test]
    fn a_code_older_than_ten_minutes_pairs_nothing() {
        let mut file = with_code("code", 0);
        assert_eq!(
            file.pair("code", "cookie", "b1".into(), "", at(PAIRING_LIFETIME_MS)),
            Err(BrowserError::BadCode)
        );
        assert!(file.pairings.is_empty() && file.sessions.is_empty());
    }
}
