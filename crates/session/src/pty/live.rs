//! The program's side: it runs on a pseudo-terminal of its own, its end
//! status taken with `waitpid` so a signal is known by number (as
//! ClaudeControl writes it).

use std::{
    io::{Read, Write},
    path::Path,
    sync::mpsc::Sender,
    time::Instant,
};

use nix::{
    sys::{
        signal::{Signal, killpg},
        wait::{WaitStatus, waitpid},
    },
    unistd::Pid,
};
use portable_pty::{CommandBuilder, MasterPty, PtySize, native_pty_system};
use switchboard_model::program::ExitStatus;

use super::{Event, PtyError};

/// What to run and where.
#[derive(Debug, Clone)]
pub struct Spawn<'a> {
    /// The program, found on `PATH` when it names no folder.
    pub program: &'a str,
    /// Its arguments.
    pub args: &'a [String],
    /// The folder it starts in.
    pub cwd: &'a Path,
    /// Variables set over the environment.
    pub env: &'a [(String, String)],
    /// Whether the program starts from this process's environment (else
    /// from `env` alone).
    pub inherit_env: bool,
    /// The terminal's size.
    pub size: PtySize,
}

/// A program running on a pseudo-terminal.
pub struct Live {
    master: Box<dyn MasterPty + Send>,
    writer: Box<dyn Write + Send>,
    pid: Pid,
    size: PtySize,
    // Kept so the process is not reaped or killed behind our back.
    _child: Box<dyn portable_pty::Child + Send + Sync>,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Live")
            .field("pid", &self.pid)
            .field("rows", &self.size.rows)
            .field("cols", &self.size.cols)
            .finish_non_exhaustive()
    }
}

impl Live {
    /// Starts the program; returns it and the reading end of its terminal,
    /// which reads end of file once the program and everything it started
    /// have let go of the terminal.
    pub fn start(spawn: &Spawn<'_>) -> Result<(Self, Box<dyn Read + Send>), PtyError> {
        let pair = native_pty_system()
            .openpty(spawn.size)
            .map_err(|error| PtyError::Open(error.to_string()))?;
        let mut command = CommandBuilder::new(spawn.program);
        command.args(spawn.args);
        command.cwd(spawn.cwd);
        if !spawn.inherit_env {
            command.env_clear();
        }
        for (key, value) in spawn.env {
            command.env(key, value);
        }
        let child = pair
            .slave
            .spawn_command(command)
            .map_err(|error| PtyError::Spawn {
                program: spawn.program.to_owned(),
                reason: error.to_string(),
            })?;
        // Only the program holds its terminal now, so its end closes it.
        drop(pair.slave);
        let pid = child
            .process_id()
            .and_then(|pid| i32::try_from(pid).ok())
            .map(Pid::from_raw)
            .ok_or(PtyError::NoPid)?;
        let reader = pair
            .master
            .try_clone_reader()
            .map_err(|error| PtyError::Open(error.to_string()))?;
        let writer = pair
            .master
            .take_writer()
            .map_err(|error| PtyError::Open(error.to_string()))?;
        Ok((
            Self {
                master: pair.master,
                writer,
                pid,
                size: spawn.size,
                _child: child,
            },
            reader,
        ))
    }

    /// Starts `program` with `args` in `cwd` on a terminal of `size`; what
    /// it prints goes to `events`, then [`Event::Ended`].
    pub fn spawn(
        program: &str,
        args: &[String],
        cwd: &Path,
        size: PtySize,
        events: Sender<Event>,
    ) -> Result<Self, PtyError> {
        let (live, mut reader) = Self::start(&Spawn {
            program,
            args,
            cwd,
            env: &[],
            inherit_env: true,
            size,
        })?;
        std::thread::spawn(move || {
            let mut buffer = [0_u8; 8192];
            loop {
                match reader.read(&mut buffer) {
                    Ok(0) | Err(_) => {
                        let _ = events.send(Event::Ended);
                        return;
                    }
                    Ok(read) => {
                        let event = Event::Printed(buffer[..read].to_vec(), Instant::now());
                        if events.send(event).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        Ok(live)
    }

    /// Types `bytes` into the program.
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), PtyError> {
        self.writer
            .write_all(bytes)
            .and_then(|()| self.writer.flush())
            .map_err(PtyError::Write)
    }

    /// Follows the user's terminal when it changed size.
    pub fn follow_size(&mut self, size: PtySize) {
        if (size.rows, size.cols) != (self.size.rows, self.size.cols)
            && self.master.resize(size).is_ok()
        {
            self.size = size;
        }
    }

    /// The terminal's size.
    pub fn size(&self) -> PtySize {
        self.size
    }

    /// The program's process id.
    pub fn pid(&self) -> u32 {
        self.pid.as_raw().unsigned_abs()
    }

    /// Whether the program hides what is typed, as a password prompt does:
    /// the terminal's echo off while it reads whole lines (canonical mode).
    /// A line editor (readline) turns echo off too, but reads key by key
    /// and echoes itself, so it does not count.
    pub fn hides_input(&self) -> bool {
        use nix_pty::sys::termios::LocalFlags;
        self.master.get_termios().is_some_and(|termios| {
            !termios.local_flags.contains(LocalFlags::ECHO)
                && termios.local_flags.contains(LocalFlags::ICANON)
        })
    }

    /// Sends `signal` to the program's process group (it leads one of its
    /// own on its terminal), so what it started hears it too.
    pub fn signal(&self, signal: Signal) -> Result<(), PtyError> {
        killpg(self.pid, signal).map_err(PtyError::Signal)
    }

    /// What waits for the program's end (on a thread of the caller's).
    pub fn waiter(&self) -> Waiter {
        Waiter { pid: self.pid }
    }

    /// Waits for the program to end: its exit status, or the signal that
    /// ended it.
    pub fn wait(self) -> Result<ExitStatus, PtyError> {
        self.waiter().wait()
    }
}

/// Waits for one program's end.
#[derive(Debug, Clone, Copy)]
pub struct Waiter {
    pid: Pid,
}

impl Waiter {
    /// Blocks until the program ends and reaps it (no zombie is left).
    pub fn wait(self) -> Result<ExitStatus, PtyError> {
        loop {
            return match waitpid(self.pid, None) {
                Ok(WaitStatus::Exited(_, code)) => Ok(ExitStatus {
                    code: Some(code),
                    signal: None,
                }),
                Ok(WaitStatus::Signaled(_, signal, _)) => Ok(ExitStatus {
                    code: None,
                    signal: Some(signal as i32),
                }),
                // Stopped or continued: still running.
                Ok(_) | Err(nix::errno::Errno::EINTR) => continue,
                Err(error) => Err(PtyError::Wait(error)),
            };
        }
    }
}
