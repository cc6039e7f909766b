//! The search box and its hits: highlighted snippets, best first; a hit
//! opens its entry in the right tab.

use leptos::prelude::*;
use switchboard_model::knowledge::search::{HitKind, SearchHit, SearchQuery, SearchResults};

use super::{KnowledgeState, Tab, anchor, scroll_to};
use crate::{ipc, tasks};

/// Most hits shown.
const LIMIT: usize = 20;

/// The search box with its results.
#[component]
pub fn SearchBox(state: KnowledgeState) -> impl IntoView {
    let text = RwSignal::new(String::new());
    let results = RwSignal::new(None::<SearchResults>);
    let run = move || {
        let query = text.get_untracked();
        if query.trim().is_empty() {
            results.set(None);
            return;
        }
        tasks::fetch(async move {
            match ipc::knowledge_search(&SearchQuery::new(query.clone(), LIMIT)).await {
                // Answers to older queries are dropped.
                Ok(found) if text.get_untracked() == query => results.set(Some(found)),
                Ok(_) => {}
                Err(failure) => state.error.set(Some(failure.message)),
            }
        });
    };
    // Files changed: the hits may have too.
    Effect::new(move |_| {
        state.generation.track();
        run();
    });

    view! {
        <div class="knowledge-search">
            <input
                id="knowledge-search"
                type="search"
                placeholder="Search learnings, bullets, profiles, memories and specs"
                aria-label="Search knowledge"
                prop:value=move || text.get()
                on:input=move |event| {
                    text.set(event_target_value(&event));
                    run();
                }
                on:keydown=move |event| {
                    if event.key() == "Escape" {
                        text.set(String::new());
                        results.set(None);
                    }
                }
            />
            {move || results.get().map(|found| {
                let empty = found.hits.is_empty();
                view! {
                    <ol class="search-hits" id="knowledge-results">
                        {found.warnings.into_iter().map(|w| view! { <li class="warning">{w}</li> }).collect_view()}
                        {empty.then(|| view! { <li class="muted">"Nothing found."</li> })}
                        {found.hits.into_iter().map(|hit| hit_view(state, hit)).collect_view()}
                    </ol>
                }
            })}
        </div>
    }
}

/// The element id a hit jumps to, and the tab it is in.
fn target(hit: &SearchHit) -> (Tab, String) {
    match hit.kind {
        HitKind::Bullet => (
            Tab::Playbooks,
            anchor(&[
                "b",
                hit.task_type.as_deref().unwrap_or_default(),
                hit.bullet_id.as_deref().unwrap_or_default(),
            ]),
        ),
        HitKind::Learning => (Tab::Learnings, anchor(&[&hit.path, &hit.line.to_string()])),
        HitKind::Profile | HitKind::Memory | HitKind::Spec => {
            (Tab::Documents, anchor(&[&hit.path]))
        }
    }
}

/// The snippet with its matches in `<mark>`, as text nodes (never HTML).
fn snippet(hit: &SearchHit) -> impl IntoView + use<> {
    hit.snippet_runs()
        .into_iter()
        .map(|(run, marked)| {
            let run = run.to_owned();
            if marked {
                view! { <mark>{run}</mark> }.into_any()
            } else {
                run.into_any()
            }
        })
        .collect_view()
}

fn hit_view(state: KnowledgeState, hit: SearchHit) -> impl IntoView {
    let (tab, id) = target(&hit);
    let kind = hit.kind;
    let path = hit.path.clone();
    let place = if hit.line > 0 {
        format!("{}:{}", hit.path, hit.line)
    } else {
        hit.path.clone()
    };
    let tooltip = place.clone();
    let open = move |_| {
        if kind == HitKind::Learning {
            state.file.set(Some(path.clone()));
        }
        state.tab.set(tab);
        state.jumped.set(Some(id.clone()));
        scroll_to(id.clone());
    };
    let votes = (kind == HitKind::Bullet).then(|| format!("+{} −{}", hit.helpful, hit.harmful));
    let marked = snippet(&hit);
    view! {
        <li class="search-hit">
            <button class="search-hit-open" on:click=open title=tooltip>
                <span class=format!("badge kind-{}", kind.as_str())>{kind.as_str()}</span>
                <span class="hit-title">{hit.title}</span>
                {votes.map(|v| view! { <span class="muted">{v}</span> })}
                <span class="muted hit-place">{place}</span>
            </button>
            <p class="hit-snippet">{marked}</p>
        </li>
    }
}
