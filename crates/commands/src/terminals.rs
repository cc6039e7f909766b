//! The Terminals view's commands: each one call over the session host's
//! client, or over the store's session logs and reports. The sessions
//! themselves are followed for the caller's whole life ([`follow`]), so
//! the list a view first shows is the one last heard.

use std::{
    collections::BTreeSet,
    path::{Path, PathBuf},
    sync::{Mutex, PoisonError},
};

use switchboard_model::{
    ErrorCode, ErrorPayload,
    agent::launch::LaunchRow,
    probe::view::{ReportList, ReportRequest, ReportView},
    program::{
        Controller, ProgramSession,
        view::{
            SessionControlRequest, SessionOutput, SessionOutputRequest, SessionRequest,
            SessionTypeRequest,
        },
    },
    tape::view::{self, TapeView},
};
use switchboard_session::{Client, ClientError, protocol::Input};
use switchboard_store::{
    StoreError, Workspace, clock, launches, probe_reports::ProbeReports, session_log,
};

/// The most ended sessions shown from their logs.
const LOGGED: usize = 50;

fn failed(error: ClientError) -> ErrorPayload {
    error.payload()
}

/// A client of the user's session host; one it starts reads the settings
/// in `config_dir` when one is given (`--config-dir`).
pub fn client(config_dir: Option<&Path>) -> Result<Client, ErrorPayload> {
    let client = Client::new().map_err(failed)?;
    Ok(match config_dir {
        Some(dir) => client.with_host_env(vec![(
            "SWITCHBOARD_CONFIG_DIR".to_owned(),
            dir.display().to_string(),
        )]),
        None => client,
    })
}

/// The sessions as last heard.
#[derive(Default)]
pub struct Followed(Mutex<Vec<ProgramSession>>);

impl Followed {
    /// The sessions now: live ones first, then ended ones, newest first.
    pub fn now(&self) -> Vec<ProgramSession> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Whether session `id` is one of them.
    pub fn has(&self, id: &str) -> bool {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .any(|session| session.id == id)
    }

    fn set(&self, sessions: Vec<ProgramSession>) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = sessions;
    }
}

/// The ended sessions only their logs remember, leaving out `live` ones.
fn logged(root: &Path, live: &BTreeSet<String>) -> Vec<ProgramSession> {
    session_log::ended_sessions(root, live, LOGGED).unwrap_or_else(|error| {
        tracing::warn!(%error, "could not list the session logs");
        Vec::new()
    })
}

/// Follows the sessions of the workspace at `root` through `client` —
/// the live ones from the session host whenever one runs, never starting
/// or keeping one up, and the ended ones from their logs — keeping each
/// change in `followed` and telling `changed` (after it is kept). Ends
/// only when the client's following fails.
pub async fn follow(
    client: Client,
    root: PathBuf,
    followed: &Followed,
    mut changed: impl FnMut(&[ProgramSession]),
) -> Result<(), ClientError> {
    let mut live_ids = BTreeSet::new();
    let mut ended = logged(&root, &live_ids);
    followed.set(ended.clone());
    changed(&ended);
    let workspace = root.display().to_string();
    client
        .follow(Some(workspace), |sessions| {
            let mut sessions = sessions.unwrap_or_default();
            let ids: BTreeSet<String> = sessions.iter().map(|session| session.id.clone()).collect();
            // The logs are read again only when the set of sessions
            // changed (one ended and left the host, a host went).
            if ids != live_ids {
                live_ids = ids;
                ended = logged(&root, &live_ids);
            }
            sessions.extend_from_slice(&ended);
            followed.set(sessions.clone());
            changed(&sessions);
        })
        .await
}

/// A session's log as a tape, to play it back.
pub fn session_replay(own: &Workspace, request: &SessionRequest) -> Result<TapeView, StoreError> {
    let tape = session_log::as_tape(own.root(), &request.session)?;
    Ok(view::view(&request.session, &tape))
}

/// The longest one read waits for new output (the view asks again).
pub const MAX_WAIT_MS: u64 = 60_000;

/// A session's output since a cursor, waiting [`MAX_WAIT_MS`] at most.
pub async fn session_output(
    client: &Client,
    request: &SessionOutputRequest,
) -> Result<SessionOutput, ErrorPayload> {
    let output = client
        .read_following(
            &request.session,
            request.since,
            false,
            request.wait_ms.map(|wait| wait.min(MAX_WAIT_MS)),
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
pub async fn session_type(
    client: &Client,
    own: &Workspace,
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
    // A started agent's interface takes a line's text and its Enter apart
    // (the launches are read only for a line, not for each key typed).
    let has_line = inputs
        .iter()
        .any(|(input, _)| matches!(input, Input::Line(_)));
    let agent = has_line
        && launches::list(own)
            .map_err(ErrorPayload::from)?
            .iter()
            .any(|launch| launch.session == request.session);
    for (input, secret) in inputs {
        match input {
            Input::Line(text) if agent => {
                switchboard_launch::type_line(client, &request.session, &text, secret, true).await
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
pub async fn session_control(
    client: &Client,
    request: &SessionControlRequest,
) -> Result<(), ErrorPayload> {
    let controller = if request.take {
        Controller::User
    } else {
        Controller::Agent
    };
    client
        .control(&request.session, controller)
        .await
        .map_err(failed)?;
    Ok(())
}

/// Ends a session (TERM, then KILL after the grace).
pub async fn session_end(client: &Client, request: &SessionRequest) -> Result<(), ErrorPayload> {
    client.kill(&request.session, None).await.map_err(failed)?;
    Ok(())
}

/// The started agents, newest first, each with its state.
pub async fn launches(client: &Client, own: &Workspace) -> Result<Vec<LaunchRow>, ErrorPayload> {
    switchboard_launch::rows(client, own, clock::now())
        .await
        .map_err(|error| error.payload())
}

/// The reports written for this workspace, newest first.
pub fn probe_reports(folders: &ProbeReports, own: &Workspace) -> ReportList {
    folders.for_workspace(own.root())
}

/// One report of this workspace's, whole (only a file its list names).
pub fn probe_report(
    folders: &ProbeReports,
    own: &Workspace,
    request: &ReportRequest,
) -> Result<ReportView, StoreError> {
    let listed = folders
        .for_workspace(own.root())
        .reports
        .iter()
        .any(|report| report.path == request.path);
    if !listed {
        return Err(StoreError::NotFound {
            what: "report of this workspace",
            id: request.path.clone(),
        });
    }
    folders.load(&PathBuf::from(&request.path))
}
