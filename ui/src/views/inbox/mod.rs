//! The Inbox: deliveries from agents, newest first, updated live; a pinned
//! bar for blocking questions; and the delivery view with its feedback form.

mod annotate;
mod detail;
pub use detail::DeliveryView;
pub mod form;
mod list;
mod permission;

use leptos::prelude::*;
use switchboard_model::{
    Delivery, ErrorPayload, Timestamp,
    ipc::{DeliveryList, StartPhase, StoreChange},
};

use crate::{events, ipc, tasks};

/// What the inbox list holds: not loaded yet, an error, or the list.
#[derive(Debug, Clone, PartialEq)]
pub enum Loaded {
    /// The first read is under way.
    Loading,
    /// Reading failed; the message says why.
    Failed(String),
    /// The deliveries, newest first, and warnings about unreadable data.
    Ready {
        /// Newest first.
        deliveries: Vec<Delivery>,
        /// Problems met while reading.
        warnings: Vec<String>,
    },
}

/// The browser's clock as a model timestamp.
pub fn browser_now() -> Timestamp {
    Timestamp::from_unix_millis(js_sys::Date::now() as i64).unwrap_or(Timestamp::EPOCH)
}

/// The inbox view: the list, or one delivery when one is open.
#[component]
pub fn Inbox() -> impl IntoView {
    let loaded = RwSignal::new(Loaded::Loading);
    let selected = RwSignal::new(None::<String>);
    // Bumped on every change on disk so an open delivery re-reads itself.
    let revision = RwSignal::new(0_u64);
    // Ticks every 30 s so age labels stay true while the window is open.
    let now = RwSignal::new(browser_now());
    // The list's scroll position and the row last opened, kept while a
    // delivery is open.
    let place = RwSignal::new(list::ListPlace::default());
    let opened = RwSignal::new(None::<String>);

    let show = move |answer| show_list(loaded, now, answer);
    let refresh = move || tasks::fetch(async move { show(ipc::list_deliveries().await) });
    // The window's first inbox is the one the page read while the wasm
    // loaded, shown as the view mounts if it had come; a change on disk
    // before the store's events were followed is caught by one more read
    // once they are (after that first answer: never an older list last).
    match ipc::EarlyInbox::take() {
        Some(ipc::EarlyInbox::Answered(answer)) => {
            show(answer);
            events::once_following_store(refresh);
        }
        Some(early) => tasks::fetch(async move {
            show(early.answer().await);
            events::once_following_store(refresh);
        }),
        None => refresh(),
    }
    events::on_store_change(move |change| {
        if change == StoreChange::Deliveries {
            refresh();
        }
        revision.update(|revision| *revision += 1);
    });
    open_when_asked(selected);
    let navigation = use_context::<crate::app::Navigation>();
    let show_agents = Callback::new(move |()| {
        if let Some(navigation) = navigation {
            navigation.show_agents();
        }
    });
    let ticker = set_interval_with_handle(
        move || now.set(browser_now()),
        std::time::Duration::from_secs(30),
    );
    on_cleanup(move || {
        if let Ok(handle) = ticker {
            handle.clear();
        }
    });

    view! {
        <section class="inbox" class:listing=move || selected.with(Option::is_none) id="view-inbox">
            <list::AlertBar loaded selected />
            <crate::views::everywhere::ElsewhereBar />
            <crate::views::agents::WaitingStrip on_show=show_agents />
            {move || match selected.get() {
                Some(id) => view! { <detail::DeliveryView id selected revision now /> }.into_any(),
                None => view! { <list::DeliveryList loaded selected now place opened /> }.into_any(),
            }}
        </section>
    }
}

/// Shows `answer` as the inbox, its ages from now; the first one tells the
/// shell the window has its first data, and once painted that it is ready.
fn show_list(
    loaded: RwSignal<Loaded>,
    now: RwSignal<Timestamp>,
    answer: Result<DeliveryList, ErrorPayload>,
) {
    let next = match answer {
        Ok(list) => Loaded::Ready {
            deliveries: list.deliveries,
            warnings: list.warnings,
        },
        Err(error) => Loaded::Failed(error.message),
    };
    now.set(browser_now());
    let first = loaded.get_untracked() == Loaded::Loading;
    loaded.set(next);
    if first {
        let reached = ipc::ui_phase(StartPhase::FirstData);
        tasks::act(async move {
            let _ = reached.await;
        });
        request_animation_frame(|| {
            tasks::act(async {
                let _ = ipc::ui_ready().await;
            })
        });
    }
}

/// Opens the delivery another view asks for (the Agents view's Enter).
fn open_when_asked(selected: RwSignal<Option<String>>) {
    if let Some(navigation) = use_context::<crate::app::Navigation>() {
        Effect::new(move |_| {
            if let Some(id) = navigation.open_delivery.get() {
                navigation.open_delivery.set(None);
                selected.set(Some(id));
            }
        });
    }
}
