//! The window's own servers, when the settings ask for them: MCP over
//! HTTP (`serveHttp`: `switchboard mcp --http 127.0.0.1:PORT`) and the
//! inbox for browsers (`serveBrowser`: `switchboard serve --listen
//! 127.0.0.1:PORT`), each for the workspace, the CLI beside the app, ended
//! with the app however the app ends (its stdin is the app's). Each follows
//! the settings: started with the window, and started, stopped or moved to
//! the new port as soon as they are saved ([`HttpServer::apply`]).

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

/// Which of the window's servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Kind {
    /// MCP over HTTP, for agents.
    #[default]
    Mcp,
    /// The inbox, for paired browsers.
    Browser,
}

impl Kind {
    /// The port the settings ask it to serve on, if they ask for it.
    fn wanted(self, settings: &switchboard_model::settings::Settings) -> Option<u16> {
        match self {
            Self::Mcp => settings.serve_http.then(|| settings.http_port()),
            Self::Browser => settings.serve_browser.then(|| settings.browser_port()),
        }
    }

    /// The CLI's arguments that serve it on `address`.
    fn arguments(self, address: &str) -> [&str; 4] {
        match self {
            Self::Mcp => ["mcp", "--http", address, "--exit-with-stdin"],
            Self::Browser => ["serve", "--listen", address, "--exit-with-stdin"],
        }
    }

    /// What it is, for the log and a failure.
    fn name(self) -> &'static str {
        match self {
            Self::Mcp => "`switchboard mcp --http`",
            Self::Browser => "`switchboard serve`",
        }
    }
}

/// One of the window's servers: none, or one running.
#[derive(Default)]
pub struct HttpServer {
    kind: Kind,
    running: Mutex<Option<Running>>,
}

impl HttpServer {
    /// The server of `kind`, not running yet.
    pub fn of(kind: Kind) -> Self {
        Self {
            kind,
            running: Mutex::default(),
        }
    }

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
        let port = self.kind.wanted(&wanted);
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
            tracing::info!(server = self.kind.name(), "stopped");
        }
        let Some(port) = port else {
            return Ok(());
        };
        let started = spawn(self.kind, workspace, config_dir, port)?;
        tracing::info!(
            server = self.kind.name(),
            url = started.url.as_deref(),
            "serving"
        );
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

/// Starts the server of `kind` on `port` and waits for the URL it prints;
/// when it ends instead, the last line it wrote on stderr says why.
fn spawn(
    kind: Kind,
    workspace: &Path,
    config_dir: Option<&Path>,
    port: u16,
) -> Result<Running, String> {
    let cli = cli_beside_app().ok_or("no `switchboard` is beside the app")?;
    let mut command = Command::new(cli);
    let address = format!("127.0.0.1:{port}");
    command
        .arg("-C")
        .arg(workspace)
        .args(kind.arguments(&address))
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
        .unwrap_or_else(|| format!("{} on port {port} ended", kind.name()));
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
