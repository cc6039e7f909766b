//! Routing a browser's call by the command's name (`switchboard serve`):
//! the same functions the shell's commands call, for the commands a
//! browser may use; any other is refused, saying so.

use std::{
    path::{Path, PathBuf},
    sync::Arc,
};

use serde::{Serialize, de::DeserializeOwned};
use serde_json::Value;
use switchboard_model::{
    ErrorCode, ErrorPayload,
    agent::launch::{LaunchRequest, acts_without_asking, plain_prompt},
    browser::{BROWSER_INFO, BrowserInfo, START_SETTING, TAKE_OVER_SETTING, UNATTENDED_SETTING},
    ipc::{
        CMD_ADD_ANNOTATION, CMD_CODEX_HOOKS_TRUST, CMD_EVERYWHERE, CMD_GET_DELIVERY, CMD_GET_THEME,
        CMD_LAUNCH_DIFF, CMD_LAUNCH_SEND, CMD_LAUNCH_START, CMD_LAUNCH_STOP, CMD_LAUNCHES,
        CMD_LIST_AGENTS, CMD_LIST_DELIVERIES, CMD_MARK_OPENED, CMD_PROBE_REPORT, CMD_PROBE_REPORTS,
        CMD_REPLY, CMD_SESSION_CONTROL, CMD_SESSION_END, CMD_SESSION_OUTPUT, CMD_SESSION_REPLAY,
        CMD_SESSION_TYPE, CMD_SESSIONS, CMD_TAPE, CMD_TAPES, CMD_TAPES_SEARCH, CMD_TEAM_BOARD,
        CMD_TEAMS, CMD_UI_PHASE, CMD_UI_READY, CMD_WORKSPACE_INFO, LaunchName, LaunchSend,
    },
    program::view::{
        SessionControlRequest, SessionOutputRequest, SessionRequest, SessionTypeRequest,
    },
};
use switchboard_store::{StoreError, Workspace, probe_reports::ProbeReports, team::ClaudeTeams};

use crate::{agents, inbox, launches, tapes, team, terminals};

/// The commands any paired browser may call: reading the inbox and
/// answering it (forms, approvals, annotations), the agents and "All
/// workspaces", watching the team, the tapes and the program sessions.
/// Never one that starts a program, an agent or a chat, nor one that
/// writes a file the developer picks.
pub const BROWSER_COMMANDS: [&str; 24] = [
    CMD_WORKSPACE_INFO,
    CMD_LIST_DELIVERIES,
    CMD_GET_DELIVERY,
    CMD_MARK_OPENED,
    CMD_REPLY,
    CMD_ADD_ANNOTATION,
    CMD_GET_THEME,
    CMD_LIST_AGENTS,
    CMD_CODEX_HOOKS_TRUST,
    CMD_EVERYWHERE,
    CMD_UI_READY,
    CMD_UI_PHASE,
    CMD_TEAMS,
    CMD_TEAM_BOARD,
    CMD_TAPES,
    CMD_TAPE,
    CMD_TAPES_SEARCH,
    CMD_SESSIONS,
    CMD_SESSION_REPLAY,
    CMD_SESSION_OUTPUT,
    CMD_PROBE_REPORTS,
    CMD_PROBE_REPORT,
    CMD_LAUNCHES,
    CMD_LAUNCH_DIFF,
];

/// The commands that take a program session over, which a browser calls
/// only while [`Grants::take_over`].
pub const TAKE_OVER_COMMANDS: [&str; 3] = [CMD_SESSION_TYPE, CMD_SESSION_CONTROL, CMD_SESSION_END];

/// The commands that start agents or drive them, which a browser calls
/// only while [`Grants::start`].
pub const START_COMMANDS: [&str; 3] = [CMD_LAUNCH_START, CMD_LAUNCH_SEND, CMD_LAUNCH_STOP];

pub use switchboard_model::browser::Grants;

/// Whether a browser with `grants` may type `text` into an agent as its
/// prompt: words always; anything more (a shell or slash command, a key)
/// only with the grant to type into terminals.
fn may_type(grants: Grants, text: &str) -> Result<(), ErrorPayload> {
    if grants.take_over {
        return Ok(());
    }
    plain_prompt(text).map_err(|refused| {
        ErrorPayload::new(
            ErrorCode::Forbidden,
            format!(
                "{refused}. A browser types prompts into agents, never commands; typing anything \
                 is allowed in the window's Settings (\"{TAKE_OVER_SETTING}\")"
            ),
        )
    })
}

/// What a browser's commands reach besides the workspace.
#[derive(Clone)]
pub struct Reach {
    /// The workspace the page shows.
    pub workspace: Workspace,
    /// The config folder in effect (settings, the session host's).
    pub config_dir: PathBuf,
    /// Claude Code's teams, read beside opencode-teams'.
    pub claude_teams: Option<ClaudeTeams>,
    /// ClaudeControl's reports folders, if they are found.
    pub probe_reports: Option<ProbeReports>,
    /// The program sessions as last heard ([`terminals::follow`]).
    pub sessions: Arc<terminals::Followed>,
    /// The `switchboard` an agent started from here calls for its hooks.
    pub switchboard: PathBuf,
}

/// Runs command `name` for a browser, with `grants`, on `reach` with
/// `arguments` as the page sends them (`{"request": …}`, or nothing),
/// answering what the shell's command answers, as JSON. Store work runs on
/// the blocking pool.
pub async fn dispatch(
    reach: &Reach,
    grants: Grants,
    name: &str,
    arguments: &Value,
) -> Result<Value, ErrorPayload> {
    if name == BROWSER_INFO {
        return encode(BrowserInfo { grants });
    }
    let known = BROWSER_COMMANDS
        .iter()
        .chain(&TAKE_OVER_COMMANDS)
        .chain(&START_COMMANDS)
        .any(|command| *command == name);
    if !known {
        return Err(window_only());
    }
    if TAKE_OVER_COMMANDS.contains(&name) && !grants.take_over {
        return Err(ErrorPayload::new(
            ErrorCode::Forbidden,
            format!(
                "A browser watches program sessions only; taking one over is allowed in the \
                 window's Settings (\"{TAKE_OVER_SETTING}\")"
            ),
        ));
    }
    if START_COMMANDS.contains(&name) && !grants.start {
        return Err(ErrorPayload::new(
            ErrorCode::Forbidden,
            format!(
                "A browser does not start or drive agents unless the window's Settings allow \
                 it (\"{START_SETTING}\")"
            ),
        ));
    }
    let own = &reach.workspace;
    match name {
        CMD_SESSIONS => encode(reach.sessions.now()),
        CMD_SESSION_OUTPUT => {
            let output: SessionOutputRequest = request(name, arguments)?;
            ours(reach, &output.session)?;
            encode(terminals::session_output(&client(reach)?, &output).await?)
        }
        CMD_SESSION_TYPE => {
            let typed: SessionTypeRequest = request(name, arguments)?;
            ours(reach, &typed.session)?;
            encode(terminals::session_type(&client(reach)?, own, typed).await?)
        }
        CMD_SESSION_CONTROL => {
            let control: SessionControlRequest = request(name, arguments)?;
            ours(reach, &control.session)?;
            encode(terminals::session_control(&client(reach)?, &control).await?)
        }
        CMD_SESSION_END => {
            let end: SessionRequest = request(name, arguments)?;
            ours(reach, &end.session)?;
            encode(terminals::session_end(&client(reach)?, &end).await?)
        }
        CMD_LAUNCHES => encode(terminals::launches(&client(reach)?, own).await?),
        CMD_LAUNCH_START => {
            let start: LaunchRequest = request(name, arguments)?;
            if acts_without_asking(start.permission_mode.as_deref()) && !grants.unattended {
                return Err(ErrorPayload::new(
                    ErrorCode::Forbidden,
                    format!(
                        "A browser does not start an agent that acts without asking \
                         (acceptEdits, bypassPermissions, never) unless the window's Settings \
                         allow it (\"{UNATTENDED_SETTING}\")"
                    ),
                ));
            }
            may_type(grants, &start.prompt)?;
            encode(
                launches::start(
                    &client(reach)?,
                    own,
                    &start,
                    reach.switchboard.clone(),
                    Some(&reach.config_dir),
                )
                .await?,
            )
        }
        CMD_LAUNCH_SEND => {
            let send: LaunchSend = request(name, arguments)?;
            may_type(grants, &send.text)?;
            // Prompts only: typed only at the agent's own prompt, never
            // as the answer to what its terminal asks.
            let sent = if grants.take_over {
                switchboard_launch::send(&client(reach)?, own, &send.name, &send.text).await
            } else {
                switchboard_launch::send_prompt(&client(reach)?, own, &send.name, &send.text).await
            };
            encode(sent.map_err(|error| error.payload())?)
        }
        CMD_LAUNCH_STOP => {
            let stop: LaunchName = request(name, arguments)?;
            encode(
                switchboard_launch::stop(&client(reach)?, own, &stop.name)
                    .await
                    .map_err(|error| error.payload())?,
            )
        }
        CMD_LAUNCH_DIFF => {
            let diff: LaunchName = request(name, arguments)?;
            let own = own.clone();
            let changes = blocking(move || {
                switchboard_launch::diff(&own, &diff.name).map_err(|error| error.payload())
            })
            .await?;
            encode(changes)
        }
        _ => {
            let reach = reach.clone();
            let name = name.to_owned();
            let arguments = arguments.clone();
            blocking(move || on_store(&reach, &name, &arguments)).await
        }
    }
}

/// The commands that are store work only.
fn on_store(reach: &Reach, name: &str, arguments: &Value) -> Result<Value, ErrorPayload> {
    let own = &reach.workspace;
    match name {
        CMD_WORKSPACE_INFO => answer(Ok::<_, StoreError>(inbox::workspace_info(own))),
        CMD_LIST_DELIVERIES => answer(inbox::list_deliveries(own)),
        CMD_GET_DELIVERY => answer(inbox::get_delivery(own, &request(name, arguments)?)),
        CMD_MARK_OPENED => answer(inbox::mark_opened(own, &request(name, arguments)?)),
        CMD_REPLY => answer(inbox::reply(own, request(name, arguments)?)),
        CMD_ADD_ANNOTATION => answer(inbox::add_annotation(own, request(name, arguments)?)),
        CMD_GET_THEME => answer(inbox::get_theme(own)),
        CMD_LIST_AGENTS => answer(agents::list_agents(own)),
        CMD_CODEX_HOOKS_TRUST => answer(agents::codex_hooks_trust(own)),
        CMD_EVERYWHERE => answer(Ok::<_, StoreError>(agents::everywhere(own))),
        CMD_TEAMS => answer(team::teams(own, reach.claude_teams.as_ref())),
        CMD_TEAM_BOARD => answer(team::team_board(
            own,
            reach.claude_teams.as_ref(),
            &request(name, arguments)?,
        )),
        CMD_TAPES => answer(tapes::tapes(own)),
        CMD_TAPE => answer(tapes::tape(own, &request(name, arguments)?)),
        CMD_TAPES_SEARCH => answer(tapes::tapes_search(own, &request(name, arguments)?)),
        CMD_SESSION_REPLAY => answer(terminals::session_replay(own, &request(name, arguments)?)),
        CMD_PROBE_REPORTS => match &reach.probe_reports {
            Some(folders) => encode(terminals::probe_reports(folders, own)),
            None => Err(no_reports()),
        },
        CMD_PROBE_REPORT => match &reach.probe_reports {
            Some(folders) => answer(terminals::probe_report(
                folders,
                own,
                &request(name, arguments)?,
            )),
            None => Err(no_reports()),
        },
        // The window's start-up marks: nothing to record for a browser.
        CMD_UI_READY | CMD_UI_PHASE => Ok(Value::Null),
        _ => Err(window_only()),
    }
}

/// What a browser is told of a command it never calls: in words, with no
/// command's internal name.
fn window_only() -> ErrorPayload {
    ErrorPayload::new(
        ErrorCode::Forbidden,
        "This is not available in a browser: use the Switchboard window on the machine (a \
         browser reads and answers the inbox and watches agents, the team, tapes and program \
         sessions)",
    )
}

/// Refuses session `id` unless it is one of this workspace's (the
/// session host serves every workspace of the user's).
fn ours(reach: &Reach, id: &str) -> Result<(), ErrorPayload> {
    if reach.sessions.has(id) {
        Ok(())
    } else {
        Err(ErrorPayload::new(
            ErrorCode::NotFound,
            format!("no session {id:?} in this workspace"),
        ))
    }
}

fn no_reports() -> ErrorPayload {
    ErrorPayload::new(
        ErrorCode::Unavailable,
        "ClaudeControl's reports folder was not found (no home folder)",
    )
}

fn client(reach: &Reach) -> Result<switchboard_session::Client, ErrorPayload> {
    terminals::client(Some(Path::new(&reach.config_dir)))
}

/// Runs `work` on the blocking pool.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ErrorPayload> + Send + 'static,
) -> Result<T, ErrorPayload> {
    tokio::task::spawn_blocking(work).await.map_err(|error| {
        ErrorPayload::new(
            ErrorCode::Internal,
            format!("a background task failed: {error}"),
        )
    })?
}

/// The call's one `request` argument.
fn request<T: DeserializeOwned>(name: &str, arguments: &Value) -> Result<T, ErrorPayload> {
    let request = arguments.get("request").cloned().unwrap_or(Value::Null);
    serde_json::from_value(request).map_err(|error| {
        tracing::debug!(%error, command = name, "a browser's request did not decode");
        ErrorPayload::new(
            ErrorCode::InvalidRequest,
            format!(
                "The page asked in a form this server does not take ({error}): reload the page; \
                 if it says so again, this browser's page and the server are of different versions"
            ),
        )
    })
}

fn answer<T: Serialize>(result: Result<T, StoreError>) -> Result<Value, ErrorPayload> {
    encode(result?)
}

fn encode<T: Serialize>(value: T) -> Result<Value, ErrorPayload> {
    serde_json::to_value(value).map_err(|error| {
        ErrorPayload::new(
            ErrorCode::Internal,
            format!("could not encode the answer: {error}"),
        )
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use serde_json::json;
    use switchboard_model::ipc::{CMD_CHAT_SEND, CMD_TASK_CREATE, CMD_TEAM_SEND, COMMANDS};

    use super::*;

    fn reach(dir: &Path) -> Reach {
        Reach {
            workspace: Workspace::open(dir).unwrap(),
            config_dir: dir.join("config"),
            claude_teams: None,
            probe_reports: None,
            sessions: Arc::default(),
            switchboard: PathBuf::from("/nonexistent/switchboard"),
        }
    }

    #[tokio::test]
    async fn a_browser_may_read_and_answer_and_watch_but_starts_and_takes_over_only_when_granted() {
        let dir = tempfile::tempdir().unwrap();
        let reach = reach(dir.path());
        let none = Grants::default();
        for name in [
            CMD_CHAT_SEND,
            CMD_TASK_CREATE,
            CMD_TEAM_SEND,
            "no_such_command",
        ] {
            let refused = dispatch(&reach, none, name, &json!({"request": {}}))
                .await
                .unwrap_err();
            assert_eq!(refused.code, ErrorCode::Forbidden, "{name}");
            assert!(
                refused.message.contains("not available in a browser")
                    && !refused.message.contains(name),
                "said in words, no command's name: {}",
                refused.message
            );
        }
        for name in TAKE_OVER_COMMANDS {
            let refused = dispatch(&reach, none, name, &json!({"request": {}}))
                .await
                .unwrap_err();
            assert_eq!(refused.code, ErrorCode::Forbidden, "{name}");
            assert!(
                refused.message.contains("take program sessions over")
                    && !refused.message.contains(name),
                "{}",
                refused.message
            );
        }
        for name in START_COMMANDS {
            let refused = dispatch(&reach, none, name, &json!({"request": {}}))
                .await
                .unwrap_err();
            assert_eq!(refused.code, ErrorCode::Forbidden, "{name}");
            assert!(
                refused.message.contains("may start agents") && !refused.message.contains(name),
                "{}",
                refused.message
            );
        }
        // Granted, the same calls get as far as their requests.
        let all = Grants {
            take_over: true,
            start: true,
            unattended: true,
        };
        for name in TAKE_OVER_COMMANDS.iter().chain(&START_COMMANDS) {
            let malformed = dispatch(&reach, all, name, &json!({"request": {"x": 1}}))
                .await
                .unwrap_err();
            assert_eq!(malformed.code, ErrorCode::InvalidRequest, "{name}");
            assert!(!malformed.message.contains(name), "{}", malformed.message);
        }
        // What the page asks to offer only what it may: the grants.
        for grants in [none, all] {
            let info = dispatch(&reach, grants, BROWSER_INFO, &Value::Null)
                .await
                .unwrap();
            let info: BrowserInfo = serde_json::from_value(info).unwrap();
            assert_eq!(info.grants, grants);
        }
        for name in BROWSER_COMMANDS
            .iter()
            .chain(&TAKE_OVER_COMMANDS)
            .chain(&START_COMMANDS)
        {
            assert!(COMMANDS.contains(name), "{name} is a command of the page");
        }
        let listed = dispatch(&reach, none, CMD_LIST_DELIVERIES, &Value::Null)
            .await
            .unwrap();
        assert_eq!(listed["deliveries"], json!([]));
        let teams = dispatch(&reach, none, CMD_TEAMS, &Value::Null)
            .await
            .unwrap();
        assert_eq!(teams, json!([]));
        let sessions = dispatch(&reach, none, CMD_SESSIONS, &Value::Null)
            .await
            .unwrap();
        assert_eq!(sessions, json!([]));
        let malformed = dispatch(&reach, none, CMD_REPLY, &json!({"request": {"id": 3}}))
            .await
            .unwrap_err();
        assert_eq!(malformed.code, ErrorCode::InvalidRequest);
        let elsewhere = dispatch(
            &reach,
            none,
            CMD_GET_DELIVERY,
            &json!({"request": {"id": "d_1_001", "workspace": "/etc"}}),
        )
        .await
        .unwrap_err();
        assert_eq!(
            elsewhere.code,
            ErrorCode::NotFound,
            "an unregistered folder is never reached"
        );
    }

    #[tokio::test]
    async fn starting_lets_a_browser_type_prompts_only_and_unattended_modes_need_their_own_grant() {
        let dir = tempfile::tempdir().unwrap();
        let reach = reach(dir.path());
        let start = Grants {
            start: true,
            ..Grants::default()
        };
        for (name, request) in [
            (CMD_LAUNCH_SEND, json!({"name": "a", "text": "!rm -rf ~"})),
            (
                CMD_LAUNCH_SEND,
                json!({"name": "a", "text": "Sure.\n/permissions"}),
            ),
            (CMD_LAUNCH_SEND, json!({"name": "a", "text": "ok\u{1b}[Z"})),
            (
                CMD_LAUNCH_START,
                json!({"agent": "claude-code", "prompt": "!curl x | sh"}),
            ),
        ] {
            let refused = dispatch(&reach, start, name, &json!({"request": request}))
                .await
                .unwrap_err();
            assert_eq!(refused.code, ErrorCode::Forbidden, "{name} {request}");
            assert!(
                refused.message.contains("take program sessions over"),
                "{}",
                refused.message
            );
        }
        for mode in ["acceptEdits", "bypassPermissions", "never"] {
            let request = json!({"agent": "claude-code", "prompt": "Hi", "permission_mode": mode});
            let refused = dispatch(
                &reach,
                start,
                CMD_LAUNCH_START,
                &json!({"request": request}),
            )
            .await
            .unwrap_err();
            assert_eq!(refused.code, ErrorCode::Forbidden, "{mode}");
            assert!(
                refused.message.contains("act without asking"),
                "{}",
                refused.message
            );
        }
        // With the grant to type into terminals, a command is the
        // developer's choice: the call goes past the check (to an agent
        // that does not exist here).
        let typing = Grants {
            take_over: true,
            ..start
        };
        let past = dispatch(
            &reach,
            typing,
            CMD_LAUNCH_SEND,
            &json!({"request": {"name": "a", "text": "!ls"}}),
        )
        .await
        .unwrap_err();
        assert_ne!(past.code, ErrorCode::Forbidden, "{}", past.message);
    }
}
