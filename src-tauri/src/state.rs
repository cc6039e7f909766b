//! What the shell keeps for the lifetime of the window.

use std::{sync::atomic::AtomicBool, time::Instant};

use switchboard_store::{Workspace, WorkspaceWatcher};

/// The open workspace and the resources tied to it.
pub struct AppState {
    /// The workspace folder this window shows.
    pub workspace: Workspace,
    /// When the process started, for start-up timing.
    pub started: Instant,
    /// Whether the UI has reported its first paint.
    pub painted: AtomicBool,
    /// Kept alive so file changes keep reaching the UI.
    _watcher: WorkspaceWatcher,
}

impl AppState {
    /// Bundles the workspace with its running watcher.
    pub fn new(workspace: Workspace, watcher: WorkspaceWatcher, started: Instant) -> Self {
        Self {
            workspace,
            started,
            painted: AtomicBool::new(false),
            _watcher: watcher,
        }
    }
}
