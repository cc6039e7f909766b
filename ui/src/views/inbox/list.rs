//! The inbox list: mode tabs with waiting counts, a status filter, the rows,
//! and the pinned bar of blocking questions.

use leptos::prelude::*;
use switchboard_model::{
    Delivery, DeliveryMode, DeliveryStatus, Timestamp, age_label,
    inbox::{InboxFilter, PendingCounts, waiting_blocking},
};

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

/// The filter bar and the rows.
#[component]
pub fn DeliveryList(
    loaded: RwSignal<Loaded>,
    selected: RwSignal<Option<String>>,
    now: RwSignal<Timestamp>,
) -> impl IntoView {
    let filter = RwSignal::new(InboxFilter::default());
    let counts = Memo::new(move |_| loaded.with(|loaded| PendingCounts::of(deliveries_of(loaded))));

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
        {move || match loaded.get() {
            Loaded::Loading => view! { <p class="muted">"Loading…"</p> }.into_any(),
            Loaded::Failed(message) => view! { <p class="error" role="alert">{message}</p> }.into_any(),
            Loaded::Ready { deliveries, warnings } => {
                let shown: Vec<Delivery> = deliveries.iter().filter(|d| filter.get().matches(d)).cloned().collect();
                view! {
                    {warnings
                        .into_iter()
                        .map(|warning| view! { <p class="warning" role="status">{warning}</p> })
                        .collect_view()}
                    {if deliveries.is_empty() {
                        view! {
                            <div class="empty" id="inbox-empty">
                                <h2>"No deliveries yet"</h2>
                                <p>
                                    "Agents publish here with "
                                    <code>"switchboard deliver --title T --content B"</code>"."
                                </p>
                            </div>
                        }
                            .into_any()
                    } else if shown.is_empty() {
                        view! { <p class="muted" id="inbox-filtered-empty">"Nothing matches this filter."</p> }.into_any()
                    } else {
                        view! {
                            <ul class="delivery-list" id="inbox-list">
                                {shown
                                    .into_iter()
                                    .map(|delivery| view! { <DeliveryRow delivery now selected /> })
                                    .collect_view()}
                            </ul>
                        }
                            .into_any()
                    }}
                }
                    .into_any()
            }
        }}
    }
}

/// One line of the inbox; Enter or a click opens it.
#[component]
fn DeliveryRow(
    delivery: Delivery,
    now: RwSignal<Timestamp>,
    selected: RwSignal<Option<String>>,
) -> impl IntoView {
    let created = delivery.created_at;
    let shown = delivery.shown_status();
    let open_id = delivery.id.clone();
    let key_id = delivery.id.clone();
    view! {
        <li
            class="delivery"
            data-id=delivery.id.clone()
            tabindex="0"
            role="button"
            on:click=move |_| selected.set(Some(open_id.clone()))
            on:keydown=move |event| {
                if event.key() == "Enter" {
                    selected.set(Some(key_id.clone()));
                }
            }
        >
            <span class="title">{delivery.title}</span>
            <span class=format!("badge mode-{}", delivery.mode.as_str())>{delivery.mode.as_str()}</span>
            <span class=format!("badge status-{shown}")>
                {shown.replace('_', " ")}
            </span>
            <time class="age" datetime=created.to_string()>{move || age_label(created, now.get())}</time>
        </li>
    }
}
