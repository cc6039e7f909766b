//! The Inbox view's commands.

use switchboard_model::{
    annotation::{Annotation, NewAnnotation},
    export::{DeliveryExportRequest, ExportedText},
    ipc::{DeliveryDetail, DeliveryList, DeliveryRequest, ReplyRequest, WorkspaceInfo},
    theme::ThemeVariables,
};
use switchboard_store::{
    StoreError, Workspace, annotations, clock, deliveries, everywhere, feedback, registry, theme,
};

/// The workspace a request names besides the page's own: one of "All
/// workspaces" registered now (`everywhere::reachable`); anything else is
/// refused, so a page cannot point a command at a folder.
pub fn reached(own: &Workspace, elsewhere: Option<&str>) -> Result<Workspace, StoreError> {
    match elsewhere {
        None => Ok(own.clone()),
        Some(root) => everywhere::reachable(&registry::list(), own, root),
    }
}

/// The workspace folder the page shows.
pub fn workspace_info(own: &Workspace) -> WorkspaceInfo {
    WorkspaceInfo {
        path: own.root().display().to_string(),
        name: own.name(),
    }
}

/// Deliveries newest first, with warnings about anything unreadable.
pub fn list_deliveries(own: &Workspace) -> Result<DeliveryList, StoreError> {
    deliveries::list(own)
}

/// One delivery with its rendered body, annotations and feedback.
pub fn get_delivery(
    own: &Workspace,
    request: &DeliveryRequest,
) -> Result<DeliveryDetail, StoreError> {
    deliveries::detail(&reached(own, request.workspace.as_deref())?, &request.id)
}

/// Notes that the developer opened a question (once, while it waits).
pub fn mark_opened(own: &Workspace, request: &DeliveryRequest) -> Result<bool, StoreError> {
    let workspace = reached(own, request.workspace.as_deref())?;
    deliveries::mark_opened(&workspace, &request.id, clock::now())
}

/// Records the developer's answer, decline or dismissal — to the question
/// as the page showed it, when it says what it showed; a waiting agent
/// learns of it through the sessions file. Returns the question as
/// answered (`None` when it could not be read back): another workspace's
/// may be out of reach a moment later — its asker, answered, goes on and
/// its workspace leaves "All workspaces" — and the page still shows what
/// was decided.
pub fn reply(own: &Workspace, request: ReplyRequest) -> Result<Option<DeliveryDetail>, StoreError> {
    let workspace = reached(own, request.workspace.as_deref())?;
    feedback::reply_as_seen(
        &workspace,
        &request.id,
        request.reply,
        request.seen.as_deref(),
        clock::now(),
    )?;
    Ok(deliveries::detail(&workspace, &request.id).ok())
}

/// Stores a comment or highlight on a delivery.
pub fn add_annotation(own: &Workspace, request: NewAnnotation) -> Result<Annotation, StoreError> {
    annotations::add(own, request, clock::now())
}

/// A delivery as a document to save (markdown as written, or a standalone
/// HTML page).
pub fn export_delivery(
    own: &Workspace,
    request: &DeliveryExportRequest,
) -> Result<ExportedText, StoreError> {
    deliveries::export(own, &request.id, request.format)
}

/// The CSS variables of the workspace's `theme.json`.
pub fn get_theme(own: &Workspace) -> Result<ThemeVariables, StoreError> {
    theme::load(own)
}
