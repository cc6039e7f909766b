//! A one-line editor for an existing text: Enter saves, Escape cancels.

use leptos::prelude::*;

use crate::kept::KeptText;

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
    /// Keeps an unsaved edit under this key for the window's life (the
    /// editor shown again starts from it), until Enter or Escape.
    #[prop(optional, into)]
    keep: Option<String>,
) -> impl IntoView {
    let kept = keep.map(|key| KeptText::new(key, initial.clone()));
    let draft = kept.map_or_else(|| RwSignal::new(initial), |kept| kept.text);
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
                "Enter" => {
                    if let Some(kept) = kept {
                        kept.forget();
                    }
                    on_save.run(draft.get_untracked());
                }
                "Escape" => {
                    if let Some(kept) = kept {
                        kept.forget();
                    }
                    on_cancel.run(());
                }
                _ => {}
            }
        />
    }
}
