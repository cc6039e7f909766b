//! Entity ids in the seed format: `{prefix}_{unix_seconds}_{seq:03}`.
//!
//! The sequence restarts at 1 each second. Allocation is a pure function of
//! the ids already present, so a writer holding the file lock always picks a
//! fresh id, whichever process it is.

use std::{fmt, str::FromStr};

use thiserror::Error;

/// The key a workspace is known by outside it, from its canonical path:
/// 16 hex digits of the path's SHA-256, the same in every process and
/// build (the window's single-instance name, the HTTP server's
/// advertisement in the runtime folder).
pub fn workspace_key(root: &std::path::Path) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(root.as_os_str().as_encoded_bytes())[..8]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// Which kind of record an id names; each has its own one-letter prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IdKind {
    /// `d_…`, a delivery.
    Delivery,
    /// `a_…`, an annotation.
    Annotation,
    /// `f_…`, a feedback response.
    Feedback,
    /// `s_…`, a blocking session.
    Session,
    /// `t_…`, a tool call run as a task.
    Task,
}

impl IdKind {
    /// The prefix letter written before the first underscore.
    pub fn prefix(self) -> char {
        match self {
            Self::Delivery => 'd',
            Self::Annotation => 'a',
            Self::Feedback => 'f',
            Self::Session => 's',
            Self::Task => 't',
        }
    }

    fn from_prefix(prefix: &str) -> Option<Self> {
        match prefix {
            "d" => Some(Self::Delivery),
            "a" => Some(Self::Annotation),
            "f" => Some(Self::Feedback),
            "s" => Some(Self::Session),
            "t" => Some(Self::Task),
            _ => None,
        }
    }
}

/// A parsed entity id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EntityId {
    /// The kind of record.
    pub kind: IdKind,
    /// Unix seconds at creation.
    pub unix_seconds: i64,
    /// 1-based sequence within that second.
    pub seq: u32,
}

/// Why a string is not an entity id.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{text:?} is not an id of the form {{d|a|f|s|t}}_{{unix seconds}}_{{sequence}}")]
pub struct IdParseError {
    /// The rejected text.
    pub text: String,
}

impl EntityId {
    /// The next free id of `kind` at `unix_seconds`, given every id already
    /// stored (ids of other kinds, other seconds or foreign forms are ignored).
    pub fn next<'a>(
        kind: IdKind,
        unix_seconds: i64,
        existing: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        let highest = existing
            .into_iter()
            .filter_map(|text| text.parse::<EntityId>().ok())
            .filter(|id| id.kind == kind && id.unix_seconds == unix_seconds)
            .map(|id| id.seq)
            .max()
            .unwrap_or(0);
        Self {
            kind,
            unix_seconds,
            seq: highest.saturating_add(1),
        }
    }
}

impl fmt::Display for EntityId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}_{}_{:03}",
            self.kind.prefix(),
            self.unix_seconds,
            self.seq
        )
    }
}

impl FromStr for EntityId {
    type Err = IdParseError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let error = || IdParseError {
            text: text.to_owned(),
        };
        let mut parts = text.splitn(3, '_');
        let (Some(prefix), Some(seconds), Some(seq)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(error());
        };
        let all_digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
        if !all_digits(seconds) || !all_digits(seq) {
            return Err(error());
        }
        Ok(Self {
            kind: IdKind::from_prefix(prefix).ok_or_else(error)?,
            unix_seconds: seconds.parse().map_err(|_| error())?,
            seq: seq.parse().map_err(|_| error())?,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn a_workspace_key_is_its_paths_and_the_same_every_time() {
        let key = workspace_key(std::path::Path::new("/home/dev/project"));
        assert_eq!(key.len(), 16);
        assert!(key.bytes().all(|byte| byte.is_ascii_hexdigit()));
        assert_eq!(
            key,
            workspace_key(std::path::Path::new("/home/dev/project"))
        );
        assert_ne!(key, workspace_key(std::path::Path::new("/home/dev/other")));
        // SHA-256 of the path's bytes, as any build computes it.
        assert_eq!(workspace_key(std::path::Path::new("")), "e3b0c44298fc1c14");
    }

    #[test]
    fn formats_like_the_seed() {
        let id = EntityId {
            kind: IdKind::Delivery,
            unix_seconds: 1_738_850_400,
            seq: 1,
        };
        assert_eq!(id.to_string(), "d_1738850400_001");
        assert_eq!("d_1738850400_001".parse::<EntityId>().unwrap(), id);
    }

    #[test]
    fn sequence_continues_within_a_second_and_restarts_in_the_next() {
        let stored = ["d_100_001", "d_100_002", "a_100_007", "d_99_009", "garbage"];
        let same_second = EntityId::next(IdKind::Delivery, 100, stored);
        assert_eq!(same_second.to_string(), "d_100_003");
        let next_second = EntityId::next(IdKind::Delivery, 101, stored);
        assert_eq!(next_second.to_string(), "d_101_001");
        let annotation = EntityId::next(IdKind::Annotation, 100, stored);
        assert_eq!(
            annotation.to_string(),
            "a_100_008",
            "kinds count separately"
        );
    }

    #[test]
    fn sequences_past_999_stay_unique() {
        let stored = ["d_5_999"];
        assert_eq!(
            EntityId::next(IdKind::Delivery, 5, stored).to_string(),
            "d_5_1000"
        );
    }

    #[test]
    fn rejects_malformed_ids() {
        for text in [
            "", "d_", "d_1", "x_1_001", "d_1_", "d__001", "d_1_0a1", "d_-1_001",
        ] {
            assert!(
                text.parse::<EntityId>().is_err(),
                "{text:?} should not parse"
            );
        }
    }
}
