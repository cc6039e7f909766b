//! Commands of the Chat view: turns, models and proposed writes go to the
//! sidecar; the chat history (resume, trash, summary edits) is file work
//! done through the store.

use std::time::Duration;

use switchboard_model::{
    ErrorCode, ErrorPayload,
    chat::{ChatHistory, ChatSession},
    ipc::{
        ActiveChat, ChatSendRequest, ChatSessionRequest, ChatStopRequest, RenderRequest,
        SettleWriteRequest, SidecarHealth, SummaryEditRequest,
    },
    sidecar::{ChatRequest, ProposalOutcome, RequestBody, ResponseBody},
};
use switchboard_store::{chats, clock};
use tauri::State;

use super::on_workspace;
use crate::state::AppState;

/// The sidecar could not be reached (not running, gone, or no answer).
fn unavailable(message: String) -> ErrorPayload {
    ErrorPayload::new(ErrorCode::Unavailable, message)
}

/// Starts a chat turn; events arrive as `sidecar` events with the returned
/// id. A turn sent while the sidecar starts waits for it.
#[tauri::command]
pub async fn chat_send(
    state: State<'_, AppState>,
    request: ChatSendRequest,
) -> Result<u64, ErrorPayload> {
    let message = request.message.clone();
    let chat = ChatRequest {
        workspace: state.workspace.root().display().to_string(),
        mode: request.mode,
        message: request.message,
        new_session: request.new_session,
        session: None,
        dry_run: false,
    };
    state
        .sidecar
        .send_turn(&message, RequestBody::Chat(chat))
        .await
        .map_err(unavailable)
}

/// Stops a chat turn at once.
#[tauri::command]
pub fn chat_stop(state: State<'_, AppState>, request: ChatStopRequest) -> Result<(), ErrorPayload> {
    state
        .sidecar
        .send(RequestBody::Stop { chat: request.chat })
        .map(|_| ())
        .map_err(unavailable)
}

/// The active chat, for the transcript and the memory panel, with the
/// window's last turn (the file is read first: a turn saved meanwhile is
/// then in both, and the view shows it once).
#[tauri::command]
pub async fn chat_history(state: State<'_, AppState>) -> Result<ActiveChat, ErrorPayload> {
    let session = chats::active(&state.workspace)?;
    state
        .sidecar
        .active_chat(session)
        .map_err(|message| ErrorPayload::new(ErrorCode::Internal, message))
}

/// Whether the sidecar runs.
#[tauri::command]
pub fn sidecar_health(state: State<'_, AppState>) -> SidecarHealth {
    state.sidecar.health()
}

/// How long the model list may take (the server may be waking a model).
const MODELS_LIMIT: Duration = Duration::from_secs(20);
/// How long applying a proposed write may take.
const SETTLE_LIMIT: Duration = Duration::from_secs(10);

/// Every chat outside the trash, the active one first.
#[tauri::command]
pub async fn chat_sessions(state: State<'_, AppState>) -> Result<ChatHistory, ErrorPayload> {
    Ok(chats::history(&state.workspace)?)
}

/// Archives the active chat; the next message starts a new one.
#[tauri::command]
pub async fn chat_new(state: State<'_, AppState>) -> Result<(), ErrorPayload> {
    on_workspace(&state, |workspace| {
        let now = clock::now();
        chats::archive_active(workspace, now, chats::salt(now))
    })
    .await?;
    state.sidecar.forget_ended_turn();
    Ok(())
}

/// Makes an archived chat the active one.
#[tauri::command]
pub async fn chat_resume(
    state: State<'_, AppState>,
    request: ChatSessionRequest,
) -> Result<ChatSession, ErrorPayload> {
    on_workspace(&state, move |workspace| {
        let now = clock::now();
        chats::resume(workspace, &request.id, now, chats::salt(now))
    })
    .await
    .inspect(|_| state.sidecar.forget_ended_turn())
}

/// Moves a chat to the trash; the window's last turn goes with it only if
/// it was the active chat's.
#[tauri::command]
pub async fn chat_trash(
    state: State<'_, AppState>,
    request: ChatSessionRequest,
) -> Result<(), ErrorPayload> {
    let trashed = on_workspace(&state, move |workspace| {
        let now = clock::now();
        chats::trash(workspace, &request.id, now, chats::salt(now))
    })
    .await?;
    if trashed.was_active {
        state.sidecar.forget_ended_turn();
    }
    Ok(())
}

/// Replaces the active chat's summary with the developer's edit.
#[tauri::command]
pub async fn chat_set_summary(
    state: State<'_, AppState>,
    request: SummaryEditRequest,
) -> Result<ChatSession, ErrorPayload> {
    on_workspace(&state, move |workspace| {
        chats::set_summary(workspace, &request.session, request.summary, clock::now())
    })
    .await
}

/// Applies or drops a proposed write; answers what became of it.
#[tauri::command]
pub async fn chat_settle_write(
    state: State<'_, AppState>,
    request: SettleWriteRequest,
) -> Result<ResponseBody, ErrorPayload> {
    let proposal = request.proposal.clone();
    let body = if request.apply {
        RequestBody::ApplyWrite {
            proposal: request.proposal,
        }
    } else {
        RequestBody::DiscardWrite {
            proposal: request.proposal,
        }
    };
    match state.sidecar.ask(body, SETTLE_LIMIT).await {
        // A proposal of a reopened chat whose sidecar has ended since: the
        // chat records it as no longer held, and shows it so.
        Ok(ResponseBody::Error {
            code: ErrorCode::NotFound,
            message,
        }) => {
            let outcome = ProposalOutcome::Expired;
            let settled = {
                let (proposal, outcome) = (proposal.clone(), outcome.clone());
                on_workspace(&state, move |workspace| {
                    chats::settle_write(workspace, &proposal, &outcome)
                })
                .await?
            };
            match settled {
                Some(path) => Ok(ResponseBody::ProposalSettled {
                    proposal,
                    path,
                    outcome,
                }),
                None => Err(ErrorPayload::new(ErrorCode::NotFound, message)),
            }
        }
        Ok(ResponseBody::Error { code, message }) => Err(ErrorPayload::new(code, message)),
        Ok(body) => Ok(body),
        Err(message) => Err(unavailable(message)),
    }
}

/// The models the chat's backend offers, and which backend it is.
#[tauri::command]
pub async fn list_models(
    state: State<'_, AppState>,
) -> Result<switchboard_model::ipc::ModelList, ErrorPayload> {
    match state
        .sidecar
        .ask(RequestBody::ListModels, MODELS_LIMIT)
        .await
    {
        Ok(ResponseBody::Models { models, backend }) => {
            Ok(switchboard_model::ipc::ModelList { models, backend })
        }
        Ok(ResponseBody::Error { code, message }) => Err(ErrorPayload::new(code, message)),
        Err(message) => Err(unavailable(message)),
        Ok(other) => Err(ErrorPayload::new(
            ErrorCode::Internal,
            format!("unexpected answer: {other:?}"),
        )),
    }
}

/// Markdown (a chat message) as sanitized HTML.
#[tauri::command]
pub async fn render_markdown(request: RenderRequest) -> String {
    switchboard_model::render::render_markdown(&request.markdown)
}
