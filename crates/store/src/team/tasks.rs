//! `tasks/<team>/<id>.json`: the task queue, changed under the plugin's
//! task lock, with its rules (`switchboard_model::team`).

use std::path::{Path, PathBuf};

use switchboard_model::{
    Timestamp,
    team::{
        FileProblem, Priority, Task, TaskFilter, TaskStatus, TeamError, cascade_completion,
        check_dependencies, check_transition, claim, dependents_of, readiness,
    },
};

use super::{Teams, check_file_id, problem, read_json, write_json};
use crate::StoreError;

/// A task as it is asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewTask {
    /// What to do (empty: "Untitled Task").
    pub title: String,
    /// Details.
    pub description: Option<String>,
    /// How urgent.
    pub priority: Priority,
    /// Tasks that must be completed first.
    pub dependencies: Vec<String>,
}

/// Every task of a team folder that reads, by file name; the others go to
/// `problems` (a file that does not parse, breaks the schema, or is not
/// named after its id).
pub(super) fn read_all(
    dir: &Path,
    problems: &mut Vec<FileProblem>,
) -> Result<Vec<Task>, StoreError> {
    let files: Vec<(String, PathBuf)> = crate::walk::files_in(dir, "json")?
        .into_iter()
        .filter_map(|path| {
            let name = path.file_name()?.to_str()?.to_owned();
            (!name.starts_with('.')).then_some((name, path))
        })
        .collect();
    let mut tasks = Vec::with_capacity(files.len());
    for (name, path) in files {
        let task: Task = match read_json(&path) {
            Ok(task) => task,
            Err(error) => {
                problems.push(problem(&path, reason_of(error)));
                continue;
            }
        };
        if let Err(error) = task.validate() {
            problems.push(problem(&path, error));
            continue;
        }
        let stem = name.trim_end_matches(".json");
        if task.id != stem {
            problems.push(problem(
                &path,
                format!("the file is named {stem:?} but holds task {:?}", task.id),
            ));
            continue;
        }
        tasks.push(task);
    }
    Ok(tasks)
}

fn reason_of(error: StoreError) -> String {
    match error {
        StoreError::Corrupt { reason, .. } => reason,
        other => other.to_string(),
    }
}

/// A team's tasks loaded under its exclusive task lock, for one change.
struct Locked {
    dir: PathBuf,
    team: String,
    tasks: Vec<Task>,
    problems: Vec<FileProblem>,
    _lock: crate::lock::RecordLock,
}

impl Locked {
    fn open(teams: &Teams, team: &str) -> Result<Self, StoreError> {
        switchboard_model::team::check_team_name(team)?;
        if !teams.config_path(team).exists() {
            return Err(TeamError::TeamMissing(team.to_owned()).into());
        }
        let lock = teams.tasks_lock(team, true)?;
        let dir = teams.tasks_dir(team);
        let mut problems = Vec::new();
        let tasks = read_all(&dir, &mut problems)?;
        Ok(Self {
            dir,
            team: team.to_owned(),
            tasks,
            problems,
            _lock: lock,
        })
    }

    /// The index of task `id`; a task file that does not read is reported
    /// as such, not as missing.
    fn index(&self, id: &str) -> Result<usize, StoreError> {
        check_file_id("task id", id)?;
        if let Some(index) = self.tasks.iter().position(|task| task.id == id) {
            return Ok(index);
        }
        let path = self.path(id);
        let shown = path.display().to_string();
        if let Some(bad) = self.problems.iter().find(|problem| problem.path == shown) {
            return Err(StoreError::Corrupt {
                path,
                reason: bad.reason.clone(),
            });
        }
        Err(TeamError::TaskMissing {
            id: id.to_owned(),
            team: self.team.clone(),
        }
        .into())
    }

    fn find(&self, id: &str) -> Option<&Task> {
        self.tasks.iter().find(|task| task.id == id)
    }

    fn path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.json"))
    }

    fn write(&self, index: usize) -> Result<(), StoreError> {
        let task = &self.tasks[index];
        write_json(&self.path(&task.id), task)
    }

    fn dependencies_met(&self, task: &Task) -> bool {
        task.dependencies.iter().all(|id| {
            self.find(id)
                .is_some_and(|dependency| dependency.status == TaskStatus::Completed)
        })
    }

    /// Adds (or removes) `id` to the `blocks` of task `of`, writing it if
    /// it changed; tasks that do not read are left alone, as the plugin
    /// does.
    fn set_blocks(&mut self, of: &str, id: &str, present: bool) -> Result<(), StoreError> {
        let Some(index) = self.tasks.iter().position(|task| task.id == of) else {
            return Ok(());
        };
        let blocks = &mut self.tasks[index].blocks;
        let has = blocks.iter().any(|blocked| blocked == id);
        if present && !has {
            blocks.push(id.to_owned());
        } else if !present && has {
            blocks.retain(|blocked| blocked != id);
        } else {
            return Ok(());
        }
        self.write(index)
    }
}

/// A new task id as the plugin makes them: `{ms}-{8 lowercase hex}`.
fn new_id(now: Timestamp) -> String {
    format!("{}-{:08x}", now.unix_millis(), fastrand::u32(..))
}

/// Creates a pending task in `team`, after checking that its dependencies
/// exist and close no cycle; each dependency lists it in its `blocks`.
pub fn create_task(
    teams: &Teams,
    team: &str,
    new: NewTask,
    now: Timestamp,
) -> Result<Task, StoreError> {
    let mut locked = Locked::open(teams, team)?;
    let mut id = new_id(now);
    while locked.find(&id).is_some() || locked.path(&id).exists() {
        id = new_id(now);
    }
    for dependency in &new.dependencies {
        check_file_id("dependency", dependency)?;
    }
    check_dependencies(&id, &new.dependencies, |other| locked.find(other))?;
    let mut task = Task::new(id.clone(), &new.title, now);
    task.description = new.description.filter(|text| !text.is_empty());
    task.priority = new.priority;
    task.dependencies = new.dependencies.clone();
    write_json(&locked.path(&id), &task)?;
    locked.tasks.push(task.clone());
    for dependency in &new.dependencies {
        locked.set_blocks(dependency, &id, true)?;
    }
    Ok(task)
}

/// Claims pending task `id` for `agent` (with the plugin's warning when
/// its dependencies are not all completed).
pub fn claim_task(
    teams: &Teams,
    team: &str,
    id: &str,
    agent: &str,
    now: Timestamp,
) -> Result<Task, StoreError> {
    check_file_id("agent", agent)?;
    let mut locked = Locked::open(teams, team)?;
    let index = locked.index(id)?;
    let met = locked.dependencies_met(&locked.tasks[index]);
    claim(&mut locked.tasks[index], agent, met, now)?;
    locked.write(index)?;
    Ok(locked.tasks[index].clone())
}

/// Moves task `id` forward to `to`. Completing it cascades inside the same
/// lock: it leaves every other task's `dependencies` and `blocks`. Returns
/// the task and the ids of the tasks the cascade changed.
pub fn advance_task(
    teams: &Teams,
    team: &str,
    id: &str,
    to: TaskStatus,
    now: Timestamp,
) -> Result<(Task, Vec<String>), StoreError> {
    update_task(teams, team, id, &TaskUpdate::move_to(to), now)
}

/// Adds and removes dependencies of task `id`, refusing unknown tasks and
/// cycles; the `blocks` of the tasks added or removed follow.
pub fn edit_dependencies(
    teams: &Teams,
    team: &str,
    id: &str,
    add: &[String],
    remove: &[String],
    now: Timestamp,
) -> Result<Task, StoreError> {
    let update = TaskUpdate {
        status: None,
        add: add.to_vec(),
        remove: remove.to_vec(),
    };
    update_task(teams, team, id, &update, now).map(|(task, _)| task)
}

/// One change to a task: its dependencies edited, then its status moved
/// forward.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskUpdate {
    /// The status to move it to.
    pub status: Option<TaskStatus>,
    /// Dependencies to add.
    pub add: Vec<String>,
    /// Dependencies to remove.
    pub remove: Vec<String>,
}

impl TaskUpdate {
    /// A move to `to` alone.
    pub fn move_to(to: TaskStatus) -> Self {
        Self {
            status: Some(to),
            ..Self::default()
        }
    }

    /// Whether it changes nothing.
    pub fn is_empty(&self) -> bool {
        self.status.is_none() && self.add.is_empty() && self.remove.is_empty()
    }
}

/// Applies `update` to task `id` under one hold of the team's task lock:
/// both parts are checked (the transition, known dependencies, no cycle)
/// before anything is written, so a refused update changes nothing.
/// Returns the task and the ids of the tasks a completion freed.
pub fn update_task(
    teams: &Teams,
    team: &str,
    id: &str,
    update: &TaskUpdate,
    now: Timestamp,
) -> Result<(Task, Vec<String>), StoreError> {
    let mut locked = Locked::open(teams, team)?;
    let index = locked.index(id)?;
    let was = locked.tasks[index].status;
    if let Some(to) = update.status {
        check_transition(was, to)?;
    }
    let edits = !update.add.is_empty() || !update.remove.is_empty();
    let old = locked.tasks[index].dependencies.clone();
    let mut wanted: Vec<String> = old
        .iter()
        .filter(|dependency| !update.remove.contains(dependency))
        .cloned()
        .collect();
    for dependency in &update.add {
        check_file_id("dependency", dependency)?;
        if !wanted.contains(dependency) {
            wanted.push(dependency.clone());
        }
    }
    if edits {
        check_dependencies(id, &wanted, |other| locked.find(other))?;
        locked.tasks[index].dependencies = wanted.clone();
        locked.tasks[index].updated_at = Some(now);
    }
    if let Some(to) = update.status {
        locked.tasks[index].advance(to, now)?;
    }
    locked.write(index)?;
    for gone in old.iter().filter(|dependency| !wanted.contains(dependency)) {
        locked.set_blocks(gone, id, false)?;
    }
    for added in wanted.iter().filter(|dependency| !old.contains(dependency)) {
        locked.set_blocks(added, id, true)?;
    }
    let mut cascaded = Vec::new();
    if update.status == Some(TaskStatus::Completed) && was != TaskStatus::Completed {
        for changed in cascade_completion(&mut locked.tasks, id) {
            locked.write(changed)?;
            cascaded.push(locked.tasks[changed].id.clone());
        }
    }
    Ok((locked.tasks[index].clone(), cascaded))
}

/// Deletes task `id`, unless another task depends on it.
pub fn delete_task(teams: &Teams, team: &str, id: &str) -> Result<(), StoreError> {
    let mut locked = Locked::open(teams, team)?;
    let index = locked.index(id)?;
    if let Some(other) = dependents_of(id, &locked.tasks).into_iter().next() {
        return Err(TeamError::Depended {
            id: id.to_owned(),
            other,
        }
        .into());
    }
    let dependencies = locked.tasks[index].dependencies.clone();
    for dependency in &dependencies {
        locked.set_blocks(dependency, id, false)?;
    }
    let path = locked.path(id);
    std::fs::remove_file(&path).map_err(StoreError::io("could not remove", &path))
}

/// The team whose task folder holds task `id`.
pub fn find_task_team(teams: &Teams, id: &str) -> Result<String, StoreError> {
    check_file_id("task id", id)?;
    let dir = teams.root().join("tasks");
    let found = super::team_folders(&dir)?
        .into_iter()
        .find(|team| dir.join(team).join(format!("{id}.json")).is_file());
    found.ok_or_else(|| StoreError::NotFound {
        what: "task",
        id: id.to_owned(),
    })
}

/// One task found by [`list_tasks`].
#[derive(Debug, Clone, PartialEq)]
pub struct ListedTask {
    /// Its team.
    pub team: String,
    /// The task.
    pub task: Task,
    /// Pending with every dependency completed: it can start now.
    pub ready: bool,
}

/// What [`list_tasks`] found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TaskListing {
    /// The tasks that fit, by team and the plugin's order.
    pub tasks: Vec<ListedTask>,
    /// Task files that could not be read, each with its reason.
    pub problems: Vec<FileProblem>,
}

/// The tasks of `team` (every team when none) that fit `filter`, each
/// team's read under its shared task lock.
pub fn list_tasks(
    teams: &Teams,
    team: Option<&str>,
    filter: &TaskFilter,
) -> Result<TaskListing, StoreError> {
    let names = match team {
        Some(team) => vec![team.to_owned()],
        None => teams.team_names()?,
    };
    let mut listing = TaskListing::default();
    for name in names {
        teams.config(&name)?;
        let tasks = {
            let _lock = teams.tasks_lock(&name, false)?;
            read_all(&teams.tasks_dir(&name), &mut listing.problems)?
        };
        let ready = readiness(&tasks);
        let selected: std::collections::HashSet<&str> = filter
            .select(&tasks)
            .into_iter()
            .map(|task| task.id.as_str())
            .collect();
        for (task, ready) in tasks.iter().zip(ready) {
            if selected.contains(&task.id.as_str()) {
                listing.tasks.push(ListedTask {
                    team: name.clone(),
                    task: task.clone(),
                    ready,
                });
            }
        }
    }
    Ok(listing)
}
