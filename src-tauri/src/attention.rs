//! Getting the developer's attention for blocking questions: an OS
//! notification and an urgency hint for each new one, and the number waiting
//! in the window title, the badge and the tray icon.

use std::{collections::BTreeSet, sync::Mutex};

use switchboard_model::inbox::newly_waiting;
use switchboard_store::{Workspace, deliveries};
use tauri::{AppHandle, Manager, UserAttentionType, tray::TrayIconBuilder};
use tauri_plugin_notification::NotificationExt;

/// The tray icon's id.
const TRAY: &str = "switchboard";

/// Puts Switchboard in the system tray; a desktop without a tray only
/// loses the icon, not the count in the title.
pub fn add_tray(app: &AppHandle) {
    let mut builder = TrayIconBuilder::with_id(TRAY).tooltip("Switchboard");
    if let Some(icon) = app.default_window_icon() {
        builder = builder.icon(icon.clone());
    }
    if let Err(error) = builder.build(app) {
        tracing::debug!(%error, "no system tray");
    }
}

/// The blocking questions already announced.
#[derive(Default)]
pub struct Announced(Mutex<BTreeSet<String>>);

/// Re-reads the inbox and announces blocking questions that are new since
/// the last call. `notify` is false on start-up: questions that waited
/// before the window opened update the count but raise no notification.
pub fn refresh(app: &AppHandle, workspace: &Workspace, announced: &Announced, notify: bool) {
    let listed = match deliveries::list(workspace) {
        Ok(listed) => listed,
        Err(error) => {
            tracing::warn!(%error, "could not read the inbox for notifications");
            return;
        }
    };
    let Ok(mut known) = announced.0.lock() else {
        return;
    };
    let (fresh, waiting) = newly_waiting(&known, &listed.deliveries);
    let window = app.get_webview_window("main");
    if notify && !fresh.is_empty() {
        for delivery in &fresh {
            let shown = app
                .notification()
                .builder()
                .title("An agent is waiting for your answer")
                .body(&delivery.title)
                .show();
            if let Err(error) = shown {
                tracing::debug!(%error, "no notification service");
            }
        }
        if let Some(window) = &window
            && let Err(error) = window.request_user_attention(Some(UserAttentionType::Critical))
        {
            tracing::debug!(%error, "could not ask for attention");
        }
    }
    if let Some(window) = &window {
        let title = match waiting.len() {
            0 => "Switchboard".to_owned(),
            count => format!("Switchboard ({count} waiting)"),
        };
        let _ = window.set_title(&title);
        let badge = (!waiting.is_empty()).then_some(waiting.len() as i64);
        if let Err(error) = window.set_badge_count(badge) {
            tracing::debug!(%error, "no badge on this desktop");
        }
    }
    if let Some(tray) = app.tray_by_id(TRAY) {
        let tooltip = match waiting.len() {
            0 => "Switchboard: no agent waiting".to_owned(),
            count => format!("Switchboard: {count} agent(s) waiting"),
        };
        let _ = tray.set_tooltip(Some(&tooltip));
        let _ = tray.set_title((!waiting.is_empty()).then(|| waiting.len().to_string()));
    }
    *known = waiting;
}
