//! Commands of the Inbox view.

use switchboard_model::{
    ErrorPayload,
    annotation::{Annotation, NewAnnotation},
    export::{DeliveryExportRequest, ExportedText},
    ipc::{DeliveryDetail, DeliveryList, DeliveryRequest, ReplyRequest},
};
use switchboard_store::{annotations, clock, deliveries, feedback};
use tauri::State;

use super::{on_reachable, on_workspace};
use crate::state::AppState;

/// Deliveries newest first, with warnings about anything unreadable.
#[tauri::command]
pub async fn list_deliveries(state: State<'_, AppState>) -> Result<DeliveryList, ErrorPayload> {
    Ok(deliveries::list(&state.workspace)?)
}

/// One delivery with its rendered body, annotations and feedback.
#[tauri::command]
pub async fn get_delivery(
    state: State<'_, AppState>,
    request: DeliveryRequest,
) -> Result<DeliveryDetail, ErrorPayload> {
    on_reachable(&state, request.workspace, move |workspace| {
        deliveries::detail(workspace, &request.id)
    })
    .await
}

/// Notes that the developer opened a question (once, while it waits).
#[tauri::command]
pub async fn mark_opened(
    state: State<'_, AppState>,
    request: DeliveryRequest,
) -> Result<bool, ErrorPayload> {
    on_reachable(&state, request.workspace, move |workspace| {
        deliveries::mark_opened(workspace, &request.id, switchboard_store::clock::now())
    })
    .await
}

/// Records the developer's answer, decline or dismissal; a waiting agent
/// learns of it through the sessions file.
#[tauri::command]
pub async fn reply(state: State<'_, AppState>, request: ReplyRequest) -> Result<(), ErrorPayload> {
    on_reachable(&state, request.workspace, move |workspace| {
        feedback::reply(workspace, &request.id, request.reply, clock::now())
    })
    .await?;
    Ok(())
}

/// Stores a comment or highlight on a delivery.
#[tauri::command]
pub async fn add_annotation(
    state: State<'_, AppState>,
    request: NewAnnotation,
) -> Result<Annotation, ErrorPayload> {
    on_workspace(&state, move |workspace| {
        annotations::add(workspace, request, clock::now())
    })
    .await
}

/// A delivery as a document to save (markdown as written, or a standalone
/// HTML page); the UI writes it to the file the user picked.
#[tauri::command]
pub async fn export_delivery(
    state: State<'_, AppState>,
    request: DeliveryExportRequest,
) -> Result<ExportedText, ErrorPayload> {
    Ok(deliveries::export(
        &state.workspace,
        &request.id,
        request.format,
    )?)
}
