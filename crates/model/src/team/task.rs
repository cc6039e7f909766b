//! `tasks/<team>/<id>.json`: the team's task queue, and the plugin's rules
//! for moving a task along and for its dependencies.

use std::{
    collections::{HashMap, HashSet, VecDeque},
    fmt,
};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{TeamError, time};
use crate::Timestamp;

/// Where a task is. It only moves forward.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Not started.
    Pending,
    /// Claimed and being worked on.
    InProgress,
    /// Done.
    Completed,
}

impl TaskStatus {
    /// Every status, in order.
    pub const ALL: [Self; 3] = [Self::Pending, Self::InProgress, Self::Completed];

    /// The name the files use.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::InProgress => "in_progress",
            Self::Completed => "completed",
        }
    }

    /// The status named `name`.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|status| status.as_str() == name)
    }
}

impl fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How urgent a task is.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// First.
    High,
    /// The default.
    #[default]
    Normal,
    /// Last.
    Low,
}

impl Priority {
    /// Every priority, most urgent first.
    pub const ALL: [Self; 3] = [Self::High, Self::Normal, Self::Low];

    /// The name the files use.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::High => "high",
            Self::Normal => "normal",
            Self::Low => "low",
        }
    }

    /// The priority named `name`.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|priority| priority.as_str() == name)
    }
}

fn untitled() -> String {
    "Untitled Task".to_owned()
}

/// One task file. Fields are in the plugin's schema order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// `{ms}-{8 hex}`; the file is named after it.
    pub id: String,
    /// What to do.
    #[serde(default = "untitled")]
    pub title: String,
    /// Details.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// How urgent.
    #[serde(default)]
    pub priority: Priority,
    /// Where it is.
    pub status: TaskStatus,
    /// When it was created.
    #[serde(with = "time::required")]
    pub created_at: Timestamp,
    /// When it last changed.
    #[serde(
        default,
        with = "time::optional",
        skip_serializing_if = "Option::is_none"
    )]
    pub updated_at: Option<Timestamp>,
    /// Who claimed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// When it was claimed.
    #[serde(
        default,
        with = "time::optional",
        skip_serializing_if = "Option::is_none"
    )]
    pub claimed_at: Option<Timestamp>,
    /// When it was completed.
    #[serde(
        default,
        with = "time::optional",
        skip_serializing_if = "Option::is_none"
    )]
    pub completed_at: Option<Timestamp>,
    /// Tasks that must be completed first (completed ones leave the list).
    #[serde(default)]
    pub dependencies: Vec<String>,
    /// Tasks waiting for this one.
    #[serde(default)]
    pub blocks: Vec<String>,
    /// A caution, e.g. claimed before its dependencies were met.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// Fields this version does not know, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Task {
    /// A new pending task.
    pub fn new(id: String, title: &str, now: Timestamp) -> Self {
        Self {
            id,
            title: if title.is_empty() {
                untitled()
            } else {
                title.to_owned()
            },
            description: None,
            priority: Priority::Normal,
            status: TaskStatus::Pending,
            created_at: now,
            updated_at: None,
            owner: None,
            claimed_at: None,
            completed_at: None,
            dependencies: Vec::new(),
            blocks: Vec::new(),
            warning: None,
            extra: Map::new(),
        }
    }

    /// Checks what the plugin's schema requires beyond the JSON's shape.
    pub fn validate(&self) -> Result<(), TeamError> {
        if self.id.is_empty() {
            Err(TeamError::Empty("Task ID"))
        } else {
            Ok(())
        }
    }

    /// Moves the task to `to` (forward only; the same status again is
    /// accepted), stamping `updatedAt`, and `completedAt` on completion.
    pub fn advance(&mut self, to: TaskStatus, now: Timestamp) -> Result<(), TeamError> {
        check_transition(self.status, to)?;
        self.status = to;
        self.updated_at = Some(now);
        if to == TaskStatus::Completed && self.completed_at.is_none() {
            self.completed_at = Some(now);
        }
        Ok(())
    }
}

/// The part of a claim warning the cascade looks for.
pub const CLAIM_WARNING_MARK: &str = "dependencies are not met";

/// The warning a task claimed before its dependencies were met carries.
pub fn claim_warning(id: &str) -> String {
    format!("Warning: Task {id} {CLAIM_WARNING_MARK}. Proceed with caution.")
}

/// The tasks offered as a dependency while `query` is typed: open tasks
/// (not completed) whose title contains it, case aside, those whose title
/// starts with it first, then in board order; never one in `exclude` (the
/// task itself, what it already waits for); at most `limit`. Cycles are
/// left to [`check_dependencies`], which refuses them in the plugin's words.
pub fn dependency_candidates<'a>(
    tasks: &'a [Task],
    exclude: &[String],
    query: &str,
    limit: usize,
) -> Vec<&'a Task> {
    let wanted = query.trim().to_lowercase();
    if wanted.is_empty() {
        return Vec::new();
    }
    let mut found: Vec<(bool, usize, &Task)> = tasks
        .iter()
        .enumerate()
        .filter(|(_, task)| task.status != TaskStatus::Completed && !exclude.contains(&task.id))
        .filter_map(|(at, task)| {
            let title = task.title.to_lowercase();
            title
                .contains(&wanted)
                .then(|| (!title.starts_with(&wanted), at, task))
        })
        .collect();
    found.sort_by_key(|(later, at, _)| (*later, *at));
    found
        .into_iter()
        .take(limit)
        .map(|(_, _, task)| task)
        .collect()
}

/// What the board offers to do to a task next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskAction {
    /// Claim it for a member (it moves to in progress).
    Claim,
    /// Complete it (its dependents are freed).
    Complete,
    /// Add or remove dependencies.
    EditDependencies,
}

impl TaskStatus {
    /// The board's label for a task in this status with `open_dependencies`
    /// not completed yet (a pending task waits for them, else it is ready).
    pub fn label(self, open_dependencies: usize) -> String {
        match self {
            Self::Pending if open_dependencies > 0 => format!(
                "waits for {open_dependencies} task{}",
                if open_dependencies == 1 { "" } else { "s" }
            ),
            Self::Pending => "ready".to_owned(),
            Self::InProgress => "in progress".to_owned(),
            Self::Completed => "done".to_owned(),
        }
    }

    /// What can be done to a task in this status, in the order the board
    /// shows it: a pending task is claimed, one in progress completed, and
    /// the dependencies of any task not yet completed edited.
    pub fn actions(self) -> &'static [TaskAction] {
        match self {
            Self::Pending => &[TaskAction::Claim, TaskAction::EditDependencies],
            Self::InProgress => &[TaskAction::Complete, TaskAction::EditDependencies],
            Self::Completed => &[],
        }
    }

    /// Whether [`TaskStatus::actions`] includes `action`.
    pub fn allows(self, action: TaskAction) -> bool {
        self.actions().contains(&action)
    }
}

/// Forward-only: pending → in progress → completed.
pub fn check_transition(from: TaskStatus, to: TaskStatus) -> Result<(), TeamError> {
    let allowed = from == to
        || matches!(
            (from, to),
            (TaskStatus::Pending, TaskStatus::InProgress)
                | (TaskStatus::InProgress, TaskStatus::Completed)
        );
    if allowed {
        Ok(())
    } else {
        Err(TeamError::Transition { from, to })
    }
}

/// Checks that `task` may depend on `dependencies`: each exists, and none
/// leads back to `task` through the stored dependencies (a breadth-first
/// walk, as the plugin does; tasks `find` does not know end the walk).
pub fn check_dependencies<'a>(
    task: &str,
    dependencies: &[String],
    find: impl Fn(&str) -> Option<&'a Task>,
) -> Result<(), TeamError> {
    if let Some(missing) = dependencies.iter().find(|id| find(id).is_none()) {
        return Err(TeamError::DependencyMissing(missing.clone()));
    }
    let mut queue: VecDeque<&str> = dependencies.iter().map(String::as_str).collect();
    let mut seen = HashSet::new();
    while let Some(current) = queue.pop_front() {
        if current == task {
            return Err(TeamError::Circular(current.to_owned()));
        }
        if !seen.insert(current) {
            continue;
        }
        if let Some(found) = find(current) {
            queue.extend(
                found
                    .dependencies
                    .iter()
                    .map(String::as_str)
                    .filter(|id| !seen.contains(id)),
            );
        }
    }
    Ok(())
}

/// Claims a pending task for `owner`: in progress, owned, stamped, with
/// the plugin's warning when its dependencies are not all completed (the
/// claim still succeeds).
pub fn claim(
    task: &mut Task,
    owner: &str,
    dependencies_met: bool,
    now: Timestamp,
) -> Result<(), TeamError> {
    if task.status != TaskStatus::Pending {
        return Err(TeamError::NotAvailable {
            id: task.id.clone(),
            status: task.status,
        });
    }
    task.status = TaskStatus::InProgress;
    task.owner = Some(owner.to_owned());
    task.claimed_at = Some(now);
    task.updated_at = Some(now);
    if !task.dependencies.is_empty() && !dependencies_met {
        task.warning = Some(claim_warning(&task.id));
    }
    Ok(())
}

/// The cascade of completing `completed`: every other task loses it from
/// its `dependencies` and `blocks`, and a claim warning clears once no
/// dependency is left. Returns the indexes of the tasks that changed.
pub fn cascade_completion(tasks: &mut [Task], completed: &str) -> Vec<usize> {
    let mut changed = Vec::new();
    for (index, task) in tasks.iter_mut().enumerate() {
        if task.id == completed {
            continue;
        }
        let mut modified = false;
        if task.dependencies.iter().any(|id| id == completed) {
            task.dependencies.retain(|id| id != completed);
            modified = true;
            let stale = task
                .warning
                .as_deref()
                .is_some_and(|warning| warning.contains(CLAIM_WARNING_MARK));
            if task.dependencies.is_empty() && stale {
                task.warning = None;
            }
        }
        if task.blocks.iter().any(|id| id == completed) {
            task.blocks.retain(|id| id != completed);
            modified = true;
        }
        if modified {
            changed.push(index);
        }
    }
    changed
}

/// Whether `task` can be started now: pending, and every dependency is a
/// completed task.
pub fn is_ready<'a>(task: &Task, find: impl Fn(&str) -> Option<&'a Task>) -> bool {
    task.status == TaskStatus::Pending
        && task
            .dependencies
            .iter()
            .all(|id| find(id).is_some_and(|dependency| dependency.status == TaskStatus::Completed))
}

/// One dependency of a task as the board shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DependencyState {
    /// The task depended on.
    pub id: String,
    /// Its title, or the id and that it is not on the board.
    pub title: String,
    /// It is completed.
    pub done: bool,
}

/// `task`'s dependencies as the board shows them, in its order, looked up
/// among `tasks`.
pub fn dependency_states(task: &Task, tasks: &[Task]) -> Vec<DependencyState> {
    task.dependencies
        .iter()
        .map(|dependency| {
            let found = tasks.iter().find(|other| other.id == *dependency);
            DependencyState {
                id: dependency.clone(),
                title: found.map_or_else(
                    || format!("{dependency} (not on the board)"),
                    |other| other.title.clone(),
                ),
                done: found.is_some_and(|other| other.status == TaskStatus::Completed),
            }
        })
        .collect()
}

/// Whether each of `tasks` can start now ([`is_ready`] against the others),
/// in their order.
pub fn readiness(tasks: &[Task]) -> Vec<bool> {
    let by_id: HashMap<&str, &Task> = tasks.iter().map(|task| (task.id.as_str(), task)).collect();
    tasks
        .iter()
        .map(|task| is_ready(task, |id| by_id.get(id).copied()))
        .collect()
}

/// A selection of a team's tasks, as `switchboard task list` takes it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskFilter {
    /// Only tasks in this status.
    pub status: Option<TaskStatus>,
    /// Only tasks this agent owns.
    pub owner: Option<String>,
    /// Only tasks that can start now.
    pub ready: bool,
}

impl TaskFilter {
    /// The tasks of `tasks` this filter keeps, in their order.
    pub fn select<'a>(&self, tasks: &'a [Task]) -> Vec<&'a Task> {
        let ready = if self.ready {
            readiness(tasks)
        } else {
            vec![true; tasks.len()]
        };
        tasks
            .iter()
            .zip(ready)
            .filter(|(task, ready)| {
                *ready
                    && self.status.is_none_or(|status| task.status == status)
                    && self
                        .owner
                        .as_deref()
                        .is_none_or(|owner| task.owner.as_deref() == Some(owner))
            })
            .map(|(task, _)| task)
            .collect()
    }
}

/// The ids of the tasks that depend on `id`.
pub fn dependents_of<'a>(id: &str, tasks: impl IntoIterator<Item = &'a Task>) -> Vec<String> {
    tasks
        .into_iter()
        .filter(|task| task.id != id && task.dependencies.iter().any(|dep| dep == id))
        .map(|task| task.id.clone())
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use proptest::prelude::*;

    use super::*;

    /// A pending task `id` (titled `id`) depending on `dependencies`.
    pub(crate) fn task(id: &str, dependencies: &[&str]) -> Task {
        let mut task = Task::new(id.to_owned(), id, Timestamp::EPOCH);
        task.dependencies = dependencies.iter().map(|d| (*d).to_owned()).collect();
        task
    }

    fn index(tasks: &[Task]) -> HashMap<&str, &Task> {
        tasks.iter().map(|task| (task.id.as_str(), task)).collect()
    }

    #[test]
    fn seed_defaults_apply_on_read_and_the_schema_order_on_write() {
        let file =
            r#"{"id":"1-abcdef01","status":"pending","createdAt":"2026-02-10T10:00:00.000Z"}"#;
        let task: Task = serde_json::from_str(file).unwrap();
        assert_eq!(task.title, "Untitled Task");
        assert_eq!(task.priority, Priority::Normal);
        assert!(task.blocks.is_empty() && task.dependencies.is_empty());
        assert_eq!(
            serde_json::to_string(&task).unwrap(),
            r#"{"id":"1-abcdef01","title":"Untitled Task","priority":"normal","status":"pending","createdAt":"2026-02-10T10:00:00.000Z","dependencies":[],"blocks":[]}"#
        );
        for bad in [
            file.replace("pending", "done"),
            file.replace(".000Z", ".000+00:00"),
        ] {
            assert!(serde_json::from_str::<Task>(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn status_only_moves_forward() {
        assert!(check_transition(TaskStatus::Pending, TaskStatus::InProgress).is_ok());
        assert!(check_transition(TaskStatus::Completed, TaskStatus::Completed).is_ok());
        assert_eq!(
            check_transition(TaskStatus::Completed, TaskStatus::Pending)
                .unwrap_err()
                .to_string(),
            "Invalid status transition: completed -> pending"
        );
        assert!(check_transition(TaskStatus::Pending, TaskStatus::Completed).is_err());
    }

    #[test]
    fn cycles_and_unknown_dependencies_are_refused_with_the_plugins_words() {
        let tasks = [task("a", &[]), task("b", &["a"]), task("c", &["b"])];
        let by_id = index(&tasks);
        let find = |id: &str| by_id.get(id).copied();
        assert_eq!(
            check_dependencies("a", &["c".into()], find)
                .unwrap_err()
                .to_string(),
            "Circular dependency detected: a"
        );
        assert_eq!(
            check_dependencies("a", &["zz".into()], find)
                .unwrap_err()
                .to_string(),
            "Dependency task zz does not exist"
        );
        assert!(check_dependencies("new", &["c".into(), "a".into()], find).is_ok());
    }

    #[test]
    fn claiming_early_warns_and_completing_cascades() {
        let mut tasks = vec![task("a", &[]), task("b", &["a"])];
        tasks[0].blocks = vec!["b".into()];
        claim(&mut tasks[1], "w1", false, Timestamp::EPOCH).unwrap();
        assert_eq!(
            tasks[1].warning.as_deref(),
            Some("Warning: Task b dependencies are not met. Proceed with caution.")
        );
        assert_eq!(
            claim(&mut tasks[1], "w2", true, Timestamp::EPOCH)
                .unwrap_err()
                .to_string(),
            "Task b is not available (status: in_progress)"
        );
        tasks[0]
            .advance(TaskStatus::InProgress, Timestamp::EPOCH)
            .unwrap();
        tasks[0]
            .advance(TaskStatus::Completed, Timestamp::EPOCH)
            .unwrap();
        assert_eq!(tasks[0].completed_at, Some(Timestamp::EPOCH));
        assert_eq!(cascade_completion(&mut tasks, "a"), vec![1]);
        assert!(tasks[1].dependencies.is_empty());
        assert_eq!(
            tasks[1].warning, None,
            "the warning clears with the last dependency"
        );
        assert_eq!(
            tasks[0].blocks,
            ["b"],
            "a completed task keeps its own blocks"
        );
    }

    #[test]
    fn readiness_needs_every_dependency_completed() {
        let mut tasks = vec![task("a", &[]), task("b", &["a"]), task("c", &["gone"])];
        let ready = |tasks: &[Task], id: &str| {
            let by_id = index(tasks);
            is_ready(by_id[id], |other| by_id.get(other).copied())
        };
        assert!(ready(&tasks, "a") && !ready(&tasks, "b") && !ready(&tasks, "c"));
        tasks[0].status = TaskStatus::Completed;
        assert!(ready(&tasks, "b"));
        assert_eq!(readiness(&tasks), [false, true, false]);
        assert_eq!(dependents_of("a", &tasks), ["b"]);
        tasks[1].owner = Some("w".into());
        let filter = TaskFilter {
            owner: Some("w".into()),
            ready: true,
            ..TaskFilter::default()
        };
        let kept: Vec<&str> = filter
            .select(&tasks)
            .iter()
            .map(|t| t.id.as_str())
            .collect();
        assert_eq!(kept, ["b"]);
    }

    proptest! {
        /// Whatever edges are added one at a time through the check, the
        /// graph stays acyclic.
        #[test]
        fn checked_edges_never_make_a_cycle(edges in proptest::collection::vec((0..8_usize, 0..8_usize), 0..40)) {
            let mut tasks: Vec<Task> = (0..8).map(|i| task(&i.to_string(), &[])).collect();
            for (from, to) in edges {
                let mut wanted = tasks[from].dependencies.clone();
                wanted.push(to.to_string());
                let accepted = {
                    let by_id = index(&tasks);
                    check_dependencies(&from.to_string(), &wanted, |id| by_id.get(id).copied()).is_ok()
                };
                if accepted {
                    tasks[from].dependencies = wanted;
                }
            }
            prop_assert!(crate::team::graph::layout(&tasks).cyclic.is_empty());
        }
    }

    #[test]
    fn each_status_offers_the_moves_its_transitions_allow() {
        for status in TaskStatus::ALL {
            for action in status.actions() {
                let to = match action {
                    TaskAction::Claim => TaskStatus::InProgress,
                    TaskAction::Complete => TaskStatus::Completed,
                    TaskAction::EditDependencies => continue,
                };
                assert!(
                    check_transition(status, to).is_ok(),
                    "{status:?} {action:?}"
                );
            }
        }
        assert!(TaskStatus::Pending.allows(TaskAction::Claim));
        assert!(!TaskStatus::Pending.allows(TaskAction::Complete));
        assert!(TaskStatus::InProgress.allows(TaskAction::EditDependencies));
        assert!(TaskStatus::Completed.actions().is_empty());
    }

    #[test]
    fn dependencies_are_offered_by_title() {
        let now = crate::Timestamp::parse("2026-02-10T10:00:00.000Z").unwrap();
        let task = |id: &str, title: &str, status: TaskStatus| {
            let mut task = Task::new(id.into(), title, now);
            task.status = status;
            task
        };
        let tasks = [
            task("1-a", "Write the data model", TaskStatus::Pending),
            task("2-b", "Define data model", TaskStatus::Pending),
            task("3-c", "Data migration", TaskStatus::InProgress),
            task("4-d", "Old data cleanup", TaskStatus::Completed),
            task("5-e", "Ship", TaskStatus::Pending),
        ];
        let titles = |query: &str, exclude: &[String]| -> Vec<String> {
            dependency_candidates(&tasks, exclude, query, 8)
                .into_iter()
                .map(|task| task.title.clone())
                .collect()
        };
        assert_eq!(
            titles("data", &[]),
            [
                "Data migration",
                "Write the data model",
                "Define data model"
            ],
            "a title starting with it first; completed tasks never"
        );
        assert_eq!(titles("  DEFINE ", &[]), ["Define data model"]);
        assert_eq!(titles("model", &["1-a".to_owned()]), ["Define data model"]);
        assert!(titles("", &[]).is_empty());
        assert_eq!(dependency_candidates(&tasks, &[], "a", 2).len(), 2);
    }

    #[test]
    fn the_board_labels_a_task_by_its_status_and_what_it_waits_for() {
        assert_eq!(TaskStatus::Pending.label(0), "ready");
        assert_eq!(TaskStatus::Pending.label(1), "waits for 1 task");
        assert_eq!(TaskStatus::Pending.label(3), "waits for 3 tasks");
        assert_eq!(
            TaskStatus::InProgress.label(2),
            "in progress",
            "claimed: it no longer waits"
        );
        assert_eq!(TaskStatus::Completed.label(0), "done");
    }

    #[test]
    fn the_board_shows_each_dependency_by_title_and_whether_it_is_done() {
        let task = |id: &str, status: TaskStatus, dependencies: &[&str]| Task {
            title: format!("Task {id}"),
            status,
            ..task(id, dependencies)
        };
        let tasks = [
            task("1", TaskStatus::Completed, &[]),
            task("2", TaskStatus::Pending, &[]),
        ];
        let waiting = task("3", TaskStatus::Pending, &["2", "1", "9"]);
        let shown: Vec<(String, bool)> = dependency_states(&waiting, &tasks)
            .into_iter()
            .map(|dependency| (dependency.title, dependency.done))
            .collect();
        assert_eq!(
            shown,
            [
                ("Task 2".to_owned(), false),
                ("Task 1".to_owned(), true),
                ("9 (not on the board)".to_owned(), false)
            ],
            "in the task's order"
        );
    }
}
