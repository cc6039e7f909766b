//! Commands about the look of the window.

use switchboard_model::{ErrorPayload, theme::ThemeVariables};
use tauri::State;

use super::on_workspace;
use crate::state::AppState;

/// The CSS variables of the workspace's `theme.json`.
#[tauri::command]
pub async fn get_theme(state: State<'_, AppState>) -> Result<ThemeVariables, ErrorPayload> {
    on_workspace(&state, switchboard_commands::inbox::get_theme).await
}
