//! The Terminals view: the workspace's program sessions as agents drive
//! them, live — the list (name, command, state, who controls it) and the
//! chosen session's screen as a person sees it. The developer takes a
//! session over (agents' input is refused until they hand it back), types
//! into it — a line, or keys straight from the keyboard on the screen —
//! and ends it. The view follows the sessions only while it is open.

use std::sync::{
    Arc,
    atomic::{AtomicBool, AtomicU64, Ordering},
};

use leptos::{ev::KeyboardEvent, prelude::*};
use switchboard_model::program::{Controller, SessionInfo, SessionState, view::SessionTypeRequest};

use crate::{
    events, ipc, tasks,
    views::terminal::{Rows, styled_rows},
};

/// The chosen session's terminal, fed its output as it comes.
struct Live {
    id: String,
    cursor: u64,
    terminal: avt::Terminal,
}

impl Live {
    fn fresh(info: &SessionInfo) -> Self {
        let terminal =
            avt::Terminal::new(usize::from(info.cols.max(1)), usize::from(info.rows.max(1)))
                .or_else(|_| avt::Terminal::new(80, 24))
                .unwrap_or_else(|_| unreachable!("80×24 is a valid size"));
        Self {
            id: info.id.clone(),
            cursor: 0,
            terminal,
        }
    }
}

/// What the screen shows: the session and its styled rows.
#[derive(Clone, PartialEq)]
struct Shown {
    session: SessionInfo,
    rows: Vec<Vec<(String, String)>>,
}

/// What the view's parts share.
#[derive(Clone, Copy)]
struct TerminalsState {
    sessions: RwSignal<Vec<SessionInfo>>,
    selected: RwSignal<Option<String>>,
    screen: RwSignal<Option<Shown>>,
    live: StoredValue<Option<Live>, LocalStorage>,
    /// A read is on its way; `again`: another was asked for meanwhile.
    busy: StoredValue<bool>,
    again: StoredValue<bool>,
    error: RwSignal<Option<String>>,
}

impl TerminalsState {
    /// Reads what the chosen session printed since the last read and puts
    /// it on its terminal (from the start when the session changed or the
    /// reader fell behind); one read at a time, another after it when
    /// asked for meanwhile.
    fn refresh(self) {
        if self.selected.get_untracked().is_none() {
            self.screen.set(None);
            return;
        }
        if self.busy.get_value() {
            self.again.set_value(true);
            return;
        }
        self.busy.set_value(true);
        tasks::fetch(async move {
            loop {
                self.again.set_value(false);
                let Some(id) = self.selected.get_untracked() else {
                    break;
                };
                let since = self.live.with_value(|live| {
                    live.as_ref()
                        .filter(|live| live.id == id)
                        .map(|live| live.cursor)
                });
                match ipc::session_output(&id, since).await {
                    Ok(output) if self.selected.get_untracked().as_deref() == Some(id.as_str()) => {
                        let rows = self
                            .live
                            .try_update_value(|live| {
                                let current = live.as_ref().is_some_and(|live| live.id == id);
                                if !current || output.missed > 0 && since.is_some() {
                                    *live = Some(Live::fresh(&output.session));
                                }
                                live.as_mut().map(|live| {
                                    live.terminal.feed(output.text.as_str());
                                    live.cursor = output.cursor;
                                    styled_rows(&live.terminal)
                                })
                            })
                            .flatten();
                        self.screen.set(rows.map(|rows| Shown {
                            session: output.session,
                            rows,
                        }));
                    }
                    Ok(_) => {}
                    Err(failure) => self.error.set(Some(failure.message)),
                }
                if !self.again.get_value() {
                    break;
                }
            }
            self.busy.set_value(false);
        });
    }

    /// Types into the chosen session as the developer.
    fn type_in(self, request: SessionTypeRequest) {
        tasks::act(async move {
            if let Err(failure) = ipc::session_type(&request).await {
                self.error.set(Some(failure.message));
            }
        });
    }
}

/// The key name the shell takes for a key pressed on the screen, or the
/// text it types; `None` for keys left to the page (modifiers alone, Alt
/// shortcuts).
fn pressed(event: &KeyboardEvent) -> Option<(Option<String>, Option<String>)> {
    let key = event.key();
    if event.alt_key() || event.meta_key() {
        return None;
    }
    if event.ctrl_key() {
        let letter = key.to_ascii_lowercase();
        return (letter.chars().count() == 1).then(|| (Some(format!("ctrl-{letter}")), None));
    }
    let named = match key.as_str() {
        "Enter" => "enter",
        "Escape" => "esc",
        "Tab" => "tab",
        "Backspace" => "backspace",
        "ArrowUp" => "up",
        "ArrowDown" => "down",
        "ArrowLeft" => "left",
        "ArrowRight" => "right",
        "Home" => "home",
        "End" => "end",
        "PageUp" => "pageup",
        "PageDown" => "pagedown",
        "Delete" => "delete",
        _ if key.chars().count() == 1 => return Some((None, Some(key))),
        _ => return None,
    };
    Some((Some(named.to_owned()), None))
}

/// The view.
#[component]
pub fn Terminals() -> impl IntoView {
    let state = TerminalsState {
        sessions: RwSignal::new(Vec::new()),
        selected: RwSignal::new(None),
        screen: RwSignal::new(None),
        live: StoredValue::new_local(None),
        busy: StoredValue::new(false),
        again: StoredValue::new(false),
        error: RwSignal::new(None),
    };
    events::on_sessions(move |sessions| {
        let keep = state.selected.with_untracked(|id| {
            id.as_ref()
                .is_some_and(|id| sessions.iter().any(|s| &s.id == id))
        });
        if !keep {
            state
                .selected
                .set(sessions.first().map(|session| session.id.clone()));
        }
        state.sessions.set(sessions);
        state.refresh();
    });
    // Followed while the view lives: the watch's number, and whether the
    // view was left before the shell answered.
    // (0: not known yet.)
    let watch = Arc::new(AtomicU64::new(0));
    let left = Arc::new(AtomicBool::new(false));
    {
        let (watch, left) = (Arc::clone(&watch), Arc::clone(&left));
        tasks::act(async move {
            match ipc::sessions_watch().await {
                Ok(number) if left.load(Ordering::SeqCst) => {
                    let _ = ipc::sessions_unwatch(number).await;
                }
                Ok(number) => watch.store(number, Ordering::SeqCst),
                Err(failure) => state.error.set(Some(failure.message)),
            }
        });
    }
    on_cleanup(move || {
        left.store(true, Ordering::SeqCst);
        let number = watch.load(Ordering::SeqCst);
        if number != 0 {
            tasks::act(async move {
                let _ = ipc::sessions_unwatch(number).await;
            });
        }
    });
    view! {
        <section class="terminals" id="view-terminals">
            <header class="view-header">
                <h1>"Terminals"</h1>
            </header>
            {move || state.error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
            <div class="terminals-columns">
                <aside class="terminals-list">
                    <SessionList state />
                </aside>
                <div class="terminal-pane">
                    <Screen state />
                </div>
            </div>
        </section>
    }
}

/// The sessions, newest first.
#[component]
fn SessionList(state: TerminalsState) -> impl IntoView {
    move || {
        let sessions = state.sessions.get();
        if sessions.is_empty() {
            return view! {
                <p class="muted" id="terminals-empty">
                    "No program sessions in this workspace. Agents start them with "
                    <code>"switchboard session start -- PROGRAM"</code>
                    " or the session_start tool; they appear here live."
                </p>
            }
            .into_any();
        }
        let selected = state.selected.get();
        sessions
            .into_iter()
            .map(|session| {
                let id = session.id.clone();
                let current = selected.as_deref() == Some(session.id.as_str());
                let mut details = vec![session.state.as_str().to_owned()];
                if let Some(exit) = session.exit {
                    details.push(exit.to_string());
                }
                if session.controller == Controller::User {
                    details.push("yours".to_owned());
                }
                view! {
                    <button
                        class="session-item"
                        class:current=current
                        class:ended=session.state != SessionState::Running
                        data-id=session.id.clone()
                        on:click=move |_| {
                            state.selected.set(Some(id.clone()));
                            state.refresh();
                        }
                    >
                        <span class="session-name">{session.label().to_owned()}</span>
                        <code class="session-command">{session.command_line()}</code>
                        <span class="muted session-details">{details.join(" · ")}</span>
                    </button>
                }
            })
            .collect_view()
            .into_any()
    }
}

/// The chosen session's screen, with its controls.
#[component]
fn Screen(state: TerminalsState) -> impl IntoView {
    let line = RwSignal::new(String::new());
    let secret = RwSignal::new(false);
    move || {
        let Some(screen) = state.screen.get() else {
            return view! { <p class="muted">"Pick a session to watch it."</p> }.into_any();
        };
        let session = screen.session.clone();
        let id = session.id.clone();
        let running = session.state == SessionState::Running;
        let yours = session.controller == Controller::User;
        let rows = screen.rows.clone();
        let take = {
            let id = id.clone();
            move |_| {
                let id = id.clone();
                tasks::act(async move {
                    if let Err(failure) = ipc::session_control(&id, !yours).await {
                        state.error.set(Some(failure.message));
                    }
                });
            }
        };
        let end = {
            let id = id.clone();
            move |_| {
                let id = id.clone();
                tasks::act(async move {
                    if let Err(failure) = ipc::session_end(&id).await {
                        state.error.set(Some(failure.message));
                    }
                });
            }
        };
        let keys = {
            let id = id.clone();
            move |event: KeyboardEvent| {
                if !yours {
                    return;
                }
                if let Some((key, text)) = pressed(&event) {
                    event.prevent_default();
                    state.type_in(SessionTypeRequest {
                        session: id.clone(),
                        text,
                        line: false,
                        key,
                        secret: false,
                    });
                }
            }
        };
        let send_line = {
            let id = id.clone();
            move || {
                state.type_in(SessionTypeRequest {
                    session: id.clone(),
                    text: Some(line.get_untracked()),
                    line: true,
                    key: None,
                    secret: secret.get_untracked(),
                });
                line.set(String::new());
            }
        };
        let send_on_enter = {
            let send_line = send_line.clone();
            move |event: KeyboardEvent| {
                if event.key() == "Enter" {
                    event.prevent_default();
                    send_line();
                }
            }
        };
        view! {
            <div class="terminal-head">
                <strong id="terminal-title">{session.label().to_owned()}</strong>
                <code class="muted">{session.command_line()}</code>
                <span class="muted" id="terminal-state">
                    {format!(
                        "{}{}{}",
                        session.state.as_str(),
                        session.exit.map(|exit| format!(" ({exit})")).unwrap_or_default(),
                        if yours { " · you have it" } else { " · agents drive it" },
                    )}
                </span>
                <span class="spacer"></span>
                {running.then(|| view! {
                    <button id="terminal-take" on:click=take.clone()>
                        {if yours { "Hand back" } else { "Take over" }}
                    </button>
                    <button id="terminal-end" class="danger" on:click=end.clone()>"End"</button>
                })}
            </div>
            <pre
                class="terminal-screen"
                class:yours=yours
                id="terminal-screen"
                tabindex="0"
                aria-label="The program's screen; while you have the session, keys typed here go to it"
                on:keydown=keys
            >
                <Rows rows />
            </pre>
            {(running && yours).then(|| view! {
                <div class="terminal-input">
                    <input
                        id="terminal-line"
                        type=move || if secret.get() { "password" } else { "text" }
                        placeholder="A line to send (Enter)"
                        prop:value=move || line.get()
                        on:input=move |event| line.set(event_target_value(&event))
                        on:keydown=send_on_enter.clone()
                    />
                    <label>
                        <input type="checkbox" id="terminal-secret" prop:checked=move || secret.get()
                            on:change=move |event| secret.set(event_target_checked(&event)) />
                        " secret"
                    </label>
                    <button id="terminal-send" on:click={
                        let send_line = send_line.clone();
                        move |_| send_line()
                    }>"Send"</button>
                </div>
            })}
        }
        .into_any()
    }
}
