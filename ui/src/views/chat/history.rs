//! The chat history: every chat outside the trash, newest first; open one
//! to continue it, or move it to the trash (where Naide keeps deleted
//! chats, so it can still be recovered by hand).

use leptos::prelude::*;
use switchboard_model::chat::{ChatHistory, ChatSessionInfo, transcript::Transcript};

use super::ChatState;
use crate::{ipc, tasks};

/// The history list; `open` closes it.
#[component]
pub fn History(state: ChatState, open: RwSignal<bool>) -> impl IntoView {
    let history = RwSignal::new(ChatHistory::default());
    let refresh = move || {
        tasks::fetch(async move {
            match ipc::chat_sessions().await {
                Ok(list) => history.set(list),
                Err(failure) => state.error.set(Some(failure.message)),
            }
        })
    };
    refresh();
    let resume = Callback::new(move |id: String| {
        tasks::act(async move {
            match ipc::chat_resume(&id).await {
                Ok(session) => {
                    state
                        .transcript
                        .set(Transcript::from_session(Some(&session)));
                    state.session.set(Some(session));
                    open.set(false);
                }
                Err(failure) => state.error.set(Some(failure.message)),
            }
        })
    });
    let trash = Callback::new(move |id: String| {
        tasks::act(async move {
            match ipc::chat_trash(&id).await {
                Ok(()) => {
                    // The chat view may have been left meanwhile.
                    if state
                        .session
                        .try_with_untracked(|s| s.as_ref().is_some_and(|s| s.id == id))
                        .unwrap_or(false)
                    {
                        state.session.set(None);
                        state.transcript.set(Transcript::default());
                    }
                    refresh();
                }
                Err(failure) => state.error.set(Some(failure.message)),
            }
        })
    });

    view! {
        <section class="chat-history" id="chat-history" aria-label="Chat history">
            <h2>"History"</h2>
            {move || history.with(|h| h.warnings.clone()).into_iter().map(|warning| view! { <p class="warning">{warning}</p> }).collect_view()}
            {move || history.with(|h| h.sessions.is_empty()).then(|| view! { <p class="muted">"No chats yet."</p> })}
            <ul>
                {move || {
                    history
                        .get()
                        .sessions
                        .into_iter()
                        .map(|chat| view! { <HistoryEntry chat state resume trash /> })
                        .collect_view()
                }}
            </ul>
        </section>
    }
}

/// One chat of the history: continue it, or move it to the trash (not
/// while a turn streams).
#[component]
fn HistoryEntry(
    chat: ChatSessionInfo,
    state: ChatState,
    resume: Callback<String>,
    trash: Callback<String>,
) -> impl IntoView {
    let busy = move || state.transcript.with(|t| t.streaming.is_some());
    let (open_id, trash_id) = (chat.id.clone(), chat.id.clone());
    let when = chat
        .updated_at
        .to_string()
        .get(..16)
        .unwrap_or_default()
        .replace('T', " ");
    view! {
        <li class="chat-history-entry" class:active=chat.active data-session=chat.id.clone()>
            <button
                class="chat-history-open"
                disabled=busy
                title="Continue this chat"
                on:click=move |_| resume.run(open_id.clone())
            >
                <span class="title">{chat.title}</span>
                <span class="muted">{format!("{when} · {} messages · {}", chat.messages, chat.mode.as_str())}</span>
            </button>
            <button
                class="icon chat-history-trash"
                title="Move to trash"
                aria-label="Move to trash"
                disabled=busy
                on:click=move |_| trash.run(trash_id.clone())
            >"✕"</button>
        </li>
    }
}
