//! Agents Switchboard starts (`switchboard agent start`, MCP
//! `agent_start`, the Agents view): their names, the git worktree each may
//! work in, the record kept of each (`launches/<name>.json` in the
//! workspace's records, outside it), and the state a person reads, joined
//! from the agent's program session and what its hooks report.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use thiserror::Error;

use crate::{
    Timestamp,
    agent::{AgentKind, AgentState},
    error::ErrorCode,
    program::{EndReason, SessionState},
};

mod changes;
mod command;
mod row;

pub use changes::*;
pub use command::*;
pub use row::*;

/// The longest agent name: it becomes a branch and a folder name.
pub const NAME_LIMIT: usize = 40;

/// How many started agents may run at once unless the settings say
/// otherwise.
pub const DEFAULT_RUNNING_LIMIT: usize = 8;

/// The variable that carries a started agent's name into its process (and
/// so into every hook it runs): its hook calls are joined to its launch by
/// it.
pub const AGENT_ENV: &str = "SWITCHBOARD_AGENT";

/// The variable that names the workspace a started agent belongs to, for
/// every `switchboard` it runs (its hooks included), wherever it works.
pub const WORKSPACE_ENV: &str = "SWITCHBOARD_WORKSPACE";

/// The folders started agents' worktrees are made in, relative to the
/// workspace: Claude Code's own place for its worktrees, and Switchboard's
/// for Codex.
pub const WORKTREE_DIRS: [&str; 2] = [".claude/worktrees", ".switchboard/worktrees"];

/// The branch a started agent's worktree is made on: `switchboard/NAME`.
pub const BRANCH_PREFIX: &str = "switchboard/";

/// The longest base reference passed on to git.
const REF_LIMIT: usize = 200;

/// Why an agent cannot be started, or its work not landed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LaunchError {
    /// A name that could reach git or a shell as more than a name.
    #[error("\"{name}\" cannot name an agent: {why}")]
    BadName {
        /// The name given.
        name: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// Another launch in this workspace has the name.
    #[error("an agent named \"{0}\" was already started here: choose another name (--name)")]
    NameTaken(String),
    /// As many agents run as the settings allow.
    #[error(
        "{running} started agents are running, the limit in the settings (runningAgents = {limit}): stop one first (switchboard agent stop NAME)"
    )]
    LimitReached {
        /// How many run.
        running: usize,
        /// The limit.
        limit: usize,
    },
    /// Nothing to tell the agent.
    #[error("an agent needs a prompt: what should it do?")]
    EmptyPrompt,
    /// A base reference that is not plainly one.
    #[error("\"{reference}\" is not a git reference Switchboard passes on: {why}")]
    BadRef {
        /// The reference given.
        reference: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// MCP clients are not started from here.
    #[error("{} is not an agent Switchboard starts (claude-code or codex)", .0.label())]
    NotStartable(AgentKind),
    /// Text that would be more than a prompt to the agent.
    #[error("this is not only a prompt: {why}")]
    NotAPrompt {
        /// What in it.
        why: String,
    },
    /// A permission mode the agent does not have.
    #[error("{agent} has no permission mode \"{mode}\"; one of: {}", .known.join(", "))]
    BadMode {
        /// The agent.
        agent: &'static str,
        /// The mode given.
        mode: String,
        /// Its modes.
        known: Vec<&'static str>,
    },
}

impl LaunchError {
    /// The error's stable code.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::LimitReached { .. } => ErrorCode::LimitReached,
            _ => ErrorCode::InvalidRequest,
        }
    }
}

/// Checks that `name` can name an agent, a folder and a branch: 1 to
/// [`NAME_LIMIT`] ASCII letters, digits, `-`, `_` or `.`, starting with a
/// letter or digit, no `..`, not ending in `.` or `.lock`.
pub fn check_name(name: &str) -> Result<(), LaunchError> {
    let bad = |why| {
        Err(LaunchError::BadName {
            name: name.chars().take(NAME_LIMIT + 10).collect(),
            why,
        })
    };
    if name.is_empty() {
        return bad("it is empty");
    }
    if name.len() > NAME_LIMIT {
        return bad("it is longer than 40 characters");
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return bad("only letters, digits, '-', '_' and '.' may be used");
    }
    if !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return bad("it must start with a letter or a digit");
    }
    if name.contains("..") || name.ends_with('.') || name.ends_with(".lock") {
        return bad("git refuses '..', a final '.' and a final \".lock\" in a branch");
    }
    Ok(())
}

/// Checks a base reference before git sees it: no option (`-…`), no
/// range or revision syntax beyond `~`/`^` ancestry, nothing a shell or a
/// terminal would read.
pub fn check_ref(reference: &str) -> Result<(), LaunchError> {
    let bad = |why| {
        Err(LaunchError::BadRef {
            reference: reference.chars().take(REF_LIMIT + 10).collect(),
            why,
        })
    };
    if reference.is_empty() || reference.len() > REF_LIMIT {
        return bad("it must have 1 to 200 characters");
    }
    if reference.starts_with('-') {
        return bad("it must not start with '-'");
    }
    if reference.contains("..") || reference.contains("@{") {
        return bad("ranges and reflog selectors are not references");
    }
    if !reference
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | '~' | '^'))
    {
        return bad("only letters, digits and '-', '_', '.', '/', '~', '^' may be used");
    }
    Ok(())
}

/// A name for an agent started without one: the first words of its
/// prompt (`fix-the-login-bug`), else its agent's (`claude-code`), made
/// unique among `taken` with a number.
pub fn made_up_name(agent: AgentKind, prompt: &str, taken: &[String]) -> String {
    let mut words: Vec<String> = Vec::new();
    for word in prompt.split(|c: char| !c.is_ascii_alphanumeric()) {
        if word.is_empty() {
            continue;
        }
        let candidate = [words.join("-"), word.to_ascii_lowercase()]
            .iter()
            .filter(|part| !part.is_empty())
            .cloned()
            .collect::<Vec<_>>()
            .join("-");
        if candidate.len() > 24 {
            break;
        }
        words.push(word.to_ascii_lowercase());
        if words.len() == 4 {
            break;
        }
    }
    let stem = if words.is_empty() {
        agent.as_str().to_owned()
    } else {
        words.join("-")
    };
    if !taken.contains(&stem) {
        return stem;
    }
    (2..)
        .map(|n| format!("{stem}-{n}"))
        .find(|name| !taken.contains(name))
        .unwrap_or(stem)
}

/// What a developer (or an agent, through MCP) asks to start.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchRequest {
    /// `claude-code` or `codex`.
    pub agent: String,
    /// Its name; made up from the prompt when not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Work in a new git worktree (named after the agent, or this).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<WorktreeChoice>,
    /// The worktree's base (default: the current HEAD).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// The team task it works on, as `TEAM/ID`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// The agent's permission mode (default: the one whose questions come
    /// through its hook).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_mode: Option<String>,
    /// The agent's model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// What it is asked to do.
    pub prompt: String,
}

/// Whether, and under what name, a started agent gets its own worktree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorktreeChoice {
    /// Named as the agent.
    AsAgent,
    /// Named so.
    Named(String),
}

/// A started agent's git worktree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Worktree {
    /// Its folder (absolute).
    pub path: String,
    /// Its branch (`switchboard/NAME`).
    pub branch: String,
    /// The base as given (a branch name, usually), which Merge lands on.
    pub base: String,
    /// The commit the branch started from.
    pub base_commit: String,
    /// Its git folder (`<repository>/.git/worktrees/<id>`), as git made
    /// it: every git command in the worktree is run with it, never with
    /// the one the worktree's `.git` file names later (the agent working
    /// there can rewrite that file).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub git_dir: String,
}

/// How a started agent's work ended up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Landing {
    /// Merged into its base.
    Merged {
        /// When.
        at: Timestamp,
        /// The base's commit after the merge.
        commit: String,
    },
    /// Its worktree and branch removed.
    Discarded {
        /// When.
        at: Timestamp,
    },
}

/// One agent Switchboard started, as `launches/<name>.json` of the
/// workspace's records holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Launch {
    /// Its name, unique in the workspace.
    pub name: String,
    /// Which agent.
    pub agent: AgentKind,
    /// The program session it runs in (`ps-…`).
    pub session: String,
    /// The folder it works in (its worktree or the workspace).
    pub cwd: String,
    /// Its worktree, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<Worktree>,
    /// The team task it works on (`TEAM/ID`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// What it was asked.
    pub prompt: String,
    /// The permission mode it was started in.
    pub permission_mode: String,
    /// Its model, when chosen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The agent's own session id: the one it was given at start, or the
    /// one its hooks last reported (recorded here by the hook).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_session: Option<String>,
    /// When its own hooks were first heard (its session started), as the
    /// hook recorded it here: never the workspace's agent records, which
    /// anything working there can write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heard: Option<Timestamp>,
    /// When it was started.
    pub started: Timestamp,
    /// How its work was landed, once it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub landed: Option<Landing>,
    /// How its program ended, as the process minding it saw (the session
    /// host forgets ended sessions once it exits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<Ended>,
    /// Fields a newer version wrote.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Launch {
    /// Checks a launch read from its file (`file_name` without `.json`)
    /// of the workspace at `root` — any process there can write one: its
    /// name is its file's, its branch `switchboard/NAME`, its worktree
    /// directly in one of the two worktree folders, its base and task
    /// plain references.
    pub fn check(&self, root: &str, file_name: &str) -> Result<(), LaunchError> {
        let bad = |why| {
            Err(LaunchError::BadName {
                name: self.name.chars().take(NAME_LIMIT + 10).collect(),
                why,
            })
        };
        check_name(&self.name)?;
        if self.name != file_name {
            return bad("a launch's file is named after it");
        }
        if let Some(task) = &self.task {
            task_ref(task)?;
        }
        let Some(worktree) = &self.worktree else {
            return Ok(());
        };
        check_ref(&worktree.base)?;
        if worktree.branch != format!("{BRANCH_PREFIX}{}", self.name) {
            return bad("its branch is switchboard/NAME");
        }
        let root = root.trim_end_matches('/');
        let allowed = WORKTREE_DIRS.iter().any(|dir| {
            worktree
                .path
                .strip_prefix(&format!("{root}/{dir}/"))
                .is_some_and(|rest| check_name(rest).is_ok())
        });
        if !allowed {
            return bad("its worktree is a folder of .claude/worktrees or .switchboard/worktrees");
        }
        Ok(())
    }

    /// Whether a hook call of `agent`'s session `session_id`, run with this
    /// launch's name, tells its record something new: the same agent, and
    /// its first hook call or a session other than the one last heard.
    pub fn hears_anew(&self, agent: AgentKind, session_id: &str) -> bool {
        self.agent == agent
            && (self.heard.is_none() || self.agent_session.as_deref() != Some(session_id))
    }

    /// Whether `record` is the hook record of this launch's session: the
    /// session its own hook last told its launch record (or it was started
    /// with), never one an agent record in the workspace merely names.
    pub fn is_session_of(&self, record: &super::AgentRecord) -> bool {
        record.agent == self.agent && self.agent_session.as_deref() == Some(&record.session_id)
    }

    /// Whether its work was merged or discarded.
    pub fn is_landed(&self) -> bool {
        self.landed.is_some()
    }

    /// How its work landed, in a sentence naming the commit a merge made
    /// ("Merged tidy into main: commit 1a2b3c4d."); `None` until it landed.
    pub fn landed_sentence(&self) -> Option<String> {
        let name = &self.name;
        Some(match self.landed.as_ref()? {
            Landing::Merged { commit, .. } => {
                let base = self
                    .worktree
                    .as_ref()
                    .map_or("its base", |tree| tree.base.as_str());
                let short: String = commit.chars().take(8).collect();
                format!("Merged {name} into {base}: commit {short}.")
            }
            Landing::Discarded { .. } => format!("Discarded {name}'s worktree and branch."),
        })
    }
}

/// How a started agent's program ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ended {
    /// When it was seen to.
    pub at: Timestamp,
    /// The session host that held it went away first.
    #[serde(default)]
    pub lost: bool,
    /// Why it ended, as the session host said (exited on its own, stopped,
    /// a session limit), when it said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<EndReason>,
}

/// What a started agent is doing, as its row says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LaunchState {
    /// Started; its hooks have said nothing yet.
    Starting,
    /// As its hooks last said (working, needs permission, waiting for
    /// input, turn finished).
    Agent(AgentState),
    /// Its program ended.
    Exited,
    /// The session host that held it is gone.
    Lost,
    /// Its work was merged.
    Merged,
    /// Its work was discarded.
    Discarded,
}

impl LaunchState {
    /// The state of a launch whose program session is `session` (`None`:
    /// the host knows no such session) and whose hooks last said `heard`.
    pub fn of(launch: &Launch, session: Option<SessionState>, heard: Option<AgentState>) -> Self {
        match &launch.landed {
            Some(Landing::Merged { .. }) => return Self::Merged,
            Some(Landing::Discarded { .. }) => return Self::Discarded,
            None => {}
        }
        match session {
            None => match launch.ended {
                Some(Ended { lost: false, .. }) => Self::Exited,
                _ => Self::Lost,
            },
            Some(SessionState::Lost) => Self::Lost,
            Some(SessionState::Exited | SessionState::Killed) => Self::Exited,
            Some(SessionState::Running) => match heard {
                None => Self::Starting,
                // Its process runs: the hooks' "gone" is only silence.
                Some(AgentState::Gone) => Self::Agent(AgentState::Working),
                Some(state) => Self::Agent(state),
            },
        }
    }

    /// The word a row's badge and `data-state` carry (`needs_permission`,
    /// `exited`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Agent(state) => state.as_str(),
            Self::Starting => "starting",
            Self::Exited => "exited",
            Self::Lost => "lost",
            Self::Merged => "merged",
            Self::Discarded => "discarded",
        }
    }

    /// Whether it waits on the developer in its own terminal (a question
    /// no hook carried there, or its prompt after a turn).
    pub fn waits_in_terminal(self) -> bool {
        matches!(self, Self::Agent(state) if state.waits())
    }

    /// Whether its program still runs.
    pub fn runs(self) -> bool {
        matches!(self, Self::Starting | Self::Agent(_))
    }

    /// The words its row shows.
    pub fn label(self) -> &'static str {
        match self {
            Self::Starting => "starting",
            Self::Agent(state) => state.label(),
            Self::Exited => "exited",
            Self::Lost => "lost (the session host ended)",
            Self::Merged => "merged",
            Self::Discarded => "discarded",
        }
    }
}

/// The team and task a `TEAM/ID` names, each a plain name.
pub fn task_ref(text: &str) -> Result<(String, String), LaunchError> {
    let bad = |why| LaunchError::BadName {
        name: text.chars().take(NAME_LIMIT + 10).collect(),
        why,
    };
    let (team, id) = text
        .split_once('/')
        .ok_or_else(|| bad("a task is named TEAM/ID"))?;
    for part in [team, id] {
        if part.is_empty()
            || part.len() > 100
            || part.starts_with('.')
            || !part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        {
            return Err(bad(
                "a team and a task id are letters, digits, '-', '_' and '.'",
            ));
        }
    }
    Ok((team.to_owned(), id.to_owned()))
}

/// A launch for tests: `fix`, Claude Code, in `/w`.
#[cfg(test)]
pub(crate) fn test_launch() -> Launch {
    Launch {
        name: "fix".into(),
        agent: AgentKind::ClaudeCode,
        session: "ps-1".into(),
        cwd: "/w".into(),
        worktree: None,
        task: None,
        prompt: "Fix".into(),
        permission_mode: "default".into(),
        model: None,
        agent_session: None,
        heard: None,
        started: Timestamp::from_unix_millis(0).unwrap(),
        landed: None,
        ended: None,
        extra: Map::new(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn names_that_could_reach_git_or_a_shell_as_more_than_a_name_are_refused() {
        for good in ["fix-login", "a", "agent_2", "v1.2", &"x".repeat(40)] {
            assert_eq!(check_name(good), Ok(()), "{good}");
        }
        for bad in [
            "",
            "-rf",
            "../up",
            "a..b",
            "a/b",
            "name.",
            "x.lock",
            "two words",
            "$(id)",
            "a;b",
            "naïve",
            "tab\there",
            ".hidden",
            &"x".repeat(41),
        ] {
            let error = check_name(bad).unwrap_err();
            assert_eq!(error.code(), ErrorCode::InvalidRequest, "{bad}");
        }
    }

    #[test]
    fn base_references_are_plain_references_or_refused() {
        for good in ["main", "origin/main", "HEAD~2", "v1.0^", "a1b2c3d"] {
            assert_eq!(check_ref(good), Ok(()), "{good}");
        }
        for bad in [
            "",
            "--upload-pack=evil",
            "main..dev",
            "HEAD@{1}",
            "a b",
            "$(id)",
            "main:file",
        ] {
            assert!(check_ref(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_made_up_name_comes_from_the_prompt_and_is_unique() {
        assert_eq!(
            made_up_name(AgentKind::ClaudeCode, "Fix the login bug, please!", &[]),
            "fix-the-login-bug"
        );
        assert_eq!(
            made_up_name(
                AgentKind::Codex,
                "Refactor",
                &["refactor".into(), "refactor-2".into()]
            ),
            "refactor-3"
        );
        assert_eq!(made_up_name(AgentKind::Codex, "¿?", &[]), "codex");
        let long = made_up_name(AgentKind::Codex, &"abcdefghij ".repeat(10), &[]);
        assert!(long.len() <= 24 && check_name(&long).is_ok(), "{long}");
    }

    #[test]
    fn a_launch_state_joins_its_session_and_its_hooks() {
        let running = Some(SessionState::Running);
        let mut launch = test_launch();
        assert_eq!(
            LaunchState::of(&launch, running, None),
            LaunchState::Starting
        );
        assert_eq!(
            LaunchState::of(&launch, running, Some(AgentState::NeedsPermission)),
            LaunchState::Agent(AgentState::NeedsPermission)
        );
        assert_eq!(
            LaunchState::of(&launch, running, Some(AgentState::Gone)),
            LaunchState::Agent(AgentState::Working),
            "silent hooks do not end a running program"
        );
        assert_eq!(
            LaunchState::of(
                &launch,
                Some(SessionState::Exited),
                Some(AgentState::Working)
            ),
            LaunchState::Exited
        );
        assert_eq!(LaunchState::of(&launch, None, None), LaunchState::Lost);
        let at = Timestamp::from_unix_millis(5).unwrap();
        launch.ended = Some(Ended {
            at,
            lost: false,
            by: None,
        });
        assert_eq!(
            LaunchState::of(&launch, None, None),
            LaunchState::Exited,
            "an ended session the host forgot"
        );
        launch.ended = None;
        assert!(!LaunchState::Lost.runs() && LaunchState::Starting.runs());
        assert!(LaunchState::Agent(AgentState::NeedsPermission).waits_in_terminal());
        assert!(!LaunchState::Agent(AgentState::Working).waits_in_terminal());
        assert!(!LaunchState::Exited.waits_in_terminal());
        launch.landed = Some(Landing::Discarded {
            at: Timestamp::from_unix_millis(1).unwrap(),
        });
        assert_eq!(
            LaunchState::of(&launch, running, None),
            LaunchState::Discarded
        );
    }

    #[test]
    fn a_launch_file_written_by_another_process_is_checked() {
        let tree = |path: &str, branch: &str| Worktree {
            path: path.into(),
            branch: branch.into(),
            base: "main".into(),
            base_commit: "abc".into(),
            git_dir: String::new(),
        };
        let mut launch = test_launch();
        assert_eq!(launch.check("/w", "fix"), Ok(()));
        assert!(launch.check("/w", "other").is_err(), "not its file");
        launch.worktree = Some(tree("/w/.claude/worktrees/fix", "switchboard/fix"));
        assert_eq!(launch.check("/w/", "fix"), Ok(()));
        for (path, branch) in [
            ("/w/.claude/worktrees/fix", "release"),
            ("/w", "switchboard/fix"),
            ("/nonexistent", "switchboard/fix"),
            ("/w/.claude/worktrees/../../etc", "switchboard/fix"),
            ("/w/.claude/worktrees/a/b", "switchboard/fix"),
        ] {
            launch.worktree = Some(tree(path, branch));
            assert!(launch.check("/w", "fix").is_err(), "{path} {branch}");
        }
        launch.worktree = None;
        launch.task = Some("../x".into());
        assert!(launch.check("/w", "fix").is_err());
    }

    #[test]
    fn a_task_is_named_team_slash_id() {
        assert_eq!(
            task_ref("web/3").unwrap(),
            ("web".to_owned(), "3".to_owned())
        );
        for bad in [
            "web", "/3", "web/", "../x/3", "web/../3", "web/3/4", "a b/3",
        ] {
            assert!(task_ref(bad).is_err(), "{bad}");
        }
    }
}
