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
