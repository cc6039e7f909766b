//! Keyboard shortcuts shared by the views.

use leptos::ev::KeyboardEvent;

/// Ctrl+Enter (Cmd+Enter on macOS): send the form or message being written.
pub fn is_submit(event: &KeyboardEvent) -> bool {
    event.key() == "Enter" && (event.ctrl_key() || event.meta_key())
}

/// Whether a key went to a text field (single-letter shortcuts leave it
/// alone there).
pub fn is_typing(event: &KeyboardEvent) -> bool {
    event
        .target()
        .and_then(|target| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(target).ok())
        .is_some_and(|element| matches!(element.tag_name().as_str(), "INPUT" | "TEXTAREA"))
}
