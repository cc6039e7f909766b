//! A program run on a pseudo-terminal for `rec` and `play --fallback
//! proxy`: the user's terminal in raw mode, what they type and what the
//! program prints as one ordered stream of events, and how it ended.

pub mod live;
pub mod terminal;

use std::time::Instant;

/// Something that happened in a session, with when.
#[derive(Debug)]
pub enum Event {
    /// Bytes the user typed (empty: their input closed).
    Typed(Vec<u8>, Instant),
    /// Bytes the program printed.
    Printed(Vec<u8>, Instant),
    /// The user's terminal changed size.
    Resized,
    /// The program's terminal closed: it ended.
    Ended,
}
