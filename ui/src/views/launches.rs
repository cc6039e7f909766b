//! The Agents view's started agents: "New agent" (Claude Code or Codex,
//! a prompt, optionally its own worktree), one row per agent started here
//! — its state and since when, its branch, its terminal — and, for one in
//! a worktree, its review: what it changed, Merge, Discard, Follow up.

use leptos::prelude::*;
use switchboard_model::{
    ErrorPayload, Timestamp, age_label,
    agent::{
        AgentState,
        launch::{LaunchRequest, LaunchRow, LaunchState, WorktreeChanges, WorktreeChoice},
    },
    ipc::StoreChange,
};

use crate::{
    events, ipc, tasks,
    views::{agents::LastMessages, markdown::Markdown},
};

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
    let review = ReviewState {
        open: RwSignal::new(None),
        outcome: RwSignal::new(None),
        confirm: RwSignal::new(false),
    };
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
    let is_open = {
        let name = name.clone();
        move || review.open.get().as_deref() == Some(name.as_str())
    };
    view! {
        <li class="launch-row" id=format!("launch-{name}") data-state=state.as_str()>
            <div class="agent-line">
                <strong class="agent-name">{name.clone()}</strong>
                <span class="muted">{launch.agent.label()}</span>
                <span class=format!("badge agent-state state-{}", state.as_str())>{state.label()}</span>
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
                {state.runs().then(|| view! {
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
            {move || is_open().then(|| view! { <Review name=review_name.clone() runs=state.runs() review on_changed /> })}
        </li>
    }
}

/// One line of a started agent that finished: who, how it ended, when.
#[component]
fn FoldedItem(row: LaunchRow, now: RwSignal<Timestamp>) -> impl IntoView {
    let since = row.since;
    let name = row.launch.name.clone();
    view! {
        <li class="launch-row folded-row" id=format!("launch-{name}") data-state=row.shown.as_str()>
            <strong class="agent-name">{name.clone()}</strong>" "
            <span class="muted">{move || format!("{} {}, {}", row.launch.agent.label(), row.shown.label(), age_label(since, now.get()))}</span>
        </li>
    }
}

/// A started agent's work since its base, and Merge, Discard, Follow up.
#[component]
fn Review(
    name: String,
    runs: bool,
    review: ReviewState,
    on_changed: Callback<()>,
) -> impl IntoView {
    let outcome = review.outcome;
    let changes = RwSignal::new(None::<Result<WorktreeChanges, ErrorPayload>>);
    let load = name.clone();
    tasks::fetch(async move { changes.set(Some(ipc::launch_diff(&load).await)) });
    let confirm = review.confirm;
    let actions = Actions {
        name: name.clone(),
        outcome,
        on_changed,
    };
    view! {
        <div class="launch-review-panel" id=format!("review-{name}")>
            {move || match changes.get() {
                None => view! { <p class="muted">"Reading its changes…"</p> }.into_any(),
                Some(Err(error)) => view! { <p class="error">{error.message}</p> }.into_any(),
                Some(Ok(changes)) => view! { <ChangeList changes /> }.into_any(),
            }}
            <ActionBar actions=actions.clone() runs confirm />
            {move || outcome.get().map(|outcome| match outcome {
                Ok(said) => view! { <p class="launch-outcome" role="status">{said}</p> }.into_any(),
                Err(error) => view! { <p class="error launch-outcome" role="alert">{error.message}</p> }.into_any(),
            })}
        </div>
    }
}

/// What the agent changed: its commits, then each file with its counts
/// and its diff.
#[component]
fn ChangeList(changes: WorktreeChanges) -> impl IntoView {
    let summary = format!(
        "{} since {}: {} commit(s), {} file(s), {} not committed",
        changes.branch,
        changes.base,
        changes.commits.len(),
        changes.files.len(),
        changes.uncommitted
    );
    view! {
        <p class="launch-summary">{summary}</p>
        <ul class="launch-commits">
            {changes.commits.into_iter().map(|commit| view! { <li><code>{commit.id[..8.min(commit.id.len())].to_owned()}</code>" "{commit.subject}</li> }).collect_view()}
        </ul>
        {changes.files.into_iter().map(|file| view! {
            <details class="launch-file" open>
                <summary><span class="badge">{file.change.letter().to_string()}</span>" "{file.path.clone()}" "<span class="muted">{file.counts()}</span></summary>
                <Markdown text=file.diff_markdown() />
            </details>
        }).collect_view()}
    }
}

/// The actions a review offers, with where their outcome is told.
#[derive(Clone)]
struct Actions {
    name: String,
    outcome: RwSignal<Option<Result<String, ErrorPayload>>>,
    on_changed: Callback<()>,
}

impl Actions {
    fn merge(&self, commit: bool) {
        let this = self.clone();
        tasks::act(async move {
            let done = ipc::launch_merge(&this.name, commit).await;
            this.outcome
                .set(Some(done.map(|_| format!("Merged {}.", this.name))));
            this.on_changed.try_run(());
        });
    }

    fn discard(&self, confirmed: bool, asked: RwSignal<bool>) {
        let this = self.clone();
        tasks::act(async move {
            let done = ipc::launch_discard(&this.name, confirmed).await;
            // Work that would be lost is named; a second click confirms.
            asked.set(done.is_err());
            this.outcome
                .set(Some(done.map(|_| format!("Discarded {}.", this.name))));
            this.on_changed.try_run(());
        });
    }

    fn follow_up(&self, text: String) {
        let this = self.clone();
        tasks::act(async move {
            let done = ipc::launch_send(&this.name, &text).await;
            this.outcome.set(Some(done.map(|_| "Sent.".to_owned())));
        });
    }
}

/// Merge (its uncommitted work committed first when ticked), Discard
/// (confirmed on a second click once the work it would lose is named) and
/// Follow up.
#[component]
fn ActionBar(actions: Actions, runs: bool, confirm: RwSignal<bool>) -> impl IntoView {
    let commit = RwSignal::new(false);
    let text = RwSignal::new(String::new());
    let (merge, discard, send) = (actions.clone(), actions.clone(), actions);
    view! {
        <div class="launch-review-actions">
            <label><input type="checkbox" class="launch-commit" prop:checked=move || commit.get() on:change=move |event| commit.set(event_target_checked(&event)) />" Commit its uncommitted changes"</label>
            <button class="primary launch-merge" on:click=move |_| merge.merge(commit.get_untracked())>"Merge"</button>
            <button class="danger launch-discard" prop:disabled=runs title=if runs { "Stop it first" } else { "Remove its worktree and branch" }
                on:click=move |_| discard.discard(confirm.get_untracked(), confirm)>
                {move || if confirm.get() { "Discard anyway" } else { "Discard" }}
            </button>
            <form class="launch-follow-up" on:submit=move |event| { event.prevent_default(); send.follow_up(text.get_untracked()); text.set(String::new()); }>
                <input class="launch-follow-up-text" placeholder="Follow up (typed into its prompt)" prop:value=move || text.get() on:input=move |event| text.set(event_target_value(&event)) />
                <button type="submit">"Send"</button>
            </form>
        </div>
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
