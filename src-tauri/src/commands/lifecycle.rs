//! Commands about the window's life: start-up timing.

use std::sync::atomic::Ordering;

use tauri::State;

use crate::state::AppState;

/// The UI calls this once its first frame is on screen. The first call logs
/// the time since process start, a line the start-up benchmark waits for.
#[tauri::command]
pub fn ui_ready(state: State<'_, AppState>) {
    if !state.painted.swap(true, Ordering::SeqCst) {
        let elapsed = state.started.elapsed();
        eprintln!(
            "switchboard: first paint {} ms after start",
            elapsed.as_millis()
        );
    }
}
