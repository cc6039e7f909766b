//! The sidecar's life in the app: started beside the app binary, spoken to
//! over stdio, every response forwarded to the UI as an event, restarted
//! (a few times, a second apart) if it dies, its health shown.

use std::{
    collections::HashMap,
    io::{BufRead, BufReader, Write},
    path::PathBuf,
    process::{ChildStdin, Command, Stdio},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use switchboard_model::{
    ipc::{EVENT_SIDECAR, EVENT_SIDECAR_HEALTH, SidecarHealth},
    sidecar::{RequestBody, ResponseBody, SidecarRequest, SidecarResponse},
};
use tauri::{AppHandle, Emitter};

use crate::state::Config;
use tokio::sync::oneshot;

/// Restarts after which a crashing sidecar is left down.
const MAX_RESTARTS: u32 = 5;

/// The running sidecar, as the commands see it.
pub struct Sidecar {
    stdin: Mutex<Option<ChildStdin>>,
    next_id: AtomicU64,
    health: Mutex<SidecarHealth>,
    /// Requests whose single answer a command is waiting for.
    waiting: Mutex<HashMap<u64, oneshot::Sender<ResponseBody>>>,
}

fn sidecar_path() -> PathBuf {
    if let Some(path) = std::env::var_os("SWITCHBOARD_SIDECAR") {
        return PathBuf::from(path);
    }
    std::env::current_exe()
        .map(|exe| exe.with_file_name("switchboard-sidecar"))
        .unwrap_or_else(|_| PathBuf::from("switchboard-sidecar"))
}

impl Sidecar {
    /// Starts the sidecar and its supervisor, passing on the command
    /// line's model URL and settings folder.
    pub fn start(app: AppHandle, config: Config) -> Arc<Self> {
        let sidecar = Arc::new(Self {
            stdin: Mutex::new(None),
            next_id: AtomicU64::new(1),
            health: Mutex::new(SidecarHealth {
                running: false,
                restarts: 0,
                message: None,
            }),
            waiting: Mutex::new(HashMap::new()),
        });
        let supervised = Arc::clone(&sidecar);
        std::thread::Builder::new()
            .name("switchboard-sidecar".into())
            .spawn(move || supervise(&supervised, &app, &config))
            .ok();
        sidecar
    }

    /// Sends a request; returns its id.
    pub fn send(&self, body: RequestBody) -> Result<u64, String> {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        self.write(id, body)?;
        Ok(id)
    }

    /// Sends a request that has one answer and waits up to `limit` for it.
    /// The answer is also forwarded to the UI as an event.
    pub async fn ask(&self, body: RequestBody, limit: Duration) -> Result<ResponseBody, String> {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let (answer, answered) = oneshot::channel();
        self.waiting
            .lock()
            .map_err(|_| "the sidecar lock is poisoned".to_owned())?
            .insert(id, answer);
        if let Err(error) = self.write(id, body) {
            self.forget(id);
            return Err(error);
        }
        match tokio::time::timeout(limit, answered).await {
            Ok(Ok(body)) => Ok(body),
            Ok(Err(_)) => Err("the sidecar stopped before answering".to_owned()),
            Err(_) => {
                self.forget(id);
                Err(format!(
                    "the sidecar did not answer within {} s",
                    limit.as_secs()
                ))
            }
        }
    }

    fn forget(&self, id: u64) {
        if let Ok(mut waiting) = self.waiting.lock() {
            waiting.remove(&id);
        }
    }

    fn write(&self, id: u64, body: RequestBody) -> Result<(), String> {
        let mut line =
            serde_json::to_vec(&SidecarRequest { id, body }).map_err(|error| error.to_string())?;
        line.push(b'\n');
        let mut stdin = self
            .stdin
            .lock()
            .map_err(|_| "the sidecar lock is poisoned".to_owned())?;
        let pipe = stdin.as_mut().ok_or_else(|| self.down_message())?;
        pipe.write_all(&line)
            .and_then(|()| pipe.flush())
            .map_err(|error| format!("the sidecar is gone: {error}"))
    }

    /// The current health.
    pub fn health(&self) -> SidecarHealth {
        self.health
            .lock()
            .map(|health| health.clone())
            .unwrap_or(SidecarHealth {
                running: false,
                restarts: 0,
                message: Some("unknown".into()),
            })
    }

    fn down_message(&self) -> String {
        self.health()
            .message
            .unwrap_or_else(|| "the sidecar is not running".to_owned())
    }

    fn set_health(&self, app: &AppHandle, update: impl FnOnce(&mut SidecarHealth)) {
        if let Ok(mut health) = self.health.lock() {
            update(&mut health);
            let _ = app.emit(EVENT_SIDECAR_HEALTH, health.clone());
        }
    }
}

fn supervise(sidecar: &Sidecar, app: &AppHandle, config: &Config) {
    loop {
        let mut command = Command::new(sidecar_path());
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        if let Some(url) = &config.model_url {
            command.env("SWITCHBOARD_MODEL_URL", url);
        }
        if let Some(dir) = &config.config_dir {
            command.env("SWITCHBOARD_CONFIG_DIR", dir);
        }
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(error) => {
                sidecar.set_health(app, |h| {
                    h.running = false;
                    h.message = Some(format!("could not start the sidecar: {error}"));
                });
                return;
            }
        };
        if let Ok(mut stdin) = sidecar.stdin.lock() {
            *stdin = child.stdin.take();
        }
        sidecar.set_health(app, |h| {
            h.running = true;
            h.message = None;
        });
        if let Some(stdout) = child.stdout.take() {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                match serde_json::from_str::<SidecarResponse>(&line) {
                    Ok(response) => {
                        let waiter = sidecar
                            .waiting
                            .lock()
                            .ok()
                            .and_then(|mut waiting| waiting.remove(&response.id));
                        if let Some(waiter) = waiter {
                            let _ = waiter.send(response.body.clone());
                        }
                        let _ = app.emit(EVENT_SIDECAR, response);
                    }
                    Err(error) => tracing::warn!(%error, "unreadable sidecar line"),
                }
            }
        }
        let status = child.wait();
        if let Ok(mut stdin) = sidecar.stdin.lock() {
            *stdin = None;
        }
        if let Ok(mut waiting) = sidecar.waiting.lock() {
            // Dropping the senders tells each waiting command.
            waiting.clear();
        }
        let restarts = sidecar.health().restarts;
        let give_up = restarts >= MAX_RESTARTS;
        sidecar.set_health(app, |h| {
            h.running = false;
            h.message = Some(format!(
                "the sidecar stopped ({}){}",
                status
                    .map(|s| s.to_string())
                    .unwrap_or_else(|e| e.to_string()),
                if give_up {
                    "; not restarting"
                } else {
                    "; restarting"
                }
            ));
        });
        if give_up {
            return;
        }
        std::thread::sleep(Duration::from_secs(1));
        sidecar.set_health(app, |h| h.restarts += 1);
    }
}
