//! The alert over every view while a program session waits for a secret
//! (it turned echo off at a prompt: a password): the same attention as a
//! blocking question. Each such session is a button that opens it in the
//! Terminals view, where the secret is typed.

use leptos::prelude::*;

use crate::app::ProgramSessions;

/// The alert bar; `on_open` shows a session in the Terminals view.
#[component]
pub fn SecretAlert(
    sessions: ProgramSessions,
    on_open: impl Fn(String) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let waiting = Memo::new(move |_| {
        sessions.list.with(|list| {
            list.iter()
                .filter(|session| session.wants_secret)
                .map(|session| {
                    (
                        session.id.clone(),
                        session.label().to_owned(),
                        session.command_line(),
                    )
                })
                .collect::<Vec<_>>()
        })
    });
    move || {
        let waiting = waiting.get();
        (!waiting.is_empty()).then(|| {
            view! {
                <div class="alert-bar" id="secret-alert" role="alert">
                    <strong>"A program asks for a secret: "</strong>
                    {waiting
                        .into_iter()
                        .map(|(id, label, command)| {
                            let open = id.clone();
                            view! {
                                <button
                                    class="alert-item"
                                    data-id=id
                                    title="Open it in Terminals and type the secret there"
                                    on:click=move |_| on_open(open.clone())
                                >
                                    {label}
                                    <code class="muted">{command}</code>
                                </button>
                            }
                        })
                        .collect_view()}
                </div>
            }
        })
    }
}
