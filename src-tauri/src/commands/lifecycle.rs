//! Commands about the window's life: start-up timing.

use std::sync::atomic::Ordering;

use switchboard_model::ipc::UiPhaseRequest;
use tauri::State;

use crate::state::AppState;

/// The UI calls this once its first frame is on screen. The first call logs
/// the time since process start and the phases before it (ms after the
/// start), the line the start-up benchmarks wait for.
#[tauri::command]
pub fn ui_ready(state: State<'_, AppState>) {
    if !state.painted.swap(true, Ordering::SeqCst) {
        let elapsed = state.started.elapsed();
        eprintln!(
            "switchboard: first paint {} ms after start; phases: {}",
            elapsed.as_millis(),
            state.phase_list()
        );
    }
}

/// The UI reached a start-up phase (its wasm runs, its first data came).
#[tauri::command]
pub fn ui_phase(state: State<'_, AppState>, request: UiPhaseRequest) {
    state.reach(request.phase, None);
}
