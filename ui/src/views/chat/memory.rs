//! The memory panel: the conversation summary (mid-term memory), what the
//! last turn changed, and the developer's edits — change or remove an
//! entry, add one, pin one so the model keeps it.

use leptos::prelude::*;
use switchboard_model::chat::{ConversationSummary, summary::SummaryList};

use super::ChatState;
use crate::{ipc, tasks, views::edit_line::EditLine};

/// Stores `edit` applied to the shown summary, then shows what was stored.
fn save(state: ChatState, edit: impl FnOnce(&mut ConversationSummary)) {
    let Some(session) = state.session.get_untracked() else {
        return;
    };
    let mut summary = session.summary.clone().unwrap_or_default();
    edit(&mut summary);
    let summary = (summary != ConversationSummary::default()).then_some(summary);
    tasks::act(async move {
        match ipc::chat_set_summary(&session.id, summary).await {
            Ok(saved) => state.session.set(Some(saved)),
            Err(failure) => state.error.set(Some(failure.message)),
        }
    });
}

/// The panel.
#[component]
pub fn MemoryPanel(state: ChatState) -> impl IntoView {
    let summary = Memo::new(move |_| {
        state
            .session
            .with(|s| s.as_ref().and_then(|s| s.summary.clone()))
            .unwrap_or_default()
    });
    let editable = Memo::new(move |_| {
        state.session.with(Option::is_some) && state.transcript.with(|t| t.streaming.is_none())
    });
    // The entry being edited, by its text: a turn that changes the lists
    // meanwhile does not move the edit onto another entry.
    let editing = RwSignal::new(None::<(SummaryList, String)>);
    let change = Memo::new(move |_| state.transcript.with(|t| t.last_change.clone()));

    view! {
        <section class="memory" id="chat-memory">
            <h2>"Memory"</h2>
            {move || {
                let change = change.get();
                (!change.is_empty()).then(|| {
                    view! {
                        <div class="memory-change" id="chat-memory-change">
                            <h3>"Last turn"</h3>
                            <ul>
                                {change
                                    .added
                                    .into_iter()
                                    .map(|(list, entry)| view! { <li class="added">{format!("+ {entry}")}<span class="muted">{format!(" ({list})")}</span></li> })
                                    .collect_view()}
                                {change
                                    .closed_questions
                                    .into_iter()
                                    .map(|question| view! { <li class="closed">{format!("✓ {question}")}</li> })
                                    .collect_view()}
                            </ul>
                        </div>
                    }
                })
            }}
            {move || (!editable.get()).then(|| {
                let why = if state.session.with(Option::is_none) {
                    "Memory starts with the first message."
                } else {
                    "Editing waits for the answer to finish."
                };
                view! { <p class="muted">{why}</p> }
            })}
            {SummaryList::ALL
                .into_iter()
                .map(|which| view! { <MemoryList which summary editable editing state /> })
                .collect_view()}
        </section>
    }
}

/// One of the five lists, with its entries and an input to add one.
#[component]
fn MemoryList(
    which: SummaryList,
    summary: Memo<ConversationSummary>,
    editable: Memo<bool>,
    editing: RwSignal<Option<(SummaryList, String)>>,
    state: ChatState,
) -> impl IntoView {
    let entries = Memo::new(move |_| summary.with(|s| s.list(which).clone()));
    let adding = RwSignal::new(String::new());
    let key = which.key();
    view! {
        <div class="memory-list" id=format!("memory-{key}")>
            <h3>{which.title()}</h3>
            <ul>
                {move || {
                    entries
                        .get()
                        .into_iter()
                        .map(|entry| view! { <MemoryEntry entry which summary editable editing state /> })
                        .collect_view()
                }}
            </ul>
            <input
                class="memory-add"
                placeholder=format!("Add to {}…", which.title().to_lowercase())
                disabled=move || !editable.get()
                prop:value=move || adding.get()
                on:input=move |event| adding.set(event_target_value(&event))
                on:keydown=move |event| {
                    if event.key() == "Enter" {
                        let text = adding.get_untracked();
                        adding.set(String::new());
                        save(state, |s| s.add(which, &text));
                    }
                }
            />
        </div>
    }
}

/// One entry of a memory list: its text (or its editor), Edit, and Pin.
#[component]
fn MemoryEntry(
    entry: String,
    which: SummaryList,
    summary: Memo<ConversationSummary>,
    editable: Memo<bool>,
    editing: RwSignal<Option<(SummaryList, String)>>,
    state: ChatState,
) -> impl IntoView {
    // Its star follows the summary: a pin changes no entry, so the list
    // is not drawn again for it.
    let pinned = {
        let entry = entry.clone();
        Memo::new(move |_| summary.with(|s| s.is_pinned(&entry)))
    };
    let is_editing = {
        let entry = entry.clone();
        move || {
            editing.with(|open| {
                open.as_ref()
                    .is_some_and(|(list, text)| *list == which && *text == entry)
            })
        }
    };
    let pin_entry = entry.clone();
    let edit_entry = entry.clone();
    let shown = entry.clone();
    view! {
        <li class="memory-entry" class:pinned=move || pinned.get()>
            {move || {
                if is_editing() {
                    view! { <EntryEditor shown=shown.clone() which summary editing state /> }
                    .into_any()
                } else {
                    let edit_entry = edit_entry.clone();
                    view! {
                        <span class="entry-text">{shown.clone()}</span>
                        <button
                            class="icon edit-entry"
                            title="Edit"
                            aria-label="Edit"
                            disabled=move || !editable.get()
                            on:click=move |_| editing.set(Some((which, edit_entry.clone())))
                        >"✎"</button>
                    }
                    .into_any()
                }
            }}
            <button
                class="icon pin-entry"
                title=move || if pinned.get() { "Unpin" } else { "Pin: the model keeps this" }
                aria-label="Pin"
                aria-pressed=move || pinned.get().to_string()
                disabled=move || !editable.get()
                on:click=move |_| {
                    let entry = pin_entry.clone();
                    save(state, move |s| s.toggle_pin(&entry));
                }
            >{move || if pinned.get() { "★" } else { "☆" }}</button>
        </li>
    }
}

/// An entry being edited: Enter saves (empty removes), Escape cancels;
/// an entry that changed meanwhile is not overwritten.
#[component]
fn EntryEditor(
    shown: String,
    which: SummaryList,
    summary: Memo<ConversationSummary>,
    editing: RwSignal<Option<(SummaryList, String)>>,
    state: ChatState,
) -> impl IntoView {
    let old = shown.clone();
    let on_save = Callback::new(move |text: String| {
        editing.set(None);
        let still_there = summary.with_untracked(|s| s.list(which).contains(&old));
        if still_there {
            let old = old.clone();
            save(state, move |s| {
                s.edit(which, &old, &text);
            });
        } else {
            state.error.set(Some(format!(
                "“{old}” changed while you edited it; edit it again"
            )));
        }
    });
    // Kept while the lists are drawn again (a
    // turn's summary, a pin).
    let keep = state.session.with_untracked(|s| {
        s.as_ref()
            .map(|s| format!("memory-edit:{}:{}:{shown}", s.id, which.key()))
    });
    view! {
        <EditLine
            initial=shown.clone()
            keep=keep.unwrap_or_default()
            class="memory-edit"
            label="Edit entry (Enter saves, empty removes, Escape cancels)"
            on_save
            on_cancel=Callback::new(move |()| editing.set(None))
        />
    }
}
