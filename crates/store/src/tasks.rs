//! Tool calls run as tasks, as files the store owns: one
//! `<records>/tasks/<id>.json` per call — outside the workspace
//! ([`Workspace::records_dir`]: the worker runs the tool and arguments
//! its record names, for the caller it names, so nothing that works in
//! the workspace may write one), readable by its owner only — made and
//! changed under the folder's lock and written atomically, so the worker running the call,
//! any `switchboard mcp` process asked about it (stdio or HTTP, after a
//! restart) and the window agree on where it is. A working task whose
//! worker is gone is failed when it is next read; ended tasks are kept a
//! week.

use std::path::PathBuf;

use serde_json::{Map, Value};
use switchboard_model::{
    EntityId, IdKind, Timestamp,
    process::{Liveness, ProcessMark},
    task::{TaskError, TaskState, ToolTask, WORKER_LOST, WORKER_LOST_MESSAGE},
};

use crate::{StoreError, Workspace, json_file, lock::DirLock, process::liveness, walk};

/// The tasks folder's name in the workspace's records.
pub const TASKS_DIR: &str = "tasks";

/// How long an ended task is kept: a week.
pub const ENDED_KEPT_MS: i64 = 7 * 24 * 60 * 60 * 1000;

/// The tasks folder of `workspace`.
pub fn tasks_dir(workspace: &Workspace) -> Result<PathBuf, StoreError> {
    workspace.records_folder(TASKS_DIR, false)
}

/// [`tasks_dir`], made (private) when missing, for a change.
fn writable_dir(workspace: &Workspace) -> Result<PathBuf, StoreError> {
    workspace.records_folder(TASKS_DIR, true)
}

fn file_name(id: &str) -> Result<String, StoreError> {
    if id.parse::<EntityId>().map(|parsed| parsed.kind) != Ok(IdKind::Task) {
        return Err(StoreError::NotFound {
            what: "task",
            id: id.to_owned(),
        });
    }
    Ok(format!("{id}.json"))
}

/// The ids of the tasks in `dir`.
fn ids(dir: &std::path::Path) -> Result<Vec<String>, StoreError> {
    Ok(walk::files_in(dir, "json")?
        .into_iter()
        .filter_map(|path| Some(path.file_stem()?.to_str()?.to_owned()))
        .collect())
}

/// Records a call of `tool` with `arguments` (made by `sent_by`, when an
/// agent's token is known) as a new working task; its worker is started
/// by the caller.
pub fn create(
    workspace: &Workspace,
    tool: &str,
    arguments: Map<String, Value>,
    sent_by: Option<String>,
    now: Timestamp,
) -> Result<ToolTask, StoreError> {
    let dir = writable_dir(workspace)?;
    let lock = DirLock::acquire(&dir)?;
    let existing = ids(&dir)?;
    let id = EntityId::next(
        IdKind::Task,
        now.unix_seconds(),
        existing.iter().map(String::as_str),
    )
    .to_string();
    let mut task = ToolTask::new(id, tool, arguments, now);
    task.sent_by = sent_by;
    json_file::write_private(&lock.file(&file_name(&task.id)?), &task, "task")?;
    Ok(task)
}

/// Changes task `id` under the folder's lock (`change` refuses a change
/// to an ended task); returns it as stored.
pub fn update(
    workspace: &Workspace,
    id: &str,
    change: impl FnOnce(&mut ToolTask) -> Result<(), TaskError>,
) -> Result<ToolTask, StoreError> {
    let lock = DirLock::acquire(&writable_dir(workspace)?)?;
    let path = lock.file(&file_name(id)?);
    let mut task: ToolTask = json_file::read(lock.within(), &path, "task", id)?;
    change(&mut task)?;
    json_file::write_private(&path, &task, "task")?;
    Ok(task)
}

/// Task `id` as it is now: a working task whose worker ended without a
/// word is failed (and stored so) here.
pub fn get(workspace: &Workspace, id: &str, now: Timestamp) -> Result<ToolTask, StoreError> {
    let dir = tasks_dir(workspace)?;
    let path = dir.join(file_name(id)?);
    let task: ToolTask = json_file::read(&dir, &path, "task", id)?;
    if task.state != TaskState::Working || !worker_ended(&task) {
        return Ok(task);
    }
    // Checked again under the lock: the worker may have ended it meanwhile.
    update(workspace, id, |task| {
        if task.state == TaskState::Working && worker_ended(task) {
            task.fail(WORKER_LOST, WORKER_LOST_MESSAGE, now)?;
        }
        Ok(())
    })
}

fn worker_ended(task: &ToolTask) -> bool {
    task.worker.map(liveness) == Some(Liveness::Ended)
}

/// Cancels task `id` for `caller` (the agent whose token asks, `None` for
/// a local client): a task another caller made is not found, one that
/// already ended is refused. Returns it and its worker, when one was
/// running, for the caller to stop once it is proven to be one.
pub fn cancel(
    workspace: &Workspace,
    id: &str,
    caller: Option<&str>,
    now: Timestamp,
) -> Result<(ToolTask, Option<ProcessMark>), StoreError> {
    let lock = DirLock::acquire(&writable_dir(workspace)?)?;
    let path = lock.file(&file_name(id)?);
    let mut task: ToolTask = json_file::read(lock.within(), &path, "task", id)?;
    if !task.belongs_to(caller) {
        return Err(StoreError::NotFound {
            what: "task",
            id: id.to_owned(),
        });
    }
    task.cancel(now)?;
    json_file::write_private(&path, &task, "task")?;
    drop(lock);
    let worker = task
        .worker
        .filter(|worker| liveness(*worker) == Liveness::Alive);
    Ok((task, worker))
}

/// The log a worker of task `id` writes its errors to (made empty,
/// readable by its owner only).
pub fn open_log(workspace: &Workspace, id: &str) -> Result<std::fs::File, StoreError> {
    use cap_std::fs::OpenOptionsExt;

    let dir = writable_dir(workspace)?;
    let path = dir.join(format!("{}.log", file_name(id)?.trim_end_matches(".json")));
    let mut options = cap_std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true).mode(0o600);
    crate::regular::open_in(&dir, &path, &mut options, crate::regular::LastLink::Refuse)
        .map_err(StoreError::io("could not create", &path))
}

/// Forgets the tasks that ended more than [`ENDED_KEPT_MS`] before `now`;
/// returns how many.
pub fn sweep(workspace: &Workspace, now: Timestamp) -> Result<usize, StoreError> {
    let dir = tasks_dir(workspace)?;
    if !dir.is_dir() {
        return Ok(0);
    }
    let lock = DirLock::acquire(&dir)?;
    let mut removed = 0;
    for id in ids(&dir)? {
        let Ok(path) = file_name(&id).map(|name| lock.file(&name)) else {
            continue;
        };
        let Ok(task) = json_file::read::<ToolTask>(&dir, &path, "task", &id) else {
            continue;
        };
        let old = now.unix_millis() - task.updated_at.unix_millis() > ENDED_KEPT_MS;
        if task.state.is_final() && old && std::fs::remove_file(&path).is_ok() {
            let _ = std::fs::remove_file(path.with_extension("log"));
            removed += 1;
        }
    }
    Ok(removed)
}
