//! The task board: the ready queue, one column per status, each task with
//! its priority, owner, warning and whether it waits; and the forms that
//! create a task or change one.

use leptos::prelude::*;
use switchboard_model::{
    agent::launch::{LaunchRequest, WorktreeChoice},
    ipc::{TaskAdvanceRequest, TaskClaimRequest, TaskCreateRequest, TaskDepsRequest},
    team::{DependencyState, Priority, Task, TaskAction, TaskStatus, dependency_states, readiness},
};

use super::{TeamState, picker};
use crate::{ipc, kept::KeptText, tasks};

/// A task as a card shows it, and the key that changes whenever anything
/// the card shows does, so a refresh redraws only the cards that changed.
#[derive(Debug, Clone)]
struct Shown {
    task: Task,
    waiting: bool,
    key: String,
}

/// Two cards are the same when they show the same.
impl PartialEq for Shown {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl Shown {
    fn new(task: Task, waiting: bool) -> Self {
        let key = format!(
            "{}|{}|{}|{}|{:?}|{:?}|{:?}|{}|{}",
            task.id,
            task.status,
            task.priority.as_str(),
            task.title,
            task.owner,
            task.warning,
            task.updated_at,
            task.dependencies.join(","),
            waiting
        );
        Self { task, waiting, key }
    }
}

/// The board. It is drawn once; each column follows the board's tasks by
/// key, so a change redraws the cards it touched, not the whole board.
#[component]
pub fn Board(state: TeamState) -> impl IntoView {
    let writable = state.writable();
    let tasks = Memo::new(move |_| {
        state.board.with(|board| {
            let Some(board) = board else {
                return Vec::new();
            };
            board
                .tasks
                .iter()
                .zip(readiness(&board.tasks))
                .map(|(task, ready)| {
                    Shown::new(task.clone(), task.status == TaskStatus::Pending && !ready)
                })
                .collect::<Vec<Shown>>()
        })
    });
    let members = Memo::new(move |_| {
        state.board.with(|board| {
            board
                .as_ref()
                .map(|board| {
                    board
                        .config
                        .members
                        .iter()
                        .map(|m| m.agent_id.clone())
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    });
    let columns = TaskStatus::ALL.map(|status| {
        let in_column = move || {
            tasks.with(|tasks| {
                tasks
                    .iter()
                    .filter(|shown| shown.task.status == status)
                    .cloned()
                    .collect::<Vec<_>>()
            })
        };
        let count = move || tasks.with(|tasks| tasks.iter().filter(|s| s.task.status == status).count());
        view! {
            <section class="task-column" id=format!("column-{}", status.as_str()) aria-label=status.as_str()>
                <h2>{status.as_str().replace('_', " ")} " (" {count} ")"</h2>
                <ul>
                    <For each=in_column key=|shown| shown.key.clone() let(shown)>
                        <TaskCard task=shown.task waiting=shown.waiting members=members.get_untracked() state writable=writable.get_untracked() />
                    </For>
                </ul>
            </section>
        }
    });
    view! {
        <ReadyQueue tasks state />
        <div class="task-columns">{columns}</div>
    }
}

/// The pending tasks whose dependencies are done, the first few unless
/// all are asked for; a title opens its task.
#[component]
fn ReadyQueue(tasks: Memo<Vec<Shown>>, state: TeamState) -> impl IntoView {
    let ready = Memo::new(move |_| {
        tasks.with(|tasks| {
            tasks
                .iter()
                .filter(|shown| shown.task.status == TaskStatus::Pending && !shown.waiting)
                .cloned()
                .collect::<Vec<_>>()
        })
    });
    let expanded = RwSignal::new(false);
    let ready_count = move || ready.with(Vec::len);
    let ready_shown = move || {
        let mut shown = ready.get();
        if !expanded.get() {
            shown.truncate(READY_SHOWN);
        }
        shown
    };
    view! {
        <section class="ready-queue" aria-label="Ready to start">
            <h2>"Ready to start (" <span id="ready-count">{ready_count}</span> ")"</h2>
            <ol id="ready-queue">
                <For each=ready_shown key=|shown| shown.key.clone() let(shown)>
                    <li class="ready" data-id=shown.task.id.clone()>
                        <span class=format!("badge priority-{}", shown.task.priority.as_str())>{shown.task.priority.as_str()}</span>
                        " "
                        <button class="link" on:click={
                            let id = shown.task.id.clone();
                            move |_| state.open.set(Some(id.clone()))
                        }>{shown.task.title.clone()}</button>
                    </li>
                </For>
            </ol>
            {move || (ready_count() > READY_SHOWN).then(|| view! {
                <button class="link" id="ready-more" aria-expanded=move || expanded.get().to_string() on:click=move |_| expanded.update(|on| *on = !*on)>
                    {move || if expanded.get() { "Show fewer".to_owned() } else { format!("Show all {}", ready_count()) }}
                </button>
            })}
        </section>
    }
}

/// How many tasks the ready queue shows before "Show all".
const READY_SHOWN: usize = 5;

/// Runs a change to task `id` and reloads the board after it, or shows
/// the refusal on that task's card.
fn change<T: 'static>(
    state: TeamState,
    id: String,
    work: impl std::future::Future<Output = Result<T, switchboard_model::ErrorPayload>> + 'static,
) {
    tasks::act(async move {
        match work.await {
            Ok(_) => {
                state.refused.set(None);
                state.reload();
            }
            Err(failure) => state.refused.set(Some((id, failure.message))),
        }
    });
}

/// One task on the board, with what can be done to it next (nothing on a
/// read-only team's board).
#[component]
fn TaskCard(
    task: Task,
    waiting: bool,
    members: Vec<String>,
    state: TeamState,
    writable: bool,
) -> impl IntoView {
    let id = StoredValue::new(task.id.clone());
    let edit = Callback::new(move |(add, remove): (Vec<String>, Vec<String>)| {
        let request = TaskDepsRequest {
            team: state.team_name(),
            id: id.get_value(),
            add,
            remove,
        };
        change(state, id.get_value(), async move {
            ipc::task_deps(&request).await
        });
    });
    let refusal = move || {
        state.refused.with(|refused| {
            refused
                .as_ref()
                .filter(|(task, _)| *task == id.get_value())
                .map(|(_, message)| view! { <p class="error" role="alert" id="team-error">{message.clone()}</p> })
        })
    };
    let dependencies = state.board.with_untracked(|board| {
        board
            .as_ref()
            .map(|board| dependency_states(&task, &board.tasks))
    });
    let editable = writable && task.status.allows(TaskAction::EditDependencies);
    let open_dependencies = dependencies
        .as_ref()
        .map_or(task.dependencies.len(), |found| {
            found.iter().filter(|dependency| !dependency.done).count()
        });
    let state_label = task
        .status
        .label(if waiting { open_dependencies } else { 0 });
    let state_class = if waiting {
        "task-state waiting".to_owned()
    } else {
        format!("task-state status-{}", task.status.as_str())
    };
    let mut exclude = task.dependencies.clone();
    exclude.push(task.id.clone());
    let pick = Callback::new(move |chosen: String| edit.run((vec![chosen], Vec::new())));
    view! {
        <li class=if waiting { "task waiting" } else { "task" } data-id=task.id.clone()>
            <button class="link task-title" title="Open the task (its id, history and links)" on:click=move |_| state.open.set(Some(id.get_value()))>
                {task.title.clone()}
            </button>
            <div class="task-meta">
                <span class=format!("badge priority-{}", task.priority.as_str())>{task.priority.as_str()}</span>
                {task.owner.clone().map(|owner| view! { <span class="owner">"@" {owner}</span> })}
                <span class=state_class>{state_label}</span>
            </div>
            <AgentOnTask id=task.id.clone() state />
            {task.warning.clone().map(|warning| view! { <p class="warning">{warning}</p> })}
            {task.description.clone().map(|text| view! { <p class="description">{text}</p> })}
            {(!task.dependencies.is_empty()).then(|| view! {
                <DependencyList dependencies=dependencies.unwrap_or_default() editable edit />
            })}
            {writable.then(|| view! { <TaskActions task=task.clone() members state /> })}
            {editable.then(|| view! {
                <picker::DependencyPicker id=task.id.clone() exclude state pick />
            })}
            {refusal}
        </li>
    }
}

/// A task's dependencies, done or not; each removable where the task's
/// dependencies may be edited.
#[component]
fn DependencyList(
    dependencies: Vec<DependencyState>,
    editable: bool,
    edit: Callback<(Vec<String>, Vec<String>)>,
) -> impl IntoView {
    view! {
        <ul class="task-deps" aria-label="Depends on">
            {dependencies
                .into_iter()
                .map(|DependencyState { id, title, done }| {
                    let label = format!("Remove the dependency on {title}");
                    let removed = id.clone();
                    view! {
                        <li class="task-dep" class:done=done data-id=id>
                            {if done { "✓ " } else { "needs " }} {title}
                            {editable.then(|| view! {
                                <button
                                    class="remove-dependency"
                                    title=label.clone()
                                    aria-label=label
                                    on:click=move |_| edit.run((Vec::new(), vec![removed.clone()]))
                                >"×"</button>
                            })}
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    }
}

/// The started agent working on the task, its state live, and the way to
/// it: its question while it asks, its review, its terminal.
#[component]
fn AgentOnTask(id: String, state: TeamState) -> impl IntoView {
    let navigation = use_context::<crate::app::Navigation>();
    move || {
        let team = state.team_name();
        state.launches.with(|rows| {
            switchboard_model::agent::launch::working_on(rows, &team, &id).map(|row| {
                let said = format!("{}: {}", row.launch.name, row.shown.on_card());
                let (name, session) = (row.launch.name.clone(), row.launch.session.clone());
                let question = row.waiting_on.clone();
                let reviewed = row.launch.worktree.is_some();
                view! {
                    <div class="task-agent-line">
                        <p class="task-agent" data-agent=name.clone()>{said}</p>
                        {navigation.map(|to| view! {
                            <div class="task-agent-links">
                            {question.map(|question| view! {
                                <button class="link task-agent-question" on:click=move |_| to.open_delivery(question.clone())>"Its question"</button>
                            })}
                            {reviewed.then(|| view! {
                                <button class="link task-agent-review" on:click=move |_| to.open_review(name.clone())>"Review"</button>
                            })}
                            <button class="link task-agent-terminal" on:click=move |_| to.open_terminal(session.clone())>"Terminal"</button>
                            </div>
                        })}
                    </div>
                }
            })
        })
    }
}

/// What can be done to the task next: start an agent on it or claim it
/// for a member, or complete it.
#[component]
fn TaskActions(task: Task, members: Vec<String>, state: TeamState) -> impl IntoView {
    let id = StoredValue::new(task.id.clone());
    let claimant = RwSignal::new(members.first().cloned().unwrap_or_default());
    let claim = move |_| {
        let request = TaskClaimRequest {
            team: state.team_name(),
            id: id.get_value(),
            agent: claimant.get_untracked(),
        };
        change(state, id.get_value(), async move {
            ipc::task_claim(&request).await
        });
    };
    let complete = move |_| {
        let request = TaskAdvanceRequest {
            team: state.team_name(),
            id: id.get_value(),
            status: TaskStatus::Completed,
        };
        change(state, id.get_value(), async move {
            ipc::task_advance(&request).await
        });
    };
    let start_agent = move |_| {
        let request = LaunchRequest {
            agent: "claude-code".to_owned(),
            worktree: Some(WorktreeChoice::AsAgent),
            task: Some(format!("{}/{}", state.team_name(), id.get_value())),
            ..LaunchRequest::default()
        };
        change(state, id.get_value(), async move {
            ipc::launch_start(&request).await
        });
    };
    if task.status.allows(TaskAction::Claim) {
        view! {
            <div class="task-actions">
                <button class="start-agent" title="Claude Code in a worktree of its own, told this task; it claims the task" on:click=start_agent>"Start an agent on it"</button>
                <select class="claim-as" aria-label="Claim for" on:change=move |event| claimant.set(event_target_value(&event))>
                    {members.into_iter().map(|member| view! { <option value=member.clone()>{member.clone()}</option> }).collect_view()}
                </select>
                <button class="claim" on:click=claim>"Claim"</button>
            </div>
        }
        .into_any()
    } else if task.status.allows(TaskAction::Complete) {
        view! {
            <div class="task-actions"><button class="complete" on:click=complete>"Complete"</button></div>
        }
        .into_any()
    } else {
        ().into_any()
    }
}

/// The form that creates a task, with its dependencies (the team's open
/// tasks, as they change).
#[component]
pub fn NewTaskForm(state: TeamState) -> impl IntoView {
    // A title being written is the window's: leaving the view keeps it.
    let title = KeptText::new("new-task-title".to_owned(), String::new()).text;
    let priority = RwSignal::new(Priority::Normal);
    let chosen = RwSignal::new(Vec::<String>::new());
    let error = RwSignal::new(None::<String>);
    let create = move |event: leptos::ev::SubmitEvent| {
        event.prevent_default();
        let request = TaskCreateRequest {
            team: state.team_name(),
            title: title.get_untracked(),
            description: None,
            priority: priority.get_untracked(),
            dependencies: chosen.get_untracked(),
        };
        tasks::act(async move {
            match ipc::task_create(&request).await {
                Ok(_) => {
                    error.set(None);
                    title.set(String::new());
                    chosen.set(Vec::new());
                    state.reload();
                }
                Err(failure) => error.set(Some(failure.message)),
            }
        });
    };
    view! {
        <form class="new-task" id="new-task" on:submit=create>
            <h2>"New task"</h2>
            <input
                id="new-task-title"
                placeholder="Title"
                prop:value=move || title.get()
                on:input=move |event| title.set(event_target_value(&event))
            />
            <select id="new-task-priority" aria-label="Priority" on:change=move |event| {
                priority.set(Priority::parse(&event_target_value(&event)).unwrap_or_default());
            }>
                {Priority::ALL
                    .map(|level| view! { <option value=level.as_str() selected=level == Priority::Normal>{level.as_str()}</option> })
                    .collect_view()}
            </select>
            <DependencyChoice state chosen />
            <button type="submit" class="primary" id="new-task-create">"Create"</button>
            {move || error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
        </form>
    }
}

/// The open tasks a new task may depend on, each a checkbox.
#[component]
fn DependencyChoice(state: TeamState, chosen: RwSignal<Vec<String>>) -> impl IntoView {
    let open = move || -> Vec<Task> {
        state
            .board
            .get()
            .map(|board| board.tasks)
            .unwrap_or_default()
            .into_iter()
            .filter(|task| task.status != TaskStatus::Completed)
            .collect()
    };
    view! {
        <fieldset class="new-task-deps">
            <legend>"Depends on"</legend>
            {move || open()
                .into_iter()
                .map(|task| {
                    let checked = chosen.with_untracked(|chosen| chosen.contains(&task.id));
                    let id = task.id.clone();
                    let toggle = move |event: leptos::ev::Event| {
                        let on = event_target_checked(&event);
                        let id = id.clone();
                        chosen.update(|chosen| {
                            chosen.retain(|other| *other != id);
                            if on {
                                chosen.push(id);
                            }
                        });
                    };
                    view! {
                        <label class="dep-choice">
                            <input type="checkbox" value=task.id.clone() prop:checked=checked on:change=toggle />
                            {task.title}
                        </label>
                    }
                })
                .collect_view()}
        </fieldset>
    }
}
