//! Minding a started agent's terminal: until its session starts (its
//! hooks are heard), a start-up dialog no hook carries (trust a folder,
//! use a key) becomes a question in the inbox, its answer typed into the
//! terminal — keys are typed only so, and only for an answer its receipt
//! outside the workspace vouches for (the inbox's files are anyone's who
//! works there to write; without one the dialog is asked about again); a
//! dialog answered meanwhile in the terminal takes its question back. Runs in a process of its own
//! (`switchboard agent mind NAME`, started with the agent) until the
//! agent's program ends, then records how it ended.

use std::time::Duration;

use serde_json::Map;
use switchboard_model::{
    ContentType, DeliveryMode, NewDelivery, Timestamp,
    agent::{
        launch::Ended,
        screen_prompt::{self, SCREEN_FIELD, ScreenPrompt, ready_for_prompt, recognise},
    },
    blocking::AwaitOutcome,
    feedback::ConfirmAnswer,
    program::{EndReason, SessionState},
};
use switchboard_session::{
    Client,
    protocol::{Input, WaitFor},
};
use switchboard_store::{
    Workspace, clock,
    feedback::{self, ReplyWait, Waited},
    launches, receipts,
};
use tokio::sync::oneshot;

use crate::LaunchFailure;

/// How long one look at the screen waits for output.
const LOOK_MS: u64 = 30_000;

/// How long one look waits before its session has started: its hooks are
/// looked for at least this often (a quiet screen says nothing of them),
/// so its prompt is typed soon after.
const STARTING_LOOK_MS: u64 = 500;

/// How long a screen is quiet once it has settled.
const SETTLED_MS: u64 = 300;

/// How long settling may take at most.
const SETTLE_TIMEOUT_MS: u64 = 5_000;

/// How long a screen question stays open: a day.
const QUESTION_OPEN: Duration = Duration::from_secs(24 * 60 * 60);

/// A question put for a screen, until it is answered or moot.
struct Asked {
    kind: String,
    prompt: ScreenPrompt,
    /// The blocking session its answer settles.
    session: String,
    answer: oneshot::Receiver<Heard>,
}

/// What came of a screen question's wait.
enum Heard {
    /// The developer's answer (or decline, or dismissal), as its receipt
    /// vouches for it.
    Answer(AwaitOutcome),
    /// An answer no receipt vouches for: written into the inbox's files by
    /// someone else. Nothing is typed; the screen is asked about again.
    Unvouched,
    /// The wait ended with no answer.
    Nothing,
}

/// Minds the started agent `name` until its program ends, then records
/// how it ended (exited, or lost with the session host).
pub async fn mind(client: &Client, workspace: &Workspace, name: &str) -> Result<(), LaunchFailure> {
    let client = client.clone().without_starting();
    let minded = minding(&client, workspace, name).await;
    let (lost, by) = match &minded {
        Ok(by) => (false, *by),
        // The host went away (or never answered again).
        Err(LaunchFailure::Session(_)) => (true, None),
        Err(_) => return minded.map(|_| ()),
    };
    launches::update(workspace, name, |launch| {
        launch.ended = Some(Ended {
            at: clock::now(),
            lost,
            by,
        });
    })?;
    minded.map(|_| ())
}

/// Minds the terminal until the program ends; why it ended, as the host
/// said.
async fn minding(
    client: &Client,
    workspace: &Workspace,
    name: &str,
) -> Result<Option<EndReason>, LaunchFailure> {
    let launch = launches::get(workspace, name)?;
    let mut since: Option<u64> = None;
    let mut asked: Option<Asked> = None;
    // The prompt last answered or passed: not answered again while its
    // screen is still being redrawn.
    let mut done: Option<String> = None;
    let mut started = false;
    let mut prompted = false;
    loop {
        let wait = if started { LOOK_MS } else { STARTING_LOOK_MS };
        let look = client.read_following(&launch.session, since, true, Some(wait), Some(0));
        let output = match &mut asked {
            Some(open) => tokio::select! {
                output = look => output?,
                heard = &mut open.answer => {
                    let settled = match heard {
                        Ok(Heard::Answer(outcome)) => {
                            type_answer(client, &launch.session, &open.prompt, &outcome).await?;
                            true
                        }
                        // Not the developer's: asked again while it shows.
                        Ok(Heard::Unvouched) => false,
                        Ok(Heard::Nothing) | Err(_) => true,
                    };
                    let kind = asked.take().map(|open| open.kind);
                    done = if settled { kind } else { None };
                    continue;
                }
            },
            None => look.await?,
        };
        since = Some(output.cursor);
        let screen = output.screen.unwrap_or_default().join("\n");
        let shown = recognise(launch.agent, &screen);
        let shown_kind = shown.as_ref().map(|prompt| prompt.kind.clone());
        if let Some(open) = asked.take_if(|open| shown_kind.as_deref() != Some(open.kind.as_str()))
        {
            // Answered in the terminal, or the agent moved on.
            let _ = feedback::retract(workspace, &open.session, clock::now());
        }
        if shown_kind.is_none() || shown_kind != done {
            done = None;
        }
        // Once its hooks are heard its session has started: what its
        // screen shows from then on is the agent at work (its own
        // permission menus, what its tools print), never a start-up
        // dialog — nothing more is recognised.
        if !started && heard_from(workspace, name) {
            started = true;
            if let Some(open) = asked.take() {
                let _ = feedback::retract(workspace, &open.session, clock::now());
            }
        }
        // Its prompt, never on its command line (every user reads those),
        // is typed into its own prompt once that listens: its session has
        // started (Claude Code's hooks say so at once), or its screen
        // shows its prompt waiting (Codex's say nothing before a prompt).
        if !prompted
            && output.session.state == SessionState::Running
            && (started || (shown.is_none() && ready_for_prompt(launch.agent, &screen)))
            && prompt_when_settled(client, &launch, started).await?
        {
            prompted = true;
        }
        if output.session.state != SessionState::Running {
            if let Some(open) = asked.take() {
                let _ = feedback::retract(workspace, &open.session, clock::now());
            }
            return Ok(output.session.ended_by);
        }
        let Some(prompt) = shown.filter(|_| !started) else {
            continue;
        };
        if asked.is_some() || done.as_deref() == Some(prompt.kind.as_str()) {
            continue;
        }
        // Asked only once the dialog has settled and is still there (a
        // screen that flickers through one asks nothing); keys are typed
        // only as the developer's answer to the question.
        if let Some(screen) = settled_on(client, &launch, &prompt.kind).await? {
            asked = Some(ask(workspace, name, launch.agent.label(), prompt, &screen)?);
        }
    }
}

/// The screen once it has settled, when it still shows the dialog `kind`.
async fn settled_on(
    client: &Client,
    launch: &switchboard_model::agent::launch::Launch,
    kind: &str,
) -> Result<Option<String>, LaunchFailure> {
    let screen = settled_screen(client, &launch.session).await?;
    Ok(recognise(launch.agent, &screen)
        .filter(|prompt| prompt.kind == kind)
        .map(|_| screen))
}

/// The screen of `session` once it has been quiet a while (or the wait
/// ran out).
async fn settled_screen(client: &Client, session: &str) -> Result<String, LaunchFailure> {
    client
        .wait(
            session,
            WaitFor::Quiet(SETTLED_MS),
            SETTLE_TIMEOUT_MS,
            |_| {},
        )
        .await?;
    Ok(client
        .read_following(session, None, true, None, Some(0))
        .await?
        .screen
        .unwrap_or_default()
        .join("\n"))
}

/// Puts the question `prompt` asks (the screen quoted) in the inbox and
/// starts waiting for its answer.
fn ask(
    workspace: &Workspace,
    name: &str,
    agent: &str,
    prompt: ScreenPrompt,
    screen: &str,
) -> Result<Asked, LaunchFailure> {
    let now = clock::now();
    let body = format!(
        "{}\n\nIts terminal shows:\n\n```text\n{}\n```\n\nYour answer is typed into its terminal (Terminals → {name}).",
        prompt.detail,
        screen_prompt::quoted(screen.trim_end())
    );
    let new = NewDelivery {
        mode: DeliveryMode::Blocking,
        title: format!("{name} ({agent}): {}", prompt.question),
        content_type: ContentType::Markdown,
        body,
        feedback_schema: Some(prompt.form()),
    };
    let mut extra = Map::new();
    extra.insert(
        SCREEN_FIELD.into(),
        serde_json::json!({"launch": name, "kind": prompt.kind}),
    );
    let until = Timestamp::from_unix_millis(
        now.unix_millis()
            .saturating_add(i64::try_from(QUESTION_OPEN.as_millis()).unwrap_or(i64::MAX / 2)),
    )
    .unwrap_or(now);
    let (appended, session) = feedback::ask_marked(workspace, new, extra, now, until)?;
    let wait = ReplyWait::new();
    let session_id = session.id.clone();
    let (sender, answer) = oneshot::channel();
    let waiting = workspace.clone();
    std::thread::spawn(move || {
        let heard = match wait.run(&waiting, &session.id, clock::now, |_| {}) {
            // Keys are typed only for an answer of the developer's: one
            // its receipt outside the workspace vouches for.
            Ok(Waited::Settled(outcome) | Waited::Left(Some(outcome))) => {
                receipts::vouched_outcome(&waiting, &session.id, &appended.delivery, outcome)
                    .map_or(Heard::Unvouched, Heard::Answer)
            }
            _ => Heard::Nothing,
        };
        let _ = sender.send(heard);
    });
    Ok(Asked {
        kind: prompt.kind.clone(),
        prompt,
        session: session_id,
        answer,
    })
}

/// Types the keys of the developer's answer (a dismissed question types
/// nothing: the terminal still asks).
async fn type_answer(
    client: &Client,
    session: &str,
    prompt: &ScreenPrompt,
    outcome: &AwaitOutcome,
) -> Result<(), LaunchFailure> {
    let yes = match outcome {
        AwaitOutcome::Responded { response, .. } => {
            ConfirmAnswer::from_value(response).is_some_and(|answer| answer.value)
        }
        AwaitOutcome::Declined { .. } => false,
        _ => return Ok(()),
    };
    type_keys(client, session, prompt.keys(yes)).await
}

/// Types `keys` one by one, each once the screen has settled: an agent's
/// interface draws a screen before it listens to the keyboard, and keys
/// typed into a redraw are lost.
async fn type_keys(
    client: &Client,
    session: &str,
    keys: &[switchboard_model::program::Key],
) -> Result<(), LaunchFailure> {
    for key in keys {
        client
            .wait(
                session,
                WaitFor::Quiet(SETTLED_MS),
                SETTLE_TIMEOUT_MS,
                |_| {},
            )
            .await?;
        client.send(session, Input::Key(*key), false).await?;
    }
    Ok(())
}

/// Types the agent's prompt into its own prompt once its screen has
/// settled (an interface that is still drawing loses keys) — and, unless
/// its session has `started`, still shows that prompt waiting. Whether it
/// was typed (an empty prompt counts as typed).
async fn prompt_when_settled(
    client: &Client,
    launch: &switchboard_model::agent::launch::Launch,
    started: bool,
) -> Result<bool, LaunchFailure> {
    if launch.prompt.trim().is_empty() {
        return Ok(true);
    }
    let screen = settled_screen(client, &launch.session).await?;
    if !started && !ready_for_prompt(launch.agent, &screen) {
        return Ok(false);
    }
    crate::work::type_line(client, &launch.session, &launch.prompt, false, false).await?;
    Ok(true)
}

/// Whether the hooks of the started agent `name` have been heard (its
/// session started), as its hook told its launch record outside the
/// workspace — never as an agent record in the workspace says, which
/// anything working there can write (and then a prompt typed into a
/// start-up dialog would answer it).
fn heard_from(workspace: &Workspace, name: &str) -> bool {
    launches::get(workspace, name).is_ok_and(|launch| launch.heard.is_some())
}
