//! The Terminals view: the workspace's program sessions as agents drive
//! them, live — the list (name, command, state, who controls it) and the
//! chosen session's screen as a person sees it. The developer takes a
//! session over (agents' input is refused until they hand it back), types
//! into it — a line, or keys straight from the keyboard on the screen —
//! and ends it. A session waiting for a secret (a password prompt) gets a
//! password box that any developer can use without taking the session
//! over: what is typed goes to the program only. An ended session plays
//! back from its log in the Tapes player. The sessions themselves are the
//! window's ([`ProgramSessions`]), followed for its whole life. Beside them, the
//! reports of the workspace's programs (`reports`): investigations, tests
//! and fuzz findings.

pub mod alert;
mod head;
mod list;
mod live;
mod reports;
mod typing;

use std::{future::Future, rc::Rc};

use leptos::{ev::KeyboardEvent, prelude::*};
use switchboard_model::{
    agent::launch::LaunchRow,
    ipc::StoreChange,
    program::{ProgramSession, SessionState, view::Typing},
};

pub use typing::Typist;

use crate::{
    app::ProgramSessions,
    events, ipc, tasks,
    views::{
        tapes::{TapesState, player::Player},
        terminal::styled_rows,
    },
};

/// How long one read waits on the host for new output (then it is asked
/// again).
const FOLLOW_WAIT_MS: u64 = 5_000;

/// The most output one read brings: a screen far behind a flood starts
/// over from the newest 64 KiB (as the host's own screen does).
const TAIL_BYTES: u64 = 64 * 1024;

/// The chosen session's terminal, fed its output as it comes.
struct Live {
    id: String,
    cursor: u64,
    terminal: avt::Terminal,
}

impl Live {
    fn fresh(info: &ProgramSession) -> Self {
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
    session: ProgramSession,
    rows: Vec<Vec<(String, String)>>,
}

/// What the view's parts share.
#[derive(Clone, Copy)]
struct TerminalsState {
    /// The view's owner: its reads last as long as the view, whichever
    /// part asked for them (a list row, drawn again with each change of
    /// the sessions, or an effect that runs again).
    owner: StoredValue<Option<Owner>, LocalStorage>,
    /// The developer's typing, sent in order.
    typist: Typist,
    sessions: RwSignal<Vec<ProgramSession>>,
    selected: RwSignal<Option<String>>,
    screen: RwSignal<Option<Shown>>,
    live: StoredValue<Option<Live>, LocalStorage>,
    /// The session whose output is being read, if any.
    following: StoredValue<Option<String>>,
    /// Counts the reading loops started; only the newest one shows.
    generation: StoredValue<u64>,
    error: RwSignal<Option<String>>,
    /// The player of an ended session's log.
    replay: TapesState,
    /// The run whose sessions are listed open (the others are one row).
    expanded: RwSignal<Option<String>>,
    /// The Reports tab is open.
    reports: RwSignal<bool>,
    /// The run whose report the Reports tab is asked to show.
    report_of_run: RwSignal<Option<String>>,
    /// The agents started here: a started agent's terminal is headed by
    /// who it is, where it works and its state, not its command line.
    launches: RwSignal<Vec<LaunchRow>>,
    /// Whether the chosen session's full command line is shown (kept
    /// across the redraws its output brings).
    command_open: RwSignal<bool>,
}

impl TerminalsState {
    /// Starts a read that lasts as long as the view.
    fn read(self, task: impl Future<Output = ()> + 'static) {
        match self.owner.get_value() {
            Some(owner) => owner.with(|| tasks::fetch(task)),
            None => tasks::fetch(task),
        }
    }

    /// Follows the chosen session: a running one's output goes on its
    /// terminal as it comes (one read after another, each waiting on the
    /// host for something new), an ended one plays back from its log.
    fn refresh(self) {
        let Some(chosen) = self.selected.get_untracked() else {
            self.screen.set(None);
            return;
        };
        let listed_ended = self.sessions.with_untracked(|sessions| {
            sessions
                .iter()
                .find(|session| session.id == chosen)
                .is_some_and(|session| session.state != SessionState::Running)
        });
        let read_ended = self.screen.with_untracked(|screen| {
            screen.as_ref().is_some_and(|screen| {
                screen.session.id == chosen && screen.session.state != SessionState::Running
            })
        });
        if listed_ended || read_ended {
            self.play_back(chosen);
            return;
        }
        if self.following.get_value().as_deref() == Some(chosen.as_str()) {
            return;
        }
        let generation = self.generation.get_value() + 1;
        self.generation.set_value(generation);
        self.following.set_value(Some(chosen.clone()));
        self.read(self.follow(chosen, generation));
    }

    /// Reads session `id`'s output into its terminal until it ends, the
    /// view follows another (a newer `generation`) or a read fails.
    async fn follow(self, id: String, generation: u64) {
        let current = move || self.generation.get_value() == generation;
        let following = Following {
            state: self,
            generation,
        };
        let mut caught_up = false;
        loop {
            let since = self.live.with_value(|live| {
                live.as_ref()
                    .filter(|live| live.id == id)
                    .map(|live| live.cursor)
            });
            let wait = (caught_up && since.is_some()).then_some(FOLLOW_WAIT_MS);
            let read = ipc::session_output(&id, since, wait, Some(TAIL_BYTES)).await;
            if !current() {
                return;
            }
            match read {
                Ok(output) => {
                    let ended = output.session.state != SessionState::Running;
                    let rows = self
                        .live
                        .try_update_value(|live| {
                            let fresh = live.as_ref().is_none_or(|live| live.id != id);
                            if fresh || output.missed > 0 && since.is_some() {
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
                    if ended {
                        break;
                    }
                    caught_up = true;
                }
                Err(failure) => {
                    self.error.set(Some(failure.message));
                    return;
                }
            }
        }
        // It ended: its log plays back.
        drop(following);
        self.refresh();
    }

    /// Opens ended session `id`'s log in the player, at its end (once).
    fn play_back(self, id: String) {
        let open = self
            .replay
            .tape
            .with_untracked(|tape| tape.as_ref().is_some_and(|tape| tape.summary.id == id));
        if open {
            return;
        }
        self.read(async move {
            match ipc::session_replay(&id).await {
                Ok(tape) if self.selected.get_untracked().as_deref() == Some(id.as_str()) => {
                    self.replay.pos.set(tape.frames.len());
                    self.replay.tape.set(Some(Rc::new(tape)));
                }
                Ok(_) => {}
                Err(failure) => self.error.set(Some(failure.message)),
            }
        });
    }

    /// The started agent whose terminal session `id` is, if it is one.
    fn agent_of(self, id: &str) -> Option<LaunchRow> {
        self.launches
            .with(|rows| rows.iter().find(|row| row.launch.session == id).cloned())
    }

    /// Reads the started agents again, for the headers and the list.
    fn read_launches(self) {
        self.read(async move {
            if let Ok(rows) = ipc::launches().await {
                self.launches.set(rows);
            }
        });
    }

    /// Types into session `id` as the developer, after what was typed
    /// into it before.
    fn type_in(self, id: &str, typed: Typing) {
        let error = self.error;
        self.typist
            .type_in(id, typed, move |message| error.set(Some(message)));
    }
}

/// A reading loop while it runs: however it stops — at its end, on a
/// failure, or cancelled with the part of the page that started it — the
/// view no longer counts it as following its session, so the next
/// refresh starts another.
struct Following {
    state: TerminalsState,
    generation: u64,
}

impl Drop for Following {
    fn drop(&mut self) {
        if self.state.generation.try_get_value() == Some(self.generation) {
            self.state.following.try_set_value(None);
        }
    }
}

/// The view.
#[component]
pub fn Terminals() -> impl IntoView {
    let shared = use_context::<ProgramSessions>().unwrap_or_else(|| ProgramSessions {
        list: RwSignal::new(Vec::new()),
        open: RwSignal::new(None),
    });
    let typist = use_context::<Typist>().unwrap_or_default();
    let error = RwSignal::new(None);
    let state = TerminalsState {
        owner: StoredValue::new_local(Owner::current()),
        typist,
        sessions: shared.list,
        selected: RwSignal::new(None),
        screen: RwSignal::new(None),
        live: StoredValue::new_local(None),
        following: StoredValue::new(None),
        generation: StoredValue::new(0),
        error,
        replay: TapesState::new(error, false),
        expanded: RwSignal::new(None),
        reports: RwSignal::new(false),
        report_of_run: RwSignal::new(None),
        launches: RwSignal::new(Vec::new()),
        command_open: RwSignal::new(false),
    };
    state.read_launches();
    events::on_store_change(move |change| {
        if change == StoreChange::Agents {
            state.read_launches();
        }
    });
    // Each change while the view is open: the session asked for (the
    // alert's), else the one shown if it is still listed, else the first
    // the list shows.
    Effect::new(move |_| {
        let wanted = shared.open.get();
        let keep = state.sessions.with(|sessions| {
            let listed = |id: &String| sessions.iter().any(|s| &s.id == id);
            match (&wanted, state.selected.get_untracked()) {
                (Some(id), _) if listed(id) => Some(Some(id.clone())),
                (_, Some(id)) if listed(&id) => None,
                _ => Some(list::first_listed(sessions)),
            }
        });
        if wanted.is_some() {
            shared.open.set(None);
        }
        if let Some(selected) = keep {
            state.selected.set(selected);
        }
        state.refresh();
    });
    let reports = state.reports;
    view! {
        <section class="terminals" id="view-terminals">
            <header class="view-header">
                <h1>"Terminals"</h1>
                <Tabs reports />
            </header>
            {move || match reports.get() {
                true => view! { <reports::Reports wanted_run=state.report_of_run /> }.into_any(),
                false => view! {
                    {move || state.error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
                    <div class="terminals-columns">
                        <aside class="terminals-list">
                            <list::SessionList state />
                        </aside>
                        <div class="terminal-pane">
                            <Screen state />
                        </div>
                    </div>
                }
                .into_any(),
            }}
        </section>
    }
}

/// Sessions, or the reports of the workspace's programs: two tabs, the
/// arrow keys moving between them as in any tab list.
#[component]
fn Tabs(reports: RwSignal<bool>) -> impl IntoView {
    let buttons = [
        NodeRef::<leptos::html::Button>::new(),
        NodeRef::<leptos::html::Button>::new(),
    ];
    let tab = move |label: &'static str, id: &'static str, of_reports: bool| {
        let other = buttons[usize::from(!of_reports)];
        view! {
            <button
                role="tab"
                id=id
                class="terminals-tab"
                node_ref=buttons[usize::from(of_reports)]
                aria-selected=move || (reports.get() == of_reports).to_string()
                tabindex=move || if reports.get() == of_reports { "0" } else { "-1" }
                on:click=move |_| reports.set(of_reports)
                on:keydown=move |event: KeyboardEvent| {
                    if matches!(event.key().as_str(), "ArrowLeft" | "ArrowRight") {
                        event.prevent_default();
                        reports.set(!of_reports);
                        if let Some(button) = other.get() {
                            let _ = button.focus();
                        }
                    }
                }
            >
                {label}
            </button>
        }
    };
    view! {
        <div role="tablist" aria-label="Sessions or reports" class="terminals-tabs">
            {tab("Sessions", "terminals-tab-sessions", false)}
            {tab("Reports", "terminals-tab-reports", true)}
        </div>
    }
}

/// The chosen session: live, or played back from its log once ended.
#[component]
fn Screen(state: TerminalsState) -> impl IntoView {
    let shown = Memo::new(move |_| {
        let id = state.selected.get()?;
        state.sessions.with(|sessions| {
            sessions
                .iter()
                .find(|session| session.id == id)
                .map(|session| (id.clone(), session.state != SessionState::Running))
        })
    });
    move || match shown.get() {
        None => view! { <p class="muted">"Pick a session to watch it."</p> }.into_any(),
        Some((id, true)) => view! { <Ended state id /> }.into_any(),
        Some((_, false)) => view! { <live::LiveScreen state /> }.into_any(),
    }
}

/// An ended session: how it ended, and its log in the player.
#[component]
fn Ended(state: TerminalsState, id: String) -> impl IntoView {
    let info = {
        let id = id.clone();
        Memo::new(move |_| {
            state
                .sessions
                .with(|sessions| sessions.iter().find(|session| session.id == id).cloned())
        })
    };
    let loaded = Memo::new(move |_| {
        state
            .replay
            .tape
            .with(|tape| tape.as_ref().is_some_and(|tape| tape.summary.id == id))
    });
    view! {
        {move || info.get().map(|session| {
            state.launches.track();
            let said = format!(
                "{}{} · played back from its log",
                session.state.as_str(),
                session.exit.map(|exit| format!(" ({exit})")).unwrap_or_default(),
            );
            let tape = session.tape.clone();
            view! {
                <head::Head state session said>
                    {tape.map(|tape| view! { <span class="muted" id="terminal-tape">{format!("tape: {tape}")}</span> })}
                </head::Head>
            }
        })}
        {move || match loaded.get() {
            true => view! { <Player state=state.replay /> }.into_any(),
            false => view! { <p class="muted">"Reading its log…"</p> }.into_any(),
        }}
    }
}
