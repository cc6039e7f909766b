//! The window's own MCP HTTP server, when the settings ask for it
//! (`serveHttp`): `switchboard mcp --http 127.0.0.1:PORT` for the
//! workspace, the CLI beside the app, ended with the app however the app
//! ends (its stdin is the app's). It follows the settings: started with
//! the window, and started, stopped or moved to the new port as soon as
//! they are saved ([`HttpServer::apply`]).

use std::{
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::{Arc, Mutex},
};

/// The server while it runs.
struct Running {
    child: Child,
    port: u16,
    url: Option<String>,
}

impl Running {
    fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The window's server: none, or one running.
#[derive(Default)]
pub struct HttpServer {
    running: Mutex<Option<Running>>,
}

impl HttpServer {
    /// The URL it serves at, once it said.
    pub fn url(&self) -> Option<String> {
        self.running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
            .and_then(|running| running.url.clone())
    }

    /// Applies the settings in `config_dir` on a thread of its own (at the
    /// window's start, off its start-up path).
    pub fn start(self: &Arc<Self>, workspace: &Path, config_dir: Option<PathBuf>) {
        let server = Arc::clone(self);
        let workspace = workspace.to_owned();
        std::thread::spawn(move || {
            if let Err(why) = server.apply(&workspace, config_dir.as_deref()) {
                tracing::warn!(%why, "the HTTP server did not start");
            }
        });
    }

    /// Brings the server in line with the settings in `config_dir`: started
    /// when `serveHttp` is on (on `httpPort`), stopped when it is off,
    /// started again on a new port; returns once it serves (its URL known)
    /// or is stopped. `Err` says why a wanted server did not start.
    pub fn apply(&self, workspace: &Path, config_dir: Option<&Path>) -> Result<(), String> {
        let wanted = config_dir
            .and_then(|dir| switchboard_store::settings::load(dir).ok())
            .unwrap_or_default();
        let port = wanted.serve_http.then(|| wanted.http_port());
        // Held throughout, so two saves apply one after the other.
        let mut running = self
            .running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let alive = running
            .as_mut()
            .is_some_and(|running| matches!(running.child.try_wait(), Ok(None)));
        if alive && running.as_ref().map(|running| running.port) == port {
            return Ok(());
        }
        if let Some(old) = running.take() {
            old.stop();
            tracing::info!("stopped serving MCP over HTTP");
        }
        let Some(port) = port else {
            return Ok(());
        };
        let started = spawn(workspace, config_dir, port)?;
        tracing::info!(url = started.url.as_deref(), "serving MCP over HTTP");
        *running = Some(started);
        Ok(())
    }
}

/// The `switchboard` CLI installed beside the app, if it is there.
pub fn cli_beside_app() -> Option<std::path::PathBuf> {
    std::env::current_exe()
        .ok()
        .and_then(|app| app.parent().map(|dir| dir.join("switchboard")))
        .filter(|cli| cli.exists())
}

/// Starts `switchboard mcp --http` on `port` and waits for the URL it
/// prints; when it ends instead, the last line it wrote on stderr says why.
fn spawn(workspace: &Path, config_dir: Option<&Path>, port: u16) -> Result<Running, String> {
    let cli = cli_beside_app().ok_or("no `switchboard` is beside the app")?;
    let mut command = Command::new(cli);
    command
        .arg("-C")
        .arg(workspace)
        .args([
            "mcp",
            "--http",
            &format!("127.0.0.1:{port}"),
            "--exit-with-stdin",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = config_dir {
        command.env("SWITCHBOARD_CONFIG_DIR", dir);
    }
    let mut child = command.spawn().map_err(|error| error.to_string())?;
    // Its stderr is passed on to the app's, the last line kept.
    let last_said = Arc::new(Mutex::new(None::<String>));
    let stderr = child.stderr.take().map(|stderr| {
        let last_said = Arc::clone(&last_said);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("{line}");
                *last_said
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(line);
            }
        })
    });
    let mut line = String::new();
    let said = child
        .stdout
        .take()
        .map(|stdout| BufReader::new(stdout).read_line(&mut line));
    if matches!(said, Some(Ok(read)) if read > 0) && line.starts_with("http://") {
        return Ok(Running {
            child,
            port,
            url: Some(line.trim().to_owned()),
        });
    }
    let _ = child.kill();
    let _ = child.wait();
    if let Some(stderr) = stderr {
        let _ = stderr.join();
    }
    let why = last_said
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take()
        .unwrap_or_else(|| format!("`switchboard mcp --http` on port {port} ended"));
    Err(why)
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        if let Some(running) = self
            .running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
        {
            running.stop();
        }
    }
}
