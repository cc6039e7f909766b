//! Delia's profiles and memories and the spec and plan files, rendered.

use leptos::prelude::*;
use switchboard_model::knowledge::document::Document;

use super::{KnowledgeState, anchor};
use crate::views::markdown::Markdown;

/// The tab.
#[component]
pub fn DocumentsTab(state: KnowledgeState) -> impl IntoView {
    let section = move |title: &'static str, documents: Vec<Document>| {
        view! {
            <h2>{title}</h2>
            {documents.is_empty().then(|| view! { <p class="muted">"None."</p> })}
            {documents.into_iter().map(|document| {
                let id = anchor(&[&document.path]);
                let jumped = {
                    let id = id.clone();
                    move || state.jumped.get().as_ref() == Some(&id)
                };
                view! {
                    <article class="document" id=id class:jumped=jumped>
                        <h3>{document.name.clone()} " " <code class="muted">{document.path.clone()}</code></h3>
                        <Markdown text=document.text.clone() />
                    </article>
                }
            }).collect_view()}
        }
    };
    view! {
        <div class="documents">
            {move || section("Profiles", state.overview.with(|o| o.profiles.clone()))}
            {move || section("Memories", state.overview.with(|o| o.memories.clone()))}
            {move || section("Specs and plans", state.overview.with(|o| o.specs.clone()))}
        </div>
    }
}
