//! Commands of the Terminals view: each one call over the session host's
//! client, or over the store's session logs. The sessions themselves are
//! followed by the shell for the window's whole life (`crate::sessions`).

use switchboard_model::tape::view::{self, TapeView};
use switchboard_model::{
    ErrorCode, ErrorPayload,
    program::{
        Controller, ProgramSession,
        view::{
            SessionControlRequest, SessionOutput, SessionOutputRequest, SessionRequest,
            SessionTypeRequest,
        },
    },
};
use switchboard_session::{Client, ClientError, protocol::Input};
use switchboard_store::{launches, session_log};
use tauri::State;

use super::on_workspace;
use crate::state::AppState;

fn failed(error: ClientError) -> ErrorPayload {
    error.payload()
}

/// A client of the user's host; one it starts reads the settings the app
/// reads (`--config-dir`).
pub(super) fn client(state: &AppState) -> Result<Client, ErrorPayload> {
    let client = Client::new().map_err(failed)?;
    Ok(match &state.config.config_dir {
        Some(dir) => client.with_host_env(vec![(
            "SWITCHBOARD_CONFIG_DIR".to_owned(),
            dir.display().to_string(),
        )]),
        None => client,
    })
}

/// The workspace's sessions now (see [`crate::sessions`]).
#[tauri::command]
pub async fn sessions(state: State<'_, AppState>) -> Result<Vec<ProgramSession>, ErrorPayload> {
    Ok(state.sessions.now())
}

/// A session's log as a tape, to play it back.
#[tauri::command]
pub async fn session_replay(
    state: State<'_, AppState>,
    request: SessionRequest,
) -> Result<TapeView, ErrorPayload> {
    on_workspace(&state, move |workspace| {
        let tape = session_log::as_tape(workspace.root(), &request.session)?;
        Ok(view::view(&request.session, &tape))
    })
    .await
}

/// A session's output since a cursor.
#[tauri::command]
pub async fn session_output(
    state: State<'_, AppState>,
    request: SessionOutputRequest,
) -> Result<SessionOutput, ErrorPayload> {
    let output = client(&state)?
        .read_following(
            &request.session,
            request.since,
            false,
            request.wait_ms,
            request.tail,
        )
        .await
        .map_err(failed)?;
    Ok(SessionOutput {
        session: output.session,
        text: output.text,
        cursor: output.cursor,
        missed: output.missed,
    })
}

/// The developer types into a session: each piece after the one before
/// it was typed (the view sends the next request once this one is done).
/// A piece that is not one refuses the whole request before anything is
/// typed.
#[tauri::command]
pub async fn session_type(
    state: State<'_, AppState>,
    request: SessionTypeRequest,
) -> Result<(), ErrorPayload> {
    let inputs = request
        .typed
        .into_iter()
        .map(|typed| {
            let secret = typed.secret;
            Input::of(typed.text, typed.line, typed.key.as_deref())
                .map(|input| (input, secret))
                .map_err(|error| ErrorPayload::new(ErrorCode::InvalidRequest, error.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let client = client(&state)?;
    // A started agent's interface takes a line's text and its Enter apart
    // (the launches are read only for a line, not for each key typed).
    let has_line = inputs
        .iter()
        .any(|(input, _)| matches!(input, Input::Line(_)));
    let agent = has_line
        && launches::list(&state.workspace)
            .map_err(ErrorPayload::from)?
            .iter()
            .any(|launch| launch.session == request.session);
    for (input, secret) in inputs {
        match input {
            Input::Line(text) if agent => {
                switchboard_launch::type_line(&client, &request.session, &text, secret, true).await
            }
            input => client
                .send_as(&request.session, input, secret, true)
                .await
                .map(|_| ()),
        }
        .map_err(failed)?;
    }
    Ok(())
}

/// Takes a session over, or hands it back to agents.
#[tauri::command]
pub async fn session_control(
    state: State<'_, AppState>,
    request: SessionControlRequest,
) -> Result<(), ErrorPayload> {
    let controller = if request.take {
        Controller::User
    } else {
        Controller::Agent
    };
    client(&state)?
        .control(&request.session, controller)
        .await
        .map_err(failed)?;
    Ok(())
}

/// Ends a session (TERM, then KILL after the grace).
#[tauri::command]
pub async fn session_end(
    state: State<'_, AppState>,
    request: SessionRequest,
) -> Result<(), ErrorPayload> {
    client(&state)?
        .kill(&request.session, None)
        .await
        .map_err(failed)?;
    Ok(())
}
