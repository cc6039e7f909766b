//! One task in full: its description, what it depends on and what waits
//! for it (each a link to that task), and its history from its times.
//! Escape closes it.

use leptos::prelude::*;
use switchboard_model::team::{Task, TeamBoard, dependents_of};

use super::TeamState;

/// The drawer of the task `state.open` names, if it is on the board.
#[component]
pub fn TaskDrawer(state: TeamState) -> impl IntoView {
    let escape = window_event_listener(leptos::ev::keydown, move |event| {
        if event.key() == "Escape" {
            state.open.set(None);
        }
    });
    on_cleanup(move || escape.remove());
    move || {
        let id = state.open.get()?;
        let board = state.board.get()?;
        let task = board.tasks.iter().find(|task| task.id == id)?.clone();
        Some(drawer(task, &board, state))
    }
}

fn link(id: String, board: &TeamBoard, state: TeamState) -> impl IntoView + use<> {
    let title = board.tasks.iter().find(|task| task.id == id).map_or_else(
        || format!("{id} (not on the board)"),
        |task| task.title.clone(),
    );
    let target = id.clone();
    view! {
        <li>
            <button class="link task-link" data-id=id on:click=move |_| state.open.set(Some(target.clone()))>
                {title}
            </button>
        </li>
    }
}

fn drawer(task: Task, board: &TeamBoard, state: TeamState) -> impl IntoView + use<> {
    let dependencies: Vec<_> = task
        .dependencies
        .iter()
        .map(|id| link(id.clone(), board, state))
        .collect();
    let dependents: Vec<_> = dependents_of(&task.id, &board.tasks)
        .into_iter()
        .map(|id| link(id, board, state))
        .collect();
    // Claude Code's tasks carry no times; the file's own stands in.
    let created = if board.source.writable() {
        "created"
    } else {
        "file last written"
    };
    let mut history: Vec<(String, &str)> = [
        (Some(task.created_at), created),
        (task.claimed_at, "claimed"),
        (task.completed_at, "completed"),
        (task.updated_at, "last changed"),
    ]
    .into_iter()
    .filter_map(|(time, what)| time.map(|time| (time.to_string(), what)))
    .collect();
    history.sort();
    view! {
        <aside class="task-drawer" id="task-drawer" data-id=task.id.clone() aria-label="Task">
            <button class="close" id="task-drawer-close" title="Close (Esc)" on:click=move |_| state.open.set(None)>"×"</button>
            <h2>{task.title.clone()}</h2>
            <p class="meta">
                <span class=format!("badge status-{}", task.status.as_str())>{task.status.as_str().replace('_', " ")}</span>
                " "
                <span class=format!("badge priority-{}", task.priority.as_str())>{task.priority.as_str()}</span>
                {task.owner.clone().map(|owner| view! { <span class="owner">" @" {owner}</span> })}
            </p>
            <p class="task-id-line">
                <code class="task-id" id="task-drawer-id">{task.id.clone()}</code>
                <CopyId id=task.id.clone() />
            </p>
            {task.warning.clone().map(|warning| view! { <p class="warning">{warning}</p> })}
            {task.extra.get("activeForm").and_then(|form| form.as_str()).map(|form| view! { <p class="active-form">{form.to_owned()}</p> })}
            <p class="description">{task.description.clone().unwrap_or_else(|| "No description.".into())}</p>
            <h3>"Depends on"</h3>
            {if dependencies.is_empty() {
                view! { <p class="muted">"Nothing left to wait for."</p> }.into_any()
            } else {
                view! { <ul class="drawer-dependencies">{dependencies}</ul> }.into_any()
            }}
            <h3>"Waited on by"</h3>
            {if dependents.is_empty() {
                view! { <p class="muted">"No task waits for it."</p> }.into_any()
            } else {
                view! { <ul class="drawer-dependents">{dependents}</ul> }.into_any()
            }}
            <h3>"History"</h3>
            <ol class="history">
                {history
                    .into_iter()
                    .map(|(time, what)| view! { <li><time datetime=time.clone()>{time.clone()}</time> " " {what}</li> })
                    .collect_view()}
            </ol>
        </aside>
    }
}

/// Copies a task's id to the clipboard, and says so.
#[component]
fn CopyId(id: String) -> impl IntoView {
    let copied = RwSignal::new(false);
    let copy = move |_| {
        let Some(window) = web_sys::window() else {
            return;
        };
        let promise = window.navigator().clipboard().write_text(&id);
        crate::tasks::act(async move {
            copied.set(wasm_bindgen_futures::JsFuture::from(promise).await.is_ok());
        });
    };
    view! {
        <button class="link" id="task-drawer-copy-id" title="Copy the id (for the CLI and agents)" on:click=copy>
            {move || if copied.get() { "Copied" } else { "Copy id" }}
        </button>
    }
}
