//! The session host: one process per user that owns the programs'
//! pseudo-terminals, so sessions outlive the commands that start them. It
//! listens on the private socket ([`crate::runtime`]), checks each peer's
//! uid, enforces the limits, and ends itself a while after its last
//! session is gone.

pub mod buffer;
mod handle;
pub mod hosted;
mod registry;
pub mod waits;

use std::{
    fs::File,
    os::unix::fs::PermissionsExt,
    sync::{Arc, Mutex, PoisonError},
    time::Duration,
};

use nix::sys::signal::Signal;
use switchboard_model::program::{EndReason, Limits, ProgramSession, SessionState};
use thiserror::Error;
use tokio::net::UnixListener;

use crate::runtime::RuntimeDir;
use hosted::HostedSession;

/// How long an ended session stays listed.
const KEEP_ENDED: Duration = Duration::from_secs(15 * 60);
/// How many ended sessions stay listed at most.
const MAX_ENDED: usize = 100;

/// Why the host could not serve.
#[derive(Debug, Error)]
pub enum HostError {
    /// The socket or its lock could not be set up.
    #[error("could not listen on {path}: {source}")]
    Listen {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// How [`serve`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Served {
    /// Another host holds the folder; it serves.
    AlreadyRunning,
    /// No session was left for the linger time.
    Idle,
}

/// The sessions and the limits.
#[derive(Debug)]
pub struct Host {
    sessions: Mutex<Vec<Arc<HostedSession>>>,
    limits: Limits,
    /// Bumped on every change of every session, for watchers.
    changed: Arc<tokio::sync::watch::Sender<u64>>,
    /// Sessions a killed host left behind (their programs ended with it).
    lost: Vec<ProgramSession>,
    /// The runtime folder, where the registry is kept.
    dir: std::path::PathBuf,
    /// The ids of the running sessions as last written to the registry.
    saved: Mutex<Vec<String>>,
    /// Connections that only watch: they do not keep the host alive (the
    /// window follows the sessions for as long as it is open).
    watchers: std::sync::atomic::AtomicUsize,
}

impl Host {
    fn sessions(&self) -> Vec<Arc<HostedSession>> {
        self.sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn running(&self) -> usize {
        self.sessions()
            .iter()
            .filter(|session| !session.core().ended())
            .count()
    }

    /// Ends sessions over a limit and forgets old ended ones.
    fn sweep(&self) {
        let grace = Duration::from_secs(self.limits.kill_grace_secs);
        for session in self.sessions() {
            let (ended, idle, agent) = {
                let core = session.core();
                (
                    core.ended(),
                    core.last_activity.elapsed(),
                    core.info.launch.is_some(),
                )
            };
            if ended {
                continue;
            }
            // A program may turn echo off after its prompt's last output.
            session.check_secret();
            // A started agent waits at its prompt for as long as the
            // developer takes: its landing or a Stop ends it.
            if agent {
                continue;
            }
            if self.limits.idle_secs > 0 && idle >= Duration::from_secs(self.limits.idle_secs) {
                session.kill(Signal::SIGTERM, grace, EndReason::Idle);
            } else if self.limits.max_runtime_secs > 0
                && session.age() >= Duration::from_secs(self.limits.max_runtime_secs)
            {
                session.kill(Signal::SIGTERM, grace, EndReason::Runtime);
            }
        }
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        let before = sessions.len();
        sessions.retain(|session| {
            let core = session.core();
            !core.ended() || core.last_activity.elapsed() < KEEP_ENDED
        });
        let ended = sessions
            .iter()
            .filter(|session| session.core().ended())
            .count();
        let mut excess = ended.saturating_sub(MAX_ENDED);
        sessions.retain(|session| {
            if excess > 0 && session.core().ended() {
                excess -= 1;
                return false;
            }
            true
        });
        if sessions.len() != before {
            self.changed.send_modify(|generation| *generation += 1);
        }
    }

    /// The sessions of `workspace` (all with `None`), newest first, then
    /// those a killed host lost.
    fn listed(&self, workspace: Option<&str>) -> Vec<ProgramSession> {
        let mine = |info: &ProgramSession| {
            workspace.is_none_or(|workspace| info.workspace.as_deref() == Some(workspace))
        };
        let mut sessions: Vec<_> = self
            .sessions()
            .iter()
            .map(|session| session.core().snapshot())
            .filter(|info| mine(info))
            .collect();
        sessions.reverse();
        sessions.extend(self.lost.iter().rev().filter(|info| mine(info)).cloned());
        sessions
    }

    /// Writes the running sessions to the registry when they changed.
    fn remember(&self) {
        let running: Vec<_> = self
            .sessions()
            .iter()
            .map(|session| session.core().snapshot())
            .filter(|info| info.state == SessionState::Running)
            .collect();
        let ids: Vec<String> = running.iter().map(|info| info.id.clone()).collect();
        let mut saved = self.saved.lock().unwrap_or_else(PoisonError::into_inner);
        if *saved != ids {
            registry::save(&self.dir, &running);
            *saved = ids;
        }
    }
}

/// Serves until no session has been left for the linger time; `ready` is
/// called once the socket accepts connections (or another host does).
pub async fn serve(
    runtime: RuntimeDir,
    limits: Limits,
    ready: impl FnOnce(),
) -> Result<Served, HostError> {
    let listen_error = |path: &std::path::Path| {
        let path = path.to_owned();
        move |source| HostError::Listen { path, source }
    };
    let lock_path = runtime.lock();
    #[allow(
        clippy::disallowed_methods,
        reason = "our lock, in the private runtime folder; never read"
    )]
    let lock = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path);
    let lock = lock.map_err(listen_error(&lock_path))?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            ready();
            return Ok(Served::AlreadyRunning);
        }
        Err(std::fs::TryLockError::Error(error)) => return Err(listen_error(&lock_path)(error)),
    }
    // The lock is ours: a socket left here is a dead host's.
    let socket = runtime.socket();
    match std::fs::remove_file(&socket) {
        Ok(()) => tracing::info!("replaced a stale socket"),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => return Err(listen_error(&socket)(error)),
    }
    let listener = UnixListener::bind(&socket).map_err(listen_error(&socket))?;
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600))
        .map_err(listen_error(&socket))?;
    ready();
    let lost = registry::take_lost(runtime.path());
    if !lost.is_empty() {
        tracing::warn!(
            count = lost.len(),
            "a previous host was killed; its sessions are lost"
        );
    }
    let host = Arc::new(Host {
        sessions: Mutex::new(Vec::new()),
        limits,
        changed: Arc::new(tokio::sync::watch::Sender::new(0)),
        lost,
        dir: runtime.path().to_owned(),
        saved: Mutex::new(Vec::new()),
        watchers: std::sync::atomic::AtomicUsize::new(0),
    });
    let uid = nix::unistd::getuid().as_raw();
    let linger = Duration::from_secs(limits.host_linger_secs);
    let mut sweep = tokio::time::interval(Duration::from_secs(1));
    let mut idle_since = Some(tokio::time::Instant::now());
    let connections = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                match stream.peer_cred() {
                    Ok(cred) if cred.uid() == uid => {}
                    Ok(cred) => {
                        tracing::warn!(peer_uid = cred.uid(), "refused a connection from another user");
                        continue;
                    }
                    Err(error) => {
                        tracing::warn!(%error, "refused a connection whose user is unknown");
                        continue;
                    }
                }
                idle_since = None;
                let host = Arc::clone(&host);
                let connections = Arc::clone(&connections);
                connections.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                tokio::spawn(async move {
                    handle::connection(&host, stream).await;
                    connections.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                });
            }
            _ = sweep.tick() => {
                host.sweep();
                host.remember();
                let busy = host.running() > 0
                    || connections.load(std::sync::atomic::Ordering::SeqCst)
                        > host.watchers.load(std::sync::atomic::Ordering::SeqCst);
                if busy {
                    idle_since = None;
                } else {
                    let since = *idle_since.get_or_insert_with(tokio::time::Instant::now);
                    if since.elapsed() >= linger {
                        let _ = std::fs::remove_file(&socket);
                        let _ = std::fs::remove_file(registry::path(runtime.path()));
                        return Ok(Served::Idle);
                    }
                }
            }
        }
    }
}
