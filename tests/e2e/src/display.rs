//! A private X display and session bus: Xvfb and a `dbus-daemon` started
//! and stopped by the harness itself, so apps under test never reach the
//! developer's desktop (notifications, the single-instance name).

use std::{
    io::{BufRead, BufReader},
    process::{Command, Stdio},
};

use std::path::Path;

use anyhow::{Context, Result};

use crate::process::Guarded;

/// A running Xvfb; stopped on drop.
#[derive(Debug)]
pub struct Display {
    /// The `DISPLAY` value, e.g. `:12`.
    pub name: String,
    /// The `DBUS_SESSION_BUS_ADDRESS` of its private session bus.
    pub bus: String,
    _bus: Guarded,
    _server: Guarded,
}

impl Display {
    /// Starts Xvfb on the first free display number (Xvfb picks it and
    /// reports it through `-displayfd`).
    pub fn start() -> Result<Self> {
        let mut child = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "1180x760x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("could not start Xvfb (scripts/setup.sh test installs it)")?;
        let stdout = child.stdout.take().context("Xvfb has no stdout")?;
        let mut server = Guarded::new("Xvfb", child);
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .context("Xvfb did not report its display")?;
        server.ensure_running()?;
        let number = line.trim();
        anyhow::ensure!(!number.is_empty(), "Xvfb exited without a display number");
        let mut bus = Command::new("dbus-daemon")
            .args(["--session", "--nofork", "--nopidfile", "--print-address=1"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("could not start dbus-daemon (scripts/setup.sh test installs it)")?;
        let bus_out = bus.stdout.take().context("dbus-daemon has no stdout")?;
        let mut bus = Guarded::new("dbus-daemon", bus);
        let mut address = String::new();
        BufReader::new(bus_out)
            .read_line(&mut address)
            .context("dbus-daemon did not report its address")?;
        bus.ensure_running()?;
        Ok(Self {
            name: format!(":{number}"),
            bus: address.trim().to_owned(),
            _bus: bus,
            _server: server,
        })
    }

    /// Saves a PNG of the whole screen to `path` with ImageMagick's
    /// `import`. (WebDriver's own screenshot takes about 30 s per shot in
    /// WebKitWebDriver under Xvfb.)
    pub fn screenshot(&self, path: &Path) -> Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let status = Command::new("import")
            .args(["-display", &self.name, "-window", "root"])
            .arg(path)
            .status()
            .context("could not run ImageMagick's import (scripts/setup.sh test installs it)")?;
        anyhow::ensure!(status.success(), "import failed: {status}");
        Ok(())
    }
}
