//! The contract between the desktop shell and the UI: command names, their
//! request and response types, and the events the shell pushes.
//!
//! Both sides import these, so a renamed field breaks the build, not the app.

use serde::{Deserialize, Serialize};

use crate::Delivery;

/// Command: describe the open workspace. Request: none.
pub const CMD_WORKSPACE_INFO: &str = "workspace_info";
/// Command: list deliveries newest first. Request: none.
pub const CMD_LIST_DELIVERIES: &str = "list_deliveries";
/// Command: the UI has painted its first frame (used for start-up timing).
pub const CMD_UI_READY: &str = "ui_ready";
/// Event carrying a [`StoreChange`] whenever workspace data changes on disk.
pub const EVENT_STORE_CHANGED: &str = "store-changed";

/// The open workspace, as the sidebar shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkspaceInfo {
    /// Absolute path of the workspace folder.
    pub path: String,
    /// The folder's own name, for the title.
    pub name: String,
}

/// The inbox as the UI receives it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeliveryList {
    /// Deliveries, newest first.
    pub deliveries: Vec<Delivery>,
    /// Problems met while reading (e.g. a record that did not parse), in
    /// words for the developer; the readable records are still listed.
    pub warnings: Vec<String>,
}

/// Which workspace data changed on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StoreChange {
    /// `.visual-delivery/data/deliveries.json`.
    Deliveries,
    /// `.visual-delivery/data/annotations.json`.
    Annotations,
    /// `.visual-delivery/data/feedback-responses.json`.
    FeedbackResponses,
    /// `.visual-delivery/data/sessions.json`.
    Sessions,
}
