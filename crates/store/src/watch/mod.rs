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
//! each nested folder as it appears (symlinks not followed). A folder of
//! the chain that is removed reports what it held; one removed and made
//! again has its watch put back once the folders settle (notify forgets it
//! by path, perhaps after it was watched anew), with the folders made
//! inside it meanwhile. The chain itself is `chain`'s `DirChain`.

mod chain;

use std::{collections::BTreeSet, path::PathBuf, sync::mpsc, thread};

use notify::{
    EventKind,
    event::{AccessKind, AccessMode},
};
use switchboard_model::ipc::StoreChange;

use crate::{StoreError, Workspace, team::TEAMS_DIR};

use chain::DirChain;

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
                                .filter(|path| chain.is_chain_dir(path))
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
