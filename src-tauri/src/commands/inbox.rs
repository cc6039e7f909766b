//! Commands of the Inbox view.

use switchboard_model::{ErrorPayload, ipc::DeliveryList};
use switchboard_store::deliveries;
use tauri::State;

use crate::state::AppState;

/// Deliveries newest first, with warnings about anything unreadable.
#[tauri::command]
pub async fn list_deliveries(state: State<'_, AppState>) -> Result<DeliveryList, ErrorPayload> {
    Ok(deliveries::list(&state.workspace)?)
}
