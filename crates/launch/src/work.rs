//! What is done with a started agent after its start: a follow-up typed
//! into its own prompt, stopping it, reviewing, merging or discarding the
//! work in its worktree.

use switchboard_model::{
    Timestamp,
    agent::launch::{self, Launch, Worktree, WorktreeChanges},
    program::{Key, SessionState},
    team::TaskStatus,
};
use switchboard_session::{
    Client, ClientError,
    protocol::{Input, WaitFor},
};
use switchboard_store::{
    Workspace, launches,
    team::{self, Teams},
    worktrees,
};

use crate::LaunchFailure;

/// How long the agent's interface is quiet once it has drawn typed text.
const ECHO_QUIET_MS: u64 = 300;

/// How long drawing typed text may take at most.
const ECHO_TIMEOUT_MS: u64 = 5_000;

/// Types `text` into the agent's own prompt and submits it.
pub async fn send(
    client: &Client,
    workspace: &Workspace,
    name: &str,
    text: &str,
) -> Result<Launch, LaunchFailure> {
    let launch = launches::get(workspace, name)?;
    if !runs(client, workspace, &launch).await? {
        return Err(LaunchFailure::NotRunning(name.to_owned()));
    }
    type_line(client, &launch.session, text, false, false).await?;
    Ok(launch)
}

/// Types `text` and then Enter into an agent's interface in `session`
/// (`secret`: masked wherever it shows; `by_user`: the developer, who may
/// hold the session). An agent's interface takes text and an Enter
/// arriving together as a paste, the Enter a new line in its prompt: the
/// Enter goes once the text is drawn.
pub async fn type_line(
    client: &Client,
    session: &str,
    text: &str,
    secret: bool,
    by_user: bool,
) -> Result<(), ClientError> {
    let typed = client
        .send_as(session, Input::Text(text.to_owned()), secret, by_user)
        .await?;
    // Drawn: the interface answers the typing (an idle one was quiet
    // already, so quiet alone would not wait for it), then settles.
    client
        .read_following(session, Some(typed), false, Some(ECHO_TIMEOUT_MS), Some(0))
        .await?;
    client
        .wait(
            session,
            WaitFor::Quiet(ECHO_QUIET_MS),
            ECHO_TIMEOUT_MS,
            |_| {},
        )
        .await?;
    client
        .send_as(session, Input::Key(Key::Enter), false, by_user)
        .await?;
    Ok(())
}

/// Ends the agent's program (its worktree and record are kept).
pub async fn stop(
    client: &Client,
    workspace: &Workspace,
    name: &str,
) -> Result<Launch, LaunchFailure> {
    let launch = launches::get(workspace, name)?;
    if runs(client, workspace, &launch).await? {
        client.kill(&launch.session, None).await?;
    }
    Ok(launch)
}

/// What the agent changed in its worktree since its base.
pub fn diff(workspace: &Workspace, name: &str) -> Result<WorktreeChanges, LaunchFailure> {
    let launch = launches::get(workspace, name)?;
    Ok(worktrees::changes(workspace, worktree_of(&launch)?)?)
}

/// Merges the agent's work into its base (`commit_first`: its uncommitted
/// work committed first); records it.
pub fn merge(
    workspace: &Workspace,
    name: &str,
    commit_first: bool,
    now: Timestamp,
) -> Result<Launch, LaunchFailure> {
    let launch = launches::get(workspace, name)?;
    let commit = worktrees::merge(workspace, worktree_of(&launch)?, name, commit_first)?;
    let merged = launches::merged(workspace, name, commit, now)?;
    // Merged work completes its task (the cascade unblocks what waited).
    if let Some(text) = &launch.task {
        let (team, id) = launch::task_ref(text)?;
        let teams = Teams::in_workspace(workspace);
        team::advance_task(&teams, &team, &id, TaskStatus::Completed, now)?;
    }
    Ok(merged)
}

/// Removes the agent's worktree and branch: refused while its program
/// runs, and while it has work not merged unless `confirmed`.
pub async fn discard(
    client: &Client,
    workspace: &Workspace,
    name: &str,
    confirmed: bool,
    now: Timestamp,
) -> Result<Launch, LaunchFailure> {
    let launch = launches::get(workspace, name)?;
    let worktree = worktree_of(&launch)?;
    if runs(client, workspace, &launch).await? {
        return Err(LaunchFailure::Running(name.to_owned()));
    }
    worktrees::discard(workspace, worktree, confirmed)?;
    Ok(launches::discarded(workspace, name, now)?)
}

/// Whether the launch's program still runs — as a session of this
/// workspace: a launch file naming another workspace's session (anyone
/// here can write one) never reaches it.
async fn runs(
    client: &Client,
    workspace: &Workspace,
    launch: &Launch,
) -> Result<bool, LaunchFailure> {
    let root = workspace.root().display().to_string();
    match client.clone().without_starting().list(Some(root)).await {
        Ok(sessions) => Ok(sessions
            .iter()
            .any(|session| session.id == launch.session && session.state == SessionState::Running)),
        Err(ClientError::NotRunning | ClientError::Io(_)) => Ok(false),
        Err(error) => Err(error.into()),
    }
}

fn worktree_of(launch: &Launch) -> Result<&Worktree, LaunchFailure> {
    launch
        .worktree
        .as_ref()
        .ok_or_else(|| LaunchFailure::NoWorktree(launch.name.clone()))
}
