//! The Agents view's started agents: "New agent" (Claude Code or Codex,
//! a prompt, optionally its own worktree), one row per agent started here
//! — its state and since when, its branch, its terminal, Stop while its
//! program runs — and, for one in a worktree, its review (`review`): what
//! it changed, Merge, Discard, Follow up. Work that landed is said above
//! the list, naming its commit; the agent, done, folds away.

mod review;

use leptos::prelude::*;
use switchboard_model::{
    ErrorPayload, Timestamp, age_label,
    agent::{
        AgentState,
        launch::{Launch, LaunchRequest, LaunchRow, LaunchState, WorktreeChoice},
    },
    ipc::StoreChange,
};

use crate::{events, ipc, tasks, views::agents::LastMessages};

/// The started agents, followed while the Agents view lives.
#[component]
pub fn StartedAgents(
    now: RwSignal<Timestamp>,
    /// Opens a delivery in the inbox.
    on_open_question: Callback<String>,
    /// Opens a program session in Terminals.
    on_open_terminal: Callback<String>,
) -> impl IntoView {
    let rows = RwSignal::new(Vec::<LaunchRow>::new());
    let refresh = move || {
        tasks::fetch(async move {
            match ipc::launches().await {
                Ok(found) => rows.set(found),
                Err(error) => leptos::logging::error!("started agents: {}", error.message),
            }
        })
    };
    refresh();
    events::on_store_change(move |change| {
        if change == StoreChange::Agents {
            refresh();
        }
    });
    let creating = RwSignal::new(false);
    // A review asked for from elsewhere (a task's card) opens with the view.
    let asked = use_context::<crate::app::Navigation>()
        .and_then(|navigation| navigation.open_review.try_update(Option::take).flatten());
    let review = ReviewState {
        open: RwSignal::new(asked.clone()),
        outcome: RwSignal::new(None),
        confirm: RwSignal::new(false),
        landed: RwSignal::new(None),
    };
    if let Some(name) = asked {
        // Brought into view once its row is drawn.
        Effect::new(move |done: Option<bool>| {
            if done == Some(true) {
                return true;
            }
            rows.track();
            document()
                .get_element_by_id(&format!("launch-{name}"))
                .map(|row| row.scroll_into_view_with_bool(true))
                .is_some()
        });
    }
    let landed = review.landed;
    view! {
        <section class="launches" id="launches" aria-label="Agents started here">
            <header class="launches-header">
                <h2>"Started here"</h2>
                {move || match crate::browser::why_not_start() {
                    None => view! {
                        <button class="primary" id="new-agent" on:click=move |_| creating.update(|open| *open = !*open)>
                            "New agent"
                        </button>
                    }.into_any(),
                    Some(why) => view! { <span class="muted" id="new-agent-off">{why}</span> }.into_any(),
                }}
            </header>
            {move || landed.get().map(|said| view! {
                <p class="launch-landed" id="launch-landed" role="status">{said}</p>
            })}
            {move || (creating.get() && crate::browser::may_start()).then(|| view! {
                <NewAgentForm on_started=Callback::new(move |()| { creating.set(false); refresh(); }) />
            })}
            {move || {
                let (folded, live): (Vec<LaunchRow>, Vec<LaunchRow>) = rows.get().into_iter().partition(LaunchRow::folds);
                let count = folded.len();
                view! {
                    <ul class="launch-list" id="launch-list">
                        {live.into_iter().map(|row| view! {
                            <LaunchItem row now review on_open_question on_open_terminal on_changed=Callback::new(move |()| refresh()) />
                        }).collect_view()}
                    </ul>
                    {(count > 0).then(|| view! {
                        <details class="agents-gone" id="launches-folded">
                            <summary>{if count == 1 { "1 finished".to_owned() } else { format!("{count} finished") }}</summary>
                            <ul class="launch-list folded">
                                {folded.into_iter().map(|row| view! { <FoldedItem row now /> }).collect_view()}
                            </ul>
                        </details>
                    })}
                }
            }}
        </section>
    }
}

/// Which started agent's review is open, and what its last action said:
/// the panel's, so both outlive the rows drawn again at each change.
#[derive(Clone, Copy)]
struct ReviewState {
    open: RwSignal<Option<String>>,
    outcome: RwSignal<Option<Result<String, ErrorPayload>>>,
    /// Discard was refused for work it would lose: the next click
    /// confirms.
    confirm: RwSignal<bool>,
    /// How the last work landed here, in a sentence naming its commit:
    /// the section says it above the list, where the row was.
    landed: RwSignal<Option<String>>,
}

impl ReviewState {
    /// `launch`'s work landed: its review closes, and the section says how
    /// (brought into view: the rows below fold).
    fn landed_now(self, launch: &Launch) {
        let said = launch
            .landed_sentence()
            .map(|landed| format!("{landed} Its program was ended: the agent is done."));
        self.open.set(None);
        self.outcome.set(None);
        self.confirm.set(false);
        self.landed.set(said);
        request_animation_frame(|| {
            if let Some(said) = document().get_element_by_id("launch-landed") {
                said.scroll_into_view_with_bool(false);
            }
        });
    }
}

/// What the "New agent" form holds.
#[derive(Clone, Copy)]
struct Draft {
    agent: RwSignal<String>,
    prompt: RwSignal<String>,
    name: RwSignal<String>,
    worktree: RwSignal<bool>,
    base: RwSignal<String>,
}

impl Draft {
    fn new() -> Self {
        Self {
            agent: RwSignal::new("claude-code".to_owned()),
            prompt: RwSignal::new(String::new()),
            name: RwSignal::new(String::new()),
            worktree: RwSignal::new(true),
            base: RwSignal::new(String::new()),
        }
    }

    /// The request the form makes (blank fields left to their defaults).
    fn request(self) -> LaunchRequest {
        let given = |text: String| Some(text.trim().to_owned()).filter(|text| !text.is_empty());
        LaunchRequest {
            agent: self.agent.get_untracked(),
            name: given(self.name.get_untracked()),
            worktree: self
                .worktree
                .get_untracked()
                .then_some(WorktreeChoice::AsAgent),
            base: given(self.base.get_untracked()).filter(|_| self.worktree.get_untracked()),
            prompt: self.prompt.get_untracked(),
            ..LaunchRequest::default()
        }
    }
}

/// "New agent": which agent, what it should do, where.
#[component]
fn NewAgentForm(on_started: Callback<()>) -> impl IntoView {
    let draft = Draft::new();
    let error = RwSignal::new(None::<ErrorPayload>);
    let busy = RwSignal::new(false);
    let start = move || {
        busy.set(true);
        let request = draft.request();
        tasks::act(async move {
            match ipc::launch_start(&request).await {
                Ok(_) => {
                    on_started.try_run(());
                }
                Err(failed) => error.set(Some(failed)),
            }
            busy.set(false);
        });
    };
    let prompt_box = NodeRef::<leptos::html::Textarea>::new();
    Effect::new(move |_| {
        if let Some(prompt) = prompt_box.get() {
            let _ = prompt.focus();
        }
    });
    view! {
        <form class="new-agent" id="new-agent-form" on:submit=move |event| { event.prevent_default(); start(); }>
            <label>"Agent "
                <select id="new-agent-kind" prop:value=move || draft.agent.get() on:change=move |event| draft.agent.set(event_target_value(&event))>
                    <option value="claude-code">"Claude Code"</option>
                    <option value="codex">"Codex"</option>
                </select>
            </label>
            <textarea id="new-agent-prompt" rows="3" node_ref=prompt_box
                placeholder=if crate::browser::touch_only() { "What should it do?" } else { "What should it do? (Ctrl+Enter starts it)" }
                prop:value=move || draft.prompt.get()
                on:input=move |event| draft.prompt.set(event_target_value(&event))
                on:keydown=move |event| if event.key() == "Enter" && event.ctrl_key() { event.prevent_default(); start(); }
            ></textarea>
            <label>"Name " <input id="new-agent-name" placeholder="made from the prompt" prop:value=move || draft.name.get() on:input=move |event| draft.name.set(event_target_value(&event)) /></label>
            <label><input type="checkbox" id="new-agent-worktree" prop:checked=move || draft.worktree.get() on:change=move |event| draft.worktree.set(event_target_checked(&event)) />" In its own worktree"</label>
            <label>"Base " <input id="new-agent-base" placeholder="the current branch" prop:disabled=move || !draft.worktree.get() prop:value=move || draft.base.get() on:input=move |event| draft.base.set(event_target_value(&event)) /></label>
            <button type="submit" class="primary" id="new-agent-start" prop:disabled=move || busy.get()>"Start"</button>
            {move || error.get().map(|error| view! { <p class="error" id="new-agent-error" role="alert">{error.message}</p> })}
        </form>
    }
}

/// One started agent's row: state, since when, branch, and what can be
/// done with it now.
#[component]
fn LaunchItem(
    row: LaunchRow,
    now: RwSignal<Timestamp>,
    review: ReviewState,
    on_open_question: Callback<String>,
    on_open_terminal: Callback<String>,
    on_changed: Callback<()>,
) -> impl IntoView {
    let launch = row.launch.clone();
    let name = launch.name.clone();
    let since = row.since;
    let state = row.shown;
    let session = launch.session.clone();
    let has_worktree = launch.worktree.is_some() && !launch.is_landed();
    let branch = launch.worktree.as_ref().map(|tree| tree.branch.clone());
    let stop_name = name.clone();
    let review_name = name.clone();
    let toggle_name = name.clone();
    let runs = row.runs;
    let is_open = {
        let name = name.clone();
        move || review.open.get().as_deref() == Some(name.as_str())
    };
    view! {
        <li class="launch-row" id=format!("launch-{name}") data-state=state.as_str() class:runs=runs>
            <div class="agent-line">
                <strong class="agent-name">{name.clone()}</strong>
                <span class="muted">{launch.agent.label()}</span>
                <span class=format!("badge agent-state state-{}", state.as_str())>{row.label()}</span>
                <time class="age">{move || age_label(since, now.get()).replace(" ago", "")}</time>
                <span class="muted launch-branch">{branch.unwrap_or_else(|| "in the workspace".to_owned())}</span>
            </div>
            {row.reason.clone().map(|reason| view! { <p class="agent-reason">{reason}</p> })}
            <LastMessages messages=row.last_messages.clone() />
            <div class="launch-actions">
                {row.waiting_on.clone().map(|question| {
                    let open = question.clone();
                    view! { <button class="primary launch-question" data-question=question on:click=move |_| on_open_question.run(open.clone())>"Open its question"</button> }
                })}
                // It asks in its own terminal, where no hook carried the
                // question: that is where it is answered.
                {(row.waiting_on.is_none() && state.waits_in_terminal()).then(|| {
                    let session = launch.session.clone();
                    let label = if state == LaunchState::Agent(AgentState::NeedsPermission) { "Answer in its terminal" } else { "Type in its terminal" };
                    view! { <button class="primary launch-answer-terminal" on:click=move |_| on_open_terminal.run(session.clone())>{label}</button> }
                })}
                <button class="launch-terminal" on:click=move |_| on_open_terminal.run(session.clone())>"Terminal"</button>
                // Its program runs — a landed agent's too, until stopped.
                {runs.then(|| view! {
                    <button class="launch-stop" on:click=move |_| {
                        let name = stop_name.clone();
                        tasks::act(async move { let _ = ipc::launch_stop(&name).await; on_changed.try_run(()); });
                    }>"Stop"</button>
                })}
                {has_worktree.then(|| view! {
                    <button class="launch-review" on:click=move |_| {
                        let name = toggle_name.clone();
                        review.outcome.set(None);
                        review.confirm.set(false);
                        review.open.update(|open| *open = if open.as_deref() == Some(name.as_str()) { None } else { Some(name) });
                    }>"Review"</button>
                })}
            </div>
            {move || (is_open() && has_worktree).then(|| view! { <review::Review name=review_name.clone() runs review on_changed /> })}
        </li>
    }
}

/// One line of a started agent that is done: who, how its work landed
/// (the commit a merge made) or how it ended, when.
#[component]
fn FoldedItem(row: LaunchRow, now: RwSignal<Timestamp>) -> impl IntoView {
    let since = row.since;
    let name = row.launch.name.clone();
    let said = format!("{} · {}", row.launch.agent.label(), row.summary());
    view! {
        <li class="launch-row folded-row" id=format!("launch-{name}") data-state=row.shown.as_str()>
            <strong class="agent-name">{name.clone()}</strong>" "
            <span class="muted">{move || format!("{said} · {}", age_label(since, now.get()))}</span>
        </li>
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn the_new_agent_form_leaves_blanks_to_their_defaults_and_a_base_to_a_worktree() {
        let draft = Draft::new();
        draft.prompt.set("Add a login page".into());
        draft.name.set("  login ".into());
        draft.base.set("  ".into());
        let request = draft.request();
        assert_eq!(request.agent, "claude-code");
        assert_eq!(request.name.as_deref(), Some("login"));
        assert_eq!(request.worktree, Some(WorktreeChoice::AsAgent));
        assert_eq!(request.base, None, "a blank base is the current branch");
        draft.base.set("main".into());
        assert_eq!(draft.request().base.as_deref(), Some("main"));
        // Without a worktree there is no base to start it from.
        draft.worktree.set(false);
        let request = draft.request();
        assert_eq!((request.worktree, request.base), (None, None));
        draft.name.set(String::new());
        assert_eq!(draft.request().name, None, "a name is made up");
    }
}
