//! Forwards the store's typed change events to the UI as Tauri events, lets
//! new blocking questions ask for attention, and keeps an open knowledge
//! index in step with the files.

use std::sync::Arc;

use switchboard_model::ipc::{EVENT_EVERYWHERE, EVENT_STORE_CHANGED, StoreChange};
use switchboard_store::{StoreError, Workspace, WorkspaceWatcher, team::Teams};
use tauri::{AppHandle, Emitter, Manager};

use crate::{
    attention::{self, Announced},
    state::{AppState, Config},
};

/// Re-indexes changed knowledge files, if the index is open (it opens at
/// the first search).
fn sync_index(app: &AppHandle) {
    let Some(state) = app.try_state::<AppState>() else {
        return;
    };
    if let Some(Err(error)) = state.search.if_open(|index| index.sync(&state.workspace)) {
        tracing::debug!(%error, "knowledge index not synced; the next search retries");
    }
}

/// Watches `workspace` and the team folders `config` names (the plugin's,
/// Claude Code's) and emits each change to every window.
pub fn forward_store_changes(
    app: &AppHandle,
    workspace: &Workspace,
    config: &Config,
    announced: Arc<Announced>,
) -> Result<WorkspaceWatcher, StoreError> {
    let mut team_roots = vec![Teams::locate(workspace).root().to_owned()];
    if let Some(claude) = config.claude_teams() {
        team_roots.extend(claude.watched_roots());
    }
    // Off the main thread, which would hold the page's first load for it
    // (a large inbox is many files).
    {
        let (app, workspace, announced) = (app.clone(), workspace.clone(), Arc::clone(&announced));
        std::thread::spawn(move || attention::prime(&app, &workspace, &announced));
    }
    let app = app.clone();
    let watched = workspace.clone();
    // The reports investigations, tests and fuzz runs write.
    let report_dirs = config
        .probe_reports()
        .ok()
        .map(|reports| {
            use switchboard_store::probe_reports::ReportFolder;
            vec![
                reports.dir(ReportFolder::Investigations),
                reports.dir(ReportFolder::TestReports),
            ]
        })
        .unwrap_or_default();
    WorkspaceWatcher::start_with(workspace, team_roots, report_dirs, move |change| {
        if change == StoreChange::Knowledge {
            // Before the UI hears of it, so its re-search sees the change.
            sync_index(&app);
        }
        if let Err(error) = app.emit(EVENT_STORE_CHANGED, change) {
            tracing::warn!(%error, ?change, "could not forward a store change to the UI");
        }
        if change == StoreChange::Deliveries {
            attention::refresh(&app, &watched, &announced, true);
        }
        if change == StoreChange::Agents {
            attention::agents(&app, &watched, &announced);
        }
    })
}

/// Follows the other running workspaces ("All workspaces"): reads what
/// waits there now (off the main thread), then after each change counts it
/// into the title, announces new blocking questions, and tells the page
/// ([`EVENT_EVERYWHERE`]). `None` when the runtime folder cannot be used.
pub fn follow_everywhere(
    app: &AppHandle,
    workspace: &Workspace,
    announced: Arc<Announced>,
) -> Option<switchboard_store::everywhere::Follower> {
    let registry = match switchboard_store::registry::Registry::locate() {
        Ok(registry) => registry,
        Err(error) => {
            tracing::warn!(%error, "other workspaces are not followed");
            return None;
        }
    };
    {
        let (app, workspace, announced) = (app.clone(), workspace.clone(), Arc::clone(&announced));
        std::thread::spawn(move || attention::elsewhere(&app, &workspace, &announced));
    }
    let (app, watched) = (app.clone(), workspace.clone());
    let followed = switchboard_store::everywhere::follow(&registry, workspace, move || {
        attention::elsewhere(&app, &watched, &announced);
        if let Err(error) = app.emit(EVENT_EVERYWHERE, ()) {
            tracing::debug!(%error, "the page was not told of another workspace's change");
        }
    });
    match followed {
        Ok(follower) => Some(follower),
        Err(error) => {
            tracing::warn!(%error, "other workspaces are not followed");
            None
        }
    }
}
