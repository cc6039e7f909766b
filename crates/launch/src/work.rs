//! What is done with a started agent after its start: a follow-up typed
//! into its own prompt, stopping it, reviewing, merging or discarding the
//! work in its worktree.

use switchboard_model::{
    Timestamp,
    agent::{
        launch::{self, Launch, Worktree, WorktreeChanges},
        screen_prompt,
    },
    program::{Key, SessionState},
    team::TaskStatus,
};
use switchboard_session::{
    Client, ClientError,
    protocol::{Input, WaitFor},
};
use switchboard_store::{
    Workspace, clock, launches,
    team::{self, Teams},
    worktrees,
};

use crate::LaunchFailure;

/// How long the agent's interface is quiet once it has drawn typed text.
const ECHO_QUIET_MS: u64 = 300;

/// How long an agent's screen is quiet once its turn's end is drawn.
const PROMPT_QUIET_MS: u64 = 500;

/// How long an agent ending its turn may take to show its prompt.
const PROMPT_WAIT_MS: u64 = 5_000;

/// How long drawing typed text may take at most.
const ECHO_TIMEOUT_MS: u64 = 5_000;

/// Types `text` into the agent's own prompt and submits it.
pub async fn send(
    client: &Client,
    workspace: &Workspace,
    name: &str,
    text: &str,
) -> Result<Launch, LaunchFailure> {
    let launch = running(client, workspace, name).await?;
    type_line(client, &launch.session, text, false, false).await?;
    Ok(launch)
}

/// Started agent `name`, while its program runs; else why not.
async fn running(
    client: &Client,
    workspace: &Workspace,
    name: &str,
) -> Result<Launch, LaunchFailure> {
    let launch = launches::get(workspace, name)?;
    if runs(client, workspace, &launch).await? {
        return Ok(launch);
    }
    // Why, as its row says it (stopped, landed, a limit).
    let why = crate::rows(client, workspace, clock::now())
        .await
        .ok()
        .and_then(|rows| rows.into_iter().find(|row| row.launch.name == name))
        .map_or_else(
            || "its program ended".to_owned(),
            |row| row.why_not_running(),
        );
    Err(LaunchFailure::NotRunning {
        name: name.to_owned(),
        why,
    })
}

/// [`send`] for a caller that may type prompts only (a paired browser
/// without the grant to type into terminals): typed only while the
/// agent's screen shows its own prompt waiting for words — never into a
/// dialog or a permission menu it shows, where words are an answer ("1"
/// is "Yes, and don't ask again"), nor mid-turn.
pub async fn send_prompt(
    client: &Client,
    workspace: &Workspace,
    name: &str,
    text: &str,
) -> Result<Launch, LaunchFailure> {
    let launch = running(client, workspace, name).await?;
    // An agent just ending its turn (its Stop hook running) is at its
    // prompt a moment later: it is given that moment, once.
    for last in [false, true] {
        let screen = client
            .read_following(&launch.session, None, true, None, Some(0))
            .await?
            .screen
            .unwrap_or_default()
            .join("\n");
        if screen_prompt::ready_for_prompt(launch.agent, &screen) {
            break;
        }
        if last {
            return Err(LaunchFailure::NotAtItsPrompt {
                name: name.to_owned(),
            });
        }
        client
            .wait(
                &launch.session,
                WaitFor::Quiet(PROMPT_QUIET_MS),
                PROMPT_WAIT_MS,
                |_| {},
            )
            .await?;
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

/// How long a landing waits for the agent's program to end once told to
/// (it is killed outright after the host's grace).
const END_WAIT_MS: u64 = 10_000;

/// Ends `launch`'s program if it runs, and waits until it has ended: a
/// landed agent is done.
async fn end_program(
    client: &Client,
    workspace: &Workspace,
    launch: &Launch,
) -> Result<(), LaunchFailure> {
    if !runs(client, workspace, launch).await? {
        return Ok(());
    }
    client.kill(&launch.session, None).await?;
    client
        .wait(&launch.session, WaitFor::Exit, END_WAIT_MS, |_| {})
        .await?;
    Ok(())
}

/// What the agent changed in its worktree since its base.
pub fn diff(workspace: &Workspace, name: &str) -> Result<WorktreeChanges, LaunchFailure> {
    let launch = launches::get(workspace, name)?;
    Ok(worktrees::changes(workspace, worktree_of(&launch)?)?)
}

/// Merges the agent's work into its base (`commit_first`: its uncommitted
/// work committed first); records it, and ends the agent's program — its
/// work landed, it is done (a program that outlives that shows with a
/// Stop). The git steps run on the blocking pool.
pub async fn merge(
    client: &Client,
    workspace: &Workspace,
    name: &str,
    commit_first: bool,
    now: Timestamp,
) -> Result<Launch, LaunchFailure> {
    let landing = workspace.clone();
    let named = name.to_owned();
    let merged =
        tokio::task::spawn_blocking(move || merge_work(&landing, &named, commit_first, now))
            .await
            .map_err(|error| {
                LaunchFailure::Store(switchboard_store::StoreError::InTheWay(format!(
                    "the merge stopped halfway through its work: {error}"
                )))
            })??;
    // The work landed either way: a program that could not be ended shows
    // in its row as still running, with a Stop.
    let _ = end_program(client, workspace, &merged).await;
    Ok(merged)
}

/// The merge's git steps and records: the worktree merged, the launch
/// marked merged, its task completed.
fn merge_work(
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

/// Removes the agent's worktree and branch, ending its program first
/// (discarded work is done with): refused, with nothing ended, while it
/// has work not merged unless `confirmed`.
pub async fn discard(
    client: &Client,
    workspace: &Workspace,
    name: &str,
    confirmed: bool,
    now: Timestamp,
) -> Result<Launch, LaunchFailure> {
    let launch = launches::get(workspace, name)?;
    let worktree = worktree_of(&launch)?;
    let work = worktrees::unmerged_work(workspace, worktree);
    if !work.is_empty() && !confirmed {
        return Err(switchboard_store::StoreError::WouldLose { work }.into());
    }
    end_program(client, workspace, &launch).await?;
    // Checked again: what it wrote until it ended counts too.
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
