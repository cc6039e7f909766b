//! The window's own MCP HTTP server, when the settings ask for it
//! (`serveHttp`): `switchboard mcp --http 127.0.0.1:PORT` for the
//! workspace, the CLI beside the app, started with the window and ended
//! with it however the app ends (its stdin is the app's).

use std::{
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::{Arc, Mutex},
};

/// The running server and the URL it printed.
#[derive(Default)]
pub struct HttpServer {
    child: Mutex<Option<Child>>,
    url: Mutex<Option<String>>,
}

impl HttpServer {
    /// The URL it serves at, once it said.
    pub fn url(&self) -> Option<String> {
        self.url
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Starts the server for `workspace` on its own thread when the
    /// settings in `config_dir` ask for it (`serveHttp`, on `httpPort`);
    /// its URL is known once it prints it.
    pub fn start(self: &Arc<Self>, workspace: &Path, config_dir: Option<PathBuf>) {
        let server = Arc::clone(self);
        let workspace = workspace.to_owned();
        std::thread::spawn(move || server.run(&workspace, config_dir.as_deref()));
    }

    fn run(&self, workspace: &Path, config_dir: Option<&Path>) {
        let wanted = config_dir
            .and_then(|dir| switchboard_store::settings::load(dir).ok())
            .unwrap_or_default();
        if !wanted.serve_http {
            return;
        }
        let port = wanted.http_port();
        let Some(cli) = std::env::current_exe()
            .ok()
            .and_then(|app| app.parent().map(|dir| dir.join("switchboard")))
            .filter(|cli| cli.exists())
        else {
            tracing::warn!("the HTTP server is wanted, but no `switchboard` is beside the app");
            return;
        };
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
            .stderr(Stdio::inherit());
        if let Some(dir) = config_dir {
            command.env("SWITCHBOARD_CONFIG_DIR", dir);
        }
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(error) => {
                tracing::warn!(%error, "the HTTP server did not start");
                return;
            }
        };
        let stdout = child.stdout.take();
        *self
            .child
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(child);
        let Some(stdout) = stdout else { return };
        let mut line = String::new();
        if BufReader::new(stdout).read_line(&mut line).is_ok() && line.starts_with("http://") {
            tracing::info!(url = line.trim(), "serving MCP over HTTP");
            *self
                .url
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(line.trim().to_owned());
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        if let Some(mut child) = self
            .child
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
        {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
