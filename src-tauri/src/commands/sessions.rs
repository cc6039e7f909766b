//! Commands of the Terminals view: each one call over the session host's
//! client. Following the sessions is a task of the shell's that lives from
//! `sessions_watch` to `sessions_unwatch` (the view's own lifetime).

use switchboard_model::{
    ErrorCode, ErrorPayload,
    ipc::EVENT_SESSIONS,
    program::{
        Controller,
        view::{
            SessionControlRequest, SessionOutput, SessionOutputRequest, SessionRequest,
            SessionTypeRequest,
        },
    },
};
use switchboard_session::{Client, ClientError, protocol::Input};
use tauri::{AppHandle, Emitter, State};

use crate::state::AppState;

fn failed(error: ClientError) -> ErrorPayload {
    error.payload()
}

fn client() -> Result<Client, ErrorPayload> {
    Client::new().map_err(failed)
}

/// Follows the workspace's sessions: [`EVENT_SESSIONS`] now and after
/// each change, until [`sessions_unwatch`] (a second watch replaces the
/// first).
#[tauri::command]
pub async fn sessions_watch(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Result<u64, ErrorPayload> {
    let client = client()?;
    let workspace = state.workspace.root().display().to_string();
    let task = tauri::async_runtime::spawn(async move {
        let result = client
            .watch(Some(workspace), |sessions| {
                if let Err(error) = app.emit(EVENT_SESSIONS, sessions) {
                    tracing::warn!(%error, "could not forward the sessions to the UI");
                }
            })
            .await;
        if let Err(error) = result {
            tracing::warn!(%error, "stopped following the program sessions");
        }
    });
    let mut current = state.sessions_watch.lock().map_err(poisoned)?;
    let number = WATCHES.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
    if let Some((_, previous)) = current.replace((number, task)) {
        previous.abort();
    }
    Ok(number)
}

/// Numbers the watches, never twice.
static WATCHES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn poisoned<T>(_: T) -> ErrorPayload {
    ErrorPayload::new(ErrorCode::Internal, "a lock of the shell was poisoned")
}

/// Stops following the sessions, when watch `request` is the current one.
#[tauri::command]
pub async fn sessions_unwatch(
    state: State<'_, AppState>,
    request: u64,
) -> Result<(), ErrorPayload> {
    let mut current = state.sessions_watch.lock().map_err(poisoned)?;
    if current
        .as_ref()
        .is_some_and(|(number, _)| *number == request)
        && let Some((_, task)) = current.take()
    {
        task.abort();
    }
    Ok(())
}

/// A session's output since a cursor.
#[tauri::command]
pub async fn session_output(request: SessionOutputRequest) -> Result<SessionOutput, ErrorPayload> {
    let output = client()?
        .read(&request.session, request.since, false)
        .await
        .map_err(failed)?;
    Ok(SessionOutput {
        session: output.session,
        text: output.text,
        cursor: output.cursor,
        missed: output.missed,
    })
}

/// The developer types into a session.
#[tauri::command]
pub async fn session_type(request: SessionTypeRequest) -> Result<(), ErrorPayload> {
    let input = Input::of(request.text, request.line, request.key.as_deref())
        .map_err(|error| ErrorPayload::new(ErrorCode::InvalidRequest, error.to_string()))?;
    client()?
        .send_as(&request.session, input, request.secret, true)
        .await
        .map_err(failed)?;
    Ok(())
}

/// Takes a session over, or hands it back to agents.
#[tauri::command]
pub async fn session_control(request: SessionControlRequest) -> Result<(), ErrorPayload> {
    let controller = if request.take {
        Controller::User
    } else {
        Controller::Agent
    };
    client()?
        .control(&request.session, controller)
        .await
        .map_err(failed)?;
    Ok(())
}

/// Ends a session (TERM, then KILL after the grace).
#[tauri::command]
pub async fn session_end(request: SessionRequest) -> Result<(), ErrorPayload> {
    client()?
        .kill(&request.session, None)
        .await
        .map_err(failed)?;
    Ok(())
}
