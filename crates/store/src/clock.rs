//! The one place the store reads the wall clock; everything below takes the
//! time as a parameter.

use std::time::{SystemTime, UNIX_EPOCH};

use switchboard_model::Timestamp;

/// The current time, to the millisecond.
pub fn now() -> Timestamp {
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0);
    Timestamp::from_unix_millis(millis).unwrap_or(Timestamp::EPOCH)
}

/// `at` in this machine's time zone, as a naive date and time: what
/// Python's `datetime.now()` gives ClaudeControl for its reports.
pub fn local(at: Timestamp) -> chrono::NaiveDateTime {
    chrono::DateTime::from_timestamp_millis(at.unix_millis())
        .map(|utc| utc.with_timezone(&chrono::Local).naive_local())
        .unwrap_or_default()
}
