//! What waits in every workspace on this machine ("All workspaces"): the
//! registered ones ([`crate::registry`]) and the one asking, each read
//! from its own inbox and agent records, as the window, `switchboard
//! agents --all` and `switchboard list --all --waiting` show it.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

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
/// folder, and each registered workspace's inbox data and agent records,
/// from its root down (not `current`'s, which its own watcher follows).
/// Reading a file is no change. Stops when dropped.
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
        let mut watched = Watched::default();
        watched.rewatch(&mut watcher, &registry, &current);
        while let Ok(Followed::Event(first)) = receive.recv() {
            let mut meaning = watched.meaning(&first, registry.folder());
            let deadline = std::time::Instant::now() + GATHER;
            loop {
                let left = deadline.saturating_duration_since(std::time::Instant::now());
                match receive.recv_timeout(left) {
                    Ok(Followed::Event(event)) => {
                        meaning = meaning.max(watched.meaning(&event, registry.folder()));
                    }
                    Ok(Followed::Stop) | Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                        return;
                    }
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => break,
                }
            }
            if let Meaning::Rewatch(chains) = &meaning {
                watched.forget(&mut watcher, chains);
                watched.rewatch(&mut watcher, &registry, &current);
            }
            if meaning != Meaning::Nothing {
                on_change();
            }
        }
    });
    Ok(Follower { stop: send })
}

/// What a burst of events means to the follower.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Meaning {
    /// Nothing it follows (a file beside the workspace's data).
    Nothing,
    /// What waits in a workspace may have changed.
    Change,
    /// The registrations changed, or a folder on the way to a workspace's
    /// data appeared or went (its watch, and those below it, set anew):
    /// what is watched is set again.
    Rewatch(std::collections::BTreeSet<PathBuf>),
}

impl Meaning {
    /// The one meaning both have.
    fn max(self, other: Self) -> Self {
        match (self, other) {
            (Self::Rewatch(mut chains), Self::Rewatch(more)) => {
                chains.extend(more);
                Self::Rewatch(chains)
            }
            (one, other) => std::cmp::max(one, other),
        }
    }
}

/// What the follower watches: for each other registered workspace, the
/// folders from its root down to its inbox data and its agent records,
/// each non-recursively, as far as they exist — so the first question or
/// agent of a fresh workspace is seen as its folder is made.
#[derive(Debug, Default)]
struct Watched {
    /// Each folder watched, and the (device, inode) it was watched as: a
    /// folder removed and made again is watched anew.
    folders: std::collections::BTreeMap<PathBuf, (u64, u64)>,
    /// The folders on the way to the data, watched or not yet there.
    chains: std::collections::BTreeSet<PathBuf>,
    /// The inbox data and agent records folders: a file changing in one
    /// is a change.
    data: std::collections::BTreeSet<PathBuf>,
}

impl Watched {
    /// What `event` means.
    fn meaning(&self, event: &notify::Result<notify::Event>, registrations: &Path) -> Meaning {
        let Ok(event) = event else {
            return Meaning::Rewatch(Default::default());
        };
        if event.need_rescan() {
            return Meaning::Rewatch(Default::default());
        }
        let mut meaning = Meaning::Nothing;
        for path in &event.paths {
            let found = if path.parent() == Some(registrations) {
                Meaning::Rewatch(Default::default())
            } else if self.chains.contains(path) {
                Meaning::Rewatch([path.clone()].into())
            } else if path
                .parent()
                .is_some_and(|folder| self.data.contains(folder))
            {
                Meaning::Change
            } else {
                Meaning::Nothing
            };
            meaning = meaning.max(found);
        }
        meaning
    }

    /// Stops watching the folders at or below each of `chains` (a folder
    /// there went or came: its watch may be gone with it).
    fn forget(
        &mut self,
        watcher: &mut notify::RecommendedWatcher,
        chains: &std::collections::BTreeSet<PathBuf>,
    ) {
        use notify::Watcher as _;
        self.folders.retain(|folder, _| {
            let below = chains.iter().any(|chain| folder.starts_with(chain));
            if below {
                let _ = watcher.unwatch(folder);
            }
            !below
        });
    }

    /// Watches the folders of every registered workspace but `current`,
    /// and no others.
    fn rewatch(
        &mut self,
        watcher: &mut notify::RecommendedWatcher,
        registry: &crate::registry::Registry,
        current: &Path,
    ) {
        use notify::Watcher as _;
        use std::os::unix::fs::MetadataExt as _;
        let roots: std::collections::BTreeSet<PathBuf> = registry
            .list()
            .registrations
            .iter()
            .map(|registration| PathBuf::from(&registration.workspace))
            .filter(|root| root != current)
            .collect();
        let (mut chains, mut data) = (Default::default(), Default::default());
        let mut wanted = std::collections::BTreeMap::new();
        for root in &roots {
            let Ok(workspace) = Workspace::open(root) else {
                continue;
            };
            if workspace.root() != root {
                continue;
            }
            let to_inbox = [
                root.clone(),
                workspace.visual_delivery_dir(),
                workspace.inbox_data_dir(),
            ];
            let agents = agents::agents_dir(&workspace);
            let to_agents = [
                root.clone(),
                agents.parent().unwrap_or(root).to_owned(),
                agents,
            ];
            for chain in [to_inbox, to_agents] {
                data_and_chain(&chain, &mut data, &mut chains);
                for folder in chain {
                    match std::fs::metadata(&folder) {
                        Ok(meta) if meta.is_dir() => {
                            wanted.insert(folder, (meta.dev(), meta.ino()));
                        }
                        _ => break,
                    }
                }
            }
        }
        self.folders.retain(|folder, watched_as| {
            let kept = wanted.get(folder) == Some(watched_as);
            if !kept {
                let _ = watcher.unwatch(folder);
            }
            kept
        });
        for (folder, identity) in wanted {
            if !self.folders.contains_key(&folder)
                && watcher
                    .watch(&folder, notify::RecursiveMode::NonRecursive)
                    .is_ok()
            {
                self.folders.insert(folder, identity);
            }
        }
        (self.chains, self.data) = (chains, data);
    }
}

/// Notes `chain`'s last folder as data, and every one as on the way.
fn data_and_chain(
    chain: &[PathBuf],
    data: &mut std::collections::BTreeSet<PathBuf>,
    chains: &mut std::collections::BTreeSet<PathBuf>,
) {
    if let Some(last) = chain.last() {
        data.insert(last.clone());
    }
    chains.extend(chain.iter().cloned());
}
