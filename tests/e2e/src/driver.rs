//! `tauri-driver`, the WebDriver server that launches the app through
//! WebKitWebDriver.

use std::{
    net::{TcpListener, TcpStream},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};

use crate::{Display, process::Guarded};

/// A running tauri-driver bound to loopback; stopped on drop.
#[derive(Debug)]
pub struct Driver {
    /// The WebDriver endpoint, e.g. `http://127.0.0.1:4444`.
    pub url: String,
    _server: Guarded,
}

fn free_port() -> Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

impl Driver {
    /// Starts tauri-driver on free ports, drawing on `display`.
    pub fn start(display: &Display) -> Result<Self> {
        let port = free_port()?;
        let native_port = free_port()?;
        let child = Command::new("tauri-driver")
            .args([
                "--port",
                &port.to_string(),
                "--native-port",
                &native_port.to_string(),
            ])
            .env("DISPLAY", &display.name)
            .env("DBUS_SESSION_BUS_ADDRESS", &display.bus)
            .env("NO_AT_BRIDGE", "1")
            .env("WEBKIT_DISABLE_COMPOSITING_MODE", "1")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .context("could not start tauri-driver (scripts/setup.sh test installs it)")?;
        let mut server = Guarded::new("tauri-driver", child);
        let deadline = Instant::now() + Duration::from_secs(20);
        // tauri-driver listens at once but forwards every request to the
        // WebKitWebDriver it starts beside it, which takes longer to listen:
        // a session asked for before then fails. Both must be up.
        for (listener, wanted) in [("tauri-driver", port), ("WebKitWebDriver", native_port)] {
            while TcpStream::connect(("127.0.0.1", wanted)).is_err() {
                server.ensure_running()?;
                if Instant::now() > deadline {
                    bail!("{listener} did not listen on port {wanted} within 20 s");
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        Ok(Self {
            url: format!("http://127.0.0.1:{port}"),
            _server: server,
        })
    }
}
