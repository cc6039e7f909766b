//! A process as the store marks it (an agent, a task's worker): its id
//! and its start time, so a process id the system gave to another process
//! later is not taken for it.

use serde::{Deserialize, Serialize};

/// A process: its id and its start time as the system counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessMark {
    /// The process id.
    pub pid: u32,
    /// Its start time (Linux: field 22 of `/proc/<pid>/stat`).
    pub start: u64,
}

/// Whether a marked process is still there, as far as can be told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Liveness {
    /// It runs.
    Alive,
    /// It ended.
    Ended,
    /// It cannot be checked (no process known, or another system).
    Unknown,
}
