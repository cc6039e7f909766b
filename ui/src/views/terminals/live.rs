//! A running session's screen and its controls: who has it, take-over and
//! the end, the password box, keys typed straight into the screen, and a
//! line to send.

use leptos::{ev::KeyboardEvent, prelude::*};
use switchboard_model::program::{
    Controller, ProgramSession, SessionState,
    key::{Pressed, Typed},
    view::Typing,
};

use super::TerminalsState;
use crate::{ipc, tasks, views::terminal::Rows};

/// What a key pressed on the screen types: a key name the shell takes, or
/// text (`model::program::key::Pressed`); `None` for keys left to the page.
fn pressed(event: &KeyboardEvent) -> Option<Typing> {
    let key = event.key();
    let pressed = Pressed {
        key: &key,
        ctrl: event.ctrl_key(),
        alt_or_meta: event.alt_key() || event.meta_key(),
    };
    Some(match pressed.typed()? {
        Typed::Key(named) => Typing::key(named.name()),
        Typed::Text(text) => Typing::text(text),
    })
}

/// A running session's screen, with its controls: the session as the list
/// has it (who holds it and whether it waits for a secret change without
/// output), its rows as its reader last drew them.
#[component]
pub(super) fn LiveScreen(state: TerminalsState) -> impl IntoView {
    // What is being typed outlives each redraw the output brings.
    let line = RwSignal::new(String::new());
    let secret = RwSignal::new(false);
    let password = RwSignal::new(String::new());
    move || {
        // Its header follows the started agent's state too.
        state.launches.track();
        let selected = state.selected.get();
        let Some(screen) = state
            .screen
            .get()
            .filter(|screen| Some(&screen.session.id) == selected.as_ref())
        else {
            return view! { <p class="muted">"Connecting…"</p> }.into_any();
        };
        let session = state
            .sessions
            .with(|sessions| {
                sessions
                    .iter()
                    .find(|session| session.id == screen.session.id)
                    .cloned()
            })
            .unwrap_or_else(|| screen.session.clone());
        let running = session.state == SessionState::Running;
        let yours = session.controller == Controller::User;
        let wants_secret = running && session.wants_secret;
        let id = session.id.clone();
        let cols = session.cols;
        view! {
            <ScreenHead state session />
            {wants_secret.then(|| view! { <SecretBox state id=id.clone() password /> })}
            <KeyedScreen state id=id.clone() yours cols rows=screen.rows.clone() />
            {(running && yours).then(|| view! { <LineInput state id=id.clone() line secret /> })}
        }
        .into_any()
    }
}

/// The session's name, command and state, and Take over / Hand back and
/// End while it runs.
#[component]
fn ScreenHead(state: TerminalsState, session: ProgramSession) -> impl IntoView {
    let running = session.state == SessionState::Running;
    let yours = session.controller == Controller::User;
    let act = move |id: String, end: bool| {
        tasks::act(async move {
            let done = if end {
                ipc::session_end(&id).await
            } else {
                ipc::session_control(&id, !yours).await
            };
            if let Err(failure) = done {
                state.error.set(Some(failure.message));
            }
        });
    };
    let (take_id, end_id) = (session.id.clone(), session.id.clone());
    let said = format!(
        "{}{}{}",
        session.state.as_str(),
        session
            .exit
            .map(|exit| format!(" ({exit})"))
            .unwrap_or_default(),
        if yours {
            " · you have it"
        } else {
            " · agents drive it"
        },
    );
    view! {
        <super::head::Head state session said>
            <span class="spacer"></span>
            {running.then(|| match crate::browser::why_not_take_over() {
                None => view! {
                    <button id="terminal-take" on:click=move |_| act(take_id.clone(), false)>
                        {if yours { "Hand back" } else { "Take over" }}
                    </button>
                    <button id="terminal-end" class="danger" on:click=move |_| act(end_id.clone(), true)>"End"</button>
                }.into_any(),
                Some(why) => view! { <span class="muted" id="terminal-take-off">{why}</span> }.into_any(),
            })}
        </super::head::Head>
    }
}

/// The password box of a session waiting for a secret: what is typed goes
/// to the program alone, taken over or not.
#[component]
fn SecretBox(state: TerminalsState, id: String, password: RwSignal<String>) -> impl IntoView {
    let send = move || {
        state.type_in(&id, Typing::line(password.get_untracked(), true));
        password.set(String::new());
    };
    let on_enter = send.clone();
    view! {
        <div class="terminal-secret" role="group" aria-labelledby="terminal-secret-label">
            <label id="terminal-secret-label" for="terminal-password">
                "The program asks for a secret. What you type here goes to it alone: never to an agent, a log or this screen."
            </label>
            <input
                id="terminal-password"
                type="password"
                autocomplete="off"
                autofocus=true
                prop:value=move || password.get()
                on:input=move |event| password.set(event_target_value(&event))
                on:keydown=move |event: KeyboardEvent| {
                    if event.key() == "Enter" {
                        event.prevent_default();
                        on_enter();
                    }
                }
            />
            <button id="terminal-password-send" on:click=move |_| send()>"Send secret"</button>
        </div>
    }
}

/// The screen's rows, scaled to the pane's width (its `cols` columns fit
/// without scrolling sideways); while the developer holds the session,
/// keys typed on it go to the program.
#[component]
fn KeyedScreen(
    state: TerminalsState,
    id: String,
    yours: bool,
    cols: u16,
    rows: Vec<Vec<(String, String)>>,
) -> impl IntoView {
    // Just taken over: the keys go to the screen at once, not to the
    // button that took it (whose Space or Enter would hand it back).
    let screen = NodeRef::<leptos::html::Pre>::new();
    Effect::new(move |_| {
        if let Some(screen) = screen.get()
            && yours
            && document()
                .active_element()
                .is_none_or(|active| active.id() == "terminal-take" || active.tag_name() == "BODY")
        {
            let _ = screen.focus();
        }
    });
    let keys = move |event: KeyboardEvent| {
        if !yours {
            return;
        }
        if let Some(typed) = pressed(&event) {
            event.prevent_default();
            state.type_in(&id, typed);
        }
    };
    view! {
        <pre
            class="terminal-screen"
            class:yours=yours
            id="terminal-screen"
            style=format!("--cols: {}", cols.max(1))
            node_ref=screen
            tabindex="0"
            aria-label="The program's screen; while you have the session, keys typed here go to it"
            on:keydown=keys
        >
            <Rows rows />
        </pre>
    }
}

/// A line to send to the session the developer holds (Enter or Send),
/// masked as a secret when they say so.
#[component]
fn LineInput(
    state: TerminalsState,
    id: String,
    line: RwSignal<String>,
    secret: RwSignal<bool>,
) -> impl IntoView {
    let send = move || {
        state.type_in(
            &id,
            Typing::line(line.get_untracked(), secret.get_untracked()),
        );
        line.set(String::new());
    };
    let on_enter = send.clone();
    view! {
        <div class="terminal-input">
            <input
                id="terminal-line"
                type=move || if secret.get() { "password" } else { "text" }
                placeholder="A line to send (Enter)"
                prop:value=move || line.get()
                on:input=move |event| line.set(event_target_value(&event))
                on:keydown=move |event: KeyboardEvent| {
                    if event.key() == "Enter" {
                        event.prevent_default();
                        on_enter();
                    }
                }
            />
            <label>
                <input type="checkbox" id="terminal-secret" prop:checked=move || secret.get()
                    on:change=move |event| secret.set(event_target_checked(&event)) />
                " secret"
            </label>
            <button id="terminal-send" on:click=move |_| send()>"Send"</button>
        </div>
    }
}
