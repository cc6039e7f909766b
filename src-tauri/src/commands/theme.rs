//! Commands about the look of the window.

use switchboard_model::{ErrorPayload, theme::ThemeVariables};
use switchboard_store::theme;
use tauri::State;

use crate::state::AppState;

/// The CSS variables of the workspace's `theme.json`.
#[tauri::command]
pub async fn get_theme(state: State<'_, AppState>) -> Result<ThemeVariables, ErrorPayload> {
    Ok(theme::load(&state.workspace)?)
}
