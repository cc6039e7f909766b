//! What waits in every workspace on this machine ("All workspaces"): the
//! registered ones ([`crate::registry`]) and the one asking, each read
//! from its own inbox and agent records, as the window, `switchboard
//! agents --all` and `switchboard list --all --waiting` show it.

use std::{collections::BTreeMap, path::PathBuf};

use switchboard_model::{
    Timestamp,
    registry::{self, Presence, WorkspaceAttention},
};

use crate::{StoreError, Workspace, agents, deliveries, registry::Listed};

/// Every workspace `listed` ([`crate::registry::list`]) with its waiting
/// questions and agents, `current`'s first; problems reading one are kept
/// in its line.
pub fn attention(listed: &Listed, current: &Workspace, now: Timestamp) -> Vec<WorkspaceAttention> {
    for problem in &listed.problems {
        tracing::debug!(%problem, "a registration was not taken");
    }
    let mut presences: BTreeMap<PathBuf, Vec<Presence>> = BTreeMap::new();
    presences.entry(current.root().to_owned()).or_default();
    for registration in &listed.registrations {
        let found = presences
            .entry(PathBuf::from(&registration.workspace))
            .or_default();
        if !found.contains(&registration.presence) {
            found.push(registration.presence);
        }
    }
    let mut lines: Vec<WorkspaceAttention> = presences
        .into_iter()
        .map(|(root, mut presences)| {
            presences.sort();
            let is_current = root == current.root();
            of(&root, presences, is_current, now)
        })
        .collect();
    registry::arrange(&mut lines);
    lines
}

/// One workspace's line.
fn of(
    root: &std::path::Path,
    presences: Vec<Presence>,
    current: bool,
    now: Timestamp,
) -> WorkspaceAttention {
    let mut line = WorkspaceAttention {
        workspace: root.to_string_lossy().into_owned(),
        name: root.file_name().map_or_else(
            || root.display().to_string(),
            |name| name.to_string_lossy().into_owned(),
        ),
        presences,
        current,
        questions: Vec::new(),
        agents: Vec::new(),
        problems: Vec::new(),
    };
    let workspace = match Workspace::open(root) {
        Ok(workspace) if workspace.root() == root => workspace,
        Ok(_) => {
            line.problems
                .push("its folder is reached through a link".into());
            return line;
        }
        Err(error) => {
            line.problems.push(error.to_string());
            return line;
        }
    };
    match deliveries::list(&workspace) {
        Ok(listed) => {
            line.questions = registry::waiting_questions(&listed.deliveries);
            line.problems.extend(listed.warnings);
        }
        Err(error) => line.problems.push(error.to_string()),
    }
    match agents::states(&workspace, now) {
        Ok(rows) => line.agents = registry::shown_agents(rows),
        Err(error) => line.problems.push(error.to_string()),
    }
    line
}

/// The workspace at `root`, if it is `current` or `listed` now: what a
/// window or command may answer in besides its own. Anything else is
/// refused, so a caller cannot be pointed at an arbitrary folder.
pub fn reachable(
    listed: &Listed,
    current: &Workspace,
    root: &str,
) -> Result<Workspace, StoreError> {
    let root = std::path::Path::new(root);
    if root == current.root() {
        return Ok(current.clone());
    }
    let refused = || StoreError::NotFound {
        what: "running workspace",
        id: root.display().to_string(),
    };
    if !listed.has(root) {
        return Err(refused());
    }
    let workspace = Workspace::open(root)?;
    if workspace.root() != root {
        return Err(refused());
    }
    Ok(workspace)
}

/// Follows what waits in the other running workspaces: the registrations'
/// folder, and each registered workspace's inbox data and agent records
/// (not `current`'s, which its own watcher follows). Stops when dropped.
#[derive(Debug)]
pub struct Follower {
    stop: std::sync::mpsc::Sender<Followed>,
}

impl Drop for Follower {
    fn drop(&mut self) {
        let _ = self.stop.send(Followed::Stop);
    }
}

enum Followed {
    Event(notify::Result<notify::Event>),
    Stop,
}

/// How long changes are gathered after the first before `on_change` is
/// told once: an answer writes three files, a registration two.
const GATHER: std::time::Duration = std::time::Duration::from_millis(50);

/// Starts following ([`Follower`]); `on_change` is called, off the caller's
/// thread, once for each burst of changes.
pub fn follow(
    registry: &crate::registry::Registry,
    current: &Workspace,
    on_change: impl Fn() + Send + 'static,
) -> Result<Follower, StoreError> {
    use notify::Watcher as _;
    let (send, receive) = std::sync::mpsc::channel();
    let events = send.clone();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        // Reading a file is no change: the reading each change causes
        // (here, in the page, in the next window) would wake it again.
        if event
            .as_ref()
            .is_ok_and(|event| crate::watch::is_read_only(&event.kind))
        {
            return;
        }
        let _ = events.send(Followed::Event(event));
    })
    .map_err(|source| StoreError::Watch {
        path: registry.folder().to_owned(),
        source,
    })?;
    watcher
        .watch(registry.folder(), notify::RecursiveMode::NonRecursive)
        .map_err(|source| StoreError::Watch {
            path: registry.folder().to_owned(),
            source,
        })?;
    let (registry, current) = (registry.clone(), current.root().to_owned());
    std::thread::spawn(move || {
        let mut watched = std::collections::BTreeSet::new();
        rewatch(&mut watcher, &registry, &current, &mut watched);
        while let Ok(Followed::Event(first)) = receive.recv() {
            let mut registrations = touches(&first, registry.folder());
            let deadline = std::time::Instant::now() + GATHER;
            loop {
                let left = deadline.saturating_duration_since(std::time::Instant::now());
                match receive.recv_timeout(left) {
                    Ok(Followed::Event(event)) => {
                        registrations |= touches(&event, registry.folder())
                    }
                    Ok(Followed::Stop) | Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                        return;
                    }
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => break,
                }
            }
            if registrations {
                rewatch(&mut watcher, &registry, &current, &mut watched);
            }
            on_change();
        }
    });
    Ok(Follower { stop: send })
}

/// Whether `event` is in the registrations' folder.
fn touches(event: &notify::Result<notify::Event>, folder: &std::path::Path) -> bool {
    match event {
        Ok(event) => event.paths.iter().any(|path| path.parent() == Some(folder)),
        Err(_) => true,
    }
}

/// Watches the inbox data and agent records of every registered workspace
/// but `current`, and no others.
fn rewatch(
    watcher: &mut notify::RecommendedWatcher,
    registry: &crate::registry::Registry,
    current: &std::path::Path,
    watched: &mut std::collections::BTreeSet<PathBuf>,
) {
    use notify::Watcher as _;
    let wanted: std::collections::BTreeSet<PathBuf> = registry
        .list()
        .registrations
        .iter()
        .map(|registration| PathBuf::from(&registration.workspace))
        .filter(|root| root != current)
        .filter_map(|root| Workspace::open(&root).ok().filter(|w| w.root() == root))
        .flat_map(|workspace| [workspace.inbox_data_dir(), agents::agents_dir(&workspace)])
        .collect();
    for gone in watched.difference(&wanted).cloned().collect::<Vec<_>>() {
        let _ = watcher.unwatch(&gone);
        watched.remove(&gone);
    }
    for dir in wanted {
        if !watched.contains(&dir)
            && dir.is_dir()
            && watcher
                .watch(&dir, notify::RecursiveMode::NonRecursive)
                .is_ok()
        {
            watched.insert(dir);
        }
    }
}
