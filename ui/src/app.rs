//! The window's frame: the sidebar with the views and the workspace path,
//! and the selected view beside it.

use leptos::{prelude::*, task::spawn_local};
use switchboard_model::{ipc::WorkspaceInfo, program::ProgramSession};

use crate::{browser::BrowserState, events, ipc, kept::Kept, theme, views};

/// The views the sidebar offers, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// Deliveries from agents.
    Inbox,
    /// What each agent does, and what it waits on.
    Agents,
    /// Conversations with a model.
    Chat,
    /// Learnings and playbooks.
    Knowledge,
    /// Agent teams.
    Team,
    /// Terminal tapes.
    Tapes,
    /// Program sessions, live.
    Terminals,
    /// The model and chat settings.
    Settings,
}

impl View {
    const ALL: [View; 8] = [
        View::Inbox,
        View::Agents,
        View::Chat,
        View::Knowledge,
        View::Team,
        View::Tapes,
        View::Terminals,
        View::Settings,
    ];

    fn label(self) -> &'static str {
        match self {
            View::Inbox => "Inbox",
            View::Agents => "Agents",
            View::Chat => "Chat",
            View::Knowledge => "Knowledge",
            View::Team => "Team",
            View::Tapes => "Tapes",
            View::Terminals => "Terminals",
            View::Settings => "Settings",
        }
    }

    /// Whether a page `in_browser` offers it: the chat and knowledge are
    /// the window's alone (a browser's page says so in its own Settings,
    /// "This browser").
    fn offered(self, in_browser: bool) -> bool {
        !(in_browser && matches!(self, View::Chat | View::Knowledge))
    }

    /// Its name in the sidebar of a page `in_browser`.
    fn shown_label(self, in_browser: bool) -> &'static str {
        match self {
            View::Settings if in_browser => "This browser",
            view => view.label(),
        }
    }

    /// Alt+1…8 selects a view from the keyboard.
    fn shortcut(self) -> char {
        let index = View::ALL.iter().position(|view| *view == self).unwrap_or(0);
        char::from(b'1' + index as u8)
    }
}

/// The workspace's program sessions, followed for the window's life: the
/// secret alert and the Terminals view share them (from the context).
#[derive(Clone, Copy)]
pub struct ProgramSessions {
    /// As last heard.
    pub list: RwSignal<Vec<ProgramSession>>,
    /// The session the Terminals view shows when it opens (the alert's).
    pub open: RwSignal<Option<String>>,
}

impl ProgramSessions {
    /// Follows the sessions from now on: the list now, then each change.
    fn follow() -> Self {
        let sessions = Self {
            list: RwSignal::new(Vec::new()),
            open: RwSignal::new(None),
        };
        let heard = StoredValue::new(0_u64);
        events::on_sessions(move |list| {
            heard.update_value(|heard| *heard += 1);
            sessions.list.set(list);
        });
        let read = move || {
            let before = heard.get_value();
            spawn_local(async move {
                match ipc::sessions().await {
                    // An event that came meanwhile is newer.
                    Ok(list) if heard.get_value() == before => sessions.list.set(list),
                    Ok(_) => {}
                    Err(error) => leptos::logging::error!("sessions: {}", error.message),
                }
            });
        };
        read();
        // A browser back after its connection dropped heard none of the
        // changes meanwhile.
        events::on_connection(move |connection| {
            if connection == switchboard_model::browser::Connection::Connected {
                read();
            }
        });
        sessions
    }
}

/// Moving between views from inside one: shows a view, or opens a
/// delivery in the inbox, a session in Terminals, a started agent's
/// review in Agents.
#[derive(Clone, Copy)]
pub struct Navigation {
    /// Shows a view.
    pub view: WriteSignal<View>,
    /// A delivery the inbox opens when it shows next (taken by it).
    pub open_delivery: RwSignal<Option<String>>,
    /// The session Terminals shows when it opens ([`ProgramSessions`]'s).
    pub open_session: RwSignal<Option<String>>,
    /// The started agent whose review the Agents view opens when it shows
    /// next (taken by it).
    pub open_review: RwSignal<Option<String>>,
}

impl Navigation {
    /// Opens delivery `id` in the inbox.
    pub fn open_delivery(self, id: String) {
        self.open_delivery.set(Some(id));
        self.view.set(View::Inbox);
    }

    /// Opens program session `id` in Terminals.
    pub fn open_terminal(self, id: String) {
        self.open_session.set(Some(id));
        self.view.set(View::Terminals);
    }

    /// Opens the review of the started agent `name` in Agents.
    pub fn open_review(self, name: String) {
        self.open_review.set(Some(name));
        self.view.set(View::Agents);
    }

    /// Shows the Agents view.
    pub fn show_agents(self) {
        self.view.set(View::Agents);
    }

    /// Shows the Settings view.
    pub fn show_settings(self) {
        self.view.set(View::Settings);
    }
}

/// The whole window.
#[component]
pub fn App() -> impl IntoView {
    let (current, set_current) = signal(View::Inbox);
    let browser = BrowserState::follow();
    if let Some(browser) = browser {
        provide_context(browser);
    }
    let everywhere = views::everywhere::Everywhere::follow();
    provide_context(everywhere);
    let sessions = ProgramSessions::follow();
    provide_context(sessions);
    // What the developer types into sessions goes in order, also across
    // the Terminals view left and opened again.
    provide_context(views::terminals::Typist::new());
    let agents = views::agents::Agents::follow();
    provide_context(agents);
    // The chat's draft outlives the Chat view.
    provide_context(views::chat::draft::ChatDraft::follow());
    // So do the inbox's unsent answers and what other boxes hold.
    provide_context(Kept::<switchboard_model::feedback::Draft>::new());
    provide_context(Kept::<String>::new());
    let navigation = Navigation {
        view: set_current,
        open_delivery: RwSignal::new(None),
        open_session: sessions.open,
        open_review: RwSignal::new(None),
    };
    provide_context(navigation);
    // Live updates: listened to once here, fanned out to the open views.
    let (events_off, set_events_off) = signal(None::<String>);
    spawn_local(async move {
        if let Err(error) = events::listen_to_shell().await {
            leptos::logging::error!("live updates are off: {error}");
            set_events_off.set(Some(error));
        }
    });
    theme::follow_workspace_theme();
    listen_to_view_keys(agents, everywhere, set_current);
    view! {
        <div class="frame">
            <Sidebar current set_current agents />
            <main class="content">
                {move || events_off.get().map(|error| view! {
                    <p class="banner error" id="events-off" role="alert">
                        {format!("Live updates are off ({error}); reopen the window to retry.")}
                    </p>
                })}
                {move || browser.and_then(|browser| browser.connection.get().banner()).map(|said| view! {
                    <p class="banner error" id="connection-banner" role="alert">{said}</p>
                })}
                <views::terminals::alert::SecretAlert
                    sessions
                    on_open=move |id| {
                        sessions.open.set(Some(id));
                        set_current.set(View::Terminals);
                    }
                />
                {move || match current.get() {
                    View::Inbox => views::inbox::Inbox().into_any(),
                    View::Agents => view! {
                        <views::agents::AgentsView
                            on_open_question=Callback::new(move |id| navigation.open_delivery(id))
                            on_open_terminal=Callback::new(move |id| navigation.open_terminal(id))
                        />
                    }
                    .into_any(),
                    View::Chat => views::chat::Chat().into_any(),
                    View::Knowledge => views::knowledge::Knowledge().into_any(),
                    View::Team => views::team::Team().into_any(),
                    View::Tapes => views::tapes::Tapes().into_any(),
                    View::Terminals => views::terminals::Terminals().into_any(),
                    View::Settings if browser.is_some() => views::this_browser::ThisBrowser().into_any(),
                    View::Settings => views::settings::SettingsPane().into_any(),
                }}
            </main>
        </div>
    }
}

/// The window's keys to views, for its life: Alt+ a view's letter opens
/// it, Alt+J the next agent that waits on the developer — or, when none
/// waits here, the next question waiting in another workspace.
fn listen_to_view_keys(
    agents: views::agents::Agents,
    everywhere: views::everywhere::Everywhere,
    set_current: WriteSignal<View>,
) {
    let in_browser = ipc::in_browser();
    window_event_listener(leptos::ev::keydown, move |event| {
        if event.alt_key() && event.key().eq_ignore_ascii_case("j") {
            event.prevent_default();
            if views::everywhere::holds_focus() || !agents.jump_to_next_waiting() {
                everywhere.focus_next.set(true);
            }
            set_current.set(View::Agents);
            return;
        }
        if event.alt_key()
            && let Some(view) = View::ALL
                .into_iter()
                .find(|view| view.offered(in_browser) && event.key() == view.shortcut().to_string())
        {
            event.prevent_default();
            set_current.set(view);
        }
    });
}

/// The views, the count of agents waiting on the developer, and the
/// workspace's name and path.
#[component]
fn Sidebar(
    current: ReadSignal<View>,
    set_current: WriteSignal<View>,
    agents: views::agents::Agents,
) -> impl IntoView {
    let (workspace, set_workspace) = signal(None::<WorkspaceInfo>);
    spawn_local(async move {
        match ipc::workspace_info().await {
            Ok(info) => set_workspace.set(Some(info)),
            Err(error) => leptos::logging::error!("workspace_info: {}", error.message),
        }
    });
    let in_browser = ipc::in_browser();
    let browser = crate::browser::state();
    // A browser's tab names its workspace and what waits (the window's
    // title is the shell's to set).
    if in_browser && let Some(everywhere) = use_context::<views::everywhere::Everywhere>() {
        Effect::new(move |_| {
            let name = workspace.with(|info| info.as_ref().map(|info| info.name.clone()));
            let title = switchboard_model::ipc::window_title(
                name.as_deref().unwrap_or_default(),
                everywhere.waiting_total(),
            );
            document().set_title(&title);
        });
    }
    view! {
        <nav class="sidebar" aria-label="Views">
            <div class="brand">"Switchboard"</div>
            {move || browser.map(|browser| {
                let connection = browser.connection.get();
                view! {
                    <span class="connection" id="connection" data-state=format!("{connection:?}").to_lowercase()
                        title="How this browser reaches Switchboard now">
                        {connection.label()}
                    </span>
                }
            })}
            <ul class="nav">
                {View::ALL
                    .into_iter()
                    .filter(move |view| view.offered(in_browser))
                    .map(|view| {
                        view! {
                            <li>
                                <button
                                    class="nav-item"
                                    id=format!("nav-{}", view.label().to_lowercase())
                                    class:active=move || current.get() == view
                                    aria-current=move || (current.get() == view).then_some("page")
                                    title=format!("{} (Alt+{})", view.shown_label(in_browser), view.shortcut())
                                    on:click=move |_| set_current.set(view)
                                >
                                    {view.shown_label(in_browser)}
                                    {(view == View::Agents).then_some(move || {
                                        let waiting = agents.rows.with(|rows| rows.iter().filter(|row| row.shown.waits()).count());
                                        (waiting > 0).then(|| view! {
                                            <span class="nav-count" id="agents-waiting" title="Agents waiting on you">{waiting}</span>
                                        })
                                    })}
                                </button>
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
            <div class="workspace" id="workspace-path" title=move || workspace.get().map(|w| w.path).unwrap_or_default()>
                <span class="workspace-name">{move || workspace.get().map(|w| w.name).unwrap_or_default()}</span>
                <span class="workspace-path">{move || workspace.get().map(|w| w.path).unwrap_or_default()}</span>
            </div>
        </nav>
    }
}
