//! The one pseudo-terminal layer: a program on a terminal of its own
//! ([`live`]) and the user's terminal in raw mode ([`terminal`]), used by
//! `rec`, `play --fallback proxy`, `session attach` and the session host.

pub mod live;
pub mod terminal;

use std::time::Instant;

use thiserror::Error;

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

/// Why a program could not be run or reached on its terminal.
#[derive(Debug, Error)]
pub enum PtyError {
    /// No pseudo-terminal could be opened.
    #[error("could not open a pseudo-terminal: {0}")]
    Open(String),
    /// The program did not start.
    #[error("could not start {program:?}: {reason}")]
    Spawn {
        /// What was run.
        program: String,
        /// Why it failed.
        reason: String,
    },
    /// The started program has no process id.
    #[error("the program has no process id")]
    NoPid,
    /// Typing into it failed.
    #[error("could not write to the program: {0}")]
    Write(std::io::Error),
    /// A signal could not be sent.
    #[error("could not signal the program: {0}")]
    Signal(nix::Error),
    /// Its end could not be waited for.
    #[error("could not wait for the program: {0}")]
    Wait(nix::Error),
}
