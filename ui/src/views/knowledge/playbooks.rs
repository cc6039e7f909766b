//! Playbooks: bullets by task type and section with their votes and
//! utility, vote, edit, quarantine and add.

use std::collections::BTreeMap;

use leptos::prelude::*;
use switchboard_model::{
    ipc::{BulletAddRequest, BulletRef, QuarantineRequest},
    knowledge::playbook::{Band, Bullet, PlaybookFile},
};

use super::{KnowledgeState, anchor};
use crate::{
    ipc,
    kept::{Kept, KeptText},
    tasks,
    views::edit_line::EditLine,
};

/// The tab.
#[component]
pub fn PlaybooksTab(state: KnowledgeState) -> impl IntoView {
    let playbooks = Memo::new(move |_| state.overview.with(|o| o.playbooks.clone()));
    view! {
        <div class="playbooks">
            {move || playbooks.with(Vec::is_empty).then(|| view! {
                <p class="muted">"No playbooks in .delia/playbooks/ yet; add the first bullet below."</p>
            })}
            {move || playbooks.get().into_iter().map(|file| playbook_view(state, file)).collect_view()}
            <AddBullet state task_type=None />
        </div>
    }
}

fn playbook_view(state: KnowledgeState, file: PlaybookFile) -> impl IntoView {
    let Some(playbook) = file.playbook else {
        return view! {
            <section class="playbook broken">
                <h2>{file.task_type.clone()} <code class="muted">{file.path.clone()}</code></h2>
                <p class="error">{format!("Not shown: {}. The file is left as it is.", file.error.unwrap_or_default())}</p>
            </section>
        }
        .into_any();
    };
    let mut sections: BTreeMap<String, Vec<Bullet>> = BTreeMap::new();
    for bullet in playbook.bullets {
        sections
            .entry(bullet.section.clone().unwrap_or_else(|| "general".into()))
            .or_default()
            .push(bullet);
    }
    let legacy = (file.version == Some(1))
        .then(|| view! { <span class="badge">"v1 — saved as v2 at the next change"</span> });
    let task_type = file.task_type.clone();
    view! {
        <section class="playbook" data-task-type=file.task_type.clone()>
            <h2>{file.task_type.clone()} " " {legacy} <code class="muted">{file.path.clone()}</code></h2>
            {sections
                .into_iter()
                .map(|(section, bullets)| {
                    let task_type = task_type.clone();
                    view! {
                        <h3 class="playbook-section">{section}</h3>
                        <ul class="bullets">
                            {bullets.into_iter().map(|bullet| view! { <BulletRow state task_type=task_type.clone() bullet /> }).collect_view()}
                        </ul>
                    }
                })
                .collect_view()}
            <AddBullet state task_type=Some(task_type) />
        </section>
    }
    .into_any()
}

/// The utility as shown: two decimals and the band's class.
pub fn utility_badge(bullet: &Bullet) -> impl IntoView + use<> {
    let band = match bullet.band() {
        Band::Low => "band-low",
        Band::Moderate => "band-moderate",
        Band::High => "band-high",
    };
    view! {
        <span class=format!("utility {band}") title="helpful / (helpful + harmful + 1)">
            {format!("{:.2}", bullet.utility())}
        </span>
    }
}

/// One bullet: content (editable), counts, utility, votes, quarantine.
#[component]
pub fn BulletRow(
    state: KnowledgeState,
    task_type: String,
    bullet: Bullet,
    /// Where it came from, for the curator.
    #[prop(optional)]
    source: bool,
) -> impl IntoView {
    let id = bullet.id.clone().unwrap_or_default();
    let reference = BulletRef {
        task_type: task_type.clone(),
        id: id.clone(),
    };
    let dom_id = anchor(&["b", &task_type, &id]);
    let quarantined = {
        let (task_type, id) = (task_type.clone(), id.clone());
        Memo::new(move |_| {
            state.overview.with(|o| {
                o.quarantine
                    .iter()
                    .any(|q| q.task_type == task_type && q.id == id)
            })
        })
    };
    // An edit under way is the window's: the playbooks read again (a vote,
    // an agent's new bullet) or the view left and opened again, the
    // editor is still open with what was typed.
    let edit_key = format!("bullet-edit:{task_type}/{id}");
    let editing = RwSignal::new(
        use_context::<Kept<String>>().is_some_and(|kept| kept.get(&edit_key).is_some()),
    );
    let on_save = {
        let reference = reference.clone();
        Callback::new(move |content: String| {
            let reference = reference.clone();
            editing.set(false);
            tasks::act(async move { state.after(ipc::bullet_edit(reference, content).await) });
        })
    };
    let jumped = {
        let dom_id = dom_id.clone();
        move || state.jumped.get().as_ref() == Some(&dom_id)
    };
    let origin =
        source.then(|| view! { <p class="muted bullet-origin">{origin(&task_type, &bullet)}</p> });
    let text = bullet.text().to_owned();
    let (helpful, harmful) = (bullet.helpful_count, bullet.harmful_count);
    view! {
        <li class="bullet" id=dom_id data-bullet=format!("{task_type}/{id}") class:jumped=jumped class:quarantined=move || quarantined.get()>
            <div class="bullet-main">
                {move || if editing.get() {
                    view! {
                        <EditLine
                            initial=text.clone()
                            keep=edit_key.clone()
                            class="bullet-edit"
                            label="Bullet (Enter saves, Escape cancels)"
                            on_save
                            on_cancel=Callback::new(move |()| editing.set(false))
                        />
                    }.into_any()
                } else {
                    view! { <span class="bullet-text">{text.clone()}</span> }.into_any()
                }}
                {origin}
            </div>
            <span class="bullet-stats">
                {utility_badge(&bullet)}
                <span class="helpful-count" title="helpful">{format!("+{helpful}")}</span>
                <span class="harmful-count" title="harmful">{format!("−{harmful}")}</span>
                {move || quarantined.get().then(|| view! { <span class="badge">"quarantined"</span> })}
            </span>
            <BulletActions state reference quarantined editing />
        </li>
    }
}

/// Where a bullet came from, for the curator: its playbook's file, then
/// its source, task and day, where it has them.
fn origin(task_type: &str, bullet: &Bullet) -> String {
    [
        Some(format!(".delia/playbooks/{task_type}.json")),
        bullet.source.as_ref().map(|s| format!("source {s}")),
        bullet.source_task.as_ref().map(|t| format!("task {t}")),
        bullet
            .created_at
            .as_ref()
            .map(|c| format!("added {}", c.get(..10).unwrap_or(c))),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" · ")
}

/// A bullet's buttons: votes, edit, quarantine.
#[component]
fn BulletActions(
    state: KnowledgeState,
    reference: BulletRef,
    quarantined: Memo<bool>,
    editing: RwSignal<bool>,
) -> impl IntoView {
    let reference = StoredValue::new(reference);
    let vote = move |helpful: bool| {
        let reference = reference.get_value();
        tasks::act(async move { state.after(ipc::bullet_vote(reference, helpful).await) });
    };
    let toggle_quarantine = move || {
        let request = QuarantineRequest {
            bullet: reference.get_value(),
            on: !quarantined.get_untracked(),
            reason: String::new(),
        };
        tasks::act(async move { state.after(ipc::quarantine(&request).await) });
    };
    view! {
        <span class="bullet-actions">
            <button class="icon vote-helpful" title="Helpful" aria-label="Helpful" on:click=move |_| vote(true)>"▲"</button>
            <button class="icon vote-harmful" title="Harmful" aria-label="Harmful" on:click=move |_| vote(false)>"▼"</button>
            <button class="icon edit-bullet" title="Edit" aria-label="Edit" on:click=move |_| editing.set(true)>"✎"</button>
            <button
                class="icon quarantine-bullet"
                title=move || if quarantined.get() { "Release from quarantine" } else { "Quarantine: keep it out of prompts" }
                aria-label="Quarantine"
                aria-pressed=move || quarantined.get().to_string()
                on:click=move |_| toggle_quarantine()
            >"⊘"</button>
        </span>
    }
}

/// Adds a bullet to `task_type`'s playbook, or to a new one.
#[component]
fn AddBullet(state: KnowledgeState, task_type: Option<String>) -> impl IntoView {
    let fixed = task_type.clone();
    // What is typed is the window's: the playbooks read again or the view
    // left, the form is still open with it.
    let field = |name: &str| {
        let form = task_type.as_deref().unwrap_or("*new*");
        KeptText::new(format!("bullet-add:{form}:{name}"), String::new()).text
    };
    let (new_type, section, content) = (field("type"), field("section"), field("content"));
    let started = [new_type, section, content]
        .iter()
        .any(|field| !field.with_untracked(String::is_empty));
    let add = {
        let fixed = fixed.clone();
        move || {
            let request = BulletAddRequest {
                task_type: fixed
                    .clone()
                    .unwrap_or_else(|| new_type.get_untracked().trim().to_owned()),
                section: Some(section.get_untracked()).filter(|s| !s.trim().is_empty()),
                content: content.get_untracked(),
            };
            tasks::act(async move {
                match ipc::bullet_add(&request).await {
                    Ok(_) => {
                        content.set(String::new());
                        state.after(Ok::<(), switchboard_model::ErrorPayload>(()));
                    }
                    Err(failure) => state.error.set(Some(failure.message)),
                }
            });
        }
    };
    let label = match &task_type {
        Some(task_type) => format!("Add a bullet to {task_type}"),
        None => "New playbook".to_owned(),
    };
    view! {
        <details class="add-bullet" open=started>
            <summary>{label}</summary>
            <form on:submit=move |event| {
                event.prevent_default();
                add();
            }>
                {fixed.is_none().then(|| view! {
                    <input class="bullet-task-type" placeholder="task type (coding, testing, …)" aria-label="Task type" bind:value=new_type />
                })}
                <input class="bullet-section" placeholder="section (optional)" aria-label="Section" bind:value=section />
                <input class="bullet-content" placeholder="Actionable guidance, 10–500 characters" aria-label="Bullet" bind:value=content />
                <button type="submit" class="primary">"Add"</button>
            </form>
        </details>
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use switchboard_model::knowledge::playbook::Bullet;

    use super::origin;

    #[test]
    fn a_bullets_origin_names_its_file_then_what_it_has() {
        let mut bullet: Bullet = serde_json::from_str(r#"{"id": "b1", "content": "x"}"#).unwrap();
        assert_eq!(origin("rust", &bullet), ".delia/playbooks/rust.json");
        bullet.source_task = Some("t-7".into());
        bullet.created_at = Some("2026-11-28T01:02:03Z".into());
        assert_eq!(
            origin("rust", &bullet),
            ".delia/playbooks/rust.json · task t-7 · added 2026-11-28"
        );
    }
}
