//! Forwards the store's typed change events to the UI as Tauri events.

use switchboard_model::ipc::EVENT_STORE_CHANGED;
use switchboard_store::{StoreError, Workspace, WorkspaceWatcher};
use tauri::{AppHandle, Emitter};

/// Watches `workspace` and emits each change to every window.
pub fn forward_store_changes(
    app: &AppHandle,
    workspace: &Workspace,
) -> Result<WorkspaceWatcher, StoreError> {
    let app = app.clone();
    WorkspaceWatcher::start(workspace, move |change| {
        if let Err(error) = app.emit(EVENT_STORE_CHANGED, change) {
            tracing::warn!(%error, ?change, "could not forward a store change to the UI");
        }
    })
}
