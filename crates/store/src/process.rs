//! Processes as the store marks them (agents, tasks' workers): this one,
//! the one that started it, and whether a marked one still runs — read
//! from `/proc`, so a process id given to another process later is not
//! taken for the one marked.

use std::path::Path;

use switchboard_model::process::{Liveness, ProcessMark};

/// This process.
pub fn this_process() -> Option<ProcessMark> {
    mark(std::process::id())
}

/// The process that started this one (an MCP client starts `switchboard
/// mcp`).
pub fn parent_process() -> Option<ProcessMark> {
    mark(std::os::unix::process::parent_id())
}

/// The process `pid`, marked with its start time, while it runs.
pub fn mark(pid: u32) -> Option<ProcessMark> {
    ProcStat::read(pid).map(|stat| ProcessMark {
        pid,
        start: stat.start,
    })
}

/// Whether `process` still runs: the same id with the same start time.
pub fn liveness(process: ProcessMark) -> Liveness {
    if !Path::new("/proc/self/stat").exists() {
        return Liveness::Unknown;
    }
    match ProcStat::read(process.pid) {
        Some(stat) if stat.start == process.start => Liveness::Alive,
        _ => Liveness::Ended,
    }
}

/// What `/proc/<pid>/stat` says of a process.
pub(crate) struct ProcStat {
    /// The command's name.
    pub name: String,
    /// Its parent's id.
    pub parent: u32,
    /// Its start time.
    pub start: u64,
}

impl ProcStat {
    /// The process `pid`'s line, while it runs.
    pub fn read(pid: u32) -> Option<Self> {
        let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // `pid (name) state ppid …`: the name may hold spaces and parens.
        let (head, rest) = text.rsplit_once(')')?;
        let name = head.split_once('(')?.1.to_owned();
        let fields: Vec<&str> = rest.split_whitespace().collect();
        Some(Self {
            name,
            parent: fields.get(1)?.parse().ok()?,
            // Field 22 of the whole line; the rest starts at field 3.
            start: fields.get(19)?.parse().ok()?,
        })
    }
}
