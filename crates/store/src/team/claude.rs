//! Claude Code's agent teams, read only, from Claude's config folder:
//! `teams/<team>/config.json`, `teams/<team>/inboxes/<name>.json` and
//! `tasks/<team>/<id>.json`. Nothing here writes, locks or creates a file
//! there; a file that does not read is listed with its reason and the rest
//! of the board still shows.

use std::{
    path::{Path, PathBuf},
    time::SystemTime,
};

use serde::de::DeserializeOwned;
use switchboard_model::{
    Timestamp,
    team::{
        FileProblem, Inbox, Task, TeamBoard, TeamError, TeamSource, check_team_name,
        claude::{ClaudeConfig, ClaudeMessage, ClaudeTask},
    },
};

use super::{problem, read_json, team_folders};
use crate::StoreError;

/// The variable Claude Code reads its config folder from.
pub const CLAUDE_CONFIG_ENV: &str = "CLAUDE_CONFIG_DIR";

/// Claude Code's config folder, holding its teams and task lists.
#[derive(Debug, Clone)]
pub struct ClaudeTeams {
    root: PathBuf,
}

impl ClaudeTeams {
    /// The folder Claude Code uses: `CLAUDE_CONFIG_DIR`, else `~/.claude`;
    /// `None` without either.
    pub fn locate() -> Option<Self> {
        let root = match std::env::var_os(CLAUDE_CONFIG_ENV) {
            Some(dir) if !dir.is_empty() => PathBuf::from(dir),
            _ => PathBuf::from(std::env::var_os("HOME").filter(|home| !home.is_empty())?)
                .join(".claude"),
        };
        Some(Self::at(root))
    }

    /// A folder given explicitly.
    pub fn at(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The config folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The folders whose changes change a board: `teams/` and `tasks/`.
    pub fn watched_roots(&self) -> Vec<PathBuf> {
        vec![self.root.join("teams"), self.root.join("tasks")]
    }

    fn config_path(&self, team: &str) -> PathBuf {
        self.root.join("teams").join(team).join("config.json")
    }

    /// The teams working in `workspace` (a member's folder is it or inside
    /// it, or no member names one), sorted. A config that does not read is
    /// listed too, so its board can say why.
    pub fn team_names(&self, workspace: &Path) -> Result<Vec<String>, StoreError> {
        let folder = workspace.to_string_lossy();
        let mut names = team_folders(&self.root.join("teams"))?;
        names.retain(|name| {
            let path = self.config_path(name);
            path.exists()
                && read_json::<ClaudeConfig>(&path).map_or(true, |config| config.works_in(&folder))
        });
        Ok(names)
    }

    /// Everything on a team's board, marked read only.
    pub fn board(&self, team: &str) -> Result<TeamBoard, StoreError> {
        check_team_name(team)?;
        let path = self.config_path(team);
        if !path.exists() {
            return Err(TeamError::TeamMissing(team.to_owned()).into());
        }
        let config = read_json::<ClaudeConfig>(&path)?
            .to_team()
            .map_err(|reason| StoreError::Corrupt {
                path: path.clone(),
                reason,
            })?;
        let mut problems = Vec::new();
        let tasks = read_tasks(&self.root.join("tasks").join(team), &mut problems);
        let inboxes = read_inboxes(
            &self.root.join("teams").join(team).join("inboxes"),
            &mut problems,
        );
        Ok(TeamBoard {
            source: TeamSource::ClaudeCode,
            config,
            tasks,
            inboxes,
            problems,
        })
    }
}

/// The `.json` files of `dir` that are not hidden, by name (ids that are
/// numbers in numeric order).
fn json_files(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut files: Vec<(String, PathBuf)> = crate::walk::files_in(dir, "json")
        .unwrap_or_default()
        .into_iter()
        .filter_map(|path| {
            let stem = path.file_stem()?.to_str()?.to_owned();
            (!stem.is_empty() && !stem.starts_with('.')).then_some((stem, path))
        })
        .collect();
    files.sort_by(|(a, _), (b, _)| {
        let number = |name: &str| name.parse::<u64>().ok();
        number(a).cmp(&number(b)).then_with(|| a.cmp(b))
    });
    files
}

fn read_tasks(dir: &Path, problems: &mut Vec<FileProblem>) -> Vec<Task> {
    let mut tasks = Vec::new();
    for (stem, path) in json_files(dir) {
        let written = std::fs::metadata(&path)
            .and_then(|metadata| metadata.modified())
            .ok()
            .and_then(|time| time.duration_since(SystemTime::UNIX_EPOCH).ok())
            .and_then(|since| Timestamp::from_unix_millis(since.as_millis().try_into().ok()?))
            .unwrap_or(Timestamp::EPOCH);
        let read = load::<ClaudeTask>(&path).and_then(|task| {
            if task.id != stem {
                return Err(format!(
                    "the file is named {stem:?} but holds task {:?}",
                    task.id
                ));
            }
            task.to_task(written)
        });
        match read {
            Ok(task) => tasks.push(task),
            Err(reason) => problems.push(problem(&path, reason)),
        }
    }
    tasks
}

fn read_inboxes(dir: &Path, problems: &mut Vec<FileProblem>) -> Vec<Inbox> {
    let mut inboxes = Vec::new();
    for (agent, path) in json_files(dir) {
        let read = load::<Vec<ClaudeMessage>>(&path).and_then(|messages| {
            messages
                .iter()
                .map(|message| message.to_message(&agent))
                .collect::<Result<Vec<_>, _>>()
        });
        match read {
            Ok(messages) => inboxes.push(Inbox { agent, messages }),
            Err(reason) => problems.push(problem(&path, reason)),
        }
    }
    inboxes.sort_by(|a, b| a.agent.cmp(&b.agent));
    inboxes
}

/// A file's value, or why it could not be read.
fn load<T: DeserializeOwned>(path: &Path) -> Result<T, String> {
    read_json(path).map_err(|error| match error {
        StoreError::Corrupt { reason, .. } => reason,
        other => other.to_string(),
    })
}
