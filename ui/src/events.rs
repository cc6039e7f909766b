//! The shell's events, fanned out to the views that are open.
//!
//! The page listens to each Tauri event exactly once ([`listen_to_shell`]).
//! A view subscribes with [`on_store_change`], [`on_sidecar`],
//! [`on_sidecar_health`], [`on_sessions`], [`on_everywhere`] or
//! [`on_connection`] (a browser's page) while it is built: the subscription ends when the
//! view's reactive owner is cleaned up (the view is left), and the handler
//! runs under that owner, so work it spawns with
//! `spawn_local_scoped_with_cancellation` ends with the view too. A view
//! that was left is never called, however many times it was visited.
//!
//! For tests and diagnosis the root element carries `data-subscribers-*`
//! (live subscriptions), `data-dispatched-*` (events received so far) and
//! `data-handled-*` (handler calls so far).

use std::{cell::RefCell, rc::Rc, thread::LocalKey};

use leptos::prelude::{Owner, on_cleanup};
use serde::de::DeserializeOwned;
use switchboard_model::{
    browser::{Connection, EVENT_CONNECTION},
    ipc::{
        ChatEvent, EVENT_EVERYWHERE, EVENT_SESSIONS, EVENT_SIDECAR, EVENT_SIDECAR_HEALTH,
        EVENT_STORE_CHANGED, SidecarHealth, StoreChange,
    },
    program::ProgramSession,
};

use crate::ipc;

/// One subscriber: its id, the owner it runs under, its handler.
type Subscriber<T> = (u64, Option<Owner>, Rc<dyn Fn(T)>);

/// The subscribers of one event.
struct Subscribers<T> {
    /// The diagnostic attributes' suffix.
    name: &'static str,
    next: u64,
    list: Vec<Subscriber<T>>,
    dispatched: u64,
    handled: u64,
}

impl<T> Subscribers<T> {
    const fn new(name: &'static str) -> Self {
        Self {
            name,
            next: 0,
            list: Vec::new(),
            dispatched: 0,
            handled: 0,
        }
    }

    fn publish(&self) {
        set_root_data(&format!("subscribers-{}", self.name), self.list.len());
        set_root_data(&format!("dispatched-{}", self.name), self.dispatched);
        set_root_data(&format!("handled-{}", self.name), self.handled);
    }
}

thread_local! {
    static STORE: RefCell<Subscribers<StoreChange>> = const { RefCell::new(Subscribers::new("store")) };
    static SIDECAR: RefCell<Subscribers<ChatEvent>> = const { RefCell::new(Subscribers::new("sidecar")) };
    static HEALTH: RefCell<Subscribers<SidecarHealth>> = const { RefCell::new(Subscribers::new("health")) };
    static SESSIONS: RefCell<Subscribers<Vec<ProgramSession>>> = const { RefCell::new(Subscribers::new("sessions")) };
    static EVERYWHERE: RefCell<Subscribers<()>> = const { RefCell::new(Subscribers::new("everywhere")) };
    static CONNECTION: RefCell<Subscribers<Connection>> = const { RefCell::new(Subscribers::new("connection")) };
    /// Waiting for the store's changes to be followed.
    static FOLLOWING: RefCell<Subscribers<()>> = const { RefCell::new(Subscribers::new("following")) };
    /// Whether they are.
    static STORE_FOLLOWED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

type Bus<T> = LocalKey<RefCell<Subscribers<T>>>;

fn set_root_data(name: &str, value: impl ToString) {
    if let Some(root) = leptos::prelude::document().document_element() {
        let _ = root.set_attribute(&format!("data-{name}"), &value.to_string());
    }
}

/// Calls `handler` with every payload of `bus` until the current owner (the
/// view being built) is cleaned up; outside any owner, for the page's life.
fn subscribe<T: 'static>(bus: &'static Bus<T>, handler: impl Fn(T) + 'static) {
    let owner = Owner::current();
    let id = bus.with_borrow_mut(|subscribers| {
        subscribers.next += 1;
        let id = subscribers.next;
        subscribers.list.push((id, owner.clone(), Rc::new(handler)));
        subscribers.publish();
        id
    });
    if owner.is_some() {
        on_cleanup(move || {
            bus.with_borrow_mut(|subscribers| {
                subscribers.list.retain(|(each, _, _)| *each != id);
                subscribers.publish();
            })
        });
    }
}

/// Hands `payload` to every subscriber of `bus`, each under its owner.
fn dispatch<T: Clone + 'static>(bus: &'static Bus<T>, payload: T) {
    let current: Vec<Subscriber<T>> = bus.with_borrow_mut(|subscribers| {
        subscribers.dispatched += 1;
        subscribers.publish();
        subscribers.list.clone()
    });
    for (id, owner, handler) in current {
        // A handler may close another view; one unsubscribed meanwhile is
        // not called.
        let live = bus.with_borrow(|subscribers| subscribers.list.iter().any(|s| s.0 == id));
        if !live {
            continue;
        }
        bus.with_borrow_mut(|subscribers| {
            subscribers.handled += 1;
            subscribers.publish();
        });
        match owner {
            Some(owner) => owner.with(|| handler(payload.clone())),
            None => handler(payload.clone()),
        }
    }
}

/// Calls `handler` with every store change while the current view lives.
pub fn on_store_change(handler: impl Fn(StoreChange) + 'static) {
    subscribe(&STORE, handler);
}

/// Calls `handler` with every chat event while the current view lives.
pub fn on_sidecar(handler: impl Fn(ChatEvent) + 'static) {
    subscribe(&SIDECAR, handler);
}

/// Calls `handler` whenever the sidecar starts or stops, while the current
/// view lives.
pub fn on_sidecar_health(handler: impl Fn(SidecarHealth) + 'static) {
    subscribe(&HEALTH, handler);
}

/// Calls `handler` with the workspace's program sessions after each
/// change, while the current view lives (and follows them).
pub fn on_sessions(handler: impl Fn(Vec<ProgramSession>) + 'static) {
    subscribe(&SESSIONS, handler);
}

/// Calls `handler` whenever what waits in another running workspace may
/// have changed, while the current view lives.
pub fn on_everywhere(handler: impl Fn() + 'static) {
    subscribe(&EVERYWHERE, move |()| handler());
}

/// Calls `handler` with each change of a browser's connection to its
/// server (a browser's page only), while the current view lives.
pub fn on_connection(handler: impl Fn(Connection) + 'static) {
    subscribe(&CONNECTION, handler);
}

/// Calls `handler` once the store's changes are followed (now, if they
/// are): a view that read the store before then reads it again. Not called
/// if the current view is left first.
pub fn once_following_store(handler: impl Fn() + 'static) {
    if STORE_FOLLOWED.get() {
        handler();
    } else {
        subscribe(&FOLLOWING, move |()| handler());
    }
}

/// Listens to `event` for the page's life, fanning it out through `bus`.
async fn forward<T: DeserializeOwned + Clone + 'static>(
    event: &'static str,
    bus: &'static Bus<T>,
) -> Result<(), String> {
    ipc::listen(event, move |payload: T| dispatch(bus, payload))
        .await
        .map_err(|error| format!("{event}: {}", error.message))
}

/// Starts listening to the shell's events, once for the page; the error
/// says which could not be listened to (live updates are off then).
pub async fn listen_to_shell() -> Result<(), String> {
    forward(EVENT_STORE_CHANGED, &STORE).await?;
    STORE_FOLLOWED.set(true);
    dispatch(&FOLLOWING, ());
    forward(EVENT_SIDECAR, &SIDECAR).await?;
    forward(EVENT_SIDECAR_HEALTH, &HEALTH).await?;
    forward(EVENT_SESSIONS, &SESSIONS).await?;
    forward(EVENT_EVERYWHERE, &EVERYWHERE).await?;
    if ipc::in_browser() {
        forward(EVENT_CONNECTION, &CONNECTION).await?;
    }
    Ok(())
}
