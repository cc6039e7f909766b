//! A child process that is killed when dropped, so no test run leaves
//! servers behind, whatever fails.

use std::process::Child;

/// Owns a child process; kills and reaps it on drop.
#[derive(Debug)]
pub struct Guarded {
    child: Child,
    name: &'static str,
}

impl Guarded {
    /// Takes ownership of `child`, called `name` in messages.
    pub fn new(name: &'static str, child: Child) -> Self {
        Self { child, name }
    }

    /// The process's id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Fails if the process has already exited.
    pub fn ensure_running(&mut self) -> anyhow::Result<()> {
        match self.child.try_wait()? {
            None => Ok(()),
            Some(status) => anyhow::bail!("{} exited early: {status}", self.name),
        }
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
