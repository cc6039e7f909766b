//! The folders a workspace watcher watches — the chain from the workspace
//! root down to each data folder, and the trees followed at any depth —,
//! which of them are watched now, and what an event in them changes.

use std::{
    collections::BTreeSet,
    path::{Path, PathBuf},
};

use notify::{
    EventKind, RecommendedWatcher, RecursiveMode, Watcher,
    event::{ModifyKind, RenameMode},
};
use switchboard_model::ipc::StoreChange;

use switchboard_model::knowledge::{
    document::SPEC_DIRS,
    learning::LEARNING_DIRS,
    playbook::{MEMORY_DIR, PLAYBOOK_DIR, PROFILE_DIR},
};

use crate::{
    Workspace,
    annotations::ANNOTATIONS_FILE,
    deliveries::DELIVERIES_FILE,
    feedback::{FEEDBACK_FILE, SESSIONS_FILE},
    theme::THEME_FILE,
};

use super::is_read_only;

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

/// The watched directories from the workspace root down to the data dir.
pub(super) struct DirChain {
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
    /// The launches folder in the workspace's records (outside it):
    /// started agents, shown with the agents.
    launches_dir: Option<PathBuf>,
}

impl DirChain {
    /// The chain of `workspace`, with its team and report folders, each
    /// watched through `watcher` once [`DirChain::rearm`] finds it.
    pub(super) fn new(
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
        let launches_dir = crate::launches::launches_dir(workspace).ok();
        let mut dirs = vec![
            root.to_owned(),
            tapes_root.clone(),
            root.join(".switchboard"),
            agents_dir.clone(),
            workspace.visual_delivery_dir(),
            data_dir.clone(),
            custom_dir.clone(),
        ];
        // The records' folders from above the config folder down, so the
        // first launch's folder is seen as it is made.
        if let Some(launches) = &launches_dir {
            let mut chain: Vec<PathBuf> = launches
                .ancestors()
                .take(5)
                .map(Path::to_path_buf)
                .collect();
            chain.reverse();
            dirs.extend(chain);
        }
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

    /// Whether `path` is one of the chain's folders.
    pub(super) fn is_chain_dir(&self, path: &Path) -> bool {
        self.dirs.iter().any(|dir| dir == path)
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
    pub(super) fn rearm(&mut self) -> notify::Result<Vec<StoreChange>> {
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
    /// settled, this puts such watches back. Those folders still there are
    /// forgotten and the chain armed again from the top, so a folder made
    /// inside a re-made one before that one was watched again (its
    /// creation was never reported) is watched too. Folders nobody removed
    /// are left alone (and report nothing: a view would refresh for
    /// nothing).
    pub(super) fn reassert(
        &mut self,
        removed: &BTreeSet<PathBuf>,
    ) -> notify::Result<Vec<StoreChange>> {
        let below_removed: Vec<PathBuf> = self
            .dirs
            .iter()
            .filter(|dir| removed.iter().any(|gone| dir.starts_with(gone)))
            .cloned()
            .collect();
        for dir in below_removed {
            // One gone now is forgotten by `arm_once`.
            if dir.is_dir() {
                self.watched.remove(&dir);
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
        } else if *dir == self.agents_dir || self.launches_dir.as_deref() == Some(dir) {
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
    pub(super) fn classify(
        &self,
        event: &notify::Event,
        changes: &mut BTreeSet<StoreChange>,
    ) -> bool {
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
            if (parent == self.agents_dir || self.launches_dir.as_deref() == Some(parent))
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
            let of_chain = self.is_chain_dir(path);
            if of_chain && is_gone(&event.kind) {
                changes.extend(self.changes_held_below(path));
            }
            chain_touched |= new_folder || of_chain;
        }
        chain_touched
    }

    /// What the folders of the chain at and below `gone` held: a folder
    /// removed (or moved away) takes it with it, though the removal of its
    /// files may not have been seen (it was made again, and removed again
    /// before it was watched anew).
    fn changes_held_below(&self, gone: &Path) -> Vec<StoreChange> {
        self.dirs
            .iter()
            .filter(|dir| dir.starts_with(gone))
            .flat_map(|dir| self.changes_held_in(dir))
            .collect()
    }
}

/// Whether an event's path went away: removed, or renamed to elsewhere.
fn is_gone(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::Remove(_)
            | EventKind::Modify(ModifyKind::Name(RenameMode::From | RenameMode::Any))
    )
}
