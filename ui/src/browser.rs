//! The page as a paired browser has it (`switchboard serve`): its
//! connection to the server and what the developer lets it do, followed
//! for the page's life and shared through the context, so views offer only
//! what this browser may do and say up front what it may not. In the
//! window there is none of it: everything is offered.

use leptos::prelude::*;
use switchboard_model::browser::{Connection, Grants};

use crate::{events, ipc};

/// A browser's page's state (from the context; none in the window).
#[derive(Clone, Copy)]
pub struct BrowserState {
    /// How the page reaches its server now.
    pub connection: RwSignal<Connection>,
    /// What the developer lets paired browsers do, as last read (none
    /// before the first answer).
    pub grants: RwSignal<Option<Grants>>,
}

impl BrowserState {
    /// Follows the connection and the grants for the page's life, in a
    /// browser; `None` in the window.
    pub fn follow() -> Option<Self> {
        if !ipc::in_browser() {
            return None;
        }
        let state = Self {
            connection: RwSignal::new(Connection::Connecting),
            grants: RwSignal::new(None),
        };
        state.read_grants();
        events::on_connection(move |connection| {
            let back = connection == Connection::Connected
                && state.connection.get_untracked() != Connection::Connected;
            state.connection.set(connection);
            if back {
                // Settings may have changed while it was away.
                state.read_grants();
            }
        });
        Some(state)
    }

    /// Reads the grants again.
    pub fn read_grants(self) {
        leptos::task::spawn_local(async move {
            match ipc::browser_info().await {
                Ok(info) => self.grants.set(Some(info.grants)),
                Err(error) => leptos::logging::warn!("browser_info: {}", error.message),
            }
        });
    }
}

/// The browser's state, if the page is a browser's.
pub fn state() -> Option<BrowserState> {
    use_context::<BrowserState>()
}

/// Why starting agents is not offered here, as a signal: `None` in the
/// window, or while the grants allow it (or are not read yet, when nothing
/// is offered either: see [`may_start`]).
pub fn why_not_start() -> Option<String> {
    let state = state()?;
    state
        .grants
        .get()
        .map_or_else(|| Some(String::new()), |grants| grants.why_not_start())
}

/// Whether starting agents is offered here, as a signal.
pub fn may_start() -> bool {
    why_not_start().is_none()
}

/// Why taking program sessions over is not offered here, as a signal
/// (see [`why_not_start`]).
pub fn why_not_take_over() -> Option<String> {
    let state = state()?;
    state
        .grants
        .get()
        .map_or_else(|| Some(String::new()), |grants| grants.why_not_take_over())
}

/// Whether the page is on a device without a keyboard to speak of (a
/// phone): keyboard hints are not shown there.
pub fn touch_only() -> bool {
    web_sys::window()
        .and_then(|window| {
            window
                .match_media("(hover: none) and (pointer: coarse)")
                .ok()
        })
        .flatten()
        .is_some_and(|query| query.matches())
}
