//! The transcript: messages (the model's rendered as sanitized markdown),
//! writes applied or refused, writes waiting for approval, and the answer
//! streaming in.

use leptos::prelude::*;
use switchboard_model::{
    chat::{Role, transcript::Entry},
    sidecar::{ProposalOutcome, WriteEvent},
};

use super::ChatState;
use crate::{ipc, tasks, views::markdown::Markdown};

/// How close to the end, in pixels, still counts as "at the end".
const FOLLOW_SLACK: i32 = 32;

/// The transcript list. It scrolls on its own (the composer stays in
/// view) and follows the answer as it streams, unless the developer has
/// scrolled up to read; scrolling back to the end follows again.
#[component]
pub fn TranscriptView(state: ChatState) -> impl IntoView {
    // Entries change once per event, not per streamed token, so the list
    // is not rebuilt while the answer streams.
    let entries = Memo::new(move |_| state.transcript.with(|t| t.entries.clone()));
    let list = NodeRef::<leptos::html::Ol>::new();
    let follow = StoredValue::new(true);
    // Where the last automatic scroll left the list: only a scroll above it
    // is the developer's (text arriving meanwhile also moves the end away).
    let pinned = StoredValue::new(0_i32);
    Effect::new(move |_| {
        // Runs after every change of the transcript, streamed text included.
        state.transcript.track();
        if follow.get_value()
            && let Some(list) = list.get()
        {
            request_animation_frame(move || {
                // Moved up since the last automatic scroll, and the scroll
                // event not handled yet: the developer is reading.
                if !follow.get_value() || list.scroll_top() < pinned.get_value() - FOLLOW_SLACK {
                    follow.set_value(false);
                    return;
                }
                list.set_scroll_top(list.scroll_height());
                pinned.set_value(list.scroll_top());
            });
        }
    });
    let on_scroll = move |_| {
        if let Some(list) = list.get() {
            let top = list.scroll_top();
            let from_end = list.scroll_height() - top - list.client_height();
            if from_end <= FOLLOW_SLACK {
                follow.set_value(true);
            } else if top < pinned.get_value() - FOLLOW_SLACK {
                follow.set_value(false);
            }
        }
    };
    view! {
        <ol class="chat-transcript" id="chat-transcript" aria-live="polite" node_ref=list on:scroll=on_scroll>
            <For
                each=move || entries.get().into_iter().enumerate()
                key=|(index, entry)| (*index, format!("{entry:?}"))
                children=move |(_, entry)| entry_view(state, entry)
            />
            {move || {
                state
                    .transcript
                    .with(|t| t.streaming.as_ref().map(|(_, text)| text.clone()))
                    .map(|text| view! { <li class="chat-message assistant streaming" id="chat-streaming">{text}"▍"</li> })
            }}
        </ol>
    }
}

fn entry_view(state: ChatState, entry: Entry) -> AnyView {
    match entry {
        Entry::Message { role: Role::User, text } => {
            view! { <li class="chat-message user">{text}</li> }.into_any()
        }
        Entry::Message { text, .. } => view! {
            <li class="chat-message assistant markdown"><Markdown text /></li>
        }
        .into_any(),
        Entry::Write {
            event: WriteEvent::Applied { path, bytes },
            ..
        } => view! {
            <li class="chat-write applied">"✓ wrote " <code>{path}</code> {format!(" ({bytes} bytes)")}</li>
        }
        .into_any(),
        Entry::Write {
            event: WriteEvent::Refused { path, reason },
            ..
        } => view! {
            <li class="chat-write refused">"✗ refused " <code>{path}</code> ": " {reason}</li>
        }
        .into_any(),
        Entry::Write {
            event:
                WriteEvent::Proposed {
                    proposal,
                    path,
                    bytes,
                    preview,
                },
            outcome,
        } => proposal_view(state, proposal, path, bytes, preview, outcome),
        Entry::Stopped => view! {
            <li class="chat-stopped">"⏹ Stopped. The answer so far is kept."</li>
        }
        .into_any(),
        Entry::Failed { message } => {
            view! { <li class="chat-failed" role="alert">{message}</li> }.into_any()
        }
    }
}

fn proposal_view(
    state: ChatState,
    proposal: String,
    path: String,
    bytes: usize,
    preview: String,
    outcome: Option<ProposalOutcome>,
) -> AnyView {
    // Pressed once: the buttons wait for the answer (which waits for the
    // model link, if it is starting).
    let settling = RwSignal::new(false);
    let settle = move |proposal: String, apply: bool| {
        settling.set(true);
        tasks::act(async move {
            match ipc::chat_settle_write(&proposal, apply).await {
                Ok(body) => state.transcript.update(|t| t.apply(0, body)),
                Err(failure) => state.error.set(Some(failure.message)),
            }
            settling.try_set(false);
        })
    };
    let status = match &outcome {
        None => "waits for your approval".to_owned(),
        Some(ProposalOutcome::Applied { bytes }) => format!("applied ({bytes} bytes)"),
        Some(ProposalOutcome::Refused { reason }) => format!("refused: {reason}"),
        Some(ProposalOutcome::Discarded) => "discarded".to_owned(),
        Some(ProposalOutcome::Expired) => {
            "no longer held: the model link restarted since; ask for it again".to_owned()
        }
    };
    let (apply_id, discard_id) = (proposal.clone(), proposal.clone());
    view! {
        <li class="chat-write proposed" data-proposal=proposal.clone()>
            <details open=outcome.is_none()>
                <summary>
                    "✎ proposes " <code>{path}</code> {format!(" ({bytes} bytes) — {status}")}
                </summary>
                <pre class="proposal-preview">{preview}</pre>
            </details>
            {outcome.is_none().then(|| view! {
                <div class="proposal-actions">
                    <button class="primary proposal-apply" disabled=settling on:click=move |_| settle(apply_id.clone(), true)>"Apply"</button>
                    <button class="proposal-discard" disabled=settling on:click=move |_| settle(discard_id.clone(), false)>"Discard"</button>
                </div>
            })}
        </li>
    }
    .into_any()
}
