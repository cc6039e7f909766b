//! Commands of the Inbox view.

use switchboard_model::{
    ErrorCode, ErrorPayload,
    annotation::{Annotation, NewAnnotation},
    export::{self, DeliveryExportRequest, ExportFormat, ExportedText},
    ipc::{DeliveryDetail, DeliveryList, DeliveryRequest, ReplyRequest},
    render,
};
use switchboard_store::{annotations, clock, deliveries, feedback};
use tauri::State;

use super::on_workspace;
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
    Ok(deliveries::detail(&state.workspace, &request.id)?)
}

/// Records the developer's answer, decline or dismissal; a waiting agent
/// learns of it through the sessions file.
#[tauri::command]
pub async fn reply(state: State<'_, AppState>, request: ReplyRequest) -> Result<(), ErrorPayload> {
    on_workspace(&state, move |workspace| {
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

/// A delivery as a document to save: its markdown as written, or a
/// standalone HTML page of its sanitized body (what the window shows,
/// without annotations). The UI writes it to the file the user picked.
#[tauri::command]
pub async fn export_delivery(
    state: State<'_, AppState>,
    request: DeliveryExportRequest,
) -> Result<ExportedText, ErrorPayload> {
    let delivery = deliveries::get(&state.workspace, &request.id)?;
    if !export::delivery_formats(&delivery).contains(&request.format) {
        return Err(ErrorPayload::new(
            ErrorCode::InvalidRequest,
            format!(
                "delivery {} is HTML: it can be saved as an HTML page, not as {}",
                delivery.id,
                request.format.label()
            ),
        ));
    }
    let text = match request.format {
        ExportFormat::Markdown => export::delivery_markdown(&delivery),
        ExportFormat::Html => {
            let body = render::render_body(delivery.content.kind, &delivery.content.body, &[]);
            export::html_document(&delivery.title, &body.html)
        }
    };
    Ok(ExportedText {
        file_name: export::file_name(&delivery.title, request.format),
        text,
    })
}
