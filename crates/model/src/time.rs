//! Timestamps in the seed format (`2026-02-06T14:00:00.000Z`) and age labels.
//!
//! The clock is never read here: callers pass `now` in, so the rules stay pure
//! and testable, and the wasm UI can use the browser's clock.

use std::fmt;

use chrono::{DateTime, SecondsFormat, TimeZone, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A point in time, written as RFC 3339 UTC with milliseconds and a `Z`,
/// exactly as JavaScript's `Date.toISOString()` writes it. Any RFC 3339 form
/// is accepted on read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(DateTime<Utc>);

impl Timestamp {
    /// 1970-01-01T00:00:00.000Z.
    pub const EPOCH: Self = Self(DateTime::<Utc>::UNIX_EPOCH);

    /// The instant `millis` milliseconds after the Unix epoch, or `None` when
    /// it is outside chrono's range.
    pub fn from_unix_millis(millis: i64) -> Option<Self> {
        Utc.timestamp_millis_opt(millis).single().map(Self)
    }

    /// Whole seconds since the Unix epoch (the number inside entity ids).
    pub fn unix_seconds(self) -> i64 {
        self.0.timestamp()
    }

    /// Milliseconds since the Unix epoch.
    pub fn unix_millis(self) -> i64 {
        self.0.timestamp_millis()
    }

    /// Parses any RFC 3339 timestamp.
    pub fn parse(text: &str) -> Result<Self, chrono::ParseError> {
        DateTime::parse_from_rfc3339(text).map(|parsed| Self(parsed.with_timezone(&Utc)))
    }

    /// Parses what other tools write as a time: RFC 3339, a naive ISO
    /// date-time such as Python's `isoformat()` (`2025-12-23T12:00:00.000000`,
    /// read as UTC), or a bare date (`2025-12-23`, midnight UTC).
    pub fn parse_lenient(text: &str) -> Option<Self> {
        let text = text.trim();
        if let Ok(parsed) = Self::parse(text) {
            return Some(parsed);
        }
        if let Ok(naive) = chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f") {
            return Some(Self(naive.and_utc()));
        }
        if let Ok(naive) = chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S%.f") {
            return Some(Self(naive.and_utc()));
        }
        chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
            .ok()
            .and_then(|date| date.and_hms_opt(0, 0, 0))
            .map(|naive| Self(naive.and_utc()))
    }

    /// Days from `self` to `later` (negative when `later` is earlier).
    pub fn days_until(self, later: Self) -> f64 {
        (later.0 - self.0).num_milliseconds() as f64 / 86_400_000.0
    }

    /// As Python's `datetime.isoformat()` writes a naive UTC time
    /// (`2025-12-23T12:00:00.000000`), the form Delia's files use.
    pub fn python_iso(self) -> String {
        self.0.format("%Y-%m-%dT%H:%M:%S%.6f").to_string()
    }

    /// The date part, `YYYY-MM-DD`.
    pub fn date(self) -> String {
        self.0.format("%Y-%m-%d").to_string()
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.to_rfc3339_opts(SecondsFormat::Millis, true))
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Self::parse(&text).map_err(|error| {
            serde::de::Error::custom(format!("invalid timestamp {text:?}: {error}"))
        })
    }
}

/// A naive local date and time as Python's `isoformat()` writes it
/// (`2026-11-25T18:41:02.123456`), as ClaudeControl's reports hold times.
pub fn naive_iso(at: chrono::NaiveDateTime) -> String {
    at.format("%Y-%m-%dT%H:%M:%S%.6f").to_string()
}

/// A naive local date and time as ClaudeControl stamps a report's file
/// name: `YYYYmmdd_HHMMSS`.
pub fn naive_stamp(at: chrono::NaiveDateTime) -> String {
    at.format("%Y%m%d_%H%M%S").to_string()
}

/// A short human label for how long ago `then` was, seen from `now`:
/// `just now`, `42s ago`, `5m ago`, `3h ago`, `2d ago`. A `then` in the
/// future (clock skew between processes) reads as `just now`.
pub fn age_label(then: Timestamp, now: Timestamp) -> String {
    let seconds = (now.unix_millis() - then.unix_millis()) / 1000;
    match seconds {
        i64::MIN..=4 => "just now".to_owned(),
        5..=59 => format!("{seconds}s ago"),
        60..=3_599 => format!("{}m ago", seconds / 60),
        3_600..=86_399 => format!("{}h ago", seconds / 3_600),
        _ => format!("{}d ago", seconds / 86_400),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    fn at(text: &str) -> Timestamp {
        Timestamp::parse(text).unwrap()
    }

    #[test]
    fn writes_the_seed_form_with_milliseconds_and_z() {
        let stamp = Timestamp::from_unix_millis(1_738_850_400_000).unwrap();
        assert_eq!(stamp.to_string(), "2025-02-06T14:00:00.000Z");
        assert_eq!(
            serde_json::to_string(&stamp).unwrap(),
            "\"2025-02-06T14:00:00.000Z\""
        );
    }

    #[test]
    fn reads_what_python_and_markdown_headings_write() {
        let python = Timestamp::parse_lenient("2025-12-23T12:00:00.000000").unwrap();
        assert_eq!(python.to_string(), "2025-12-23T12:00:00.000Z");
        let date = Timestamp::parse_lenient("2025-12-23").unwrap();
        assert_eq!(date.to_string(), "2025-12-23T00:00:00.000Z");
        assert_eq!(date.days_until(python), 0.5);
        assert_eq!(date.date(), "2025-12-23");
        assert_eq!(Timestamp::parse_lenient("yesterday"), None);
    }

    #[test]
    fn reads_other_rfc3339_forms() {
        let offset = at("2026-02-06T15:00:00+01:00");
        assert_eq!(
            offset,
            at("2026-02-06T14:00:00.000Z"),
            "offsets normalise to UTC"
        );
        let nanos: Timestamp = serde_json::from_str("\"2026-02-06T14:00:00.123456789Z\"").unwrap();
        assert_eq!(nanos.unix_millis() % 1000, 123);
    }

    #[test]
    fn rejects_non_timestamps_with_the_offending_text() {
        let error = serde_json::from_str::<Timestamp>("\"yesterday\"").unwrap_err();
        assert!(error.to_string().contains("yesterday"), "{error}");
    }

    #[test]
    fn age_labels_step_through_units() {
        let now = at("2026-02-06T14:00:00Z");
        let cases = [
            ("2026-02-06T14:00:30Z", "just now"),
            ("2026-02-06T14:00:00Z", "just now"),
            ("2026-02-06T13:59:58Z", "just now"),
            ("2026-02-06T13:59:15Z", "45s ago"),
            ("2026-02-06T13:55:00Z", "5m ago"),
            ("2026-02-06T11:00:00Z", "3h ago"),
            ("2026-02-04T14:00:00Z", "2d ago"),
        ];
        for (then, expected) in cases {
            assert_eq!(age_label(at(then), now), expected, "age of {then}");
        }
    }
}
