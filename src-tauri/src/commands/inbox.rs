//! Commands of the Inbox view: each the one in `switchboard_commands::inbox`.

use switchboard_commands::inbox;
use switchboard_model::{
    ErrorPayload,
    annotation::{Annotation, NewAnnotation},
    export::{DeliveryExportRequest, ExportedText},
    ipc::{DeliveryDetail, DeliveryList, DeliveryRequest, ReplyRequest},
};
use tauri::State;

use super::on_workspace;
use crate::state::AppState;

/// Deliveries newest first, with warnings about anything unreadable.
#[tauri::command]
pub async fn list_deliveries(state: State<'_, AppState>) -> Result<DeliveryList, ErrorPayload> {
    on_workspace(&state, inbox::list_deliveries).await
}

/// One delivery with its rendered body, annotations and feedback.
#[tauri::command]
pub async fn get_delivery(
    state: State<'_, AppState>,
    request: DeliveryRequest,
) -> Result<DeliveryDetail, ErrorPayload> {
    on_workspace(&state, move |own| inbox::get_delivery(own, &request)).await
}

/// Notes that the developer opened a question (once, while it waits).
#[tauri::command]
pub async fn mark_opened(
    state: State<'_, AppState>,
    request: DeliveryRequest,
) -> Result<bool, ErrorPayload> {
    on_workspace(&state, move |own| inbox::mark_opened(own, &request)).await
}

/// Records the developer's answer, decline or dismissal; a waiting agent
/// learns of it through the sessions file.
#[tauri::command]
pub async fn reply(
    state: State<'_, AppState>,
    request: ReplyRequest,
) -> Result<Option<DeliveryDetail>, ErrorPayload> {
    on_workspace(&state, move |own| inbox::reply(own, request)).await
}

/// Stores a comment or highlight on a delivery.
#[tauri::command]
pub async fn add_annotation(
    state: State<'_, AppState>,
    request: NewAnnotation,
) -> Result<Annotation, ErrorPayload> {
    on_workspace(&state, move |own| inbox::add_annotation(own, request)).await
}

/// A delivery as a document to save (markdown as written, or a standalone
/// HTML page); the UI writes it to the file the user picked.
#[tauri::command]
pub async fn export_delivery(
    state: State<'_, AppState>,
    request: DeliveryExportRequest,
) -> Result<ExportedText, ErrorPayload> {
    on_workspace(&state, move |own| inbox::export_delivery(own, &request)).await
}
