//! The Chat view: mode switcher, transcript with streaming answer and the
//! writes applied or refused, stop, the memory panel (the conversation
//! summary) and the context inspector (what went into the last prompt).

use leptos::{prelude::*, task::spawn_local};
use switchboard_model::{
    chat::{
        ChatMode, ConversationSummary, Role,
        transcript::{Entry, Transcript},
    },
    ipc::{ChatSendRequest, SidecarHealth},
};

use crate::ipc;

const MODES: [ChatMode; 3] = [ChatMode::Planning, ChatMode::Building, ChatMode::Analyzing];

fn mode_label(mode: ChatMode) -> &'static str {
    match mode {
        ChatMode::Planning => "Planning",
        ChatMode::Building => "Building",
        ChatMode::Analyzing => "Analyzing",
    }
}

/// The chat pane.
#[component]
pub fn Chat() -> impl IntoView {
    let mode = RwSignal::new(ChatMode::Planning);
    let transcript = RwSignal::new(Transcript::default());
    let summary = RwSignal::new(None::<ConversationSummary>);
    let draft = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let health = RwSignal::new(None::<SidecarHealth>);

    let reload = move || {
        spawn_local(async move {
            match ipc::chat_history().await {
                Ok(session) => {
                    summary.set(session.as_ref().and_then(|s| s.summary.clone()));
                    if transcript.with_untracked(|t| t.streaming.is_none() && t.entries.is_empty())
                    {
                        transcript.set(Transcript::from_session(session.as_ref()));
                    }
                }
                Err(failure) => error.set(Some(failure.message)),
            }
        })
    };
    reload();
    spawn_local(async move {
        if let Ok(current) = ipc::sidecar_health().await {
            health.set(Some(current));
        }
        let _ = ipc::on_sidecar_health(move |current| health.set(Some(current))).await;
    });
    spawn_local(async move {
        let subscribed = ipc::on_sidecar(move |response| {
            let done = matches!(
                response.body,
                switchboard_model::sidecar::ResponseBody::ChatDone { .. }
            );
            transcript.update(|t| t.apply(response.id, response.body));
            if done {
                reload();
            }
        })
        .await;
        if let Err(failure) = subscribed {
            error.set(Some(format!("chat events are off: {}", failure.message)));
        }
    });

    let send = move || {
        let message = draft.get_untracked().trim().to_owned();
        if message.is_empty() || transcript.with_untracked(|t| t.streaming.is_some()) {
            return;
        }
        let request = ChatSendRequest {
            mode: mode.get_untracked(),
            message: message.clone(),
            new_session: false,
        };
        spawn_local(async move {
            match ipc::chat_send(&request).await {
                Ok(chat) => {
                    error.set(None);
                    draft.set(String::new());
                    transcript.update(|t| t.begin(chat, &message));
                }
                Err(failure) => error.set(Some(failure.message)),
            }
        });
    };
    let stop = move || {
        if let Some((chat, _)) = transcript.get_untracked().streaming {
            spawn_local(async move {
                if let Err(failure) = ipc::chat_stop(chat).await {
                    error.set(Some(failure.message));
                }
            });
        }
    };

    view! {
        <section class="chat" id="view-chat">
            <header class="view-header">
                <h1>"Chat"</h1>
                <div class="tabs" role="tablist" aria-label="Mode">
                    {MODES
                        .into_iter()
                        .map(|choice| {
                            view! {
                                <button
                                    role="tab"
                                    class="tab"
                                    id=format!("chat-mode-{}", choice.as_str())
                                    aria-selected=move || (mode.get() == choice).to_string()
                                    on:click=move |_| mode.set(choice)
                                >
                                    {mode_label(choice)}
                                </button>
                            }
                        })
                        .collect_view()}
                </div>
                <span class="sidecar-health" id="sidecar-health">
                    {move || match health.get() {
                        Some(SidecarHealth { running: true, .. }) => "model link ready".to_owned(),
                        Some(SidecarHealth { message: Some(message), .. }) => message,
                        _ => "starting the model link…".to_owned(),
                    }}
                </span>
            </header>
            <div class="chat-columns">
                <div class="chat-main">
                    <ol class="chat-transcript" id="chat-transcript">
                        {move || transcript.with(|t| t.entries.iter().cloned().map(entry_view).collect_view())}
                        {move || {
                            transcript
                                .with(|t| t.streaming.as_ref().map(|(_, text)| text.clone()))
                                .map(|text| view! { <li class="chat-message assistant streaming" id="chat-streaming">{text}"▍"</li> })
                        }}
                    </ol>
                    {move || error.get().map(|message| view! { <p class="error" role="alert" id="chat-error">{message}</p> })}
                    <div class="chat-compose">
                        <textarea
                            id="chat-input"
                            rows="3"
                            placeholder="Ask about the workspace (Ctrl+Enter sends)"
                            prop:value=move || draft.get()
                            on:input=move |event| draft.set(event_target_value(&event))
                            on:keydown=move |event| {
                                if crate::keys::is_submit(&event) {
                                    event.prevent_default();
                                    send();
                                }
                            }
                        ></textarea>
                        {move || {
                            if transcript.with(|t| t.streaming.is_some()) {
                                view! { <button id="chat-stop" on:click=move |_| stop()>"Stop"</button> }.into_any()
                            } else {
                                view! { <button id="chat-send" class="primary" on:click=move |_| send()>"Send"</button> }.into_any()
                            }
                        }}
                    </div>
                </div>
                <aside class="chat-side">
                    <MemoryPanel summary transcript />
                    <Inspector transcript />
                </aside>
            </div>
        </section>
    }
}

fn entry_view(entry: Entry) -> AnyView {
    match entry {
        Entry::Message { role, text } => {
            let class = if role == Role::User { "chat-message user" } else { "chat-message assistant" };
            view! { <li class=class>{text}</li> }.into_any()
        }
        Entry::Wrote { path, bytes } => view! {
            <li class="chat-write applied">"✓ wrote " <code>{path}</code> {format!(" ({bytes} bytes)")}</li>
        }
        .into_any(),
        Entry::Refused { path, reason } => view! {
            <li class="chat-write refused">"✗ refused " <code>{path}</code> ": " {reason}</li>
        }
        .into_any(),
        Entry::Failed { message } => view! { <li class="chat-failed" role="alert">{message}</li> }.into_any(),
    }
}

/// The conversation summary: mid-term memory, visible, with what the last
/// turn added or closed.
#[component]
fn MemoryPanel(
    summary: RwSignal<Option<ConversationSummary>>,
    transcript: RwSignal<Transcript>,
) -> impl IntoView {
    view! {
        <section class="memory" id="chat-memory">
            <h2>"Memory"</h2>
            {move || {
                let change = transcript.with(|t| t.last_change.clone());
                (!change.is_empty()).then(|| {
                    view! {
                        <div class="memory-change" id="chat-memory-change">
                            <h3>"Last turn"</h3>
                            <ul>
                                {change
                                    .added
                                    .into_iter()
                                    .map(|(list, entry)| view! { <li class="added">{format!("+ {entry}")}<span class="muted">{format!(" ({list})")}</span></li> })
                                    .collect_view()}
                                {change
                                    .closed_questions
                                    .into_iter()
                                    .map(|question| view! { <li class="closed">{format!("✓ {question}")}</li> })
                                    .collect_view()}
                            </ul>
                        </div>
                    }
                })
            }}
            {move || match summary.get() {
                None => view! { <p class="muted">"No summary yet."</p> }.into_any(),
                Some(summary) => {
                    let lists = [
                        ("Decisions", summary.decisions),
                        ("Constraints", summary.constraints),
                        ("Accepted defaults", summary.accepted_defaults),
                        ("Rejected options", summary.rejected_options),
                        ("Open questions", summary.open_questions),
                    ];
                    lists
                        .into_iter()
                        .filter(|(_, entries)| !entries.is_empty())
                        .map(|(title, entries)| {
                            view! {
                                <h3>{title}</h3>
                                <ul>{entries.into_iter().map(|entry| view! { <li>{entry}</li> }).collect_view()}</ul>
                            }
                        })
                        .collect_view()
                        .into_any()
                }
            }}
        </section>
    }
}

/// What went into the last prompt, part by part, with token counts.
#[component]
fn Inspector(transcript: RwSignal<Transcript>) -> impl IntoView {
    view! {
        <section class="inspector" id="chat-inspector">
            <h2>"Context"</h2>
            {move || {
                let parts = transcript.with(|t| t.last_prompt.clone());
                if parts.is_empty() {
                    return view! { <p class="muted">"Send a message to see what the model receives."</p> }.into_any();
                }
                let total: usize = parts.iter().filter(|p| p.included).map(|p| p.tokens).sum();
                view! {
                    <p class="muted">{format!("{total} tokens sent")}</p>
                    <table>
                        {parts
                            .into_iter()
                            .map(|part| {
                                let preview: String = part.text.chars().take(400).collect();
                                let dropped = !part.included;
                                view! {
                                    <tr class:dropped=dropped title=preview>
                                        <td>{format!("{:?}", part.kind).to_lowercase()}</td>
                                        <td>{part.label}</td>
                                        <td class="tokens">{part.tokens}</td>
                                    </tr>
                                }
                            })
                            .collect_view()}
                    </table>
                }
                .into_any()
            }}
        </section>
    }
}
