//! Saving a document out of the window: the save dialog, then the fs
//! plugin writing the one file picked, and a line saying where it went.

use leptos::prelude::*;
use switchboard_model::{
    ErrorPayload,
    export::{ExportFormat, ExportedText},
};

use crate::{ipc, tasks};

/// What the last save did, for the line under the buttons.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Saved {
    /// Written to this path.
    To(String),
    /// The dialog was dismissed.
    Cancelled,
    /// Something failed; the message says what.
    Failed(String),
}

/// Asks where to save `document` and writes it there.
async fn save(document: ExportedText, format: ExportFormat) -> Result<Saved, ErrorPayload> {
    let Some(path) = ipc::save_dialog(&document.file_name, format).await? else {
        return Ok(Saved::Cancelled);
    };
    ipc::write_text_file(&path, &document.text).await?;
    Ok(Saved::To(path))
}

/// Makes `document` (which may fail), asks where to save it, writes it,
/// and reports into `status`.
pub fn save_document(
    status: RwSignal<Option<Saved>>,
    format: ExportFormat,
    document: impl Future<Output = Result<ExportedText, ErrorPayload>> + 'static,
) {
    tasks::act(async move {
        let outcome = match document.await {
            Ok(document) => save(document, format).await,
            Err(error) => Err(error),
        };
        status.set(Some(
            outcome.unwrap_or_else(|error| Saved::Failed(error.message)),
        ));
    });
}

/// The line saying what the last save did.
#[component]
pub fn SaveStatus(status: RwSignal<Option<Saved>>, id: &'static str) -> impl IntoView {
    move || {
        status.get().and_then(|saved| match saved {
            Saved::To(path) => Some(view! { <p class="save-status" id=id role="status">"Saved to " <code>{path}</code></p> }.into_any()),
            Saved::Cancelled => None,
            Saved::Failed(message) => Some(view! { <p class="error" id=id role="alert">{message}</p> }.into_any()),
        })
    }
}
