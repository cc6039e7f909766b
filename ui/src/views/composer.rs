//! The composer: a text area that sends what is written on Ctrl+Enter
//! (Cmd+Enter on macOS), for the chat, team messages, comments on a
//! delivery and notes on a tape (a box whose `text` is a
//! [`crate::kept::KeptText`]'s is kept for the window's life).

use leptos::prelude::*;

/// A text area bound to `text` that calls `on_submit` on Ctrl/Cmd+Enter
/// (the key is not typed into it) and `on_edit` after each change.
#[component]
pub fn Composer(
    /// What is written.
    text: RwSignal<String>,
    /// Sends it.
    #[prop(into)]
    on_submit: Callback<()>,
    /// Heard after each edit.
    #[prop(optional, into)]
    on_edit: Option<Callback<()>>,
    /// The element's id.
    #[prop(optional, into)]
    id: Option<String>,
    /// Its label for assistive technology, when no visible label names it.
    #[prop(optional, into)]
    label: Option<String>,
    /// Its hint, which says how to send.
    #[prop(into)]
    placeholder: String,
    /// Its height in lines.
    #[prop(default = 3)]
    rows: u32,
) -> impl IntoView {
    view! {
        <textarea
            id=id
            rows=rows
            placeholder=placeholder
            aria-label=label
            prop:value=move || text.get()
            on:input=move |event| {
                text.set(event_target_value(&event));
                if let Some(edited) = on_edit {
                    edited.run(());
                }
            }
            on:keydown=move |event| {
                if crate::keys::is_submit(&event) {
                    event.prevent_default();
                    on_submit.run(());
                }
            }
        ></textarea>
    }
}
