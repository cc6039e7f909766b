//! A one-line editor for an existing text: Enter saves, Escape cancels.

use leptos::prelude::*;

/// An input holding `initial`; Enter hands the text to `on_save`, Escape
/// calls `on_cancel`. It takes the focus when it appears.
#[component]
pub fn EditLine(
    /// The text to edit.
    initial: String,
    /// The input's class.
    class: &'static str,
    /// Its accessible name.
    label: &'static str,
    /// Called with the text on Enter.
    on_save: Callback<String>,
    /// Called on Escape.
    on_cancel: Callback<()>,
) -> impl IntoView {
    let draft = RwSignal::new(initial);
    let input = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        if let Some(element) = input.get() {
            let _ = element.focus();
        }
    });
    view! {
        <input
            node_ref=input
            class=class
            aria-label=label
            bind:value=draft
            on:keydown=move |event| match event.key().as_str() {
                "Enter" => on_save.run(draft.get_untracked()),
                "Escape" => on_cancel.run(()),
                _ => {}
            }
        />
    }
}
