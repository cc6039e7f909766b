//! The Agents view: one row per agent session seen through hooks or MCP —
//! who, its state and for how long, its folder, what it waits on and its
//! last messages — waiting ones first. Arrow keys (or j/k) move, Enter
//! opens the question an agent waits on; Alt+J, anywhere, jumps to the next
//! agent that waits.

use leptos::prelude::*;
use switchboard_model::{
    age_label,
    agent::{
        AgentRecord, AgentRow, codex_hooks::CodexHooksTrust, next_waiting, short_session,
        transcript,
    },
    ipc::StoreChange,
};

use crate::{events, ipc, tasks, views::inbox::browser_now};

/// The workspace's agents, followed for the window's life: the view, the
/// inbox's strip and the jump shortcut share them (from the context).
#[derive(Clone, Copy)]
pub struct Agents {
    /// As last read, in the view's order.
    pub rows: RwSignal<Vec<AgentRow>>,
    /// The key of the row the view selects.
    pub selected: RwSignal<Option<String>>,
    /// Whether Codex runs the hooks installed for it here (`None`: none
    /// installed).
    pub codex_hooks: RwSignal<Option<CodexHooksTrust>>,
}

/// A row's key: its kind and session.
pub fn key(row: &AgentRow) -> String {
    AgentRecord::key(row.record.agent, &row.record.session_id)
}

impl Agents {
    /// Follows the agents from now on: the list now, again at each change
    /// on disk and every 30 s (an agent that vanished shows gone).
    pub fn follow() -> Self {
        let agents = Self {
            rows: RwSignal::new(Vec::new()),
            selected: RwSignal::new(None),
            codex_hooks: RwSignal::new(None),
        };
        // Reads overlap (a change while one is out): only the latest one
        // asked for is shown, never an older one finishing last.
        let asked = StoredValue::new(0_u64);
        let refresh = move || {
            asked.update_value(|asked| *asked += 1);
            let this = asked.get_value();
            tasks::fetch(async move {
                let rows = ipc::list_agents().await;
                let trust = ipc::codex_hooks_trust().await;
                if asked.get_value() != this {
                    return;
                }
                match rows {
                    Ok(rows) => agents.rows.set(rows),
                    Err(error) => leptos::logging::error!("agents: {}", error.message),
                }
                match trust {
                    Ok(trust) => agents.codex_hooks.set(trust),
                    Err(error) => leptos::logging::error!("codex hooks: {}", error.message),
                }
            })
        };
        refresh();
        events::on_store_change(move |change| {
            if change == StoreChange::Agents {
                refresh();
            }
        });
        let _ = set_interval_with_handle(refresh, std::time::Duration::from_secs(30));
        agents
    }

    /// Whether the row of key `id` is the selected one, as a signal.
    pub fn is_selected(self, id: String) -> impl Fn() -> bool + Clone + 'static {
        move || self.selected.get().as_deref() == Some(id.as_str())
    }

    /// Selects the next agent after the selected one that waits on the
    /// developer; `false` when none waits.
    pub fn jump_to_next_waiting(self) -> bool {
        let rows = self.rows.get_untracked();
        let current = self
            .selected
            .get_untracked()
            .and_then(|selected| rows.iter().position(|row| key(row) == selected));
        match next_waiting(&rows, current) {
            Some(index) => {
                self.selected.set(Some(key(&rows[index])));
                true
            }
            None => false,
        }
    }
}

/// The view.
#[component]
pub fn AgentsView(
    /// Opens a delivery in the inbox.
    on_open_question: Callback<String>,
    /// Opens a program session in Terminals.
    on_open_terminal: Callback<String>,
) -> impl IntoView {
    let Some(agents) = use_context::<Agents>() else {
        return view! { <p class="error">"The agents are not followed."</p> }.into_any();
    };
    let now = RwSignal::new(browser_now());
    let ticker = set_interval_with_handle(
        move || now.set(browser_now()),
        std::time::Duration::from_secs(15),
    );
    // Agents that ended fold away, out of the arrows' way until shown.
    let show_gone = RwSignal::new(false);
    let keys = listen_to_keys(agents, show_gone, on_open_question);
    on_cleanup(move || {
        keys.remove();
        if let Ok(handle) = ticker {
            handle.clear();
        }
    });
    view! {
        <section class="agents" id="view-agents">
            <header class="agents-header">
                <h1>"Agents"</h1>
                <span class="muted key-hint">"↑/↓ select · Enter opens what it waits on · Alt+J next waiting"</span>
            </header>
            <crate::views::launches::StartedAgents now on_open_question on_open_terminal />
            {move || {
                agents.codex_hooks.get().filter(|trust| !trust.runs()).map(|trust| view! {
                    <p class="agents-codex-trust" id="agents-codex-trust" role="status">{trust.sentence()}</p>
                })
            }}
            <AgentRows agents now show_gone on_open_question />
            <crate::views::everywhere::AllWorkspaces now />
        </section>
    }
    .into_any()
}

/// The rows the arrows move over: shown here, and the ended ones only
/// while they are unfolded.
fn selectable(agents: Agents, shown_gone: bool) -> Vec<AgentRow> {
    agents
        .rows
        .get_untracked()
        .into_iter()
        .filter(|row| shown_here(row) && (shown_gone || !row.folds()))
        .collect()
}

/// Moves the selection `by` rows, within the list; `false` when it is at
/// the list's end already (or the list is empty).
fn step(agents: Agents, show_gone: RwSignal<bool>, by: isize) -> bool {
    let rows = selectable(agents, show_gone.get_untracked());
    if rows.is_empty() {
        return false;
    }
    let current = agents
        .selected
        .get_untracked()
        .and_then(|selected| rows.iter().position(|row| key(row) == selected));
    let next = match current {
        None => 0,
        Some(index) => (index as isize + by).clamp(0, rows.len() as isize - 1) as usize,
    };
    agents.selected.set(Some(key(&rows[next])));
    current != Some(next)
}

/// The view's keys, while it is open: ↑/↓ (or k/j) select, Enter opens
/// what the selected agent waits on.
fn listen_to_keys(
    agents: Agents,
    show_gone: RwSignal<bool>,
    on_open_question: Callback<String>,
) -> WindowListenerHandle {
    window_event_listener(leptos::ev::keydown, move |event| {
        if event.alt_key() || event.ctrl_key() || event.meta_key() {
            return;
        }
        // All workspaces' questions have keys of their own.
        if crate::keys::is_typing(&event) || crate::views::everywhere::holds_focus() {
            return;
        }
        match event.key().as_str() {
            "ArrowDown" | "j" => {
                event.prevent_default();
                // Past the last agent: All workspaces' first question.
                if !step(agents, show_gone, 1) {
                    crate::views::everywhere::focus_question(1);
                }
            }
            "ArrowUp" | "k" => {
                event.prevent_default();
                let _ = step(agents, show_gone, -1);
            }
            "Enter" => {
                let selected = agents.selected.get_untracked();
                if let Some(question) = agents
                    .rows
                    .get_untracked()
                    .iter()
                    .find(|row| Some(key(row)) == selected)
                    .and_then(|row| row.record.waiting_on.clone())
                {
                    on_open_question.run(question);
                }
            }
            _ => {}
        }
    })
}

/// The agents started elsewhere, live ones first, the ended folded away.
#[component]
fn AgentRows(
    agents: Agents,
    now: RwSignal<switchboard_model::Timestamp>,
    show_gone: RwSignal<bool>,
    on_open_question: Callback<String>,
) -> impl IntoView {
    // Keys work as soon as the view opens (a click on the sidebar leaves
    // the focus on its button): the list takes the focus, the first row
    // the selection.
    let list = NodeRef::<leptos::html::Ul>::new();
    Effect::new(move |_| {
        if let Some(list) = list.get() {
            if agents.selected.get_untracked().is_none()
                && let Some(first) = selectable(agents, false).first()
            {
                agents.selected.set(Some(key(first)));
            }
            let _ = list.focus();
        }
    });
    // Scrolls the selected row into view when it changes.
    Effect::new(move |_| {
        if let Some(selected) = agents.selected.get()
            && let Some(row) = document().get_element_by_id(&format!("agent-{selected}"))
        {
            row.scroll_into_view_with_bool(false);
        }
    });
    move || {
        let rows: Vec<AgentRow> = agents.rows.get().into_iter().filter(shown_here).collect();
        let (gone, rows): (Vec<AgentRow>, Vec<AgentRow>) =
            rows.into_iter().partition(AgentRow::folds);
        if rows.is_empty() && gone.is_empty() {
            return view! {
                <p class="muted" id="agents-empty">
                    "No other agent has been seen here yet. Connect one started elsewhere: "
                    <code>"switchboard hooks install claude-code --write"</code>
                    " (or codex), or "
                    <code>"switchboard mcp install claude-code --write"</code>
                    "."
                </p>
            }
            .into_any();
        }
        let gone_count = gone.len();
        view! {
            <ul class="agent-list" id="agent-list" role="listbox" aria-label="Agents" tabindex="-1" node_ref=list>
                {rows.into_iter().map(|row| view! { <AgentItem row agents now on_open_question /> }).collect_view()}
            </ul>
            {(gone_count > 0).then(|| view! {
                <details class="agents-gone" id="agents-gone" prop:open=move || show_gone.get() on:toggle=move |event| {
                    let open = event_target::<web_sys::HtmlDetailsElement>(&event).open();
                    show_gone.set(open);
                }>
                    <summary>{if gone_count == 1 { "1 agent ended".to_owned() } else { format!("{gone_count} agents ended") }}</summary>
                    <ul class="agent-list gone" role="listbox" aria-label="Agents that ended">
                        {gone.into_iter().map(|row| view! { <GoneItem row agents now /> }).collect_view()}
                    </ul>
                </details>
            })}
        }
        .into_any()
    }
}

/// Whether a hook's row is listed with the others: one of an agent
/// started here is its started agent's row instead (one agent, one row).
fn shown_here(row: &AgentRow) -> bool {
    row.record.launch.is_none()
}

/// One agent's row.
#[component]
fn AgentItem(
    row: AgentRow,
    agents: Agents,
    now: RwSignal<switchboard_model::Timestamp>,
    on_open_question: Callback<String>,
) -> impl IntoView {
    let id = key(&row);
    let is_selected = agents.is_selected(id.clone());
    let since = row.record.since;
    let state = row.shown;
    let waiting_on = row.record.waiting_on.clone();
    let select = id.clone();
    view! {
        <li
            class="agent-row"
            id=format!("agent-{id}")
            data-state=state.as_str()
            class:waits=state.waits()
            class:selected=is_selected.clone()
            role="option"
            aria-selected=move || is_selected().to_string()
            on:click=move |_| agents.selected.set(Some(select.clone()))
        >
            <div class="agent-line">
                <strong class="agent-name">{row.record.name.clone()}</strong>
                <SessionId session=row.record.session_id.clone() />
                <span class=format!("badge agent-state state-{}", state.as_str())>{state.label()}</span>
                <time class="age">{move || age_label(since, now.get()).replace(" ago", "")}</time>
                <span class="agent-folder muted" title=row.record.cwd.clone()>{row.record.cwd.clone()}</span>
                <span class="agent-where muted" title="Started outside Switchboard: it runs in its own terminal">"own terminal"</span>
            </div>
            {row.record.reason.clone().map(|reason| view! { <p class="agent-reason">{reason}</p> })}
            {waiting_on.map(|question| {
                let open = question.clone();
                view! {
                    <button class="agent-open primary" data-question=question on:click=move |_| on_open_question.run(open.clone())>
                        "Open its question (Enter)"
                    </button>
                }
            })}
            <LastMessages messages=row.last_messages />
        </li>
    }
}

/// One line of an agent that ended: who, where, and when it was last
/// heard from.
#[component]
fn GoneItem(
    row: AgentRow,
    agents: Agents,
    now: RwSignal<switchboard_model::Timestamp>,
) -> impl IntoView {
    let id = key(&row);
    let select = id.clone();
    let is_selected = agents.is_selected(id.clone());
    let seen = row.record.seen_at;
    let said = transcript::last_said(&row.last_messages).map(str::to_owned);
    view! {
        <li
            class="agent-row gone-row"
            id=format!("agent-{id}")
            data-state="gone"
            class:selected=is_selected.clone()
            role="option"
            aria-selected=move || is_selected().to_string()
            on:click=move |_| agents.selected.set(Some(select.clone()))
        >
            <div class="agent-line">
                <strong class="agent-name">{row.record.name.clone()}</strong>
                <SessionId session=row.record.session_id.clone() />
                <span class="muted">{move || format!("ended, last heard {}", age_label(seen, now.get()))}</span>
                <span class="agent-folder muted" title=row.record.cwd.clone()>{row.record.cwd.clone()}</span>
                {said.map(|said| view! { <span class="agent-last muted">{said}</span> })}
            </div>
        </li>
    }
}

/// An agent's last messages, who said each.
#[component]
pub fn LastMessages(messages: Vec<transcript::TranscriptMessage>) -> impl IntoView {
    view! {
        <ol class="agent-messages">
            {messages
                .into_iter()
                .map(|message| {
                    let who = message.speaker.label();
                    view! { <li class=format!("said-by-{who}")><span class="who">{who}</span>" "{message.text}</li> }
                })
                .collect_view()}
        </ol>
    }
}

/// An agent's session, shortened, whole in its title.
#[component]
fn SessionId(session: String) -> impl IntoView {
    view! {
        <span class="agent-session muted" title=format!("Session {session}")>{short_session(&session)}</span>
    }
}

/// The inbox's strip: the agents waiting on the developer, one click (or
/// Alt+J) from the Agents view.
#[component]
pub fn WaitingStrip(on_show: Callback<()>) -> impl IntoView {
    let agents = use_context::<Agents>();
    move || {
        let agents = agents?;
        // Those waiting on a question are in the alert bar already.
        let waiting: Vec<AgentRow> = agents
            .rows
            .get()
            .into_iter()
            .filter(|row| row.shown.waits() && row.record.waiting_on.is_none())
            .collect();
        (!waiting.is_empty()).then(|| {
            let names: Vec<String> = waiting
                .iter()
                .map(|row| format!("{}: {}", row.record.who(), row.shown.label()))
                .collect();
            view! {
                <div class="agents-strip" id="agents-strip" role="status">
                    <span>{format!("{} waiting: {}", if waiting.len() == 1 { "1 agent".to_owned() } else { format!("{} agents", waiting.len()) }, names.join(" · "))}</span>
                    <button class="quiet" id="agents-strip-open" title="Agents (Alt+J)" on:click=move |_| on_show.run(())>"Show agents"</button>
                </div>
            }
        })
    }
}
