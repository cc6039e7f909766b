//! Adding a dependency by its title: a type-ahead over the team's tasks
//! (titles containing what is typed, those starting with it first), picked
//! with the mouse or with ↑/↓ and Enter; Escape clears it. Raw ids stay in
//! the drawer.

use leptos::prelude::*;
use switchboard_model::team::dependency_candidates;

use super::TeamState;

/// How many tasks the list offers at once.
const OFFERED: usize = 8;

/// The picker on task `id`'s card; `pick` adds the chosen task as a
/// dependency. What is typed is kept in the board's drafts, so a refresh
/// that redraws the card keeps it.
#[component]
pub fn DependencyPicker(
    /// The task the dependency is added to.
    id: String,
    /// It and the tasks it already waits for: never offered.
    exclude: Vec<String>,
    /// The board's state.
    state: TeamState,
    /// Adds the chosen task's id.
    pick: Callback<String>,
) -> impl IntoView {
    let key = StoredValue::new(id.clone());
    let query = RwSignal::new(
        state
            .drafts
            .with_value(|drafts| drafts.get(&id).cloned())
            .unwrap_or_default(),
    );
    let highlighted = RwSignal::new(0_usize);
    // The list shows only while the search has the focus.
    let focused = RwSignal::new(false);
    let offered = offered_tasks(state, exclude, query);
    let set_query = move |text: String| {
        state.drafts.update_value(|drafts| {
            if text.is_empty() {
                drafts.remove(&key.get_value());
            } else {
                drafts.insert(key.get_value(), text.clone());
            }
        });
        highlighted.set(0);
        query.set(text);
    };
    let choose = move |chosen: String| {
        set_query(String::new());
        pick.run(chosen);
    };
    let list_id = format!("dependency-options-{id}");
    let keydown = move |event: leptos::ev::KeyboardEvent| {
        let count = offered.with_untracked(Vec::len);
        match on_key(&event.key(), highlighted.get_untracked(), count) {
            Some(Step::Highlight(at)) => highlighted.set(at),
            Some(Step::Choose(at)) => {
                let chosen =
                    offered.with_untracked(|offered| offered.get(at).map(|(id, _, _)| id.clone()));
                if let Some(chosen) = chosen {
                    choose(chosen);
                }
            }
            Some(Step::Clear) => set_query(String::new()),
            None => return,
        }
        event.prevent_default();
        event.stop_propagation();
    };
    view! {
        <div class="add-dependency">
            <input
                class="dependency-search"
                role="combobox"
                aria-label="Add a dependency: type a task's title"
                aria-autocomplete="list"
                aria-controls=list_id.clone()
                aria-expanded=move || (focused.get() && !offered.with(Vec::is_empty)).to_string()
                placeholder="Depends on… (type a title)"
                prop:value=move || query.get()
                on:input=move |event| set_query(event_target_value(&event))
                on:focus=move |_| focused.set(true)
                on:blur=move |_| focused.set(false)
                on:keydown=keydown
            />
            <Options list_id offered highlighted focused choose=Callback::new(choose) />
        </div>
    }
}

/// The tasks offered for what is typed: id, title and status of each.
fn offered_tasks(
    state: TeamState,
    exclude: Vec<String>,
    query: RwSignal<String>,
) -> Memo<Vec<(String, String, &'static str)>> {
    let exclude = StoredValue::new(exclude);
    Memo::new(move |_| {
        let typed = query.get();
        if typed.trim().is_empty() {
            return Vec::new();
        }
        state.board.with(|board| {
            board.as_ref().map_or_else(Vec::new, |board| {
                exclude.with_value(|exclude| {
                    dependency_candidates(&board.tasks, exclude, &typed, OFFERED)
                        .into_iter()
                        .map(|task| (task.id.clone(), task.title.clone(), task.status.as_str()))
                        .collect()
                })
            })
        })
    })
}

/// The tasks offered, under the search while it has the focus.
#[component]
fn Options(
    /// The list's element id (the search's `aria-controls`).
    list_id: String,
    /// The tasks offered: id, title, status.
    offered: Memo<Vec<(String, String, &'static str)>>,
    /// Which one ↑/↓ highlight.
    highlighted: RwSignal<usize>,
    /// Whether the search has the focus.
    focused: RwSignal<bool>,
    /// Adds the chosen task.
    choose: Callback<String>,
) -> impl IntoView {
    view! {
        <ul
            class="dependency-options"
            id=list_id
            role="listbox"
            class:hidden=move || !focused.get() || offered.with(Vec::is_empty)
        >
            {move || {
                offered
                    .get()
                    .into_iter()
                    .enumerate()
                    .map(|(at, (id, title, status))| {
                        let chosen = id.clone();
                        view! {
                            <li
                                class="dependency-option"
                                role="option"
                                data-id=id
                                aria-selected=move || (highlighted.get() == at).to_string()
                                class:highlighted=move || highlighted.get() == at
                                on:mousedown=move |event| {
                                    // Before the search loses the focus.
                                    event.prevent_default();
                                    choose.run(chosen.clone());
                                }
                            >
                                <span class="option-title">{title}</span>
                                <span class="muted">{status.replace('_', " ")}</span>
                            </li>
                        }
                    })
                    .collect_view()
            }}
        </ul>
    }
}

/// What a key does in the search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// Highlights the offered task at this place.
    Highlight(usize),
    /// Adds the offered task at this place.
    Choose(usize),
    /// Clears what is typed.
    Clear,
}

/// What `key` does with `count` tasks offered and the one at `at`
/// highlighted: ↑/↓ move round the list, Enter chooses, Escape clears;
/// any other key is the search's own.
fn on_key(key: &str, at: usize, count: usize) -> Option<Step> {
    match key {
        "ArrowDown" if count > 0 => Some(Step::Highlight((at + 1) % count)),
        "ArrowUp" if count > 0 => Some(Step::Highlight((at + count - 1) % count)),
        "Enter" => Some(Step::Choose(at)),
        "Escape" => Some(Step::Clear),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::{Step, on_key};

    #[test]
    fn arrows_move_round_the_offered_tasks() {
        assert_eq!(on_key("ArrowDown", 0, 3), Some(Step::Highlight(1)));
        assert_eq!(on_key("ArrowDown", 2, 3), Some(Step::Highlight(0)));
        assert_eq!(on_key("ArrowUp", 0, 3), Some(Step::Highlight(2)));
        assert_eq!(on_key("ArrowUp", 2, 3), Some(Step::Highlight(1)));
    }

    #[test]
    fn with_nothing_offered_arrows_are_the_searchs_own() {
        assert_eq!(on_key("ArrowDown", 0, 0), None);
        assert_eq!(on_key("ArrowUp", 0, 0), None);
        assert_eq!(on_key("a", 0, 3), None);
    }

    #[test]
    fn enter_chooses_the_highlighted_task_and_escape_clears() {
        assert_eq!(on_key("Enter", 1, 3), Some(Step::Choose(1)));
        assert_eq!(on_key("Escape", 1, 3), Some(Step::Clear));
    }
}
