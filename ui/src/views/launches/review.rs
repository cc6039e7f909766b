//! A started agent's review: what it changed since its base, and what is
//! done with it — Merge (its uncommitted work committed first, when it has
//! some, as the button says), Discard, Follow up — with each action's
//! outcome beside the buttons, above the diff.

use leptos::prelude::*;
use switchboard_model::{ErrorPayload, agent::launch::WorktreeChanges};

use super::ReviewState;
use crate::{ipc, tasks, views::markdown::Markdown};

/// A started agent's work since its base, with Merge, Discard, Follow up
/// and what they said first (the diff can be long).
#[component]
pub(super) fn Review(
    name: String,
    runs: bool,
    review: ReviewState,
    on_changed: Callback<()>,
) -> impl IntoView {
    let outcome = review.outcome;
    let changes = RwSignal::new(None::<Result<WorktreeChanges, ErrorPayload>>);
    let load = {
        let name = name.clone();
        move || {
            let name = name.clone();
            tasks::fetch(async move { changes.set(Some(ipc::launch_diff(&name).await)) });
        }
    };
    load();
    let uncommitted = Signal::derive(move || {
        changes.with(|changes| match changes {
            Some(Ok(changes)) => changes.uncommitted,
            _ => 0,
        })
    });
    let actions = Actions {
        name: name.clone(),
        review,
        on_changed,
        reload: Callback::new(move |()| load()),
    };
    view! {
        <div class="launch-review-panel" id=format!("review-{name}")>
            <ActionBar actions runs uncommitted />
            {move || outcome.get().map(|outcome| match outcome {
                Ok(said) => view! { <p class="launch-outcome" role="status">{said}</p> }.into_any(),
                Err(error) => view! { <p class="error launch-outcome" role="alert">{error.message}</p> }.into_any(),
            })}
            {move || match changes.get() {
                None => view! { <p class="muted">"Reading its changes…"</p> }.into_any(),
                Some(Err(error)) => view! { <p class="error">{error.message}</p> }.into_any(),
                Some(Ok(changes)) => view! { <ChangeList changes /> }.into_any(),
            }}
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
    review: ReviewState,
    on_changed: Callback<()>,
    /// Reads the changes again (a refusal may come of work done since).
    reload: Callback<()>,
}

impl Actions {
    /// Merges (`commit`: its uncommitted work committed first): landed,
    /// the section says so above the list, naming the commit; refused, the
    /// refusal shows beside the buttons and the changes are read again.
    fn merge(&self, commit: bool) {
        let this = self.clone();
        tasks::act(async move {
            match ipc::launch_merge(&this.name, commit).await {
                Ok(launch) => this.review.landed_now(&launch),
                Err(error) => {
                    this.review.outcome.set(Some(Err(error)));
                    this.reload.try_run(());
                }
            }
            this.on_changed.try_run(());
        });
    }

    fn discard(&self, confirmed: bool) {
        let this = self.clone();
        tasks::act(async move {
            match ipc::launch_discard(&this.name, confirmed).await {
                Ok(launch) => this.review.landed_now(&launch),
                Err(error) => {
                    // Work that would be lost is named; a second click
                    // confirms.
                    this.review.confirm.set(true);
                    this.review.outcome.set(Some(Err(error)));
                }
            }
            this.on_changed.try_run(());
        });
    }

    fn follow_up(&self, text: String) {
        let this = self.clone();
        tasks::act(async move {
            let done = ipc::launch_send(&this.name, &text).await;
            this.review
                .outcome
                .set(Some(done.map(|_| "Sent.".to_owned())));
        });
    }
}

/// Merge — "Commit its uncommitted work and merge" while it has some, the
/// only merge there is then —, Discard (ending its program; confirmed on a
/// second click once the work it would lose is named) and Follow up.
#[component]
fn ActionBar(actions: Actions, runs: bool, uncommitted: Signal<usize>) -> impl IntoView {
    let text = RwSignal::new(String::new());
    let confirm = actions.review.confirm;
    let (merge, discard, send) = (actions.clone(), actions.clone(), actions);
    let discard_title = if runs {
        "Remove its worktree and branch; this ends its program"
    } else {
        "Remove its worktree and branch"
    };
    view! {
        <div class="launch-review-actions">
            <button class="primary launch-merge" on:click=move |_| merge.merge(uncommitted.get_untracked() > 0)>
                {move || if uncommitted.get() > 0 { "Commit its uncommitted work and merge" } else { "Merge" }}
            </button>
            <button class="danger launch-discard" title=discard_title
                on:click=move |_| discard.discard(confirm.get_untracked())>
                {move || if confirm.get() { "Discard anyway" } else { "Discard" }}
            </button>
            <form class="launch-follow-up" on:submit=move |event| { event.prevent_default(); send.follow_up(text.get_untracked()); text.set(String::new()); }>
                <input class="launch-follow-up-text" placeholder="Follow up (typed into its prompt)" prop:value=move || text.get() on:input=move |event| text.set(event_target_value(&event)) />
                <button type="submit">"Send"</button>
            </form>
        </div>
    }
}
