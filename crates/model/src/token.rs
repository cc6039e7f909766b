//! Bearer tokens for `switchboard mcp --http`: each names an agent and
//! says what it may do (its [`Scope`]s), and only its SHA-256 is kept
//! (`mcp-tokens.json` in the config folder), so the file never holds a
//! token that would work.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use thiserror::Error;

use crate::Timestamp;

/// What every token starts with, so one found in a log or a file is
/// recognisable as Switchboard's.
pub const PREFIX: &str = "sbt_";

/// The longest agent name a token takes.
pub const NAME_LIMIT: usize = 64;

/// What a token lets its agent do; every tool belongs to one scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// The inbox: deliver, ask, read answers and annotations, ask
    /// permission (`approve`).
    Inbox,
    /// The project's knowledge: search it, add learnings, rate bullets.
    Knowledge,
    /// The agent team's task queue and messages.
    Tasks,
    /// Programs on this machine: program sessions (start any program and
    /// type into it) and investigation (investigate, probe, test, fuzz,
    /// command chains), which start programs too.
    Programs,
}

impl Scope {
    /// Every scope.
    pub const ALL: [Self; 4] = [Self::Inbox, Self::Knowledge, Self::Tasks, Self::Programs];

    /// What a token gets unless more is granted.
    pub const DEFAULT: [Self; 3] = [Self::Inbox, Self::Knowledge, Self::Tasks];

    /// Its name, as the file and `--allow` spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Inbox => "inbox",
            Self::Knowledge => "knowledge",
            Self::Tasks => "tasks",
            Self::Programs => "programs",
        }
    }
}

impl std::fmt::Display for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Scope {
    type Err = TokenError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|scope| scope.as_str() == name)
            .ok_or_else(|| TokenError::BadScope(name.to_owned()))
    }
}

/// The scopes a token holds.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Scopes(std::collections::BTreeSet<Scope>);

impl Scopes {
    /// The default scopes with `granted` added.
    pub fn granting(granted: &[Scope]) -> Self {
        Self(Scope::DEFAULT.iter().chain(granted).copied().collect())
    }

    /// Every scope (a local client, which needs no token).
    pub fn all() -> Self {
        Self(Scope::ALL.into_iter().collect())
    }

    /// Whether `scope` is among them.
    pub fn allows(&self, scope: Scope) -> bool {
        self.0.contains(&scope)
    }

    /// The scopes, in order.
    pub fn iter(&self) -> impl Iterator<Item = Scope> + '_ {
        self.0.iter().copied()
    }
}

impl std::fmt::Display for Scopes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.iter().map(Scope::as_str).collect();
        f.write_str(&names.join(", "))
    }
}

/// One token, as the file keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenRecord {
    /// The agent it names (a machine, a container, a person's agent).
    pub name: String,
    /// The token's SHA-256, lowercase hex.
    pub sha256: String,
    /// When it was made.
    pub created_at: Timestamp,
    /// Its scopes' names; absent in files written before tokens had
    /// scopes, which hold the default ones ([`TokenRecord::scopes`]).
    /// Names this version does not know are kept and grant nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes: Option<Vec<String>>,
    /// Fields newer versions wrote.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `mcp-tokens.json`: every token, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TokenFile {
    /// The tokens.
    #[serde(default)]
    pub tokens: Vec<TokenRecord>,
    /// Fields newer versions wrote.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Why a token is not made, revoked or accepted.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TokenError {
    /// A name outside the rule.
    #[error("{0:?} cannot name a token: 1 to 64 letters, digits, '.', '_', '-', '@' or ':'")]
    BadName(String),
    /// A token with that name exists.
    #[error("a token named {0:?} exists; revoke it first or pick another name")]
    Taken(String),
    /// No token has that name.
    #[error("no token is named {0:?}")]
    Unknown(String),
    /// A scope that does not exist.
    #[error("{0:?} is not a scope: inbox, knowledge, tasks or programs")]
    BadScope(String),
}

impl TokenRecord {
    /// What the token may do: the scopes it names that this version knows,
    /// or the default ones when it names none (an older file).
    pub fn scopes(&self) -> Scopes {
        match &self.scopes {
            None => Scopes::granting(&[]),
            Some(names) => Scopes(names.iter().filter_map(|name| name.parse().ok()).collect()),
        }
    }
}

/// Checks an agent name.
pub fn check_name(name: &str) -> Result<(), TokenError> {
    let fits = !name.is_empty()
        && name.chars().count() <= NAME_LIMIT
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '@' | ':'));
    if fits {
        Ok(())
    } else {
        Err(TokenError::BadName(name.to_owned()))
    }
}

/// A token's SHA-256 as the file keeps it.
pub fn digest(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// The token an `Authorization` header value carries (`Bearer …`, the
/// scheme in any case).
pub fn bearer(header: &str) -> Option<&str> {
    let (scheme, token) = header.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// Equal without stopping at the first difference (digests compared so
/// take as long whatever they hold).
pub(crate) fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0_u8, |differ, (x, y)| differ | (x ^ y))
            == 0
}

impl TokenFile {
    /// Adds a token named `name` whose SHA-256 is `sha256`, holding
    /// `scopes`.
    pub fn add(
        &mut self,
        name: &str,
        sha256: String,
        scopes: &Scopes,
        now: Timestamp,
    ) -> Result<(), TokenError> {
        check_name(name)?;
        if self.tokens.iter().any(|token| token.name == name) {
            return Err(TokenError::Taken(name.to_owned()));
        }
        self.tokens.push(TokenRecord {
            name: name.to_owned(),
            sha256,
            created_at: now,
            scopes: Some(
                scopes
                    .iter()
                    .map(|scope| scope.as_str().to_owned())
                    .collect(),
            ),
            extra: Map::new(),
        });
        Ok(())
    }

    /// Removes the token named `name`.
    pub fn revoke(&mut self, name: &str) -> Result<TokenRecord, TokenError> {
        let index = self
            .tokens
            .iter()
            .position(|token| token.name == name)
            .ok_or_else(|| TokenError::Unknown(name.to_owned()))?;
        Ok(self.tokens.remove(index))
    }

    /// The token `presented` is, if it is one of these.
    pub fn holder(&self, presented: &str) -> Option<&TokenRecord> {
        let wanted = digest(presented);
        let mut found = None;
        // Every record is compared, found or not.
        for token in &self.tokens {
            if same(&token.sha256, &wanted) {
                found = Some(token);
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn a_token_is_known_by_its_digest_only_and_names_its_agent() {
        let mut file = TokenFile::default();
        let now = Timestamp::EPOCH;
        let plain = Scopes::granting(&[]);
        file.add("laptop@devbox", digest("sbt_one"), &plain, now)
            .unwrap();
        file.add("ci", digest("sbt_two"), &plain, now).unwrap();
        let name = |presented: &str| file.holder(presented).map(|token| token.name.clone());
        assert_eq!(name("sbt_one").as_deref(), Some("laptop@devbox"));
        assert_eq!(name("sbt_two").as_deref(), Some("ci"));
        assert_eq!(name("sbt_three"), None);
        let written = serde_json::to_string(&file).unwrap();
        assert!(!written.contains("sbt_one"), "{written}");
        assert_eq!(
            file.add("ci", digest("x"), &plain, now),
            Err(TokenError::Taken("ci".into()))
        );
        assert_eq!(file.revoke("ci").unwrap().name, "ci");
        assert_eq!(file.holder("sbt_two"), None);
        assert_eq!(file.revoke("ci"), Err(TokenError::Unknown("ci".into())));
    }

    #[test]
    fn a_token_holds_the_default_scopes_and_what_was_granted_and_an_old_one_the_defaults() {
        let mut file = TokenFile::default();
        let now = Timestamp::EPOCH;
        file.add("plain", digest("sbt_a"), &Scopes::granting(&[]), now)
            .unwrap();
        file.add(
            "runner",
            digest("sbt_b"),
            &Scopes::granting(&[Scope::Programs]),
            now,
        )
        .unwrap();
        let plain = file.holder("sbt_a").unwrap().scopes();
        assert_eq!(plain.to_string(), "inbox, knowledge, tasks");
        assert!(!plain.allows(Scope::Programs), "programs only when granted");
        let runner = file.holder("sbt_b").unwrap().scopes();
        assert!(runner.allows(Scope::Programs) && runner.allows(Scope::Inbox));

        // A file from before scopes: its tokens hold the default ones.
        let old = r#"{"tokens": [{"name": "old", "sha256": "00",
            "created_at": "2026-01-01T00:00:00.000Z"}]}"#;
        let old: TokenFile = serde_json::from_str(old).unwrap();
        assert_eq!(old.tokens[0].scopes(), Scopes::granting(&[]));
        assert!(
            !serde_json::to_string(&old).unwrap().contains("scopes"),
            "an old record is written back as it was"
        );
        // A scope a newer version wrote is kept and grants nothing here.
        let newer = r#"{"tokens": [{"name": "new", "sha256": "00",
            "created_at": "2026-01-01T00:00:00.000Z", "scopes": ["inbox", "teleport"]}]}"#;
        let newer: TokenFile = serde_json::from_str(newer).unwrap();
        assert_eq!(newer.tokens[0].scopes().to_string(), "inbox");
        assert!(serde_json::to_string(&newer).unwrap().contains("teleport"));

        assert_eq!("programs".parse::<Scope>(), Ok(Scope::Programs));
        assert_eq!(
            "root".parse::<Scope>(),
            Err(TokenError::BadScope("root".into()))
        );
    }

    #[test]
    fn names_and_headers_are_checked() {
        assert!(check_name("container:web-1").is_ok());
        for bad in ["", "a b", "../x", "é", &"x".repeat(65)] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
        assert_eq!(bearer("Bearer sbt_x"), Some("sbt_x"));
        assert_eq!(bearer("bearer   sbt_x "), Some("sbt_x"));
        assert_eq!(bearer("Basic abc"), None);
        assert_eq!(bearer("Bearer "), None);
        assert_eq!(
            digest("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
