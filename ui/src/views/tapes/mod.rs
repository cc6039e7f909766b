//! The Tapes view: the workspace's terminal tapes grouped by program, a
//! player that renders the terminal (play/pause, speed, idle time capped, a
//! scrub bar, steps forward and back by exchange and by read, a jump to any
//! exchange), search across all tapes with hits that jump and highlight,
//! notes kept in an exchange's `annotations`, and export as asciicast v3.
//! A tape `switchboard rec` writes while the view is open appears at once.

pub mod player;
mod screen;

use std::rc::Rc;

use leptos::prelude::*;
use switchboard_model::{
    ipc::StoreChange,
    tape::view::{TapeHit, TapeList, TapeSummary, TapeView},
};

use crate::{events, ipc, tasks};

/// What the view's parts share.
#[derive(Clone, Copy)]
pub struct TapesState {
    /// The folder, as last read.
    pub list: RwSignal<TapeList>,
    /// The tape open in the player.
    pub tape: RwSignal<Option<Rc<TapeView>>, LocalStorage>,
    /// How many frames are shown.
    pub pos: RwSignal<usize>,
    /// The exchange picked (a search hit's, or one jumped to).
    pub selected: RwSignal<Option<usize>>,
    /// The text to highlight in the exchanges (the search's).
    pub highlight: RwSignal<String>,
    /// The last failure.
    pub error: RwSignal<Option<String>>,
    /// The open tape is a file of the tapes folder (notes and export
    /// apply), not a session's log played back.
    pub files: bool,
}

impl TapesState {
    /// A player's state with nothing open, its failures shown in `error`;
    /// `files`: the tapes folder's (notes and export apply), else a tape
    /// played back in another view (a session's log, a crash).
    pub fn new(error: RwSignal<Option<String>>, files: bool) -> Self {
        Self {
            list: RwSignal::new(TapeList::default()),
            tape: RwSignal::new_local(None),
            pos: RwSignal::new(0),
            selected: RwSignal::new(None),
            highlight: RwSignal::new(String::new()),
            error,
            files,
        }
    }

    /// Reads the folder, and the open tape again (keeping its position).
    pub fn reload(self) {
        tasks::fetch(async move {
            match ipc::tapes().await {
                Ok(list) => {
                    self.list.set(list);
                    self.error.set(None);
                }
                Err(failure) => self.error.set(Some(failure.message)),
            }
            let Some(open) = self
                .tape
                .with_untracked(|tape| tape.as_ref().map(|t| t.summary.id.clone()))
            else {
                return;
            };
            match ipc::tape(&open).await {
                Ok(tape) => {
                    self.pos.update(|pos| *pos = (*pos).min(tape.frames.len()));
                    self.tape.set(Some(Rc::new(tape)));
                }
                Err(failure) => self.error.set(Some(failure.message)),
            }
        });
    }

    /// Opens tape `id`; then, if given, jumps to exchange `exchange`. An
    /// action: the search hit that asks for it closes at once.
    pub fn open(self, id: String, exchange: Option<usize>) {
        tasks::act(async move {
            match ipc::tape(&id).await {
                Ok(tape) => {
                    let tape = Rc::new(tape);
                    let pos = match exchange {
                        Some(exchange) => {
                            switchboard_model::tape::playback::end_of(&tape, exchange)
                        }
                        None => 0,
                    };
                    self.selected.set(exchange);
                    self.tape.set(Some(tape));
                    self.pos.set(pos);
                    self.error.set(None);
                }
                Err(failure) => self.error.set(Some(failure.message)),
            }
        });
    }
}

/// `m:ss.t`.
fn minutes(ms: u64) -> String {
    let tenths = ms / 100;
    format!("{}:{:02}.{}", tenths / 600, (tenths / 10) % 60, tenths % 10)
}

/// The view.
#[component]
pub fn Tapes() -> impl IntoView {
    let state = TapesState::new(RwSignal::new(None), true);
    state.reload();
    events::on_store_change(move |change| {
        if change == StoreChange::Tapes {
            state.reload();
        }
    });
    // The player stays while the open tape is read again under it.
    let has_tape = Memo::new(move |_| state.tape.with(Option::is_some));
    view! {
        <section class="tapes" id="view-tapes">
            <header class="view-header">
                <h1>"Tapes"</h1>
                <Search state />
            </header>
            {move || state.error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
            <div class="tapes-columns">
                <aside class="tapes-list">
                    <TapeListView state />
                </aside>
                <div class="tapes-player">
                    {move || match has_tape.get() {
                        true => view! { <player::Player state /> }.into_any(),
                        false => view! { <p class="muted">"Pick a tape to play it."</p> }.into_any(),
                    }}
                </div>
            </div>
        </section>
    }
}

/// The tapes grouped by program, and the files that did not load.
#[component]
fn TapeListView(state: TapesState) -> impl IntoView {
    move || {
        let list = state.list.get();
        if list.tapes.is_empty() && list.problems.is_empty() {
            return view! {
                <p class="muted" id="tapes-empty">
                    "No tapes yet. Record one with "
                    <code>"switchboard rec -- PROGRAM"</code>
                    "; tapes in " <code>"tapes/"</code> " appear here as they are written."
                </p>
            }
            .into_any();
        }
        let open = state
            .tape
            .with(|tape| tape.as_ref().map(|t| t.summary.id.clone()));
        let mut groups: Vec<(String, Vec<_>)> = Vec::new();
        for tape in list.tapes {
            match groups.last_mut() {
                Some((program, tapes)) if *program == tape.program => tapes.push(tape),
                _ => groups.push((tape.program.clone(), vec![tape])),
            }
        }
        let groups = groups
            .into_iter()
            .map(|(program, tapes)| {
                let items = tapes
                    .into_iter()
                    .map(|tape| {
                        let current = open.as_deref() == Some(tape.id.as_str());
                        view! { <TapeItem tape current state /> }
                    })
                    .collect_view();
                view! {
                    <h2 class="tape-program">{program}</h2>
                    <ul class="tape-group">{items}</ul>
                }
            })
            .collect_view();
        let problems = (!list.problems.is_empty()).then(|| {
            let rows = list
                .problems
                .into_iter()
                .map(|problem| view! {
                    <li class="warning">
                        {format!("{}:{}:{}: {}", problem.path, problem.line, problem.column, problem.reason)}
                    </li>
                })
                .collect_view();
            view! {
                <h2>"Not loaded"</h2>
                <ul id="tapes-problems">{rows}</ul>
            }
        });
        view! { {groups} {problems} }.into_any()
    }
}

/// Search across all tapes: hits name the tape and exchange and jump there.
#[component]
fn Search(state: TapesState) -> impl IntoView {
    let hits = RwSignal::new(None::<Vec<TapeHit>>);
    let run = move |query: String| {
        if query.trim().is_empty() {
            hits.set(None);
            state.highlight.set(String::new());
            return;
        }
        tasks::fetch(async move {
            match ipc::tapes_search(&query).await {
                Ok(found) => {
                    state.highlight.set(query);
                    hits.set(Some(found));
                }
                Err(failure) => state.error.set(Some(failure.message)),
            }
        });
    };
    view! {
        <div class="tapes-search">
            <input
                id="tapes-search"
                type="search"
                placeholder="Search all tapes (input and output)"
                aria-label="Search all tapes"
                on:input=move |event| run(event_target_value(&event))
                on:keydown=move |event| {
                    if event.key() == "Escape" {
                        hits.set(None);
                    }
                }
            />
            {move || hits.get().map(|found| {
                if found.is_empty() {
                    return view! { <p class="muted" id="tapes-no-hits">"No exchange holds that."</p> }.into_any();
                }
                let rows = found
                    .into_iter()
                    .map(|hit| {
                        let (id, exchange) = (hit.id.clone(), hit.exchange);
                        view! {
                            <li>
                                <button
                                    class="tape-hit"
                                    data-id=hit.id.clone()
                                    data-exchange=hit.exchange.to_string()
                                    on:click=move |_| {
                                        hits.set(None);
                                        state.open(id.clone(), Some(exchange));
                                    }
                                >
                                    <span class="tape-hit-where">{format!("{} #{}", hit.id, hit.exchange + 1)}</span>
                                    " "
                                    <code>{hit.input.clone()}</code>
                                    " "
                                    <span class="muted">{marked(&hit.context, &state.highlight.get_untracked())}</span>
                                </button>
                            </li>
                        }
                    })
                    .collect_view();
                view! { <ul class="tape-hits" id="tape-hits">{rows}</ul> }.into_any()
            })}
        </div>
    }
}

/// `text` with each case-insensitive occurrence of `needle` in `<mark>`.
pub fn marked(text: &str, needle: &str) -> impl IntoView + use<> {
    let needle = needle.trim().to_lowercase();
    let lower = text.to_lowercase();
    // Lower-casing that changes lengths would misplace marks: none then.
    if needle.is_empty() || lower.len() != text.len() {
        return vec![view! { <span>{text.to_owned()}</span> }.into_any()];
    }
    let mut parts = Vec::new();
    let mut at = 0;
    while let Some(found) = lower[at..].find(&needle) {
        let start = at + found;
        let end = start + needle.len();
        parts.push(view! { <span>{text[at..start].to_owned()}</span> }.into_any());
        parts.push(view! { <mark>{text[start..end].to_owned()}</mark> }.into_any());
        at = end;
    }
    parts.push(view! { <span>{text[at..].to_owned()}</span> }.into_any());
    parts
}

/// One tape of the list: its name and what it holds; a click opens it.
#[component]
fn TapeItem(tape: TapeSummary, current: bool, state: TapesState) -> impl IntoView {
    let id = tape.id.clone();
    let details = [
        Some(format!(
            "{} exchange{}",
            tape.exchanges,
            if tape.exchanges == 1 { "" } else { "s" }
        )),
        Some(minutes(tape.duration_ms)),
        tape.exit.clone(),
        tape.tag.clone(),
        tape.created_at.get(..16).map(|date| date.replace('T', " ")),
        tape.redacted
            .map(|on| if on { "redacted" } else { "not redacted" }.to_owned()),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" · ");
    view! {
        <li>
            <button
                class="tape-item"
                class:current=current
                data-id=tape.id.clone()
                on:click=move |_| state.open(id.clone(), None)
            >
                <span class="tape-name">{tape.name.clone()}</span>
                <span class="muted tape-details">{details}</span>
            </button>
        </li>
    }
}
