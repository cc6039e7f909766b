//! Commands about the window's life: start-up timing.

use std::sync::atomic::Ordering;

use switchboard_model::ipc::UiPhaseRequest;
use tauri::{AppHandle, State};

use crate::{attention, state::AppState};

/// The UI calls this once its first frame is on screen. The first call logs
/// the time since process start and the phases before it (ms after the
/// start), the line the start-up benchmarks wait for, then starts what was
/// kept off the path to the first paint: the sidecar and the tray icon.
#[tauri::command]
pub fn ui_ready(app: AppHandle, state: State<'_, AppState>) {
    if !state.painted.swap(true, Ordering::SeqCst) {
        let elapsed = state.started.elapsed();
        eprintln!(
            "switchboard: first paint {} ms after start; phases: {}",
            elapsed.as_millis(),
            state.phase_list()
        );
        state.sidecar.release();
        let announced = std::sync::Arc::clone(&state.announced);
        let tray_app = app.clone();
        let added = app.run_on_main_thread(move || {
            attention::add_tray(&tray_app, &announced);
            attention::show_waiting(&tray_app, &announced);
        });
        if let Err(error) = added {
            tracing::debug!(%error, "no system tray");
        }
    }
}

/// The UI reached a start-up phase (its frame is painted, its wasm runs,
/// its first data came), at the time it says.
#[tauri::command]
pub fn ui_phase(state: State<'_, AppState>, request: UiPhaseRequest) {
    let at = request.at_ms.and_then(|at| state.since_start(at));
    state.reach(request.phase, at);
}
