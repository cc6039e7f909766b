//! Commands of the Terminals view's reports: the workspace's
//! investigations, test and fuzz reports (ClaudeControl's folders), each
//! one call of `switchboard_commands::terminals`.

use switchboard_commands::terminals;
use switchboard_model::{
    ErrorPayload,
    probe::view::{ReportList, ReportRequest, ReportView},
};
use switchboard_store::probe_reports::ProbeReports;
use tauri::State;

use super::on_workspace;
use crate::state::AppState;

fn folders(state: &AppState) -> Result<ProbeReports, ErrorPayload> {
    state.config.probe_reports().map_err(ErrorPayload::from)
}

/// The reports written for this workspace, newest first.
#[tauri::command]
pub async fn probe_reports(state: State<'_, AppState>) -> Result<ReportList, ErrorPayload> {
    let folders = folders(&state)?;
    on_workspace(&state, move |workspace| {
        Ok(terminals::probe_reports(&folders, workspace))
    })
    .await
}

/// One report, whole (only a file of the reports folders).
#[tauri::command]
pub async fn probe_report(
    state: State<'_, AppState>,
    request: ReportRequest,
) -> Result<ReportView, ErrorPayload> {
    let folders = folders(&state)?;
    on_workspace(&state, move |workspace| {
        terminals::probe_report(&folders, workspace, &request)
    })
    .await
}
