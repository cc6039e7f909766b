//! Agent teams in opencode-teams' folder (`.opencode/opencode-teams/`, or
//! wherever `OPENCODE_TEAMS_DIR` points): the board read as it is, tasks
//! and messages changed as the plugin changes them. Claude Code's agent
//! teams are read beside them, never written ([`ClaudeTeams`]).
//!
//! Every change holds the plugin's own lock (a POSIX record lock on
//! `teams/<team>/.lock` for configs and inboxes, `tasks/<team>/.lock` for
//! tasks), so the plugin's agents and Switchboard never interleave. Files
//! are written as the plugin writes them: 2-space JSON without a trailing
//! newline, by temp file and rename. A file that does not parse or breaks
//! the schema is reported with its reason and never rewritten.

mod claude;
mod inbox;
mod tasks;

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use switchboard_model::{
    Timestamp,
    team::{
        FileProblem, Message, TeamBoard, TeamConfig, TeamEntry, TeamError, TeamSource,
        check_team_name,
    },
};

pub use claude::{CLAUDE_CONFIG_ENV, ClaudeTeams};
pub use inbox::{read_messages, send_broadcast, send_message};
pub use tasks::{
    ListedTask, NewTask, TaskListing, TaskUpdate, advance_task, claim_task, create_task,
    delete_task, edit_dependencies, find_task_team, list_tasks, update_task,
};

use crate::{StoreError, Workspace, lock::RecordLock};

/// The folder opencode-teams keeps its state in, inside a workspace.
pub const TEAMS_DIR: &str = ".opencode/opencode-teams";

/// The variable the plugin reads its storage folder from.
pub const TEAMS_DIR_ENV: &str = "OPENCODE_TEAMS_DIR";

/// The variable the plugin reads its project root from.
pub const PROJECT_ROOT_ENV: &str = "OPENCODE_PROJECT_ROOT";

/// What makes a folder a project root to the plugin.
const PROJECT_MARKERS: [&str; 4] = [".git", "package.json", "opencode.json", ".opencode"];

/// The nearest of `start` and its parents holding a project marker, else
/// `start`.
fn project_root(start: &Path) -> PathBuf {
    start
        .ancestors()
        .find(|dir| {
            PROJECT_MARKERS
                .iter()
                .any(|marker| dir.join(marker).exists())
        })
        .unwrap_or(start)
        .to_owned()
}

/// The opencode-teams storage folder of one project.
#[derive(Debug, Clone)]
pub struct Teams {
    root: PathBuf,
}

impl Teams {
    /// The folder in `workspace` (`.opencode/opencode-teams`).
    pub fn in_workspace(workspace: &Workspace) -> Self {
        Self::at(workspace.root().join(TEAMS_DIR))
    }

    /// The folder the plugin uses when run in `workspace`, found as the
    /// plugin finds it: `OPENCODE_TEAMS_DIR` when set; else
    /// `.opencode/opencode-teams` in `OPENCODE_PROJECT_ROOT` when set; else
    /// in the nearest of the workspace and its parents that holds `.git`,
    /// `package.json`, `opencode.json` or `.opencode`; else in the
    /// workspace. Relative variables are taken from the workspace.
    pub fn locate(workspace: &Workspace) -> Self {
        let variable = |name| std::env::var_os(name).filter(|value| !value.is_empty());
        if let Some(dir) = variable(TEAMS_DIR_ENV) {
            return Self::at(workspace.root().join(dir));
        }
        let root = match variable(PROJECT_ROOT_ENV) {
            Some(root) => workspace.root().join(root),
            None => project_root(workspace.root()),
        };
        Self::at(root.join(TEAMS_DIR))
    }

    /// A folder given explicitly (the plugin's `OPENCODE_TEAMS_DIR`).
    pub fn at(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The storage folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn team_dir(&self, team: &str) -> PathBuf {
        self.root.join("teams").join(team)
    }

    fn tasks_dir(&self, team: &str) -> PathBuf {
        self.root.join("tasks").join(team)
    }

    fn config_path(&self, team: &str) -> PathBuf {
        self.team_dir(team).join("config.json")
    }

    fn inbox_path(&self, team: &str, agent: &str) -> PathBuf {
        self.team_dir(team)
            .join("inboxes")
            .join(format!("{agent}.json"))
    }

    fn team_lock(&self, team: &str, exclusive: bool) -> Result<RecordLock, StoreError> {
        RecordLock::acquire(&self.team_dir(team).join(".lock"), exclusive)
    }

    fn tasks_lock(&self, team: &str, exclusive: bool) -> Result<RecordLock, StoreError> {
        RecordLock::acquire(&self.tasks_dir(team).join(".lock"), exclusive)
    }

    /// Holds `team`'s task lock (the plugin's `tasks/<team>/.lock`) until
    /// the guard is dropped: the plugin's agents and every change here wait
    /// meanwhile.
    pub fn hold_task_lock(&self, team: &str) -> Result<TeamLock, StoreError> {
        check_team_name(team)?;
        Ok(TeamLock {
            _lock: self.tasks_lock(team, true)?,
        })
    }

    /// The names of the teams with a folder, sorted.
    pub fn team_names(&self) -> Result<Vec<String>, StoreError> {
        team_folders(&self.root.join("teams"))
    }

    /// A team's config, checked against the plugin's schema.
    pub fn config(&self, team: &str) -> Result<TeamConfig, StoreError> {
        check_team_name(team)?;
        let path = self.config_path(team);
        if !path.exists() {
            return Err(TeamError::TeamMissing(team.to_owned()).into());
        }
        let config: TeamConfig = read_json(&path)?;
        config.validate().map_err(|error| StoreError::Corrupt {
            path: path.clone(),
            reason: error.to_string(),
        })?;
        Ok(config)
    }

    /// Creates team `name` led by `leader` (its id and display name) at
    /// `now`, as the plugin's `spawn-team` does: its folder, its inboxes'
    /// and tasks' folders, its `config.json`, and the leader's empty
    /// inbox. Refused in the plugin's words when the name is not one or a
    /// team of that name exists; made under the team's lock, so two
    /// creations of one name cannot both succeed.
    pub fn create_team(
        &self,
        name: &str,
        leader: (&str, &str),
        now: Timestamp,
    ) -> Result<TeamConfig, StoreError> {
        check_team_name(name)?;
        check_file_id("agent", leader.0)?;
        let config = TeamConfig::new(name, leader.0, leader.1, now)?;
        let _lock = self.team_lock(name, true)?;
        if self.config_path(name).exists() {
            return Err(TeamError::TeamExists(name.to_owned()).into());
        }
        crate::own_folders::create_dir_all(&self.team_dir(name).join("inboxes"))?;
        crate::own_folders::create_dir_all(&self.tasks_dir(name))?;
        write_json(&self.config_path(name), &config)?;
        write_json(&self.inbox_path(name, leader.0), &Vec::<Message>::new())?;
        Ok(config)
    }

    /// Everything on a team's board: its config, every task and inbox that
    /// reads (under shared locks, so no half-done change of the plugin's is
    /// seen), and the files that do not.
    pub fn board(&self, team: &str) -> Result<TeamBoard, StoreError> {
        let config = self.config(team)?;
        let mut problems = Vec::new();
        let tasks = {
            let _lock = self.tasks_lock(team, false)?;
            tasks::read_all(&self.tasks_dir(team), &mut problems)?
        };
        let inboxes = {
            let _lock = self.team_lock(team, false)?;
            inbox::read_all(self, team, &config, &mut problems)
        };
        Ok(TeamBoard {
            source: TeamSource::OpencodeTeams,
            config,
            tasks,
            inboxes,
            problems,
        })
    }
}

/// A held team lock; dropping it releases the lock.
#[derive(Debug)]
pub struct TeamLock {
    _lock: RecordLock,
}

/// The folders of `dir` whose names are valid team names, sorted; none
/// when `dir` does not exist.
pub(crate) fn team_folders(dir: &Path) -> Result<Vec<String>, StoreError> {
    let mut names = crate::walk::folders_in(dir)?;
    names.retain(|name| check_team_name(name).is_ok());
    Ok(names)
}

/// Refuses a name that is not a plain file name (an agent or task id, a
/// tape's program or name).
pub(crate) fn check_file_id(what: &'static str, id: &str) -> Result<(), StoreError> {
    let plain = !id.is_empty()
        && !id.starts_with('.')
        && !id.contains(['/', '\\', '\0'])
        && id.len() <= 200;
    if plain {
        Ok(())
    } else {
        Err(StoreError::BadName {
            what,
            name: id.to_owned(),
            rule: "not empty, not starting with '.', no '/', '\\' or NUL, at most 200 bytes"
                .to_owned(),
        })
    }
}

/// The most one team file holds (a config, a task, a member's inbox):
/// far over a real one; past it a file is refused unread (a team folder is
/// anyone's who works in the workspace to write, and a paired browser
/// reads the board).
const TEAM_FILE_LIMIT: u64 = 16 << 20;

/// Reads and parses a JSON file, within its own folder.
pub(crate) fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T, StoreError> {
    let folder = path.parent().unwrap_or(Path::new("."));
    let bytes = crate::regular::read_in(
        folder,
        path,
        TEAM_FILE_LIMIT,
        crate::regular::LastLink::Follow,
    )
    .map_err(StoreError::io("could not read", path))?;
    serde_json::from_slice(&bytes).map_err(|error| StoreError::Corrupt {
        path: path.to_owned(),
        reason: error.to_string(),
    })
}

/// Writes `value` as the plugin does: 2-space JSON, no trailing newline,
/// temp file and rename.
pub(crate) fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<(), StoreError> {
    let bytes = serde_json::to_vec_pretty(value).map_err(|source| StoreError::Encode {
        what: "team file",
        source,
    })?;
    crate::write_atomic(path, &bytes)
}

/// A problem entry for `path`.
pub(crate) fn problem(path: &Path, reason: impl ToString) -> FileProblem {
    FileProblem {
        path: path.display().to_string(),
        reason: reason.to_string(),
    }
}

/// The teams the Team view lists for `workspace`: opencode-teams' by name
/// (the folder the plugin uses there, [`Teams::locate`]), then Claude
/// Code's working in the workspace when its folder is known. Claude's
/// folder is the user's, not the workspace's: one that cannot be listed
/// hides its teams, never the plugin's.
pub fn all_teams(
    workspace: &Workspace,
    claude: Option<&ClaudeTeams>,
) -> Result<Vec<TeamEntry>, StoreError> {
    let entry = |source| move |name| TeamEntry { name, source };
    let mut teams: Vec<TeamEntry> = Teams::locate(workspace)
        .team_names()?
        .into_iter()
        .map(entry(TeamSource::OpencodeTeams))
        .collect();
    if let Some(claude) = claude {
        match claude.team_names(workspace.root()) {
            Ok(names) => teams.extend(names.into_iter().map(entry(TeamSource::ClaudeCode))),
            Err(error) => tracing::warn!(%error, "Claude Code's teams not listed"),
        }
    }
    Ok(teams)
}

/// The board of the team `name` from `source` (Claude Code's only when
/// its folder is known).
pub fn board_of(
    workspace: &Workspace,
    claude: Option<&ClaudeTeams>,
    source: TeamSource,
    name: &str,
) -> Result<TeamBoard, StoreError> {
    match (source, claude) {
        (TeamSource::OpencodeTeams, _) => Teams::locate(workspace).board(name),
        (TeamSource::ClaudeCode, Some(claude)) => claude.board(name),
        (TeamSource::ClaudeCode, None) => Err(TeamError::TeamMissing(name.to_owned()).into()),
    }
}
