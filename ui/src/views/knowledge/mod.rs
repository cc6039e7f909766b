//! The Knowledge view: a search box over everything learned, and tabs for
//! learnings (by category, with an add form), playbooks (bullets by task
//! type and section, votes, edits, additions), the curator (prune
//! candidates, likely duplicates, quarantine) and Delia's profiles and
//! memories. Follows the files live.

mod curator;
mod documents;
mod learnings;
mod playbooks;
mod search;

use leptos::prelude::*;
use switchboard_model::ipc::{KnowledgeOverview, StoreChange};

use crate::{events, ipc, tasks};

/// The tabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    /// Learnings files.
    Learnings,
    /// Delia playbooks.
    Playbooks,
    /// Prune candidates, duplicates, quarantine.
    Curator,
    /// Profiles, memories, specs and plans.
    Documents,
}

impl Tab {
    const ALL: [Tab; 4] = [Tab::Learnings, Tab::Playbooks, Tab::Curator, Tab::Documents];

    fn label(self) -> &'static str {
        match self {
            Tab::Learnings => "Learnings",
            Tab::Playbooks => "Playbooks",
            Tab::Curator => "Curator",
            Tab::Documents => "Documents",
        }
    }

    fn id(self) -> &'static str {
        match self {
            Tab::Learnings => "knowledge-tab-learnings",
            Tab::Playbooks => "knowledge-tab-playbooks",
            Tab::Curator => "knowledge-tab-curator",
            Tab::Documents => "knowledge-tab-documents",
        }
    }
}

/// What the view's parts share.
#[derive(Debug, Clone, Copy)]
pub struct KnowledgeState {
    /// Everything on disk, as last read.
    pub overview: RwSignal<KnowledgeOverview>,
    /// The tab shown.
    pub tab: RwSignal<Tab>,
    /// The element a search hit jumped to (its DOM id).
    pub jumped: RwSignal<Option<String>>,
    /// The learnings file shown.
    pub file: RwSignal<Option<String>>,
    /// The last failure.
    pub error: RwSignal<Option<String>>,
    /// Bumped whenever the files changed, so searches re-run.
    pub generation: RwSignal<u64>,
}

impl KnowledgeState {
    /// Reads everything again.
    pub fn reload(self) {
        tasks::fetch(async move {
            match ipc::knowledge().await {
                Ok(overview) => {
                    self.overview.set(overview);
                    self.generation.update(|g| *g += 1);
                }
                Err(failure) => self.error.set(Some(failure.message)),
            }
        })
    }

    /// Shows `failure`, or reloads after a change went through.
    pub fn after<T>(self, outcome: Result<T, switchboard_model::ErrorPayload>) {
        match outcome {
            Ok(_) => {
                self.error.set(None);
                self.reload();
            }
            Err(failure) => self.error.set(Some(failure.message)),
        }
    }
}

/// A DOM id for a place in a file (letters, digits and dashes).
pub fn anchor(parts: &[&str]) -> String {
    let mut id = String::from("k");
    for part in parts {
        id.push('-');
        id.extend(
            part.chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }),
        );
    }
    id
}

/// Scrolls the element with `id` into view once it is drawn.
pub fn scroll_to(id: String) {
    leptos::prelude::request_animation_frame(move || {
        if let Some(element) = document().get_element_by_id(&id) {
            element.scroll_into_view();
        }
    });
}

/// The view.
#[component]
pub fn Knowledge() -> impl IntoView {
    let state = KnowledgeState {
        overview: RwSignal::new(KnowledgeOverview::default()),
        tab: RwSignal::new(Tab::Learnings),
        jumped: RwSignal::new(None),
        file: RwSignal::new(None),
        error: RwSignal::new(None),
        generation: RwSignal::new(0),
    };
    state.reload();
    events::on_store_change(move |change| {
        if change == StoreChange::Knowledge {
            state.reload();
        }
    });

    view! {
        <section class="knowledge" id="view-knowledge">
            <header class="view-header">
                <h1>"Knowledge"</h1>
                <div class="tabs" role="tablist" aria-label="Knowledge">
                    {Tab::ALL
                        .into_iter()
                        .map(|tab| view! {
                            <button
                                role="tab"
                                class="tab"
                                id=tab.id()
                                aria-selected=move || (state.tab.get() == tab).to_string()
                                on:click=move |_| state.tab.set(tab)
                            >{tab.label()}</button>
                        })
                        .collect_view()}
                </div>
            </header>
            <search::SearchBox state />
            {move || state.error.get().map(|message| view! { <p class="error" role="alert" id="knowledge-error">{message}</p> })}
            {move || {
                let overview = state.overview.get();
                let notes: Vec<String> = overview
                    .warnings
                    .into_iter()
                    .chain(overview.problems.iter().map(|p| {
                        let bullet = p.bullet.as_ref().map(|b| format!(" [{b}]")).unwrap_or_default();
                        format!("{}{bullet}: {}", p.file, p.message)
                    }))
                    .collect();
                (!notes.is_empty()).then(|| view! {
                    <details class="knowledge-problems" id="knowledge-problems">
                        <summary>{format!("{} problem(s) found in the files (switchboard validate)", notes.len())}</summary>
                        <ul>{notes.into_iter().map(|note| view! { <li>{note}</li> }).collect_view()}</ul>
                    </details>
                })
            }}
            {move || match state.tab.get() {
                Tab::Learnings => view! { <learnings::LearningsTab state /> }.into_any(),
                Tab::Playbooks => view! { <playbooks::PlaybooksTab state /> }.into_any(),
                Tab::Curator => view! { <curator::CuratorTab state /> }.into_any(),
                Tab::Documents => view! { <documents::DocumentsTab state /> }.into_any(),
            }}
        </section>
    }
}
