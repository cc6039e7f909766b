//! Browsers paired with `switchboard serve`: the one-time pairing codes
//! and the sessions they became, as `browser-sessions.json` in the config
//! folder keeps them (SHA-256 digests only, never a code, a cookie or a
//! page key), and the rules: a code works once, within
//! [`PAIRING_LIFETIME_MS`]; a session works until it is revoked; a command
//! or an event stream needs the session's cookie and its page key
//! ([`BrowserFile::admit`]).
//!
//! Why two secrets: a browser sends a cookie to every server on its host,
//! whatever the port, so another server on `127.0.0.1` receives the
//! cookie and could replay it. The page key is handed once, at pairing,
//! in the link's fragment (never sent to a server), and kept in the page's
//! `localStorage`, which only this origin — scheme, host and port — reads.

mod agent;
mod connection;
mod grants;
mod pairing;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use thiserror::Error;

pub use agent::describe;
pub use connection::{Connection, EVENT_CONNECTION};
pub use grants::{
    BROWSER_INFO, BrowserInfo, Grants, START_SETTING, TAKE_OVER_SETTING, UNATTENDED_SETTING,
    WINDOW_ONLY,
};
pub use pairing::{REACHES_EVERY_WORKSPACE, is_loopback, reach_hint};

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

/// How often a paired browser's last visit is written down at most: its
/// requests within a minute of the last one recorded change nothing.
pub const SEEN_EVERY_MS: i64 = 60 * 1000;

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
    /// The browser's own name for itself (its `User-Agent`, 400 characters
    /// at most: whole, as phones' are):
    /// [`BrowserSession::described`] says it in words.
    #[serde(default)]
    pub label: String,
    /// Its page key's SHA-256, lowercase hex; none in a session paired by
    /// a version before page keys, which is refused until it pairs again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_key_sha256: Option<String>,
    /// When its page last reached a server (to [`SEEN_EVERY_MS`]); none
    /// before its first command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_seen: Option<Timestamp>,
    /// Fields newer versions wrote.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl BrowserSession {
    /// The browser in words ("Chrome 120 on Android 14 (Pixel 7)"), from
    /// the `User-Agent` it paired with.
    pub fn described(&self) -> String {
        describe(&self.label)
    }

    /// Whether a visit at `now` is worth writing down: none is yet, or the
    /// last is [`SEEN_EVERY_MS`] old.
    pub fn seen_due(&self, now: Timestamp) -> bool {
        self.last_seen
            .is_none_or(|seen| now.unix_millis() - seen.unix_millis() >= SEEN_EVERY_MS)
    }

    /// Whether it holds a page key (it was paired by this version or a
    /// later one).
    pub fn has_page_key(&self) -> bool {
        self.page_key_sha256.is_some()
    }
}

/// The secrets a browser is given when it pairs, shown once: the cookie
/// its requests carry and the page key its page keeps.
#[derive(Clone, PartialEq, Eq)]
pub struct Secrets {
    /// The session cookie's value.
    pub cookie: String,
    /// The page key, which the page sends with every command and stream.
    pub page_key: String,
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secrets { .. }")
    }
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
        "this pairing link was used already, has expired (10 minutes) or was never made; on the machine, run `switchboard pair` for a new one (or `switchboard serve --pair` when nothing serves the workspace yet)"
    )]
    BadCode,
    /// No session has that id.
    #[error("no paired browser is {0:?}; `switchboard serve --sessions` lists the paired browsers")]
    Unknown(String),
    /// No session holds the cookie presented (none, or revoked).
    #[error(
        "this browser is not paired (or it was revoked): run `switchboard pair` on the machine and open the link"
    )]
    NotPaired,
    /// The session was paired by a version before page keys.
    #[error(
        "this browser's pairing is from an older version of Switchboard: pair it again with `switchboard pair` on the machine (and open the new link)"
    )]
    PairedBeforePageKeys,
    /// The request carries no page key, or not this session's: the page
    /// lost it (its site data was cleared) or the request did not come
    /// from the page that paired.
    #[error(
        "this page does not hold this browser's pairing key (its site data was cleared, or the request did not come from the page that paired): pair again with `switchboard pair` on the machine"
    )]
    WrongPageKey,
}

impl BrowserFile {
    /// Drops the codes older than their lifetime at `now`.
    pub fn forget_expired(&mut self, now: Timestamp) {
        self.pairings.retain(|pairing| {
            now.unix_millis() - pairing.created_at.unix_millis() < PAIRING_LIFETIME_MS
        });
    }

    /// Uses `code` at `now`: it is removed (it works once) and a session
    /// with the digests of `secrets`' cookie and page key, named `id`,
    /// takes its place.
    pub fn pair(
        &mut self,
        code: &str,
        secrets: &Secrets,
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
            sha256: digest(&secrets.cookie),
            created_at: now,
            // One line, as lists show it: control characters (a tab, a
            // newline in a hostile User-Agent) become spaces.
            label: label
                .chars()
                .take(400)
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect(),
            page_key_sha256: Some(digest(&secrets.page_key)),
            last_seen: None,
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

    /// The session a command or an event stream comes from: the one
    /// `cookie` belongs to, if `page_key` is that session's (both compared
    /// by digest without stopping at the first difference).
    pub fn admit(
        &self,
        cookie: &str,
        page_key: Option<&str>,
    ) -> Result<&BrowserSession, BrowserError> {
        let session = self.holder(cookie).ok_or(BrowserError::NotPaired)?;
        let kept = session
            .page_key_sha256
            .as_deref()
            .ok_or(BrowserError::PairedBeforePageKeys)?;
        // A missing key is compared like a wrong one: nothing answers
        // sooner for it.
        let presented = digest(page_key.unwrap_or_default());
        if page_key.is_some() & same(kept, &presented) {
            Ok(session)
        } else {
            Err(BrowserError::WrongPageKey)
        }
    }

    /// Records that session `id` was seen at `now` (if it is still
    /// paired); whether anything changed.
    pub fn saw(&mut self, id: &str, now: Timestamp) -> bool {
        match self.sessions.iter_mut().find(|session| session.id == id) {
            Some(session) if session.seen_due(now) => {
                session.last_seen = Some(now);
                true
            }
            _ => false,
        }
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

    fn secrets(cookie: &str, page_key: &str) -> Secrets {
        Secrets {
            cookie: cookie.into(),
            page_key: page_key.into(),
        }
    }

    #[test]
    fn a_code_pairs_once_and_its_session_works_until_revoked() {
        let mut file = with_code("code", 1_000);
        let session = file
            .pair(
                "code",
                &secrets("cookie", "key"),
                "b1".into(),
                "Fire\tfox\nb2\tforged",
                at(2_000),
            )
            .unwrap();
        assert_eq!(session.label, "Fire fox b2 forged", "one line, no tabs");
        assert_eq!(file.holder("cookie").map(|s| s.id.as_str()), Some("b1"));
        assert_eq!(file.holder("other"), None);
        assert_eq!(
            file.pair(
                "code",
                &secrets("cookie2", "key2"),
                "b2".into(),
                "",
                at(3_000)
            ),
            Err(BrowserError::BadCode),
            "a code works once"
        );
        let text = serde_json::to_string(&file).unwrap();
        assert!(
            !text.contains("cookie") && !text.contains("\"code\"") && !text.contains("\"key\""),
            "{text}"
        );
        file.revoke("b1").unwrap();
        assert_eq!(file.holder("cookie"), None);
        assert_eq!(file.revoke("b1"), Err(BrowserError::Unknown("b1".into())));
    }

    #[test]
    fn a_command_needs_the_cookie_and_that_sessions_own_page_key() {
        let mut file = BrowserFile {
            pairings: vec![
                Pairing {
                    sha256: digest("one"),
                    created_at: at(0),
                },
                Pairing {
                    sha256: digest("two"),
                    created_at: at(0),
                },
            ],
            ..BrowserFile::default()
        };
        file.pair("one", &secrets("cookie-a", "key-a"), "ba".into(), "", at(1))
            .unwrap();
        file.pair("two", &secrets("cookie-b", "key-b"), "bb".into(), "", at(1))
            .unwrap();
        let admitted = |cookie: &str, key: Option<&str>| {
            file.admit(cookie, key).map(|session| session.id.clone())
        };
        assert_eq!(admitted("cookie-a", Some("key-a")), Ok("ba".to_owned()));
        assert_eq!(admitted("cookie-b", Some("key-b")), Ok("bb".to_owned()));
        // The cookie alone, as another server on the host replays it.
        assert_eq!(admitted("cookie-a", None), Err(BrowserError::WrongPageKey));
        assert_eq!(
            admitted("cookie-a", Some("")),
            Err(BrowserError::WrongPageKey)
        );
        assert_eq!(
            admitted("cookie-a", Some("key-b")),
            Err(BrowserError::WrongPageKey),
            "another session's key is not this one's"
        );
        assert_eq!(
            admitted("cookie-a", Some("cookie-a")),
            Err(BrowserError::WrongPageKey)
        );
        assert_eq!(
            admitted("forged", Some("key-a")),
            Err(BrowserError::NotPaired)
        );
    }

    #[test]
    fn a_session_paired_before_page_keys_is_kept_and_told_to_pair_again() {
        let text = r#"{"sessions": [{"id": "b1", "sha256": "SHA", "created_at": "2025-01-01T00:00:00Z", "label": "old phone"}]}"#
            .replace("SHA", &digest("cookie"));
        let file: BrowserFile = serde_json::from_str(&text).unwrap();
        assert!(!file.sessions[0].has_page_key());
        assert_eq!(
            file.admit("cookie", Some("anything")).map(|_| ()),
            Err(BrowserError::PairedBeforePageKeys)
        );
        assert_eq!(
            file.admit("cookie", None).map(|_| ()),
            Err(BrowserError::PairedBeforePageKeys)
        );
        let written = serde_json::to_value(&file).unwrap();
        assert_eq!(
            written["sessions"][0].get("page_key_sha256"),
            None,
            "written back as it was"
        );
    }

    #[test]
    fn a_visit_is_written_down_once_a_minute_at_most_and_the_browser_named_in_words() {
        let mut file = with_code("code", 0);
        file.pair(
            "code",
            &secrets("cookie", "key"),
            "b1".into(),
            "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
            at(1_000),
        )
        .unwrap();
        assert_eq!(
            file.sessions[0].last_seen, None,
            "not seen before a command"
        );
        assert!(file.saw("b1", at(2_000)));
        assert!(
            !file.saw("b1", at(2_000 + SEEN_EVERY_MS - 1)),
            "within the minute"
        );
        assert!(file.saw("b1", at(2_000 + SEEN_EVERY_MS)));
        assert_eq!(file.sessions[0].last_seen, Some(at(2_000 + SEEN_EVERY_MS)));
        assert!(
            !file.saw("gone", at(9_999_999)),
            "a revoked browser stays gone"
        );
        assert_eq!(
            file.sessions[0].described(),
            "Chrome 120 on Android 14 (Pixel 7)"
        );
        let text = serde_json::to_string(&file).unwrap();
        let back: BrowserFile = serde_json::from_str(&text).unwrap();
        assert_eq!(back, file, "the visit survives a round trip");
    }

    #[test]
    fn a_code_older_than_ten_minutes_pairs_nothing() {
        let mut file = with_code("code", 0);
        assert_eq!(
            file.pair(
                "code",
                &secrets("cookie", "key"),
                "b1".into(),
                "",
                at(PAIRING_LIFETIME_MS)
            ),
            Err(BrowserError::BadCode)
        );
        assert!(file.pairings.is_empty() && file.sessions.is_empty());
    }
}
