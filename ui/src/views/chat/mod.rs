//! The Chat view: mode switcher, model picker, new chat and history, the
//! transcript with the streaming answer and the writes applied, refused or
//! proposed, stop, the memory panel (the conversation summary, editable)
//! and the context inspector (what went into the last prompt).

pub mod draft;
mod history;
mod inspector;
mod memory;
mod transcript;

use leptos::prelude::*;
use switchboard_model::{
    chat::{ChatMode, ChatSession, transcript::Transcript},
    export::{self, ExportFormat},
    ipc::{ChatEvent, ChatSendRequest, SidecarHealth},
    sidecar::ResponseBody,
};

use self::draft::ChatDraft;
use crate::{
    events, ipc, tasks,
    views::{
        composer::Composer,
        save::{SaveStatus, Saved, save_document},
        settings::ModelPicker,
    },
};

const MODES: [ChatMode; 3] = [ChatMode::Planning, ChatMode::Building, ChatMode::Analyzing];

fn mode_label(mode: ChatMode) -> &'static str {
    match mode {
        ChatMode::Planning => "Planning",
        ChatMode::Building => "Building",
        ChatMode::Analyzing => "Analyzing",
    }
}

/// What the chat's parts share.
#[derive(Debug, Clone, Copy)]
pub struct ChatState {
    /// The transcript and the turn in flight.
    pub transcript: RwSignal<Transcript>,
    /// The active chat as stored (its id and summary).
    pub session: RwSignal<Option<ChatSession>>,
    /// The last failure to show.
    pub error: RwSignal<Option<String>>,
}

/// The chat pane: the active chat read now and after each turn, the
/// sidecar's answers folded into the transcript as they stream.
#[component]
pub fn Chat() -> impl IntoView {
    let state = ChatState {
        transcript: RwSignal::new(Transcript::default()),
        session: RwSignal::new(None),
        error: RwSignal::new(None),
    };
    let mode = RwSignal::new(ChatMode::Planning);
    let show_history = RwSignal::new(false);
    let saved = RwSignal::new(None::<Saved>);
    // The window keeps the draft; a view of its own only outside one.
    let draft = use_context::<ChatDraft>().unwrap_or_else(ChatDraft::follow);
    // Events that arrive before the view's first read wait for it, then
    // fold in after what it read (each once: see `Transcript::fold`).
    let early = StoredValue::new(Some(Vec::<ChatEvent>::new()));
    read_active(state, mode, early);
    follow_sidecar(state, early);
    view! {
        <section class="chat" id="view-chat">
            <ChatHeader state mode show_history saved />
            <SaveStatus status=saved id="chat-export-status" />
            {move || show_history.get().then(|| view! { <history::History state open=show_history /> })}
            <div class="chat-columns">
                <div class="chat-main">
                    <transcript::TranscriptView state />
                    {move || state.error.get().map(|message| view! { <p class="error" role="alert" id="chat-error">{message}</p> })}
                    <ComposeBar state mode draft />
                </div>
                <aside class="chat-side">
                    <memory::MemoryPanel state />
                    <inspector::Inspector transcript=state.transcript />
                </aside>
            </div>
        </section>
    }
}

/// Reads the active chat into the view, then folds in the events that
/// arrived meanwhile (`early`, which then stops holding them).
fn read_active(
    state: ChatState,
    mode: RwSignal<ChatMode>,
    early: StoredValue<Option<Vec<ChatEvent>>>,
) {
    tasks::fetch(async move {
        let active = ipc::chat_history().await;
        let waiting = early.try_update_value(Option::take).flatten();
        let mut ended = false;
        match active {
            Ok(active) => {
                if waiting.is_some() && state.transcript.with_untracked(|t| t.streaming.is_none()) {
                    state.transcript.set(Transcript::open(
                        active.session.as_ref(),
                        active.last_turn.as_ref(),
                        active.seq,
                    ));
                    if let Some(session) = &active.session {
                        mode.set(session.mode);
                    }
                }
                state.session.set(active.session);
            }
            Err(failure) => state.error.set(Some(failure.message)),
        }
        for event in waiting.unwrap_or_default() {
            ended |= matches!(event.response.body, ResponseBody::ChatDone { .. });
            state.transcript.update(|t| t.fold(event));
        }
        if ended {
            // The chat file may have been read before the turn was saved.
            reload_session(state);
        }
    });
}

/// Folds the sidecar's events into the transcript as they come (held in
/// `early` until the first read is in), reading the chat again once a
/// turn is done.
fn follow_sidecar(state: ChatState, early: StoredValue<Option<Vec<ChatEvent>>>) {
    events::on_sidecar(move |event| {
        let event = early
            .try_update_value(|early| match early {
                Some(waiting) => {
                    waiting.push(event);
                    None
                }
                None => Some(event),
            })
            .flatten();
        let Some(event) = event else {
            return;
        };
        let done = matches!(event.response.body, ResponseBody::ChatDone { .. });
        state.transcript.update(|t| t.fold(event));
        if done {
            reload_session(state);
        }
    });
}

/// Reads the active chat again after a turn (its summary, for the memory
/// panel); the transcript already has the turn.
fn reload_session(state: ChatState) {
    tasks::fetch(async move {
        match ipc::chat_history().await {
            Ok(active) => state.session.set(active.session),
            Err(failure) => state.error.set(Some(failure.message)),
        }
    });
}

/// The header: the mode tabs, the model picker, a new chat, the export,
/// the history and the model link's health.
#[component]
fn ChatHeader(
    state: ChatState,
    mode: RwSignal<ChatMode>,
    show_history: RwSignal<bool>,
    saved: RwSignal<Option<Saved>>,
) -> impl IntoView {
    let health = RwSignal::new(None::<SidecarHealth>);
    events::on_sidecar_health(move |current| health.set(Some(current)));
    tasks::fetch(async move {
        if let Ok(current) = ipc::sidecar_health().await {
            health.set(Some(current));
        }
    });
    let busy = move || state.transcript.with(|t| t.streaming.is_some());
    let new_chat = move || {
        tasks::act(async move {
            match ipc::chat_new().await {
                Ok(()) => {
                    state.session.set(None);
                    state.transcript.set(Transcript::default());
                    show_history.set(false);
                }
                Err(failure) => state.error.set(Some(failure.message)),
            }
        })
    };
    let export = move |_| {
        let document = state
            .session
            .with_untracked(|session| session.as_ref().map(export::chat_document));
        if let Some(document) = document {
            save_document(saved, ExportFormat::Markdown, async move { Ok(document) });
        }
    };
    view! {
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
            <ModelPicker />
            <button id="chat-new" disabled=busy on:click=move |_| new_chat() title="Start a new chat (this one goes to the history)">"New chat"</button>
            <button
                id="chat-export"
                title="Save this chat as a markdown file"
                disabled=move || state.session.with(|session| session.as_ref().is_none_or(|s| s.messages.is_empty()))
                on:click=export
            >"Save .md"</button>
            <button
                id="chat-history-toggle"
                aria-expanded=move || show_history.get().to_string()
                on:click=move |_| show_history.update(|open| *open = !*open)
            >"History"</button>
            <span class="sidecar-health" id="sidecar-health">
                {move || match health.get() {
                    Some(SidecarHealth { running: true, .. }) => "model link ready".to_owned(),
                    Some(SidecarHealth { message: Some(message), .. }) => message,
                    _ => "starting the model link…".to_owned(),
                }}
            </span>
        </header>
    }
}

/// The message being written: Send (Ctrl+Enter) starts a turn in the
/// chosen mode, Stop (Esc, wherever the focus is) ends the one under way.
#[component]
fn ComposeBar(state: ChatState, mode: RwSignal<ChatMode>, draft: ChatDraft) -> impl IntoView {
    let busy = move || state.transcript.with(|t| t.streaming.is_some());
    let send = move || {
        let message = draft.text.get_untracked().trim().to_owned();
        if message.is_empty() || state.transcript.with_untracked(|t| t.streaming.is_some()) {
            return;
        }
        let request = ChatSendRequest {
            mode: mode.get_untracked(),
            message: message.clone(),
            new_session: false,
        };
        tasks::act(async move {
            match ipc::chat_send(&request).await {
                Ok(chat) => {
                    state.error.set(None);
                    state.transcript.update(|t| t.begin(chat, &message));
                    draft.sent(chat, message);
                }
                Err(failure) => state.error.set(Some(failure.message)),
            }
        });
    };
    let stop = move || {
        if let Some((chat, _)) = state.transcript.get_untracked().streaming {
            tasks::act(async move {
                if let Err(failure) = ipc::chat_stop(chat).await {
                    state.error.set(Some(failure.message));
                }
            });
        }
    };
    let escape = window_event_listener(leptos::ev::keydown, move |event| {
        if event.key() == "Escape" && busy() {
            event.prevent_default();
            stop();
        }
    });
    on_cleanup(move || escape.remove());
    view! {
        <div class="chat-compose">
            <Composer
                id="chat-input"
                placeholder="Ask about the workspace (Ctrl+Enter sends)"
                text=draft.text
                on_submit=move |()| send()
            />
            {move || {
                if busy() {
                    view! { <button id="chat-stop" title="Stop the answer (Esc)" on:click=move |_| stop()>"Stop"</button> }.into_any()
                } else {
                    view! { <button id="chat-send" class="primary" on:click=move |_| send()>"Send"</button> }.into_any()
                }
            }}
        </div>
    }
}
