//! "All workspaces", in the Agents view: what waits in every other
//! workspace a Switchboard runs on on this machine (a window, a server, or
//! a question asked where no window is open) — its questions, answered
//! right here in their own workspace's inbox, its agents, and a button
//! that opens its window. Followed while the view is open.

use leptos::prelude::*;
use switchboard_model::{
    ErrorPayload, Timestamp, age_label,
    ipc::StoreChange,
    registry::{WaitingQuestion, WorkspaceAttention},
};

use crate::{events, ipc, tasks, views::inbox::DeliveryView};

/// The other running workspaces, and a question of one of them when it is
/// open.
#[component]
pub fn AllWorkspaces(now: RwSignal<Timestamp>) -> impl IntoView {
    let lines = RwSignal::new(None::<Result<Vec<WorkspaceAttention>, ErrorPayload>>);
    // The question open (its id, as the delivery view closes it) and the
    // workspace it is in.
    let selected = RwSignal::new(None::<String>);
    let open_in = RwSignal::new(None::<String>);
    let revision = RwSignal::new(0_u64);
    // Reads can overlap (each reads every workspace's files): only the
    // latest one asked for is shown, never an older one finishing last.
    let asked = StoredValue::new(0_u64);
    let refresh = move || {
        asked.update_value(|asked| *asked += 1);
        let this = asked.get_value();
        tasks::fetch(async move {
            let read = ipc::everywhere().await;
            if asked.get_value() == this {
                lines.set(Some(read));
            }
        });
        revision.update(|revision| *revision += 1);
    };
    refresh();
    events::on_everywhere(refresh);
    // A window opened or closed here changes nothing elsewhere, but this
    // workspace's own questions are in the count.
    events::on_store_change(move |change| {
        if matches!(change, StoreChange::Deliveries | StoreChange::Agents) {
            refresh();
        }
    });
    let choose = Callback::new(move |(workspace, id): (String, String)| {
        open_in.set(Some(workspace));
        selected.set(Some(id));
    });
    view! {
        <section class="everywhere" id="all-workspaces" aria-labelledby="all-workspaces-title">
            <h2 id="all-workspaces-title">"All workspaces"</h2>
            {move || match selected.get() {
                Some(id) => view! {
                    <DeliveryView id selected revision now workspace=open_in.get_untracked().unwrap_or_default() />
                }
                .into_any(),
                None => view! { <Lines lines now choose /> }.into_any(),
            }}
        </section>
    }
}

/// Each other workspace's line.
#[component]
fn Lines(
    lines: RwSignal<Option<Result<Vec<WorkspaceAttention>, ErrorPayload>>>,
    now: RwSignal<Timestamp>,
    choose: Callback<(String, String)>,
) -> impl IntoView {
    move || match lines.get() {
        None => view! { <p class="muted">"Loading…"</p> }.into_any(),
        Some(Err(failure)) => {
            view! { <p class="error" role="alert">{failure.message}</p> }.into_any()
        }
        Some(Ok(lines)) => {
            let others: Vec<WorkspaceAttention> =
                lines.into_iter().filter(|line| !line.current).collect();
            if others.is_empty() {
                return view! {
                    <p class="muted" id="all-workspaces-empty">
                        "No other workspace has a Switchboard running on this machine. Open one with "
                        <code>"switchboard open"</code>
                        " in another folder; its agents' questions show here."
                    </p>
                }
                .into_any();
            }
            view! {
                <ul class="workspace-lines">
                    {others
                        .into_iter()
                        .map(|line| view! { <WorkspaceLine line now choose /> })
                        .collect_view()}
                </ul>
            }
            .into_any()
        }
    }
}

/// One workspace: its name and folder, what keeps it running, what waits,
/// its questions and its agents.
#[component]
fn WorkspaceLine(
    line: WorkspaceAttention,
    now: RwSignal<Timestamp>,
    choose: Callback<(String, String)>,
) -> impl IntoView {
    let waiting = line.waiting();
    let root = line.workspace.clone();
    let error = RwSignal::new(None::<String>);
    let open_window = move |_| {
        let root = root.clone();
        tasks::act(async move {
            if let Err(failure) = ipc::open_workspace(&root).await {
                error.set(Some(failure.message));
            }
        });
    };
    let presences = line
        .presences
        .iter()
        .map(|presence| presence.as_str())
        .collect::<Vec<_>>()
        .join(" · ");
    let workspace = line.workspace.clone();
    view! {
        <li class="workspace-line" data-workspace=line.workspace.clone()>
            <div class="workspace-head">
                <strong class="line-name">{line.name.clone()}</strong>
                <span class="muted line-path">{line.workspace.clone()}</span>
                <span class="badge line-presences">{presences}</span>
                <span class="workspace-waiting" class:count={waiting > 0}>
                    {if waiting == 0 { "nothing waiting".to_owned() } else { format!("{waiting} waiting") }}
                </span>
                {(!ipc::in_browser()).then(|| view! {
                    <button class="open-window" title="Open this workspace's window (or bring it forward)" on:click=open_window>
                    "Open its window"
                </button>
                })}
            </div>
            {move || error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
            {line.problems.into_iter().map(|problem| view! { <p class="warning" role="status">{problem}</p> }).collect_view()}
            <ul class="workspace-questions">
                {line
                    .questions
                    .into_iter()
                    .map(|question| view! { <QuestionRow workspace=workspace.clone() question now choose /> })
                    .collect_view()}
            </ul>
            <ul class="workspace-agents">
                {line
                    .agents
                    .into_iter()
                    .map(|row| {
                        let since = row.record.since;
                        view! {
                            <li class="workspace-agent" data-state=row.shown.as_str()>
                                <span class="agent-name">{row.record.who()}</span>
                                <span class=format!("badge state-{}", row.shown.as_str())>{row.shown.label()}</span>
                                <time class="age">{move || age_label(since, now.get())}</time>
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
        </li>
    }
}

/// A question waiting in another workspace: Enter or a click opens it here.
#[component]
fn QuestionRow(
    workspace: String,
    question: WaitingQuestion,
    now: RwSignal<Timestamp>,
    choose: Callback<(String, String)>,
) -> impl IntoView {
    let since = question.since;
    let id = question.id.clone();
    view! {
        <li>
            <button
                class="workspace-question"
                data-id=question.id.clone()
                on:click=move |_| choose.run((workspace.clone(), id.clone()))
            >
                <span class="question-title">{question.title}</span>
                <span class=format!("badge mode-{}", question.mode.as_str())>{question.mode.as_str()}</span>
                <time class="age">{move || age_label(since, now.get())}</time>
            </button>
        </li>
    }
}
