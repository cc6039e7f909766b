//! The curator's view: bullets worth pruning, likely duplicates and the
//! quarantine, each with where the bullet came from.

use leptos::prelude::*;
use switchboard_model::knowledge::{
    curate::{self, DUPLICATE_SIMILARITY},
    playbook::{Bullet, PRUNE_AFTER_VOTES, PRUNE_BELOW},
};

use super::{KnowledgeState, playbooks::BulletRow};

/// The tab.
#[component]
pub fn CuratorTab(state: KnowledgeState) -> impl IntoView {
    let readable = Memo::new(move |_| {
        state.overview.with(|o| {
            o.playbooks
                .iter()
                .filter_map(|file| {
                    file.playbook
                        .clone()
                        .map(|p| (file.task_type.clone(), p.bullets))
                })
                .collect::<Vec<(String, Vec<Bullet>)>>()
        })
    });
    let row = move |task_type: String, bullet: Bullet| view! { <BulletRow state task_type bullet source=true /> };
    view! {
        <div class="curator">
            <section id="curator-prune">
                <h2>"Prune candidates"</h2>
                <p class="muted">{format!("Utility below {PRUNE_BELOW} after at least {PRUNE_AFTER_VOTES} votes.")}</p>
                <ul class="bullets">
                    {move || readable.get().into_iter().flat_map(|(task_type, bullets)| {
                        bullets.into_iter().filter(curate::is_prune_candidate).map(move |b| row(task_type.clone(), b)).collect::<Vec<_>>()
                    }).collect_view()}
                </ul>
            </section>
            <section id="curator-duplicates">
                <h2>"Likely duplicates"</h2>
                <p class="muted">{format!("Wording at least {:.0}% alike, within a playbook.", DUPLICATE_SIMILARITY * 100.0)}</p>
                {move || readable.get().into_iter().flat_map(|(task_type, bullets)| {
                    curate::duplicates(&bullets).into_iter().map(|pair| {
                        let (first, second) = (bullets[pair.first].clone(), bullets[pair.second].clone());
                        view! {
                            <div class="duplicate-pair">
                                <p class="muted">{format!("{task_type}: {:.0}% alike", pair.similarity * 100.0)}</p>
                                <ul class="bullets">{row(task_type.clone(), first)}{row(task_type.clone(), second)}</ul>
                            </div>
                        }
                    }).collect::<Vec<_>>()
                }).collect_view()}
            </section>
            <section id="curator-quarantine">
                <h2>"Quarantine"</h2>
                <p class="muted">"Kept in the playbook, left out of prompts."</p>
                <ul class="bullets">
                    {move || {
                        let quarantined = state.overview.with(|o| o.quarantine.clone());
                        let books = readable.get();
                        quarantined.into_iter().map(|q| {
                            let bullet = books.iter().find(|(t, _)| *t == q.task_type)
                                .and_then(|(_, bullets)| bullets.iter().find(|b| b.id.as_deref() == Some(q.id.as_str())).cloned());
                            match bullet {
                                Some(bullet) => row(q.task_type.clone(), bullet).into_any(),
                                None => view! { <li class="muted">{format!("{}/{} (no longer in its playbook)", q.task_type, q.id)}</li> }.into_any(),
                            }
                        }).collect_view()
                    }}
                </ul>
            </section>
        </div>
    }
}
