//! Learnings by category: the files of both layouts on the left, the
//! chosen file's entries rendered on the right, and a form that appends an
//! entry in Naide's format.

use leptos::prelude::*;
use switchboard_model::{ipc::NewLearning, knowledge::learning::LearningsFile};

use super::{KnowledgeState, anchor};
use crate::{ipc, kept::KeptText, tasks, views::markdown::Markdown};

/// The tab.
#[component]
pub fn LearningsTab(state: KnowledgeState) -> impl IntoView {
    let files = Memo::new(move |_| state.overview.with(|o| o.learnings.clone()));
    let shown = Memo::new(move |_| {
        let files = files.get();
        let wanted = state.file.get();
        files
            .iter()
            .find(|f| Some(&f.path) == wanted.as_ref())
            .or(files.first())
            .cloned()
    });
    view! {
        <div class="knowledge-columns">
            <nav class="learning-files" aria-label="Categories">
                {move || {
                    let current = shown.get().map(|f| f.path);
                    files
                        .get()
                        .into_iter()
                        .map(|file| {
                            let path = file.path.clone();
                            let active = current.as_ref() == Some(&file.path);
                            view! {
                                <button
                                    class="learning-file"
                                    class:active=active
                                    title=file.path.clone()
                                    on:click=move |_| state.file.set(Some(path.clone()))
                                >
                                    <span>{file.file.category.clone()}</span>
                                    <span class="muted">{file.file.entries.len()}</span>
                                </button>
                            }
                        })
                        .collect_view()
                }}
                {move || files.with(Vec::is_empty).then(|| view! { <p class="muted">"No learnings yet."</p> })}
            </nav>
            <div class="learning-entries">
                <AddLearning state shown />
                {move || shown.get().map(|file| file_view(state, file))}
            </div>
        </div>
    }
}

fn file_view(state: KnowledgeState, file: LearningsFile) -> impl IntoView {
    let path = file.path.clone();
    view! {
        <h2 class="learning-file-title">{file.file.category.clone()} " " <code class="muted">{file.path.clone()}</code></h2>
        {(!file.file.problems.is_empty()).then(|| view! {
            <ul class="warning">{file.file.problems.iter().map(|p| view! { <li>{p.clone()}</li> }).collect_view()}</ul>
        })}
        {file
            .file
            .entries
            .into_iter()
            .map(|entry| {
                let id = anchor(&[&path, &entry.line.to_string()]);
                let jumped = {
                    let id = id.clone();
                    move || state.jumped.get().as_ref() == Some(&id)
                };
                view! {
                    <article class="learning-entry" id=id class:jumped=jumped>
                        <h3>{entry.title.clone()}
                            {entry.date.map(|d| view! { <span class="muted">{format!(" · {}", d.date())}</span> })}
                            <span class="muted">{format!(" · line {}", entry.line)}</span>
                        </h3>
                        <Markdown text=entry.body.clone() />
                    </article>
                }
            })
            .collect_view()}
    }
}

/// The form that appends an entry (Ctrl/Cmd+Enter adds).
#[component]
fn AddLearning(state: KnowledgeState, shown: Memo<Option<LearningsFile>>) -> impl IntoView {
    // What is typed is the window's: the view left and opened again, the
    // form is still open with it.
    let field = |name: &str| KeptText::new(format!("learning-add:{name}"), String::new()).text;
    let (category, title, body) = (field("category"), field("title"), field("body"));
    let started = [category, title, body]
        .iter()
        .any(|field| !field.with_untracked(String::is_empty));
    let add = move || {
        let chosen = category.get_untracked();
        let learning = NewLearning {
            category: if chosen.trim().is_empty() {
                shown
                    .get_untracked()
                    .map(|f| f.file.category)
                    .unwrap_or_else(|| "general".into())
            } else {
                chosen
            },
            title: title.get_untracked(),
            body: body.get_untracked(),
        };
        tasks::act(async move {
            match ipc::learn(&learning).await {
                Ok(appended) => {
                    title.set(String::new());
                    body.set(String::new());
                    state.file.set(Some(appended.path));
                    state.after(Ok::<(), switchboard_model::ErrorPayload>(()));
                }
                Err(failure) => state.error.set(Some(failure.message)),
            }
        });
    };
    view! {
        <details class="add-learning" open=started>
            <summary>"Add a learning"</summary>
            <form
                on:submit=move |event| {
                    event.prevent_default();
                    add();
                }
                on:keydown=move |event| {
                    if crate::keys::is_submit(&event) {
                        event.prevent_default();
                        add();
                    }
                }
            >
                <input
                    id="learning-category"
                    placeholder=move || shown.get().map(|f| f.file.category).unwrap_or_else(|| "category".into())
                    aria-label="Category"
                    bind:value=category
                />
                <input id="learning-title" placeholder="Title" aria-label="Title" bind:value=title />
                <textarea
                    id="learning-body"
                    rows="4"
                    placeholder="What happened, why it mattered, what to do next time (Ctrl+Enter adds)"
                    aria-label="Body"
                    bind:value=body
                ></textarea>
                <button type="submit" class="primary" id="learning-add">"Add"</button>
            </form>
        </details>
    }
}
