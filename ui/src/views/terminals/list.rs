//! The Terminals list: the sessions in the order that matters (live ones,
//! then each investigation's, test's, fuzz run's or chain's sessions as one
//! row that opens onto them and its report, then ended ones).

use leptos::prelude::*;
use switchboard_model::program::{
    Controller, ProgramSession, SessionState,
    view::{ListEntry, RunRow, arrange},
};

use super::TerminalsState;

/// The session the list shows first, if any.
pub(super) fn first_listed(sessions: &[ProgramSession]) -> Option<String> {
    match arrange(sessions).into_iter().next()? {
        ListEntry::Session(session) => Some(session.id),
        ListEntry::Run(row) => row.sessions.first().map(|session| session.id.clone()),
    }
}

/// The sessions in the order that matters (`model::program::view::arrange`):
/// live ones, then each run's as one row, then ended ones.
#[component]
pub(super) fn SessionList(state: TerminalsState) -> impl IntoView {
    move || {
        let sessions = state.sessions.get();
        // A started agent's row names its agent and state.
        state.launches.track();
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
        arrange(&sessions)
            .into_iter()
            .map(|entry| match entry {
                ListEntry::Session(session) => view! { <SessionItem state session /> }.into_any(),
                ListEntry::Run(row) => view! { <RunItem state row /> }.into_any(),
            })
            .collect_view()
            .into_any()
    }
}

/// One session: its name, command, state and who has it.
#[component]
fn SessionItem(state: TerminalsState, session: ProgramSession) -> impl IntoView {
    let id = session.id.clone();
    let mut details = vec![session.state.as_str().to_owned()];
    if let Some(exit) = session.exit {
        details.push(exit.to_string());
    }
    if session.controller == Controller::User {
        details.push("yours".to_owned());
    }
    let current = {
        let id = id.clone();
        move || {
            state
                .selected
                .with(|selected| selected.as_deref() == Some(id.as_str()))
        }
    };
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
            {session.started_by.clone().map(|agent| view! { <span class="badge sent-by" title="Started over HTTP with this agent's token">{format!("from {agent}")}</span> })}
            {match state.agent_of(&session.id) {
                Some(row) => view! { <span class="session-command session-agent">{format!("{} · {}", row.launch.agent.label(), row.label())}</span> }.into_any(),
                None => view! { <code class="session-command">{session.command_line()}</code> }.into_any(),
            }}
            <span class="muted session-details">{details.join(" · ")}</span>
        </button>
    }
}

/// The sessions one investigation, test, fuzz run or chain started: one
/// row, opened to list them and to reach the report it wrote.
#[component]
fn RunItem(state: TerminalsState, row: RunRow) -> impl IntoView {
    let run = row.run.clone();
    let open = {
        let run = run.clone();
        Memo::new(move |_| {
            state
                .expanded
                .with(|expanded| expanded.as_deref() == Some(run.as_str()))
        })
    };
    let toggle = {
        let run = run.clone();
        move |_| {
            state.expanded.update(|expanded| {
                *expanded = if expanded.as_deref() == Some(run.as_str()) {
                    None
                } else {
                    Some(run.clone())
                };
            })
        }
    };
    let report = move |_| {
        state.report_of_run.set(Some(run.clone()));
        state.reports.set(true);
    };
    let headline = row.headline();
    // Investigations, tests and fuzz runs write a report; chains do not.
    let writes_report = matches!(row.purpose.as_str(), "investigate" | "test" | "fuzz");
    let sessions = row.sessions;
    view! {
        <div class="run-group" data-run=row.run.clone()>
            <button
                class="session-item run-item"
                class:ended=row.live == 0
                aria-expanded=move || open.get().to_string()
                on:click=toggle
            >
                <span class="session-name">{headline}</span>
                <code class="session-command">{row.run.clone()}</code>
            </button>
            {move || open.get().then(|| {
                let report = report.clone();
                view! {
                    <div class="run-sessions">
                        {writes_report.then(|| view! {
                            <button class="link run-report" on:click=report>"Open its report"</button>
                        })}
                        {sessions
                            .clone()
                            .into_iter()
                            .map(|session| view! { <SessionItem state session /> })
                            .collect_view()}
                    </div>
                }
            })}
        </div>
    }
}
