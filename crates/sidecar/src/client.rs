//! The one client of the sidecar protocol, used by the CLI and the app:
//! finds and starts `switchboard-sidecar`, checks that it speaks this
//! protocol version (a mismatched sidecar is refused with a clear
//! message), writes requests with fresh ids as NDJSON lines and reads the
//! responses.

use std::{
    ffi::OsString,
    io::{BufRead, BufReader, Lines, Write},
    os::unix::process::CommandExt,
    path::PathBuf,
    process::{Child, ChildStdin, ChildStdout, Command, Stdio},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
};

use switchboard_model::{
    ErrorCode,
    sidecar::{PROTOCOL_VERSION, RequestBody, ResponseBody, SidecarRequest, SidecarResponse},
};
use thiserror::Error;

/// The sidecar binary: `$SWITCHBOARD_SIDECAR`, else `switchboard-sidecar`
/// beside the running binary.
pub fn sidecar_path() -> PathBuf {
    if let Some(path) = std::env::var_os("SWITCHBOARD_SIDECAR") {
        return PathBuf::from(path);
    }
    std::env::current_exe()
        .map(|exe| exe.with_file_name("switchboard-sidecar"))
        .unwrap_or_else(|_| PathBuf::from("switchboard-sidecar"))
}

/// Why talking to the sidecar process failed.
#[derive(Debug, Error)]
pub enum LinkError {
    /// The binary could not be started.
    #[error("could not start the sidecar {path}: {source}")]
    Spawn {
        /// The binary tried.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The sidecar speaks another protocol version.
    #[error(
        "the sidecar {path} speaks protocol {theirs}, this program {ours}; install matching versions"
    )]
    Version {
        /// The binary.
        path: PathBuf,
        /// Its version.
        theirs: u32,
        /// Ours.
        ours: u32,
    },
    /// The pipe to or from the sidecar failed, or it exited.
    #[error("the sidecar is gone: {0}")]
    Gone(String),
    /// A line that is not a response.
    #[error("the sidecar sent an unreadable line: {0}")]
    Unreadable(String),
}

impl LinkError {
    /// The code the app and the CLI act on.
    pub fn code(&self) -> ErrorCode {
        ErrorCode::Unavailable
    }
}

/// How to start the sidecar.
#[derive(Debug, Clone, Default)]
pub struct Launch {
    /// The binary; `None` is [`sidecar_path`].
    pub program: Option<PathBuf>,
    /// Environment variables to set for it.
    pub env: Vec<(String, OsString)>,
    /// Start it in its own process group, so the terminal's Ctrl-C reaches
    /// only the caller (which then asks the sidecar to stop the turn).
    pub own_process_group: bool,
}

/// The sending half: cheap to clone, usable from any thread.
#[derive(Debug, Clone)]
pub struct Requests {
    stdin: Arc<Mutex<ChildStdin>>,
    next_id: Arc<AtomicU64>,
}

impl Requests {
    /// A fresh request id.
    pub fn next_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::SeqCst)
    }

    /// Writes `body` under `id` (from [`Requests::next_id`]).
    pub fn write(&self, id: u64, body: RequestBody) -> Result<(), LinkError> {
        let mut line = serde_json::to_vec(&SidecarRequest { id, body })
            .map_err(|error| LinkError::Gone(error.to_string()))?;
        line.push(b'\n');
        let mut stdin = self
            .stdin
            .lock()
            .map_err(|_| LinkError::Gone("the request pipe's lock is poisoned".into()))?;
        stdin
            .write_all(&line)
            .and_then(|()| stdin.flush())
            .map_err(|error| LinkError::Gone(error.to_string()))
    }

    /// Writes `body` under a fresh id; returns the id.
    pub fn send(&self, body: RequestBody) -> Result<u64, LinkError> {
        let id = self.next_id();
        self.write(id, body)?;
        Ok(id)
    }
}

/// The receiving half: the responses, in order, until the sidecar exits.
pub struct Responses {
    lines: Lines<BufReader<ChildStdout>>,
}

impl Iterator for Responses {
    type Item = Result<SidecarResponse, LinkError>;

    fn next(&mut self) -> Option<Self::Item> {
        let line = match self.lines.next()? {
            Ok(line) => line,
            Err(error) => return Some(Err(LinkError::Gone(error.to_string()))),
        };
        Some(serde_json::from_str(&line).map_err(|error| LinkError::Unreadable(error.to_string())))
    }
}

/// A started sidecar that passed the version check.
pub struct Link {
    /// The process.
    pub child: Child,
    /// Where requests go.
    pub requests: Requests,
    /// Where responses come from.
    pub responses: Responses,
}

/// Starts the sidecar as `launch` says and checks its protocol version;
/// request ids come from `ids` (shared across restarts, so ids never
/// repeat). A sidecar that speaks another version is stopped and refused.
pub fn start(launch: &Launch, ids: Arc<AtomicU64>) -> Result<Link, LinkError> {
    let path = launch.program.clone().unwrap_or_else(sidecar_path);
    let mut command = Command::new(&path);
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    for (name, value) in &launch.env {
        command.env(name, value);
    }
    if launch.own_process_group {
        command.process_group(0);
    }
    let mut child = command.spawn().map_err(|source| LinkError::Spawn {
        path: path.clone(),
        source,
    })?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        let _ = child.kill();
        return Err(LinkError::Gone("no pipes to the sidecar".into()));
    };
    let requests = Requests {
        stdin: Arc::new(Mutex::new(stdin)),
        next_id: ids,
    };
    let mut responses = Responses {
        lines: BufReader::new(stdout).lines(),
    };
    let refuse = |mut child: Child, error: LinkError| {
        let _ = child.kill();
        let _ = child.wait();
        Err(error)
    };
    let id = match requests.send(RequestBody::Health) {
        Ok(id) => id,
        Err(error) => return refuse(child, error),
    };
    match responses.next() {
        Some(Ok(SidecarResponse {
            id: answered,
            body: ResponseBody::Health { protocol, .. },
        })) if answered == id => {
            if protocol != PROTOCOL_VERSION {
                return refuse(
                    child,
                    LinkError::Version {
                        path,
                        theirs: protocol,
                        ours: PROTOCOL_VERSION,
                    },
                );
            }
        }
        Some(Ok(other)) => {
            return refuse(
                child,
                LinkError::Unreadable(format!("expected the health answer, got {other:?}")),
            );
        }
        Some(Err(error)) => return refuse(child, error),
        None => return refuse(child, LinkError::Gone("it exited at once".into())),
    }
    Ok(Link {
        child,
        requests,
        responses,
    })
}
