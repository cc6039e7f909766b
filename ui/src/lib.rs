//! Switchboard's window contents: a Leptos app compiled to wasm32 and
//! embedded by the desktop shell. It talks to the shell only through `ipc`.
//!
//! A library, so what its parts compute (not how they draw) is tested
//! natively: `cargo test -p switchboard-ui --lib`; `main.rs` only starts
//! it ([`start`]).

mod app;
mod browser;
mod events;
mod ipc;
mod kept;
mod keys;
mod tasks;
mod theme;
mod views;

/// Starts the window's app: says the wasm runs, takes the page's own
/// frame away and mounts the app in its place.
pub fn start() {
    console_error_panic_hook::set_once();
    // Timed now, before Leptos mounts: the wasm runs.
    let started = ipc::ui_phase(switchboard_model::ipc::StartPhase::WasmStarted);
    wasm_bindgen_futures::spawn_local(async {
        let _ = started.await;
    });
    // The page's own frame, shown while the wasm compiled, gives way to the
    // app's (the same) in this task: no paint falls between.
    if let Some(frame) = leptos::prelude::document().get_element_by_id("boot-frame") {
        frame.remove();
    }
    leptos::mount::mount_to_body(app::App);
}
