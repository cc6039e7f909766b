//! The inbox list: mode tabs with waiting counts, a status filter, the rows
//! (only those near the view are drawn), and the pinned bar of blocking
//! questions.

use std::collections::BTreeSet;

use leptos::{ev, prelude::*};
use switchboard_model::{
    Delivery, DeliveryMode, DeliveryStatus, Timestamp, age_label,
    agent::permission::shown_status,
    inbox::{
        Fold, InboxFilter, ListRow, PendingCounts, drawn_rows, fold_decided, moved_to, page_rows,
        rows_moved, scroll_to_show, waiting_blocking,
    },
};
use wasm_bindgen::JsCast as _;

use super::Loaded;

const MODE_TABS: [(Option<DeliveryMode>, &str); 4] = [
    (None, "All"),
    (Some(DeliveryMode::Passive), "Passive"),
    (Some(DeliveryMode::Interactive), "Interactive"),
    (Some(DeliveryMode::Blocking), "Blocking"),
];

/// The deliveries in `loaded`, or none.
fn deliveries_of(loaded: &Loaded) -> &[Delivery] {
    match loaded {
        Loaded::Ready { deliveries, .. } => deliveries,
        _ => &[],
    }
}

/// The pinned bar naming every blocking question an agent waits on.
#[component]
pub fn AlertBar(loaded: RwSignal<Loaded>, selected: RwSignal<Option<String>>) -> impl IntoView {
    let waiting = move || {
        loaded.with(|loaded| {
            waiting_blocking(deliveries_of(loaded))
                .into_iter()
                .map(|d| (d.id.clone(), d.title.clone()))
                .collect::<Vec<_>>()
        })
    };
    move || {
        let waiting = waiting();
        (!waiting.is_empty()).then(|| {
            let count = waiting.len();
            view! {
                <div class="alert-bar" id="blocking-alert" role="alert">
                    <strong>
                        {if count == 1 {
                            "1 agent is waiting for your answer".to_owned()
                        } else {
                            format!("{count} agents are waiting for your answers")
                        }}
                    </strong>
                    {waiting
                        .into_iter()
                        .map(|(id, title)| {
                            let open = id.clone();
                            view! {
                                <button
                                    class="alert-item"
                                    data-id=id
                                    on:click=move |_| selected.set(Some(open.clone()))
                                >
                                    {title}
                                </button>
                            }
                        })
                        .collect_view()}
                </div>
            }
        })
    }
}

/// How high a row is, in CSS pixels: the list lays rows out at this pitch
/// (the stylesheet reads it as `--row-height`), so the rows in view follow
/// from the scroll position alone.
const ROW_PX: f64 = 44.0;

/// What the list area shows.
#[derive(Debug, Clone, PartialEq)]
enum Body {
    Loading,
    Failed(String),
    /// No deliveries at all.
    Empty,
    /// Deliveries, but none passes the filter.
    NoMatch,
    Rows,
}

/// Where the list was scrolled to, kept by the inbox while a delivery is
/// open so the list comes back as it was left.
#[derive(Debug, Clone, Copy, Default)]
pub struct ListPlace {
    scroll_top: i32,
}

/// The filter bar and the rows.
#[component]
pub fn DeliveryList(
    loaded: RwSignal<Loaded>,
    selected: RwSignal<Option<String>>,
    now: RwSignal<Timestamp>,
    place: RwSignal<ListPlace>,
    opened: RwSignal<Option<String>>,
) -> impl IntoView {
    let filter = RwSignal::new(InboxFilter::default());
    let counts = Memo::new(move |_| loaded.with(|loaded| PendingCounts::of(deliveries_of(loaded))));
    // Positions in `deliveries` of the rows the filter passes.
    let shown = Memo::new(move |_| {
        let filter = filter.get();
        loaded.with(|loaded| {
            deliveries_of(loaded)
                .iter()
                .enumerate()
                .filter(|(_, delivery)| filter.matches(delivery))
                .map(|(index, _)| index)
                .collect::<Vec<_>>()
        })
    });
    let body = Memo::new(move |_| {
        loaded.with(|loaded| match loaded {
            Loaded::Loading => Body::Loading,
            Loaded::Failed(message) => Body::Failed(message.clone()),
            Loaded::Ready { deliveries, .. } if deliveries.is_empty() => Body::Empty,
            Loaded::Ready { .. } if shown.with(Vec::is_empty) => Body::NoMatch,
            Loaded::Ready { .. } => Body::Rows,
        })
    });
    let warnings = move || match &*loaded.read() {
        Loaded::Ready { warnings, .. } => warnings.clone(),
        _ => Vec::new(),
    };

    view! {
        <ListHeader filter counts />
        {move || {
            warnings()
                .into_iter()
                .map(|warning| view! { <p class="warning" role="status">{warning}</p> })
                .collect_view()
        }}
        {move || match body.get() {
            Body::Loading => view! { <p class="muted">"Loading…"</p> }.into_any(),
            Body::Failed(message) => view! { <p class="error" role="alert">{message}</p> }.into_any(),
            Body::Empty => view! { <FirstSteps /> }.into_any(),
            Body::NoMatch => {
                view! { <p class="muted" id="inbox-filtered-empty">"Nothing matches this filter."</p> }.into_any()
            }
            Body::Rows => view! { <Rows loaded shown selected now place opened /> }.into_any(),
        }}
    }
}

/// The empty inbox: what comes here, and what to do first — start an
/// agent (New agent, in Agents, where this page may), or have agents of
/// your own ask and deliver here.
#[component]
fn FirstSteps() -> impl IntoView {
    let navigation = use_context::<crate::app::Navigation>();
    let show_agents = move |_| {
        if let Some(navigation) = navigation {
            navigation.show_agents();
        }
    };
    view! {
        <div class="empty" id="inbox-empty">
            <h2>"No deliveries yet"</h2>
            <p>"Agents' questions, permission requests and results come here, and wait for your answer."</p>
            <ul class="first-steps">
                {move || if crate::browser::may_start() {
                    view! {
                        <li>
                            "Start an agent: "
                            <button class="link" id="inbox-new-agent" on:click=show_agents>"New agent"</button>
                            " in Agents gives Claude Code or Codex a task, in its own worktree; its questions come here."
                        </li>
                    }.into_any()
                } else {
                    view! {
                        <li>
                            "Start an agent from the window on the machine (Agents, New agent): its questions come here."
                        </li>
                    }.into_any()
                }}
                <li>
                    "Or let the agents you run yourself ask here: "
                    <code>"switchboard hooks install"</code>
                    " sends Claude Code's and Codex's permission requests here while a window is open, and an agent delivers with "
                    <code>"switchboard deliver --title T --content B"</code>"."
                </li>
            </ul>
        </div>
    }
}

/// The view's title and its filters: a tab per mode, with what waits in
/// each, and a status.
#[component]
fn ListHeader(filter: RwSignal<InboxFilter>, counts: Memo<PendingCounts>) -> impl IntoView {
    view! {
        <header class="view-header">
            <h1>"Inbox"</h1>
            <div class="filters">
                <div class="tabs" role="tablist" aria-label="Mode">
                    {MODE_TABS
                        .into_iter()
                        .map(|(mode, label)| {
                            view! {
                                <button
                                    role="tab"
                                    class="tab"
                                    id=format!("filter-{}", label.to_lowercase())
                                    aria-selected=move || (filter.get().mode == mode).to_string()
                                    on:click=move |_| filter.update(|f| f.mode = mode)
                                >
                                    {label}
                                    {move || {
                                        let waiting = counts.get().for_mode(mode);
                                        (waiting > 0).then(|| view! { <span class="count">{waiting}</span> })
                                    }}
                                </button>
                            }
                        })
                        .collect_view()}
                </div>
                <select
                    id="filter-status"
                    aria-label="Status"
                    on:change=move |event| {
                        let status = DeliveryStatus::parse(&event_target_value(&event));
                        filter.update(|f| f.status = status);
                    }
                >
                    <option value="">"Any status"</option>
                    {DeliveryStatus::ALL
                        .into_iter()
                        .map(|status| {
                            view! { <option value=status.as_str()>{status.as_str().replace('_', " ")}</option> }
                        })
                        .collect_view()}
                </select>
            </div>
        </header>
    }
}

/// The list's scrolling: the scroller, where it is and how high its view
/// is (in CSS pixels), kept in the view's place so a return finds it.
#[derive(Clone, Copy)]
struct Scroll {
    scroller: NodeRef<leptos::html::Div>,
    viewport: RwSignal<(f64, f64)>,
    place: RwSignal<ListPlace>,
}

impl Scroll {
    /// Until the list is laid out, the window's height stands in for its
    /// own.
    fn new(place: RwSignal<ListPlace>) -> Self {
        let window_height = window()
            .inner_height()
            .ok()
            .and_then(|height| height.as_f64())
            .unwrap_or(0.0);
        Self {
            scroller: NodeRef::new(),
            viewport: RwSignal::new((f64::from(place.get_untracked().scroll_top), window_height)),
            place,
        }
    }

    /// Back from a delivery: the list where it was, the opened row
    /// focused, once the list is in the page.
    fn restore(self, opened: RwSignal<Option<String>>) {
        Effect::new(move |_| {
            if let Some(element) = self.scroller.get() {
                element.set_scroll_top(self.place.get_untracked().scroll_top);
                self.measure();
                if let Some(id) = opened.get_untracked() {
                    request_animation_frame(move || focus_row(self.scroller, &id));
                }
            }
        });
    }

    /// Reads where the list is scrolled and how high its view is.
    fn measure(self) {
        if let Some(element) = self.scroller.get_untracked() {
            self.place.set(ListPlace {
                scroll_top: element.scroll_top(),
            });
            self.viewport.set((
                f64::from(element.scroll_top()),
                f64::from(element.client_height()),
            ));
        }
    }

    /// Scrolls row `index` wholly into view (so it is drawn).
    fn show_row(self, index: usize) {
        if let Some(element) = self.scroller.get_untracked() {
            let (top, height) = (
                f64::from(element.scroll_top()),
                f64::from(element.client_height()),
            );
            if let Some(top) = scroll_to_show(index, ROW_PX, top, height) {
                element.set_scroll_top(top as i32);
            }
            self.measure();
        }
    }

    /// How many rows a page moves.
    fn page(self) -> isize {
        self.viewport
            .with_untracked(|(_, height)| page_rows(*height, ROW_PX))
    }
}

/// The list's lines: each shown delivery, with decided permission requests
/// folded under their agent, and which folds are open.
#[derive(Clone, Copy)]
struct Lines {
    loaded: RwSignal<Loaded>,
    lines: Memo<Vec<ListRow>>,
    expanded: RwSignal<BTreeSet<String>>,
}

impl Lines {
    fn new(loaded: RwSignal<Loaded>, shown: Memo<Vec<usize>>) -> Self {
        let expanded = RwSignal::new(BTreeSet::<String>::new());
        let lines = Memo::new(move |_| {
            let expanded = expanded.get();
            loaded.with(|loaded| {
                shown.with(|shown| fold_decided(deliveries_of(loaded), shown, &expanded))
            })
        });
        Self {
            loaded,
            lines,
            expanded,
        }
    }

    /// How many lines there are.
    fn total(self) -> usize {
        self.lines.with(Vec::len)
    }

    /// The id `line` is found by in the page.
    fn id_of(self, line: &ListRow) -> Option<String> {
        match line {
            ListRow::Delivery(index) => self.loaded.with_untracked(|loaded| {
                deliveries_of(loaded)
                    .get(*index)
                    .map(|delivery| delivery.id.clone())
            }),
            ListRow::Folded(fold) => Some(fold_id(&fold.key)),
        }
    }

    /// The id of the line at `at`.
    fn id_at(self, at: usize) -> Option<String> {
        self.lines
            .with_untracked(|lines| lines.get(at).and_then(|line| self.id_of(line)))
    }

    /// Where the line of `id` is.
    fn position(self, id: &str) -> Option<usize> {
        self.lines.with_untracked(|lines| {
            lines
                .iter()
                .position(|line| self.id_of(line).as_deref() == Some(id))
        })
    }

    /// The lines in `range`, to draw.
    fn drawn(self, range: std::ops::Range<usize>) -> Vec<Line> {
        self.loaded.with(|loaded| {
            let deliveries = deliveries_of(loaded);
            self.lines.with(|lines| {
                lines
                    .get(range)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|line| match line {
                        ListRow::Delivery(index) => {
                            deliveries.get(*index).cloned().map(Line::Delivery)
                        }
                        ListRow::Folded(fold) => Some(Line::Folded(
                            fold.clone(),
                            self.expanded.with(|expanded| expanded.contains(&fold.key)),
                        )),
                    })
                    .collect()
            })
        })
    }

    /// Opens the fold `key`, or closes it.
    fn toggle(self, key: &str) {
        self.expanded.update(|expanded| {
            if !expanded.remove(key) {
                expanded.insert(key.to_owned());
            }
        });
    }
}

/// The rows, drawn only around the part of the list in view: the list
/// scrolls on its own and keeps the height of all its rows, and only the
/// rows [`drawn_rows`] names are in the page. Arrow keys, Page Up/Down,
/// Home and End move between rows, drawing the ones they reach.
#[component]
fn Rows(
    loaded: RwSignal<Loaded>,
    shown: Memo<Vec<usize>>,
    selected: RwSignal<Option<String>>,
    now: RwSignal<Timestamp>,
    place: RwSignal<ListPlace>,
    opened: RwSignal<Option<String>>,
) -> impl IntoView {
    let scroll = Scroll::new(place);
    let scroller = scroll.scroller;
    scroll.restore(opened);
    let resize = window_event_listener(ev::resize, move |_| scroll.measure());
    on_cleanup(move || resize.remove());
    // Decided permission requests fold under their agent; a folded line
    // opens (and closes) in place.
    let lines = Lines::new(loaded, shown);
    let total = move || lines.total();
    let range = Memo::new(move |_| {
        let (top, height) = scroll.viewport.get();
        drawn_rows(top, height, ROW_PX, total())
    });
    let on_key = move |event: leptos::ev::KeyboardEvent, from: &str| {
        let Some(by) = rows_moved(&event.key(), scroll.page()) else {
            return;
        };
        event.prevent_default();
        let Some(to) = lines.position(from).map(|at| moved_to(at, by, total())) else {
            return;
        };
        if let Some(id) = lines.id_at(to) {
            scroll.show_row(to);
            request_animation_frame(move || focus_row(scroller, &id));
        }
    };
    let toggle = move |key: String| {
        lines.toggle(&key);
        let id = fold_id(&key);
        request_animation_frame(move || focus_row(scroller, &id));
    };
    view! {
        <div class="delivery-scroller" node_ref=scroller on:scroll=move |_| scroll.measure()>
            <ul
                class="delivery-list"
                id="inbox-list"
                data-rows=move || total().to_string()
                style=move || {
                    let range = range.get();
                    format!(
                        "--row-height: {ROW_PX}px; height: {}px; padding-top: {}px",
                        total() as f64 * ROW_PX,
                        range.start as f64 * ROW_PX,
                    )
                }
            >
                <For
                    each=move || lines.drawn(range.get())
                    key=|line| match line {
                        Line::Delivery(delivery) => (delivery.id.clone(), shown_status(delivery), delivery.title.clone()),
                        Line::Folded(fold, open) => (fold_id(&fold.key), fold.label(), open.to_string()),
                    }
                    let(line)
                >
                    {match line {
                        Line::Delivery(delivery) => view! { <DeliveryRow delivery now selected opened on_key /> }.into_any(),
                        Line::Folded(fold, open) => view! { <FoldRow fold open on_toggle=toggle on_key /> }.into_any(),
                    }}
                </For>
            </ul>
        </div>
    }
}

/// Focuses the drawn row of delivery `id`, if it is drawn.
fn focus_row(scroller: NodeRef<leptos::html::Div>, id: &str) {
    let Some(element) = scroller.get_untracked() else {
        return;
    };
    let selector = format!(".delivery[data-id='{id}']");
    if let Ok(Some(row)) = element.query_selector(&selector)
        && let Ok(row) = row.dyn_into::<web_sys::HtmlElement>()
    {
        let _ = row.focus();
    }
}

/// A line drawn in the list.
#[derive(Clone)]
enum Line {
    Delivery(Delivery),
    /// A folded line, and whether it is open.
    Folded(Fold, bool),
}

/// The id a folded line is found by in the page.
fn fold_id(key: &str) -> String {
    format!("fold:{key}")
}

/// An agent's decided permission requests as one line; Enter or a click
/// opens them below it (and closes them again).
#[component]
fn FoldRow(
    fold: Fold,
    open: bool,
    on_toggle: impl Fn(String) + Copy + 'static,
    on_key: impl Fn(leptos::ev::KeyboardEvent, &str) + Copy + 'static,
) -> impl IntoView {
    let id = fold_id(&fold.key);
    let key = fold.key.clone();
    let click_key = key.clone();
    let key_id = id.clone();
    view! {
        <li
            class="delivery fold"
            data-id=id
            tabindex="0"
            role="button"
            aria-expanded=open.to_string()
            title="Decided permission requests (Enter shows or hides them)"
            on:click=move |_| on_toggle(click_key.clone())
            on:keydown=move |event| {
                if event.key() == "Enter" {
                    on_toggle(key.clone());
                } else {
                    on_key(event, &key_id);
                }
            }
        >
            <span class="title">{if open { "▾ " } else { "▸ " }}{fold.label()}</span>
            <span class="badge status-decided">"decided"</span>
        </li>
    }
}

/// One line of the inbox; Enter or a click opens it.
#[component]
fn DeliveryRow(
    delivery: Delivery,
    now: RwSignal<Timestamp>,
    selected: RwSignal<Option<String>>,
    opened: RwSignal<Option<String>>,
    on_key: impl Fn(leptos::ev::KeyboardEvent, &str) + Copy + 'static,
) -> impl IntoView {
    let created = delivery.created_at;
    let shown = shown_status(&delivery);
    let id = delivery.id.clone();
    let open = move |id: &str| {
        opened.set(Some(id.to_owned()));
        selected.set(Some(id.to_owned()));
    };
    let click_id = id.clone();
    view! {
        <li
            class="delivery"
            data-id=id.clone()
            tabindex="0"
            role="button"
            on:click=move |_| open(&click_id)
            on:keydown=move |event| {
                if event.key() == "Enter" {
                    open(&id);
                } else {
                    on_key(event, &id);
                }
            }
        >
            <span class="title">{delivery.title.clone()}</span>
            {delivery.sent_by().map(|agent| view! { <span class="badge sent-by" title="Sent over HTTP with this agent's token">{format!("from {agent}")}</span> })}
            <span class=format!("badge mode-{}", delivery.mode.as_str())>{delivery.mode.as_str()}</span>
            <span class=format!("badge status-{shown}")>
                {shown.replace('_', " ")}
            </span>
            <time class="age" datetime=created.to_string()>{move || age_label(created, now.get())}</time>
        </li>
    }
}
