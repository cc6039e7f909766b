//! The `#[tauri::command]` adapters, one module per view. Each takes state,
//! calls the store and maps the error to an `ErrorPayload`.

pub mod agents;
pub mod chat;
pub mod everywhere;
pub mod inbox;
pub mod knowledge;
pub mod launches;
pub mod lifecycle;
pub mod probes;
pub mod program_sessions;
pub mod settings;
pub mod tapes;
pub mod team;
pub mod theme;
pub mod workspace;

use switchboard_model::{ErrorCode, ErrorPayload};
use switchboard_store::{StoreError, Workspace};

use crate::state::AppState;

/// Runs `work` (store calls that wait on a folder's lock or use the index)
/// on the blocking pool with the window's workspace, so a wait never holds
/// up the app's async runtime (and the other commands with it).
pub async fn on_workspace<T: Send + 'static>(
    state: &AppState,
    work: impl FnOnce(&Workspace) -> Result<T, StoreError> + Send + 'static,
) -> Result<T, ErrorPayload> {
    let workspace = state.workspace.clone();
    tauri::async_runtime::spawn_blocking(move || work(&workspace))
        .await
        .map_err(|error| {
            ErrorPayload::new(
                ErrorCode::Internal,
                format!("a background task failed: {error}"),
            )
        })?
        .map_err(ErrorPayload::from)
}
