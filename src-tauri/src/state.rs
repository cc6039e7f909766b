//! What the shell keeps for the lifetime of the window.

use std::{
    sync::{Arc, atomic::AtomicBool},
    time::Instant,
};

use switchboard_store::{Workspace, WorkspaceWatcher};

use crate::sidecar::Sidecar;

/// The open workspace and the resources tied to it.
pub struct AppState {
    /// The workspace folder this window shows.
    pub workspace: Workspace,
    /// When the process started, for start-up timing.
    pub started: Instant,
    /// Whether the UI has reported its first paint.
    pub painted: AtomicBool,
    /// The sidecar process, for chat.
    pub sidecar: Arc<Sidecar>,
    /// Kept alive so file changes keep reaching the UI.
    _watcher: WorkspaceWatcher,
}

impl AppState {
    /// Bundles the workspace with its running watcher.
    pub fn new(
        workspace: Workspace,
        watcher: WorkspaceWatcher,
        sidecar: Arc<Sidecar>,
        started: Instant,
    ) -> Self {
        Self {
            workspace,
            started,
            painted: AtomicBool::new(false),
            sidecar,
            _watcher: watcher,
        }
    }
}
