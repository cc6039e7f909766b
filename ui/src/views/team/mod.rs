//! The Team view: opencode-teams' teams in the workspace — members and
//! their inboxes, the ready queue, the board by status, and the actions
//! the plugin's agents take (create, claim, advance, edit dependencies,
//! message). Follows the files live: a task an agent completes moves here
//! without a reload.

mod board;
mod drawer;
mod graph;
mod messages;

use leptos::prelude::*;
use switchboard_model::{ipc::StoreChange, team::TeamBoard};

use crate::{events, ipc, tasks};

/// What the view's parts share.
#[derive(Debug, Clone, Copy)]
pub struct TeamState {
    /// The teams in the workspace.
    pub teams: RwSignal<Vec<String>>,
    /// The team shown.
    pub team: RwSignal<Option<String>>,
    /// Its board, as last read.
    pub board: RwSignal<Option<TeamBoard>>,
    /// The last failure to read.
    pub error: RwSignal<Option<String>>,
    /// The last change the rules refused (in the plugin's words); kept
    /// across refreshes until the next change.
    pub refused: RwSignal<Option<String>>,
    /// The task whose drawer is open.
    pub open: RwSignal<Option<String>>,
    /// Whether the dependency graph is open.
    pub graph_open: RwSignal<bool>,
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
        self.team.get_untracked().unwrap_or_default()
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
        open: RwSignal::new(None),
        graph_open: RwSignal::new(false),
    };
    state.reload();
    events::on_store_change(move |change| {
        if change == StoreChange::Team {
            state.reload();
        }
    });
    // Drawn once a board is there; its parts follow the board themselves.
    let has_board = Memo::new(move |_| state.board.with(Option::is_some));
    view! {
        <section class="team" id="view-team">
            <header class="view-header">
                <h1>"Team"</h1>
                {move || {
                    let teams = state.teams.get();
                    (!teams.is_empty()).then(|| view! {
                        <label class="team-picker">
                            "Team "
                            <select
                                id="team-picker"
                                on:change=move |event| {
                                    state.team.set(Some(event_target_value(&event)));
                                    state.reload();
                                }
                            >
                                {teams
                                    .into_iter()
                                    .map(|team| {
                                        let selected = state.team.get_untracked().as_deref() == Some(team.as_str());
                                        view! { <option value=team.clone() selected=selected>{team.clone()}</option> }
                                    })
                                    .collect_view()}
                            </select>
                        </label>
                    })
                }}
            </header>
            {move || state.error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
            {move || match state.board.get() {
                None if state.teams.get().is_empty() => view! {
                    <p class="muted" id="team-empty">
                        "No opencode-teams team in this workspace yet. Teams appear here when the plugin creates them in "
                        <code>".opencode/opencode-teams/"</code>
                        "."
                    </p>
                }
                .into_any(),
                None => view! { <p class="muted">"Loading…"</p> }.into_any(),
                Some(board) => board
                    .problems
                    .iter()
                    .map(|problem| view! {
                        <p class="warning team-problem" role="status">
                            {format!("Not read: {} — {}", problem.path, problem.reason)}
                        </p>
                    })
                    .collect_view()
                    .into_any(),
            }}
            // The forms stay put while the board refreshes under them, so
            // a draft survives the agents' changes.
            <div class="team-columns" class:hidden=move || state.board.with(Option::is_none)>
                <div class="team-board">
                    {move || has_board.get().then(|| view! { <board::Board state /> })}
                    <graph::DependencyGraph state />
                    {move || state.refused.get().map(|message| view! { <p class="error" role="alert" id="team-error">{message}</p> })}
                    <board::NewTaskForm state />
                </div>
                <drawer::TaskDrawer state />
                <aside class="team-side">
                    {move || state.board.get().map(|board| view! { <messages::Members board /> })}
                    <messages::SendForm state />
                </aside>
            </div>
        </section>
    }
}
