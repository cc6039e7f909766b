//! "This browser": a paired browser's own page in place of the window's
//! Settings — how it reaches Switchboard now, what the developer lets it
//! do and what it may not (with where that is allowed), and how pairing
//! ends. Nothing here is a form: settings are the window's.

use leptos::prelude::*;
use switchboard_model::browser::{Grants, REACHES_EVERY_WORKSPACE};

use crate::browser;

/// The page.
#[component]
pub fn ThisBrowser() -> impl IntoView {
    let state = browser::state();
    // Settings may have changed in the window since the page read them.
    if let Some(state) = state {
        state.read_grants();
    }
    let grants = move || state.and_then(|state| state.grants.get());
    view! {
        <section class="this-browser" id="view-this-browser">
            <header class="view-header"><h1>"This browser"</h1></header>
            <p id="this-browser-connection">
                "Connection: "
                <strong>{move || state.map(|state| state.connection.get().label()).unwrap_or_default()}</strong>
            </p>
            {move || match grants() {
                None => view! { <p class="muted">"Reading what this browser may do…"</p> }.into_any(),
                Some(grants) => view! { <Allowed grants /> }.into_any(),
            }}
            <h2>"Pairing"</h2>
            <p class="muted" id="this-browser-scope">{REACHES_EVERY_WORKSPACE}</p>
        </section>
    }
}

/// What `grants` let this browser do, and what they do not.
#[component]
fn Allowed(grants: Grants) -> impl IntoView {
    view! {
        <h2>"It may"</h2>
        <ul id="this-browser-allowed">
            {grants.allowed().into_iter().map(|said| view! { <li>{said}</li> }).collect_view()}
        </ul>
        <h2>"It may not"</h2>
        <ul id="this-browser-withheld">
            {grants.withheld().into_iter().map(|said| view! { <li>{said}</li> }).collect_view()}
        </ul>
    }
}
