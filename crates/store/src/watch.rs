//! Watching a workspace's data files and turning file events into typed
//! [`StoreChange`]s.
//!
//! Data files are replaced by rename, which ends an inotify watch on the file
//! itself, so the watcher watches directories: the chain from the workspace
//! root down to the inbox data directory, each non-recursively. A directory
//! in the chain that appears later (the first `switchboard deliver` in a
//! fresh workspace creates it) is picked up as soon as its parent reports it,
//! and then reported as changed in case a file landed before the watch did.
//! The knowledge folders (learnings, Delia's) are watched the same way, one
//! level deep; the spec folders (`.prompts/plan`, `.prompts/features`) and
//! the team folders (opencode-teams' `.opencode/opencode-teams`, and
//! Claude Code's `teams/` and `tasks/` when the shell asks) at any depth,
//! each nested folder as it appears (symlinks not followed).

use std::{
    collections::BTreeSet,
    path::{Path, PathBuf},
    sync::mpsc,
    thread,
};

use notify::{
    EventKind, RecommendedWatcher, RecursiveMode, Watcher,
    event::{AccessKind, AccessMode},
};
use switchboard_model::ipc::StoreChange;

use switchboard_model::knowledge::{
    document::SPEC_DIRS,
    learning::LEARNING_DIRS,
    playbook::{MEMORY_DIR, PLAYBOOK_DIR, PROFILE_DIR},
};

use crate::{
    StoreError, Workspace,
    annotations::ANNOTATIONS_FILE,
    deliveries::DELIVERIES_FILE,
    feedback::{FEEDBACK_FILE, SESSIONS_FILE},
    team::TEAMS_DIR,
    theme::THEME_FILE,
};

/// Maps a file name in the inbox data directory to what it holds.
fn inbox_change(file_name: &str) -> Option<StoreChange> {
    match file_name {
        DELIVERIES_FILE => Some(StoreChange::Deliveries),
        ANNOTATIONS_FILE => Some(StoreChange::Annotations),
        FEEDBACK_FILE => Some(StoreChange::FeedbackResponses),
        SESSIONS_FILE => Some(StoreChange::Sessions),
        _ => None,
    }
}

/// Most nested spec folders watched (a bound for pathological trees).
const MAX_SPEC_DIRS: usize = 2_000;

/// The folders below `roots` at any depth, symlinks not followed, at most
/// [`MAX_SPEC_DIRS`].
fn folders_under(roots: &[PathBuf]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = roots.to_vec();
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) && found.len() < MAX_SPEC_DIRS {
                found.push(entry.path());
                pending.push(entry.path());
            }
        }
    }
    found
}

/// Every change kind the inbox data directory can report.
const ALL_INBOX_CHANGES: [StoreChange; 4] = [
    StoreChange::Deliveries,
    StoreChange::Annotations,
    StoreChange::FeedbackResponses,
    StoreChange::Sessions,
];

#[derive(Debug)]
enum Message {
    Event(notify::Result<notify::Event>),
    Stop,
}

/// A running watcher; dropping it stops the watching thread.
#[derive(Debug)]
pub struct WorkspaceWatcher {
    messages: mpsc::Sender<Message>,
}

impl Drop for WorkspaceWatcher {
    fn drop(&mut self) {
        // The thread may already be gone; nothing to do then.
        let _ = self.messages.send(Message::Stop);
    }
}

impl WorkspaceWatcher {
    /// Starts watching `workspace`, calling `sink` from a background thread
    /// with each change. Bursts of file events (a rename after a temp-file
    /// write) are coalesced: `sink` sees each kind once per burst. Teams
    /// are followed in the workspace's `.opencode/opencode-teams`.
    pub fn start(
        workspace: &Workspace,
        sink: impl Fn(StoreChange) + Send + 'static,
    ) -> Result<Self, StoreError> {
        Self::start_with_teams(workspace, vec![workspace.root().join(TEAMS_DIR)], sink)
    }

    /// [`WorkspaceWatcher::start`], following teams in `team_roots` (at any
    /// depth, each root's appearance seen from its parent) instead.
    pub fn start_with_teams(
        workspace: &Workspace,
        team_roots: Vec<PathBuf>,
        sink: impl Fn(StoreChange) + Send + 'static,
    ) -> Result<Self, StoreError> {
        Self::start_with(workspace, team_roots, Vec::new(), sink)
    }

    /// [`WorkspaceWatcher::start_with_teams`], also reporting reports
    /// (`*.json`) written into `report_dirs` (ClaudeControl's
    /// investigations and test-reports folders, each one's appearance seen
    /// from its parent) as [`StoreChange::ProbeReports`].
    pub fn start_with(
        workspace: &Workspace,
        team_roots: Vec<PathBuf>,
        report_dirs: Vec<PathBuf>,
        sink: impl Fn(StoreChange) + Send + 'static,
    ) -> Result<Self, StoreError> {
        let (sender, receiver) = mpsc::channel();
        let events = sender.clone();
        let watcher = notify::recommended_watcher(move |event| {
            // The receiver only goes away when the watcher is being dropped.
            let _ = events.send(Message::Event(event));
        })
        .map_err(|source| StoreError::Watch {
            path: workspace.root().to_owned(),
            source,
        })?;
        let mut chain = DirChain::new(workspace, team_roots, report_dirs, watcher);
        chain.rearm().map_err(|source| StoreError::Watch {
            path: workspace.root().to_owned(),
            source,
        })?;
        thread::Builder::new()
            .name("switchboard-watch".into())
            .spawn(move || run(chain, receiver, sink))
            .map_err(StoreError::io(
                "could not start the watcher thread for",
                workspace.root(),
            ))?;
        Ok(Self { messages: sender })
    }
}

/// The watched directories from the workspace root down to the data dir.
struct DirChain {
    watcher: RecommendedWatcher,
    dirs: Vec<PathBuf>,
    watched: BTreeSet<PathBuf>,
    data_dir: PathBuf,
    custom_dir: PathBuf,
    knowledge_dirs: Vec<PathBuf>,
    /// The spec folders, watched with every folder below them.
    spec_roots: Vec<PathBuf>,
    /// The team folders (opencode-teams', Claude Code's), each watched
    /// with every folder below it.
    team_roots: Vec<PathBuf>,
    /// The team folders watched (the root and those below it).
    team_dirs: Vec<PathBuf>,
    /// The tapes folder, followed at any depth like the team folders.
    tapes_root: PathBuf,
    /// The tape folders watched.
    tape_dirs: Vec<PathBuf>,
    /// The report folders.
    report_dirs: Vec<PathBuf>,
    /// `.switchboard/agents/`.
    agents_dir: PathBuf,
    /// `.switchboard/launches/`: started agents, shown with the agents.
    launches_dir: PathBuf,
}

impl DirChain {
    fn new(
        workspace: &Workspace,
        team_roots: Vec<PathBuf>,
        report_dirs: Vec<PathBuf>,
        watcher: RecommendedWatcher,
    ) -> Self {
        let data_dir = workspace.inbox_data_dir();
        let custom_dir = workspace.custom_dir();
        let root = workspace.root();
        let knowledge_dirs: Vec<PathBuf> = LEARNING_DIRS
            .into_iter()
            .chain([PLAYBOOK_DIR, PROFILE_DIR, MEMORY_DIR])
            .chain(SPEC_DIRS)
            .map(|dir| root.join(dir))
            .collect();
        let tapes_root = root.join(crate::tapes::TAPES_DIR);
        let agents_dir = crate::agents::agents_dir(workspace);
        let launches_dir = crate::launches::launches_dir(workspace);
        let mut dirs = vec![
            root.to_owned(),
            tapes_root.clone(),
            root.join(".switchboard"),
            agents_dir.clone(),
            launches_dir.clone(),
            workspace.visual_delivery_dir(),
            data_dir.clone(),
            custom_dir.clone(),
        ];
        for dir in knowledge_dirs.iter().chain(&team_roots).chain(&report_dirs) {
            // Each watched folder's parents, so its appearance is seen.
            if let Some(parent) = dir.parent()
                && !dirs.contains(&parent.to_owned())
            {
                dirs.push(parent.to_owned());
            }
            dirs.push(dir.clone());
        }
        Self {
            watcher,
            dirs,
            watched: BTreeSet::new(),
            data_dir,
            custom_dir,
            knowledge_dirs,
            spec_roots: SPEC_DIRS.into_iter().map(|dir| root.join(dir)).collect(),
            team_dirs: team_roots.clone(),
            team_roots,
            tape_dirs: vec![tapes_root.clone()],
            tapes_root,
            report_dirs,
            agents_dir,
            launches_dir,
        }
    }

    /// Whether `dir` is a spec folder or below one.
    fn in_spec_tree(&self, dir: &Path) -> bool {
        self.spec_roots.iter().any(|root| dir.starts_with(root))
    }

    /// Adds the folders now below the spec folders and the team folder to
    /// the watched set, and drops nested ones that are gone.
    fn follow_trees(&mut self) {
        let spec_roots = self.spec_roots.clone();
        let team_roots = self.team_roots.clone();
        let mut knowledge = std::mem::take(&mut self.knowledge_dirs);
        self.follow(&spec_roots, &mut knowledge);
        self.knowledge_dirs = knowledge;
        let mut teams = std::mem::take(&mut self.team_dirs);
        self.follow(&team_roots, &mut teams);
        self.team_dirs = teams;
        let tapes_root = [self.tapes_root.clone()];
        let mut tapes = std::mem::take(&mut self.tape_dirs);
        self.follow(&tapes_root, &mut tapes);
        self.tape_dirs = tapes;
    }

    /// Follows the folders below `roots` at any depth: new ones join the
    /// chain and `tracked`, vanished ones leave both (the roots stay).
    fn follow(&mut self, roots: &[PathBuf], tracked: &mut Vec<PathBuf>) {
        let nested = folders_under(roots);
        let stale = |dir: &PathBuf| {
            !roots.contains(dir)
                && roots.iter().any(|root| dir.starts_with(root))
                && !nested.contains(dir)
        };
        tracked.retain(|dir| !stale(dir));
        let gone: Vec<PathBuf> = self.dirs.iter().filter(|dir| stale(dir)).cloned().collect();
        for dir in gone {
            if self.watched.remove(&dir) {
                let _ = self.watcher.unwatch(&dir);
            }
            self.dirs.retain(|each| *each != dir);
        }
        for dir in nested {
            if !self.dirs.contains(&dir) {
                self.dirs.push(dir.clone());
                tracked.push(dir);
            }
        }
    }

    /// Watches each directory of the chain that exists and is not watched
    /// yet, and forgets those that vanished. Returns the changes a newly
    /// watched directory may already hold. The spec trees are scanned again
    /// after each new watch, so a folder made between a scan and its
    /// parent's watch is not missed.
    fn rearm(&mut self) -> notify::Result<Vec<StoreChange>> {
        let mut missed = Vec::new();
        loop {
            self.follow_trees();
            let before = self.watched.len();
            self.arm_once(&mut missed)?;
            if self.watched.len() <= before {
                return Ok(missed);
            }
        }
    }

    /// Watches again each folder of the chain in or below a folder in
    /// `removed` that exists now, and reports what each may hold. notify
    /// forgets a deleted folder's watch — and those of every folder below
    /// it — by path once it has handled the deletion, which can come after
    /// the folder was made again and watched anew (a data folder deleted
    /// and made again at once): asked once the chain's changes have
    /// settled, this puts such watches back. Those folders are forgotten
    /// and the chain armed again from the top, so a folder made inside a
    /// re-made one before that one was watched again (its creation was
    /// never reported) is watched too. Folders nobody removed are left
    /// alone (and report nothing: a view would refresh for nothing).
    fn reassert(&mut self, removed: &BTreeSet<PathBuf>) -> notify::Result<Vec<StoreChange>> {
        let below_removed: Vec<PathBuf> = self
            .dirs
            .iter()
            .filter(|dir| removed.iter().any(|gone| dir.starts_with(gone)))
            .cloned()
            .collect();
        for dir in below_removed {
            if self.watched.remove(&dir) && !dir.is_dir() {
                // Gone for now: notify may still hold its path.
                let _ = self.watcher.unwatch(&dir);
            }
        }
        self.rearm()
    }

    /// The changes a directory of the chain may hold when it is first
    /// watched.
    fn changes_held_in(&self, dir: &Path) -> Vec<StoreChange> {
        if dir == self.data_dir {
            ALL_INBOX_CHANGES.to_vec()
        } else if dir == self.custom_dir {
            vec![StoreChange::Theme]
        } else if self.knowledge_dirs.iter().any(|known| known == dir) {
            vec![StoreChange::Knowledge]
        } else if self.team_dirs.iter().any(|known| known == dir) {
            vec![StoreChange::Team]
        } else if self.tape_dirs.iter().any(|known| known == dir) {
            vec![StoreChange::Tapes]
        } else if self.report_dirs.iter().any(|known| known == dir) {
            vec![StoreChange::ProbeReports]
        } else if *dir == self.agents_dir || *dir == self.launches_dir {
            vec![StoreChange::Agents]
        } else {
            Vec::new()
        }
    }

    fn arm_once(&mut self, missed: &mut Vec<StoreChange>) -> notify::Result<()> {
        for dir in &self.dirs {
            let watched = self.watched.contains(dir);
            match (dir.is_dir(), watched) {
                (true, false) => {
                    match self.watcher.watch(dir, RecursiveMode::NonRecursive) {
                        Ok(()) => {}
                        // Removed since it was looked at: its parent's watch
                        // reports that, and the folders after it are still
                        // armed.
                        Err(error) if matches!(error.kind, notify::ErrorKind::PathNotFound) => {
                            continue;
                        }
                        Err(error) => return Err(error),
                    }
                    self.watched.insert(dir.clone());
                    missed.extend(self.changes_held_in(dir));
                }
                (false, true) => {
                    // The kernel already dropped the watch with the directory.
                    let _ = self.watcher.unwatch(dir);
                    self.watched.remove(dir);
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Sorts one event's paths into changes, noting whether a directory of
    /// the chain may have appeared or vanished.
    fn classify(&self, event: &notify::Event, changes: &mut BTreeSet<StoreChange>) -> bool {
        if is_read_only(&event.kind) {
            return false;
        }
        let mut chain_touched = false;
        for path in &event.paths {
            let parent = path.parent().unwrap_or(Path::new(""));
            let change = path
                .file_name()
                .and_then(|name| inbox_change(&name.to_string_lossy()));
            if let (true, Some(change)) = (parent == self.data_dir, change) {
                changes.insert(change);
            }
            if parent == self.custom_dir && path.file_name().is_some_and(|name| name == THEME_FILE)
            {
                changes.insert(StoreChange::Theme);
            }
            let hidden = path
                .file_name()
                .is_some_and(|name| name.to_string_lossy().starts_with('.'));
            if !hidden && self.knowledge_dirs.iter().any(|dir| dir == parent) {
                changes.insert(StoreChange::Knowledge);
            }
            // Lock files and the plugin's temp files are hidden; its renames
            // onto the real names are not.
            if !hidden && self.team_dirs.iter().any(|dir| dir == parent) {
                changes.insert(StoreChange::Team);
            }
            // A tape written (renamed from its `.json5.tmp`) or removed.
            if self.tape_dirs.iter().any(|dir| dir == parent)
                && path
                    .extension()
                    .is_some_and(|extension| extension == "json5")
            {
                changes.insert(StoreChange::Tapes);
            }
            // A report written (atomically: a rename onto its name).
            if self.report_dirs.iter().any(|dir| dir == parent)
                && path
                    .extension()
                    .is_some_and(|extension| extension == "json")
            {
                changes.insert(StoreChange::ProbeReports);
            }
            // An agent's record or a started agent's written (a rename onto
            // its name) or removed.
            if (parent == self.agents_dir || parent == self.launches_dir)
                && path
                    .extension()
                    .is_some_and(|extension| extension == "json")
            {
                changes.insert(StoreChange::Agents);
            }
            // A folder made (or moved in) inside a spec, team or tapes tree
            // is watched too.
            let new_folder = (self.in_spec_tree(parent)
                || parent.starts_with(&self.tapes_root)
                || self.team_roots.iter().any(|root| parent.starts_with(root)))
                && path.is_dir();
            chain_touched |= new_folder || self.dirs.iter().any(|dir| dir == path);
        }
        chain_touched
    }
}

/// Opening, reading or closing a file without writing it changes nothing;
/// reporting those would make every reader trigger its own refresh.
pub(crate) fn is_read_only(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::Access(access) if *access != AccessKind::Close(AccessMode::Write)
    )
}

/// How long the chain's folders must stay unchanged before their watches
/// are put back once more ([`DirChain::reassert`]).
const SETTLE: std::time::Duration = std::time::Duration::from_millis(100);

/// The watching thread: waits for an event, drains the burst behind it,
/// re-arms the directory chain when needed and reports each change once;
/// once a change to the chain has settled, its watches are put back.
fn run(mut chain: DirChain, receiver: mpsc::Receiver<Message>, sink: impl Fn(StoreChange)) {
    let mut settling = false;
    // The chain's folders removed since the chain last settled.
    let mut removed: BTreeSet<PathBuf> = BTreeSet::new();
    loop {
        let first = if settling {
            match receiver.recv_timeout(SETTLE) {
                Ok(message) => message,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    settling = false;
                    let missed: BTreeSet<StoreChange> =
                        match chain.reassert(&std::mem::take(&mut removed)) {
                            Ok(missed) => missed.into_iter().collect(),
                            Err(error) => {
                                tracing::warn!(%error, "could not watch a workspace data folder");
                                BTreeSet::new()
                            }
                        };
                    for change in missed {
                        sink(change);
                    }
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return,
            }
        } else {
            match receiver.recv() {
                Ok(message) => message,
                Err(_) => return,
            }
        };
        let mut changes = BTreeSet::new();
        let mut chain_touched = false;
        let mut next = Some(first);
        while let Some(message) = next {
            match message {
                Message::Stop => return,
                Message::Event(Ok(event)) => {
                    if matches!(event.kind, EventKind::Remove(_)) {
                        removed.extend(
                            event
                                .paths
                                .iter()
                                .filter(|path| chain.dirs.contains(path))
                                .cloned(),
                        );
                    }
                    chain_touched |= chain.classify(&event, &mut changes);
                }
                Message::Event(Err(error)) => {
                    tracing::warn!(%error, "file watcher error; re-arming");
                    chain_touched = true;
                }
            }
            next = receiver.try_recv().ok();
        }
        if chain_touched {
            settling = true;
            match chain.rearm() {
                Ok(missed) => changes.extend(missed),
                Err(error) => tracing::warn!(%error, "could not watch a workspace data folder"),
            }
        }
        for change in changes {
            sink(change);
        }
    }
}
