//! The program's side: it runs on a pseudo-terminal of its own, its output
//! read on a thread of its own, its end status taken with `waitpid` so a
//! signal is known by number (as ClaudeControl writes it).

use std::{
    io::{Read, Write},
    sync::mpsc::Sender,
    time::Instant,
};

use anyhow::{Context, Result};
use nix::{
    sys::wait::{WaitStatus, waitpid},
    unistd::Pid,
};
use portable_pty::{CommandBuilder, MasterPty, PtySize, native_pty_system};
use serde_json::{Map, Value};
use switchboard_model::tape::Exit;

use super::Event;

/// A program running on a pseudo-terminal.
pub struct Live {
    master: Box<dyn MasterPty + Send>,
    writer: Box<dyn Write + Send>,
    pid: Pid,
    size: PtySize,
    // Kept so the process is not reaped or killed behind our back.
    _child: Box<dyn portable_pty::Child + Send + Sync>,
}

impl Live {
    /// Starts `program` with `args` in `cwd` on a terminal of `size`; what
    /// it prints goes to `events`, then [`Event::Ended`].
    pub fn spawn(
        program: &str,
        args: &[String],
        cwd: &std::path::Path,
        size: PtySize,
        events: Sender<Event>,
    ) -> Result<Self> {
        let pair = native_pty_system()
            .openpty(size)
            .context("could not open a pseudo-terminal")?;
        let mut command = CommandBuilder::new(program);
        command.args(args);
        command.cwd(cwd);
        let child = pair
            .slave
            .spawn_command(command)
            .with_context(|| format!("could not start {program:?}"))?;
        // Only the program holds its terminal now, so its end closes it.
        drop(pair.slave);
        let pid = child
            .process_id()
            .and_then(|pid| i32::try_from(pid).ok())
            .map(Pid::from_raw)
            .context("the program has no process id")?;
        let mut reader = pair
            .master
            .try_clone_reader()
            .context("could not read the pseudo-terminal")?;
        let writer = pair
            .master
            .take_writer()
            .context("could not write the pseudo-terminal")?;
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
        Ok(Self {
            master: pair.master,
            writer,
            pid,
            size,
            _child: child,
        })
    }

    /// Types `bytes` into the program.
    pub fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.writer
            .write_all(bytes)
            .and_then(|()| self.writer.flush())
            .context("could not write to the program")
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

    /// Waits for the program to end: its exit status, or the signal that
    /// ended it.
    pub fn wait(self) -> Result<Exit> {
        let (code, signal) =
            match waitpid(self.pid, None).context("could not wait for the program")? {
                WaitStatus::Exited(_, code) => (Some(i64::from(code)), None),
                WaitStatus::Signaled(_, signal, _) => (None, Some(Value::from(signal as i32))),
                other => anyhow::bail!("the program stopped unexpectedly ({other:?})"),
            };
        Ok(Exit {
            code,
            signal,
            extra: Map::new(),
        })
    }
}
