//! Markdown shown in the window: rendered and sanitized by the shell (the
//! same renderer as deliveries), with the plain text until it arrives.

use leptos::prelude::*;

use crate::{ipc, tasks};

/// `text` as rendered markdown inside a `div.markdown-body`.
#[component]
pub fn Markdown(text: String) -> impl IntoView {
    let html = RwSignal::new(None::<String>);
    let source = text.clone();
    tasks::fetch(async move {
        if let Ok(rendered) = ipc::render_markdown(&source).await {
            html.set(Some(rendered));
        }
    });
    move || match html.get() {
        Some(rendered) => {
            view! { <div class="markdown-body" inner_html=rendered></div> }.into_any()
        }
        None => view! { <div class="markdown-body plain">{text.clone()}</div> }.into_any(),
    }
}
