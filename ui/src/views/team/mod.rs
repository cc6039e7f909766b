//! The Team view: opencode-teams' teams in the workspace — members and
//! their inboxes, the ready queue, the board by status, and the actions
//! the plugin's agents take (create, claim, advance, edit dependencies,
//! message) — and Claude Code's teams working in it, read only. Follows
//! the files live: a task an agent completes moves here without a reload.

mod board;
mod drawer;
mod graph;
mod messages;
mod picker;

use std::collections::HashMap;

use leptos::prelude::*;
use switchboard_model::{
    agent::launch::LaunchRow,
    ipc::{StoreChange, TeamCreateRequest},
    team::{TeamBoard, TeamEntry, TeamSource},
};

use crate::{events, ipc, tasks};

/// What the view's parts share.
#[derive(Debug, Clone, Copy)]
pub struct TeamState {
    /// The teams in the workspace.
    pub teams: RwSignal<Vec<TeamEntry>>,
    /// The team shown.
    pub team: RwSignal<Option<TeamEntry>>,
    /// Its board, as last read.
    pub board: RwSignal<Option<TeamBoard>>,
    /// The last failure to read.
    pub error: RwSignal<Option<String>>,
    /// The last change the rules refused: the task, and why in the
    /// plugin's words; kept across refreshes until the next change.
    pub refused: RwSignal<Option<(String, String)>>,
    /// What was typed into each card's dependency field, by task, so a
    /// card redrawn by a refresh keeps it.
    pub drafts: StoredValue<HashMap<String, String>>,
    /// The task whose drawer is open.
    pub open: RwSignal<Option<String>>,
    /// Whether the dependency graph is open.
    pub graph_open: RwSignal<bool>,
    /// The agents started here, for the cards of the tasks they work on.
    pub launches: RwSignal<Vec<LaunchRow>>,
}

impl TeamState {
    /// Reads the team list and the shown team's board again.
    pub fn reload(self) {
        tasks::fetch(async move {
            let teams = match ipc::teams().await {
                Ok(teams) => teams,
                Err(failure) => {
                    self.error.set(Some(failure.message));
                    return;
                }
            };
            let shown = self
                .team
                .get_untracked()
                .filter(|team| teams.contains(team))
                .or_else(|| teams.first().cloned());
            self.teams.set(teams);
            self.team.set(shown.clone());
            let Some(team) = shown else {
                self.board.set(None);
                return;
            };
            match ipc::team_board(&team).await {
                Ok(board) => {
                    self.error.set(None);
                    self.board.set(Some(board));
                }
                Err(failure) => self.error.set(Some(failure.message)),
            }
        });
    }

    /// The shown team's name.
    pub fn team_name(self) -> String {
        self.team
            .get_untracked()
            .map(|team| team.name)
            .unwrap_or_default()
    }

    /// Whether the shown board may be changed from here (Claude Code's
    /// teams are read only).
    pub fn writable(self) -> Memo<bool> {
        Memo::new(move |_| {
            self.board
                .with(|board| board.as_ref().is_some_and(|board| board.source.writable()))
        })
    }
}

/// The picker's value for a team.
fn key(team: &TeamEntry) -> String {
    match team.source {
        TeamSource::OpencodeTeams => format!("opencode:{}", team.name),
        TeamSource::ClaudeCode => format!("claude:{}", team.name),
    }
}

/// The picker's label for a team.
fn label(team: &TeamEntry) -> String {
    match team.source {
        TeamSource::OpencodeTeams => team.name.clone(),
        TeamSource::ClaudeCode => format!("{} (Claude Code, read only)", team.name),
    }
}

/// The view.
#[component]
pub fn Team() -> impl IntoView {
    let state = TeamState {
        teams: RwSignal::new(Vec::new()),
        team: RwSignal::new(None),
        board: RwSignal::new(None),
        error: RwSignal::new(None),
        refused: RwSignal::new(None),
        drafts: StoredValue::new(HashMap::new()),
        open: RwSignal::new(None),
        graph_open: RwSignal::new(false),
        launches: RwSignal::new(Vec::new()),
    };
    state.reload();
    let read_launches = move || {
        tasks::fetch(async move {
            if let Ok(rows) = ipc::launches().await {
                state.launches.set(rows);
            }
        })
    };
    read_launches();
    events::on_store_change(move |change| match change {
        StoreChange::Team => state.reload(),
        StoreChange::Agents => read_launches(),
        _ => {}
    });
    // Drawn once a board is there; its parts follow the board themselves.
    let has_board = Memo::new(move |_| state.board.with(Option::is_some));
    let writable = state.writable();
    view! {
        <section class="team" id="view-team">
            <header class="view-header">
                <h1>"Team"</h1>
                <TeamPicker state />
                <NewTeam state />
            </header>
            {move || state.error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
            <BoardNotes state />
            // The forms stay put while the board refreshes under them, so
            // a draft survives the agents' changes.
            <div class="team-columns" class:hidden=move || state.board.with(Option::is_none)>
                <div class="team-board">
                    {move || has_board.get().then(|| view! { <board::Board state /> })}
                    <graph::DependencyGraph state />
                    <div class:hidden=move || !writable.get()><board::NewTaskForm state /></div>
                </div>
                <drawer::TaskDrawer state />
                <aside class="team-side">
                    {move || state.board.get().map(|board| view! { <messages::Members board /> })}
                    <div class:hidden=move || !writable.get()><messages::SendForm state /></div>
                </aside>
            </div>
        </section>
    }
}

/// The teams to choose from (none shown while there are none).
#[component]
fn TeamPicker(state: TeamState) -> impl IntoView {
    move || {
        let teams = state.teams.get();
        (!teams.is_empty()).then(|| view! {
            <label class="team-picker">
                "Team "
                <select
                    id="team-picker"
                    on:change=move |event| {
                        let chosen = event_target_value(&event);
                        let team = state.teams.with_untracked(|teams| {
                            teams.iter().find(|team| key(team) == chosen).cloned()
                        });
                        state.team.set(team);
                        state.refused.set(None);
                        state.reload();
                    }
                >
                    {teams
                        .into_iter()
                        .map(|team| {
                            let selected = state.team.get_untracked().as_ref() == Some(&team);
                            view! { <option value=key(&team) selected=selected>{label(&team)}</option> }
                        })
                        .collect_view()}
                </select>
            </label>
        })
    }
}

/// "New team": a name, and the team is made as opencode-teams makes one
/// (its leader the plugin's own), then shown.
#[component]
fn NewTeam(state: TeamState) -> impl IntoView {
    let open = RwSignal::new(false);
    let name = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let create = move || {
        let request = TeamCreateRequest {
            name: name.get_untracked().trim().to_owned(),
            leader: None,
        };
        tasks::act(async move {
            match ipc::team_create(&request).await {
                Ok(config) => {
                    open.set(false);
                    name.set(String::new());
                    error.set(None);
                    state.team.set(Some(TeamEntry {
                        name: config.name,
                        source: TeamSource::OpencodeTeams,
                    }));
                    state.reload();
                }
                Err(failure) => error.set(Some(failure.message)),
            }
        });
    };
    view! {
        <button class="quiet" id="team-new" aria-expanded=move || open.get().to_string() on:click=move |_| open.update(|open| *open = !*open)>
            "New team"
        </button>
        {move || open.get().then(|| view! {
            <form class="team-new-form" id="team-new-form" on:submit=move |event| { event.prevent_default(); create(); }>
                <input id="team-new-name" placeholder="web (letters, digits, - and _)" autofocus=true
                    prop:value=move || name.get() on:input=move |event| name.set(event_target_value(&event)) />
                <button type="submit" class="primary" id="team-create">"Create"</button>
                {move || error.get().map(|message| view! { <p class="error" id="team-create-error" role="alert">{message}</p> })}
            </form>
        })}
    }
}

/// What the board says about itself: a team with none yet, Claude Code's
/// read-only team, files that could not be read.
#[component]
fn BoardNotes(state: TeamState) -> impl IntoView {
    move || match state.board.get() {
        None if state.teams.get().is_empty() => view! {
            <p class="muted" id="team-empty">
                "No team in this workspace yet. Make one with New team (or "
                <code>"switchboard team create NAME"</code>
                "); teams opencode-teams creates in "
                <code>".opencode/opencode-teams/"</code>
                " and Claude Code agent teams working in this folder appear here too."
            </p>
        }
        .into_any(),
        None => view! { <p class="muted">"Loading…"</p> }.into_any(),
        Some(board) => {
            let note = (!board.source.writable()).then(|| view! {
                    <p class="muted" id="team-read-only">
                        "Claude Code's team: shown as its agents leave it, read only — Switchboard never changes Claude Code's files."
                    </p>
                });
            let problems = board
                .problems
                .iter()
                .map(|problem| {
                    view! {
                        <p class="warning team-problem" role="status">
                            {format!("Not read: {} — {}", problem.path, problem.reason)}
                        </p>
                    }
                })
                .collect_view();
            view! { {note} {problems} }.into_any()
        }
    }
}
