//! Bearer tokens for `switchboard mcp --http`: each names an agent, and
//! only its SHA-256 is kept (`mcp-tokens.json` in the config folder), so
//! the file never holds a token that would work.

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

/// One token, as the file keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenRecord {
    /// The agent it names (a machine, a container, a person's agent).
    pub name: String,
    /// The token's SHA-256, lowercase hex.
    pub sha256: String,
    /// When it was made.
    pub created_at: Timestamp,
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

/// Equal without stopping at the first difference.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0_u8, |differ, (x, y)| differ | (x ^ y))
            == 0
}

impl TokenFile {
    /// Adds a token named `name` whose SHA-256 is `sha256`.
    pub fn add(&mut self, name: &str, sha256: String, now: Timestamp) -> Result<(), TokenError> {
        check_name(name)?;
        if self.tokens.iter().any(|token| token.name == name) {
            return Err(TokenError::Taken(name.to_owned()));
        }
        self.tokens.push(TokenRecord {
            name: name.to_owned(),
            sha256,
            created_at: now,
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

    /// The agent `presented` names, if it is one of these tokens.
    pub fn holder(&self, presented: &str) -> Option<&str> {
        let wanted = digest(presented);
        let mut found = None;
        // Every record is compared, found or not.
        for token in &self.tokens {
            if same(&token.sha256, &wanted) {
                found = Some(token.name.as_str());
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_known_by_its_digest_only_and_names_its_agent() {
        let mut file = TokenFile::default();
        let now = Timestamp::EPOCH;
        file.add("laptop@devbox", digest("sbt_one"), now).unwrap();
        file.add("ci", digest("sbt_two"), now).unwrap();
        assert_eq!(file.holder("sbt_one"), Some("laptop@devbox"));
        assert_eq!(file.holder("sbt_two"), Some("ci"));
        assert_eq!(file.holder("sbt_three"), None);
        let written = serde_json::to_string(&file).unwrap();
        assert!(!written.contains("sbt_one"), "{written}");
        assert_eq!(
            file.add("ci", digest("x"), now),
            Err(TokenError::Taken("ci".into()))
        );
        assert_eq!(file.revoke("ci").unwrap().name, "ci");
        assert_eq!(file.holder("sbt_two"), None);
        assert_eq!(file.revoke("ci"), Err(TokenError::Unknown("ci".into())));
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
