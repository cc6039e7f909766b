//! Commands of the Chat view: each hands the request to the sidecar.

use switchboard_model::{
    ErrorCode, ErrorPayload,
    chat::ChatSession,
    ipc::{ChatSendRequest, ChatStopRequest, SidecarHealth},
    sidecar::{ChatRequest, RequestBody},
};
use switchboard_store::chats;
use tauri::State;

use crate::state::AppState;

fn unavailable(message: String) -> ErrorPayload {
    ErrorPayload::new(ErrorCode::Internal, message)
}

/// Starts a chat turn; events arrive as `sidecar` events with the returned id.
#[tauri::command]
pub fn chat_send(
    state: State<'_, AppState>,
    request: ChatSendRequest,
) -> Result<u64, ErrorPayload> {
    let chat = ChatRequest {
        workspace: state.workspace.root().display().to_string(),
        mode: request.mode,
        message: request.message,
        new_session: request.new_session,
    };
    state
        .sidecar
        .send(RequestBody::Chat(chat))
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

/// The active chat, for the transcript and the memory panel.
#[tauri::command]
pub async fn chat_history(state: State<'_, AppState>) -> Result<Option<ChatSession>, ErrorPayload> {
    Ok(chats::active(&state.workspace)?)
}

/// Whether the sidecar runs.
#[tauri::command]
pub fn sidecar_health(state: State<'_, AppState>) -> SidecarHealth {
    state.sidecar.health()
}
