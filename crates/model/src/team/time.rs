//! Timestamps as the plugin's schema takes them: RFC 3339 in UTC with a
//! `Z` (an offset such as `+00:00` is refused), written as JavaScript's
//! `toISOString()` writes them.

use serde::{Deserialize, Deserializer, Serialize, Serializer, de::Error as _};

use crate::Timestamp;

/// Parses a timestamp the plugin would accept.
pub fn parse_z(text: &str) -> Result<Timestamp, String> {
    if !text.ends_with('Z') {
        return Err(format!("{text:?} is not a UTC time ending in Z"));
    }
    Timestamp::parse(text).map_err(|error| format!("{text:?} is not an ISO 8601 time: {error}"))
}

/// Serde helpers for a required timestamp.
pub mod required {
    use super::*;

    /// Reads a `Z` timestamp.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Timestamp, D::Error> {
        let text = String::deserialize(deserializer)?;
        parse_z(&text).map_err(D::Error::custom)
    }

    /// Writes it as `toISOString()` does.
    pub fn serialize<S: Serializer>(time: &Timestamp, serializer: S) -> Result<S::Ok, S::Error> {
        time.serialize(serializer)
    }
}

/// Serde helpers for an optional timestamp.
pub mod optional {
    use super::*;

    /// Reads an absent, null or `Z` timestamp.
    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Timestamp>, D::Error> {
        Option::<String>::deserialize(deserializer)?
            .map(|text| parse_z(&text).map_err(D::Error::custom))
            .transpose()
    }

    /// Writes it as `toISOString()` does.
    pub fn serialize<S: Serializer>(
        time: &Option<Timestamp>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        time.serialize(serializer)
    }
}
