//! The workspace's program sessions, followed for the window's whole life
//! (so a password prompt gets attention whatever view is open): the live
//! ones from the session host whenever one runs — never starting or
//! keeping one up — and the ended ones from their logs in the workspace.
//! Each change is kept for the Terminals view's first look and emitted as
//! [`EVENT_SESSIONS`].

use std::{
    collections::BTreeSet,
    path::{Path, PathBuf},
    sync::{Arc, Mutex, PoisonError},
};

use switchboard_model::{ipc::EVENT_SESSIONS, program::ProgramSession};
use switchboard_session::Client;
use switchboard_store::session_log;
use tauri::{AppHandle, Emitter};

use crate::attention::{self, Announced};

/// The most ended sessions shown from their logs.
const LOGGED: usize = 50;

/// The sessions as last heard.
#[derive(Default)]
pub struct Followed(Mutex<Vec<ProgramSession>>);

impl Followed {
    /// The sessions now: live ones first, then ended ones, newest first.
    pub fn now(&self) -> Vec<ProgramSession> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// The ended sessions only their logs remember, leaving out `live` ones.
fn logged(root: &Path, live: &BTreeSet<String>) -> Vec<ProgramSession> {
    session_log::ended_sessions(root, live, LOGGED).unwrap_or_else(|error| {
        tracing::warn!(%error, "could not list the session logs");
        Vec::new()
    })
}

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
        let mut live_ids = BTreeSet::new();
        let mut ended = logged(&root, &live_ids);
        publish(&app, &followed, &announced, Vec::new(), &ended);
        let workspace = root.display().to_string();
        let result = client
            .follow(Some(workspace), |sessions| {
                let live = sessions.unwrap_or_default();
                let ids: BTreeSet<String> = live.iter().map(|session| session.id.clone()).collect();
                // The logs are read again only when the set of sessions
                // changed (one ended and left the host, a host went).
                if ids != live_ids {
                    live_ids = ids;
                    ended = logged(&root, &live_ids);
                }
                publish(&app, &followed, &announced, live, &ended);
            })
            .await;
        if let Err(error) = result {
            tracing::warn!(%error, "stopped following the program sessions");
        }
    });
}

fn publish(
    app: &AppHandle,
    followed: &Followed,
    announced: &Announced,
    live: Vec<ProgramSession>,
    ended: &[ProgramSession],
) {
    let mut sessions = live;
    sessions.extend_from_slice(ended);
    attention::secrets(app, &sessions, announced);
    if let Err(error) = app.emit(EVENT_SESSIONS, &sessions) {
        tracing::warn!(%error, "could not forward the sessions to the UI");
    }
    *followed.0.lock().unwrap_or_else(PoisonError::into_inner) = sessions;
}
