//! Keyboard shortcuts shared by the views.

use leptos::ev::KeyboardEvent;

/// Ctrl+Enter (Cmd+Enter on macOS): send the form or message being written.
pub fn is_submit(event: &KeyboardEvent) -> bool {
    event.key() == "Enter" && (event.ctrl_key() || event.meta_key())
}
