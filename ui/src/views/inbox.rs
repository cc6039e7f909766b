//! The Inbox: deliveries from agents, newest first, updated live.

use leptos::{prelude::*, task::spawn_local};
use switchboard_model::{Delivery, Timestamp, age_label, ipc::StoreChange};

use crate::ipc;

/// What the inbox shows: not loaded yet, an error, or the list.
#[derive(Debug, Clone, PartialEq)]
enum Loaded {
    Loading,
    Failed(String),
    Ready {
        deliveries: Vec<Delivery>,
        warnings: Vec<String>,
    },
}

fn browser_now() -> Timestamp {
    Timestamp::from_unix_millis(js_sys::Date::now() as i64).unwrap_or(Timestamp::EPOCH)
}

/// The inbox list.
#[component]
pub fn Inbox() -> impl IntoView {
    let (loaded, set_loaded) = signal(Loaded::Loading);
    // Ticks every 30 s so age labels stay true while the window is open.
    let (now, set_now) = signal(browser_now());
    let refresh = move || {
        spawn_local(async move {
            let next = match ipc::list_deliveries().await {
                Ok(list) => Loaded::Ready {
                    deliveries: list.deliveries,
                    warnings: list.warnings,
                },
                Err(error) => Loaded::Failed(error.message),
            };
            set_now.set(browser_now());
            let first = loaded.get_untracked() == Loaded::Loading;
            set_loaded.set(next);
            if first {
                request_animation_frame(|| {
                    spawn_local(async {
                        let _ = ipc::ui_ready().await;
                    })
                });
            }
        })
    };
    refresh();
    spawn_local(async move {
        let subscribed = ipc::on_store_change(move |change| {
            if change == StoreChange::Deliveries {
                refresh();
            }
        })
        .await;
        if let Err(error) = subscribed {
            set_loaded.set(Loaded::Failed(format!(
                "live updates are off: {}",
                error.message
            )));
        }
    });
    let ticker = set_interval_with_handle(
        move || set_now.set(browser_now()),
        std::time::Duration::from_secs(30),
    );
    on_cleanup(move || {
        if let Ok(handle) = ticker {
            handle.clear();
        }
    });

    view! {
        <section class="inbox" id="view-inbox">
            <header class="view-header">
                <h1>"Inbox"</h1>
            </header>
            {move || match loaded.get() {
                Loaded::Loading => view! { <p class="muted">"Loading…"</p> }.into_any(),
                Loaded::Failed(message) => {
                    view! { <p class="error" role="alert">{message}</p> }.into_any()
                }
                Loaded::Ready { deliveries, warnings } => {
                    view! {
                        {warnings
                            .into_iter()
                            .map(|warning| view! { <p class="warning" role="status">{warning}</p> })
                            .collect_view()}
                        {if deliveries.is_empty() {
                            view! {
                                <div class="empty" id="inbox-empty">
                                    <h2>"No deliveries yet"</h2>
                                    <p>"Agents publish here with "<code>"switchboard deliver --title T --content B"</code>"."</p>
                                </div>
                            }
                                .into_any()
                        } else {
                            view! {
                                <ul class="delivery-list" id="inbox-list">
                                    {deliveries
                                        .into_iter()
                                        .map(|delivery| view! { <DeliveryRow delivery now /> })
                                        .collect_view()}
                                </ul>
                            }
                                .into_any()
                        }}
                    }
                        .into_any()
                }
            }}
        </section>
    }
}

/// One line of the inbox.
#[component]
fn DeliveryRow(delivery: Delivery, now: ReadSignal<Timestamp>) -> impl IntoView {
    let created = delivery.created_at;
    view! {
        <li class="delivery" data-id=delivery.id.clone() tabindex="0">
            <span class="title">{delivery.title}</span>
            <span class=format!("badge mode-{}", delivery.mode.as_str())>{delivery.mode.as_str()}</span>
            <span class=format!("badge status-{}", delivery.status.as_str())>
                {delivery.status.as_str().replace('_', " ")}
            </span>
            <time class="age" datetime=created.to_string()>{move || age_label(created, now.get())}</time>
        </li>
    }
}
