//! Processes as the store marks them (agents, tasks' workers): this one,
//! the one that started it, whether a marked one still runs, and what it
//! runs — read from `/proc`, so a process id given to another process
//! later is not taken for the one marked — and a marked process ended only
//! once it is proven to be what the caller started ([`terminate_if`]).

use std::{
    ffi::OsString,
    os::unix::ffi::OsStringExt,
    path::{Path, PathBuf},
};

use switchboard_model::process::{Liveness, ProcessMark};

use crate::StoreError;

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

/// What a running process runs, as `/proc` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// Its program (`/proc/<pid>/exe`; ending ` (deleted)` when the file
    /// was replaced or removed since it started).
    pub executable: PathBuf,
    /// Its arguments, its program's name first (`/proc/<pid>/cmdline`).
    pub arguments: Vec<OsString>,
}

/// What process `pid` runs, while it runs (and may be read).
pub fn identity(pid: u32) -> Option<Identity> {
    let executable = std::fs::read_link(format!("/proc/{pid}/exe")).ok()?;
    #[allow(
        clippy::disallowed_methods,
        reason = "the kernel's own file, not the workspace's"
    )]
    let mut line = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    if line.last() == Some(&0) {
        line.pop();
    }
    let arguments = line
        .split(|byte| *byte == 0)
        .map(|argument| OsString::from_vec(argument.to_vec()))
        .collect();
    Some(Identity {
        executable,
        arguments,
    })
}

/// What [`terminate_if`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Termination {
    /// The process was sent SIGTERM.
    Signalled,
    /// The process marked no longer runs; nothing was sent.
    Ended,
    /// The process marked runs something else than `proven` accepts;
    /// nothing was sent.
    NotIt,
}

/// Sends SIGTERM to `process` only if it is still the process marked (the
/// same id and start time) and `proven` accepts what it runs. A handle on
/// the process (a pidfd) is taken before it is checked and the signal
/// goes through that handle, so a process that took the id meanwhile is
/// never signalled; a record naming another program's process, whatever
/// its id and start time, gets [`Termination::NotIt`].
pub fn terminate_if(
    process: ProcessMark,
    proven: impl FnOnce(&Identity) -> bool,
) -> Result<Termination, StoreError> {
    use rustix::{
        io::Errno,
        process::{Pid, PidfdFlags, Signal, pidfd_open, pidfd_send_signal},
    };
    let proc_path = || PathBuf::from(format!("/proc/{}", process.pid));
    let failed = |action: &'static str, error: Errno| {
        StoreError::io(action, proc_path())(std::io::Error::from(error))
    };
    let Some(pid) = i32::try_from(process.pid).ok().and_then(Pid::from_raw) else {
        return Ok(Termination::Ended);
    };
    let handle = match pidfd_open(pid, PidfdFlags::empty()) {
        Ok(handle) => Some(handle),
        Err(Errno::SRCH) => return Ok(Termination::Ended),
        // A kernel before 5.3: checked and signalled by id.
        Err(Errno::NOSYS) => None,
        Err(error) => return Err(failed("could not take a handle on", error)),
    };
    // From here on `/proc/<pid>` is the handle's process, or it ended.
    if liveness(process) != Liveness::Alive {
        return Ok(Termination::Ended);
    }
    let Some(identity) = identity(process.pid) else {
        return Ok(Termination::Ended);
    };
    if !proven(&identity) {
        return Ok(Termination::NotIt);
    }
    let sent = match &handle {
        Some(handle) => pidfd_send_signal(handle, Signal::TERM),
        None => rustix::process::kill_process(pid, Signal::TERM),
    };
    match sent {
        Ok(()) => Ok(Termination::Signalled),
        Err(Errno::SRCH) => Ok(Termination::Ended),
        Err(error) => Err(failed("could not signal", error)),
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
        #[allow(
            clippy::disallowed_methods,
            reason = "the kernel's own file, not the workspace's"
        )]
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

/// Who and where the developer is, as an SSH command names them:
/// `user@machine` (`you` or `this-machine` for what is not known).
pub fn login() -> String {
    let user = std::env::var("USER")
        .ok()
        .filter(|user| !user.is_empty())
        .unwrap_or_else(|| "you".to_owned());
    let machine = rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned();
    let machine = if machine.is_empty() {
        "this-machine".to_owned()
    } else {
        machine
    };
    format!("{user}@{machine}")
}
