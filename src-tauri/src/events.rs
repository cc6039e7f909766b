//! Forwards the store's typed change events to the UI as Tauri events, and
//! lets new blocking questions ask for attention.

use std::sync::Arc;

use switchboard_model::ipc::{EVENT_STORE_CHANGED, StoreChange};
use switchboard_store::{StoreError, Workspace, WorkspaceWatcher};
use tauri::{AppHandle, Emitter};

use crate::attention::{self, Announced};

/// Watches `workspace` and emits each change to every window.
pub fn forward_store_changes(
    app: &AppHandle,
    workspace: &Workspace,
) -> Result<WorkspaceWatcher, StoreError> {
    let announced = Arc::new(Announced::default());
    attention::refresh(app, workspace, &announced, false);
    let app = app.clone();
    let watched = workspace.clone();
    WorkspaceWatcher::start(workspace, move |change| {
        if let Err(error) = app.emit(EVENT_STORE_CHANGED, change) {
            tracing::warn!(%error, ?change, "could not forward a store change to the UI");
        }
        if change == StoreChange::Deliveries {
            attention::refresh(&app, &watched, &announced, true);
        }
    })
}
