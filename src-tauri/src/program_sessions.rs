//! The workspace's program sessions, followed for the window's whole life
//! (so a password prompt gets attention whatever view is open) by
//! `switchboard_commands::terminals::follow`: each change is kept for the
//! Terminals view's first look and emitted as [`EVENT_SESSIONS`].

use std::{path::PathBuf, sync::Arc};

use switchboard_commands::terminals::{self, Followed};
use switchboard_model::ipc::EVENT_SESSIONS;
use switchboard_session::Client;
use tauri::{AppHandle, Emitter};

use crate::attention::{self, Announced};

/// Follows the sessions of the workspace at `root` until the app ends.
pub fn follow(app: AppHandle, root: PathBuf, followed: Arc<Followed>, announced: Arc<Announced>) {
    let client = match Client::new() {
        Ok(client) => client,
        Err(error) => {
            tracing::warn!(%error, "program sessions are not followed");
            return;
        }
    };
    tauri::async_runtime::spawn(async move {
        let result = terminals::follow(client, root, &followed, |sessions| {
            attention::secrets(&app, sessions, &announced);
            if let Err(error) = app.emit(EVENT_SESSIONS, sessions) {
                tracing::warn!(%error, "could not forward the sessions to the UI");
            }
        })
        .await;
        if let Err(error) = result {
            tracing::warn!(%error, "stopped following the program sessions");
        }
    });
}
