//! Commands of the settings view: the file in the OS config directory.

use switchboard_model::{
    ErrorPayload,
    ipc::{PairingLink, SaveSettingsRequest},
    settings::SettingsView,
};
use switchboard_store::settings;
use tauri::State;

use crate::state::AppState;

fn config_dir(state: &AppState) -> Result<std::path::PathBuf, ErrorPayload> {
    state.config.settings_dir().ok_or_else(|| {
        ErrorPayload::new(
            switchboard_model::ErrorCode::Io,
            "this system has no config directory; set SWITCHBOARD_CONFIG_DIR",
        )
    })
}

fn view(state: &AppState) -> Result<SettingsView, ErrorPayload> {
    let mut view = settings::view(&config_dir(state)?)?;
    view.http_url = state.http.url();
    view.browser_url = state.browser.url();
    Ok(match &state.config.model_url {
        Some(url) => view.with_model_url(url),
        None => view,
    })
}

/// The stored settings and which of them the environment overrides.
#[tauri::command]
pub async fn get_settings(state: State<'_, AppState>) -> Result<SettingsView, ErrorPayload> {
    view(&state)
}

/// Stores new settings: the sidecar reads them at the next message, and
/// the window's HTTP server follows them at once (started, stopped or
/// moved; the view says why one asked for did not start).
#[tauri::command]
pub async fn save_settings(
    state: State<'_, AppState>,
    request: SaveSettingsRequest,
) -> Result<SettingsView, ErrorPayload> {
    let dir = config_dir(&state)?;
    settings::save(&dir, &request.settings)?;
    let (http, browser) = (
        std::sync::Arc::clone(&state.http),
        std::sync::Arc::clone(&state.browser),
    );
    let workspace = state.workspace.root().to_owned();
    let applied = tauri::async_runtime::spawn_blocking(move || {
        (
            http.apply(&workspace, Some(&dir)),
            browser.apply(&workspace, Some(&dir)),
        )
    })
    .await
    .unwrap_or_else(|error| {
        let failed = format!("a background task failed: {error}");
        (Err(failed.clone()), Err(failed))
    });
    let mut view = view(&state)?;
    view.http_error = applied.0.err();
    view.browser_error = applied.1.err();
    Ok(view)
}

/// A one-time link that pairs a browser with the window's own server of
/// the inbox (and its QR code, rows of dark and light), while it serves.
#[tauri::command]
pub async fn pair_browser(state: State<'_, AppState>) -> Result<PairingLink, ErrorPayload> {
    let dir = config_dir(&state)?;
    let origin = state.browser.url().ok_or_else(|| {
        ErrorPayload::new(
            switchboard_model::ErrorCode::Unavailable,
            "the inbox is not served to browsers: turn it on in Settings and save",
        )
    })?;
    tauri::async_runtime::spawn_blocking(move || {
        switchboard_commands::pairing::new_link_with_qr(&dir, origin.trim_end_matches('/'))
    })
    .await
    .map_err(|error| {
        ErrorPayload::new(
            switchboard_model::ErrorCode::Internal,
            format!("a background task failed: {error}"),
        )
    })?
    .map_err(ErrorPayload::from)
}
