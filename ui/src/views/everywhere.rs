//! "All workspaces", in the Agents view: what waits in every other
//! workspace a Switchboard runs on on this machine (a window, a server, or
//! a question asked where no window is open) — its questions, answered
//! right here in their own workspace's inbox, its agents, and a button
//! that opens its window. Followed for the page's life ([`Everywhere`]),
//! which the inbox's bar of questions waiting elsewhere and the title's
//! count share. Its questions are reached by keys too: ↓ past the last
//! agent, ↑/↓ (or k/j) between them, Enter opens one; Alt+J, with no
//! agent waiting here, brings the next one.

use leptos::prelude::*;
use switchboard_model::{
    ErrorPayload, Timestamp, age_label,
    ipc::StoreChange,
    registry::{WaitingQuestion, WorkspaceAttention, waiting_elsewhere},
};
use wasm_bindgen::JsCast as _;

use crate::{events, ipc, tasks, views::inbox::DeliveryView};

/// What waits in every running workspace, this one's included, followed
/// for the page's life (from the context).
#[derive(Clone, Copy)]
pub struct Everywhere {
    /// As last read (none before the first answer).
    pub lines: RwSignal<Option<Result<Vec<WorkspaceAttention>, ErrorPayload>>>,
    /// Bumped at each change, so an open question reads itself again.
    pub revision: RwSignal<u64>,
    /// The next question is to take the focus once the list shows (Alt+J
    /// with no agent waiting here).
    pub focus_next: RwSignal<bool>,
}

impl Everywhere {
    /// Follows every running workspace from now on: now, at each change
    /// elsewhere, and at each change of this workspace's questions or
    /// agents (they are in the counts).
    pub fn follow() -> Self {
        let everywhere = Self {
            lines: RwSignal::new(None),
            revision: RwSignal::new(0),
            focus_next: RwSignal::new(false),
        };
        // Reads can overlap (each reads every workspace's files): only the
        // latest one asked for is shown, never an older one finishing last.
        let asked = StoredValue::new(0_u64);
        let refresh = move || {
            asked.update_value(|asked| *asked += 1);
            let this = asked.get_value();
            tasks::fetch(async move {
                let read = ipc::everywhere().await;
                if asked.get_value() == this {
                    everywhere.lines.set(Some(read));
                    everywhere.revision.update(|revision| *revision += 1);
                }
            });
        };
        refresh();
        events::on_everywhere(refresh);
        events::on_store_change(move |change| {
            if matches!(change, StoreChange::Deliveries | StoreChange::Agents) {
                refresh();
            }
        });
        everywhere
    }

    /// The questions waiting in other workspaces, in words, as a signal.
    pub fn elsewhere(self) -> Option<String> {
        self.lines.with(|lines| {
            lines
                .as_ref()
                .and_then(|lines| lines.as_ref().ok())
                .and_then(|lines| waiting_elsewhere(lines))
        })
    }

    /// How many things wait on the developer everywhere, this workspace
    /// included, as a signal (the title's count).
    pub fn waiting_total(self) -> usize {
        self.lines.with(|lines| {
            lines
                .as_ref()
                .and_then(|lines| lines.as_ref().ok())
                .map_or(0, |lines| {
                    switchboard_model::registry::waiting_everywhere(lines)
                })
        })
    }
}

/// The questions of "All workspaces" as drawn now, in order.
fn question_buttons() -> Vec<web_sys::HtmlElement> {
    let Ok(found) = document().query_selector_all("#all-workspaces .workspace-question") else {
        return Vec::new();
    };
    (0..found.length())
        .filter_map(|index| found.item(index))
        .filter_map(|node| node.dyn_into::<web_sys::HtmlElement>().ok())
        .collect()
}

/// Moves the focus `by` questions from the focused one (from before the
/// first when none is); `false` when it would leave the list.
pub fn focus_question(by: isize) -> bool {
    let buttons = question_buttons();
    let focused = document().active_element();
    let at = buttons.iter().position(|button| {
        focused
            .as_ref()
            .is_some_and(|focused| focused == button.unchecked_ref::<web_sys::Element>())
    });
    let next = match at {
        Some(at) => at as isize + by,
        None if by > 0 => by - 1,
        None => return false,
    };
    match usize::try_from(next)
        .ok()
        .and_then(|next| buttons.get(next))
    {
        Some(button) => {
            let _ = button.focus();
            true
        }
        None => false,
    }
}

/// Whether a key went to a question of "All workspaces" (the Agents
/// view's own keys leave it alone).
pub fn holds_focus() -> bool {
    document()
        .active_element()
        .is_some_and(|focused| focused.closest("#all-workspaces").ok().flatten().is_some())
}

/// The other running workspaces, and a question of one of them when it is
/// open.
#[component]
pub fn AllWorkspaces(now: RwSignal<Timestamp>) -> impl IntoView {
    let Some(everywhere) = use_context::<Everywhere>() else {
        return view! { <p class="error">"The other workspaces are not followed."</p> }.into_any();
    };
    let (lines, revision) = (everywhere.lines, everywhere.revision);
    // The question open (its id, as the delivery view closes it) and the
    // workspace it is in.
    let selected = RwSignal::new(None::<String>);
    let open_in = RwSignal::new(None::<String>);
    let choose = Callback::new(move |(workspace, id): (String, String)| {
        open_in.set(Some(workspace));
        selected.set(Some(id));
    });
    // Alt+J asked for the next question: once the list shows it.
    Effect::new(move |_| {
        let listed = lines.with(|lines| matches!(lines, Some(Ok(_))));
        if everywhere.focus_next.get() && listed && selected.with(Option::is_none) {
            request_animation_frame(move || {
                if !focus_question(1) {
                    // Past the last: round again from the first.
                    if let Some(first) = question_buttons().first() {
                        let _ = first.focus();
                    }
                }
                everywhere.focus_next.set(false);
            });
        }
    });
    let on_key = move |event: leptos::ev::KeyboardEvent| {
        if event.alt_key() || event.ctrl_key() || event.meta_key() {
            return;
        }
        let by = match event.key().as_str() {
            "ArrowDown" | "j" => 1,
            "ArrowUp" | "k" => -1,
            _ => return,
        };
        if !holds_focus() || crate::keys::is_typing(&event) {
            return;
        }
        event.prevent_default();
        if !focus_question(by)
            && by < 0
            && let Some(focused) = document().active_element()
            && let Ok(focused) = focused.dyn_into::<web_sys::HtmlElement>()
        {
            // Up past the first: back to the agents' own keys.
            let _ = focused.blur();
        }
    };
    view! {
        <section class="everywhere" id="all-workspaces" aria-labelledby="all-workspaces-title" on:keydown=on_key>
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
    .into_any()
}

/// The inbox's bar while questions wait in other workspaces: how many and
/// where, and a button to them (All workspaces, in Agents).
#[component]
pub fn ElsewhereBar() -> impl IntoView {
    let everywhere = use_context::<Everywhere>();
    let navigation = use_context::<crate::app::Navigation>();
    move || {
        let said = everywhere?.elsewhere()?;
        Some(view! {
            <div class="elsewhere-bar" id="elsewhere-bar" role="status">
                <span>{said}</span>
                <button class="quiet" id="elsewhere-open" on:click=move |_| {
                    if let Some(navigation) = navigation {
                        navigation.show_agents();
                    }
                    if let Some(everywhere) = everywhere {
                        everywhere.focus_next.set(true);
                    }
                }>"Show them"</button>
            </div>
        })
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
