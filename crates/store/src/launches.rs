//! The agents Switchboard started: one `<records>/launches/<name>.json`
//! per agent, its name reserved before anything is made for it, changed
//! under the folder's lock and written atomically, readable by its owner
//! only. The records live outside the workspace
//! ([`Workspace::records_dir`]): whatever works in the workspace (an
//! agent, a cloned repository) could write a file there, and a record
//! names the git folder its review and merge run git with, and holds the
//! agent's prompt.

use std::path::PathBuf;

use switchboard_model::{
    Timestamp,
    agent::{
        AgentKind,
        launch::{Landing, Launch, LaunchError, check_name},
    },
};

use crate::{StoreError, Workspace, json_file, lock::DirLock, walk};

/// The launches folder's name in the workspace's records.
pub const LAUNCHES_DIR: &str = "launches";

/// The launches folder of `workspace`.
pub fn launches_dir(workspace: &Workspace) -> Result<PathBuf, StoreError> {
    workspace.records_folder(LAUNCHES_DIR, false)
}

/// [`launches_dir`], made (private) when missing, for a change.
fn writable_dir(workspace: &Workspace) -> Result<PathBuf, StoreError> {
    workspace.records_folder(LAUNCHES_DIR, true)
}

/// How long a launch reserved and not yet in a session counts as running
/// (a start that died meanwhile stops counting).
const STARTING_COUNTS_MS: i64 = 2 * 60 * 1000;

/// Stores `launch` as new, under the folder's lock: its name must be free
/// (`NameTaken`), and fewer than `limit` launches may be running —
/// `running` says which are, and one reserved but not yet in its session
/// counts too, so two starts at once cannot both take the last place
/// (`LimitReached`).
pub fn reserve(
    workspace: &Workspace,
    launch: &Launch,
    limit: usize,
    running: impl Fn(&Launch) -> bool,
) -> Result<(), StoreError> {
    check_name(&launch.name)?;
    let dir = writable_dir(workspace)?;
    let lock = DirLock::acquire(&dir)?;
    let now = launch.started.unix_millis();
    let taken = walk::files_in(&dir, "json")?
        .iter()
        .filter_map(|path| json_file::read::<Launch>(&dir, path, "agent", "").ok())
        .filter(|other| {
            running(other)
                || (other.session.is_empty()
                    && other.ended.is_none()
                    && now - other.started.unix_millis() < STARTING_COUNTS_MS)
        })
        .count();
    if taken >= limit {
        return Err(LaunchError::LimitReached {
            running: taken,
            limit,
        }
        .into());
    }
    let path = lock.file(&format!("{}.json", launch.name));
    if path.exists() {
        return Err(LaunchError::NameTaken(launch.name.clone()).into());
    }
    json_file::write_private(&path, launch, "launch")
}

/// The launch named `name`, checked ([`Launch::check`]: any process in
/// the workspace can write its file).
pub fn get(workspace: &Workspace, name: &str) -> Result<Launch, StoreError> {
    check_name(name)?;
    let dir = launches_dir(workspace)?;
    let launch: Launch = json_file::read(&dir, &dir.join(format!("{name}.json")), "agent", name)?;
    launch.check(&workspace.root().display().to_string(), name)?;
    Ok(launch)
}

/// Changes the launch named `name` under the folder's lock.
pub fn update(
    workspace: &Workspace,
    name: &str,
    change: impl FnOnce(&mut Launch),
) -> Result<Launch, StoreError> {
    check_name(name)?;
    let lock = DirLock::acquire(&writable_dir(workspace)?)?;
    let path = lock.file(&format!("{name}.json"));
    let mut launch: Launch = json_file::read(lock.within(), &path, "agent", name)?;
    launch.check(&workspace.root().display().to_string(), name)?;
    change(&mut launch);
    json_file::write_private(&path, &launch, "launch")?;
    Ok(launch)
}

/// Records that the hooks of the launch named `name` were heard from
/// `agent`'s session `session_id` at `now`: when first (its session has
/// started), and which session it is now (a `/clear` starts another).
/// Called by the hook, run with the launch's name: this record outside the
/// workspace is what the minder and the launch's row trust, never the
/// workspace's agent records.
pub fn heard(
    workspace: &Workspace,
    name: &str,
    agent: AgentKind,
    session_id: &str,
    now: Timestamp,
) -> Result<(), StoreError> {
    if !get(workspace, name)?.hears_anew(agent, session_id) {
        return Ok(());
    }
    update(workspace, name, |launch| {
        if launch.hears_anew(agent, session_id) {
            launch.heard.get_or_insert(now);
            launch.agent_session = Some(session_id.to_owned());
        }
    })?;
    Ok(())
}

/// Forgets the launch named `name` (one that never started).
pub fn remove(workspace: &Workspace, name: &str) -> Result<(), StoreError> {
    check_name(name)?;
    let lock = DirLock::acquire(&writable_dir(workspace)?)?;
    let path = lock.file(&format!("{name}.json"));
    match std::fs::remove_file(&path) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
            Err(StoreError::io("could not remove", path)(error))
        }
        _ => Ok(()),
    }
}

/// Every launch of the workspace, newest first; unreadable files are
/// skipped with a warning.
pub fn list(workspace: &Workspace) -> Result<Vec<Launch>, StoreError> {
    let dir = launches_dir(workspace)?;
    let mut launches = Vec::new();
    for path in walk::files_in(&dir, "json")? {
        let Some(name) = path.file_stem().and_then(|stem| stem.to_str()) else {
            continue;
        };
        let root = workspace.root().display().to_string();
        match json_file::read::<Launch>(&dir, &path, "agent", name) {
            Ok(launch) if launch.check(&root, name).is_ok() => launches.push(launch),
            Ok(_) => tracing::warn!(?path, "a launch that breaks its rules is skipped"),
            Err(error) => tracing::warn!(%error, "an unreadable launch is skipped"),
        }
    }
    launches.sort_by(|a, b| b.started.cmp(&a.started).then(a.name.cmp(&b.name)));
    Ok(launches)
}

/// Records that the launch's work was merged as `commit`.
pub fn merged(
    workspace: &Workspace,
    name: &str,
    commit: String,
    now: Timestamp,
) -> Result<Launch, StoreError> {
    update(workspace, name, |launch| {
        launch.landed = Some(Landing::Merged { at: now, commit });
    })
}

/// Records that the launch's work was discarded.
pub fn discarded(workspace: &Workspace, name: &str, now: Timestamp) -> Result<Launch, StoreError> {
    update(workspace, name, |launch| {
        launch.landed = Some(Landing::Discarded { at: now });
    })
}
