//! Started agents as rows: each launch joined with its program session
//! (running, ended, lost with the host) and what its hooks last said.

use switchboard_model::{
    Timestamp,
    agent::launch::{LaunchRow, LaunchState},
    program::SessionState,
};
use switchboard_session::{Client, ClientError};
use switchboard_store::{Workspace, agents, launches};

use crate::LaunchFailure;

/// The started agents of `workspace`, newest first. With no session host
/// running, every one not landed shows as lost (or exited, as its minder
/// saw it end).
pub async fn rows(
    client: &Client,
    workspace: &Workspace,
    now: Timestamp,
) -> Result<Vec<LaunchRow>, LaunchFailure> {
    let root = workspace.root().display().to_string();
    // Listing starts no host: with none running (or one just gone), every
    // launch not landed shows as lost, as it is.
    let sessions = match client.clone().without_starting().list(Some(root)).await {
        Ok(sessions) => sessions,
        Err(ClientError::NotRunning | ClientError::Io(_)) => Vec::new(),
        Err(error) => return Err(error.into()),
    };
    // The hook records without their transcripts: only a joined row's is
    // read, once.
    let heard = agents::states(workspace, now)?;
    Ok(launches::list(workspace)?
        .into_iter()
        .map(|launch| {
            let session = sessions.iter().find(|session| session.id == launch.session);
            // Its session's record, as its own hook told its launch record:
            // an agent record in the workspace that only names the launch
            // (anything working there can write one) is not it.
            let agent = heard.iter().find(|row| launch.is_session_of(&row.record));
            let shown = LaunchState::of(
                &launch,
                session.map(|session| session.state),
                agent.map(|row| row.shown),
            );
            let since = match shown {
                LaunchState::Agent(_) => agent.map_or(launch.started, |row| row.record.since),
                LaunchState::Exited => {
                    session.map_or(launch.started, |session| session.last_activity)
                }
                _ => launch.started,
            };
            LaunchRow {
                runs: session.is_some_and(|session| session.state == SessionState::Running),
                ended_by: session
                    .and_then(|session| session.ended_by)
                    .or_else(|| launch.ended.and_then(|ended| ended.by)),
                waiting_on: agent.and_then(|row| row.record.waiting_on.clone()),
                reason: agent.and_then(|row| row.record.reason.clone()),
                last_messages: agent
                    .map(|row| agents::last_messages(&row.record))
                    .unwrap_or_default(),
                launch,
                shown,
                since,
            }
        })
        .collect())
}
