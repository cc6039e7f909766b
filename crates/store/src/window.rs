//! Whether a Switchboard window is open on a workspace: the window holds
//! an exclusive `flock` on `.switchboard/window.lock` for as long as it
//! runs (the kernel drops it when the process ends, however it ends), and
//! anyone can ask without waiting. An agent's hook asks before it puts a
//! question in the inbox, so an agent never waits on a window nobody has
//! open: one on its own workspace, or one on any workspace of this
//! machine, whose "All workspaces" shows the question ([`seen`]).

use std::{
    fs::{File, TryLockError},
    path::PathBuf,
};

use switchboard_model::{Timestamp, registry::Presence};

use crate::{
    StoreError, Workspace,
    registry::{Registered, Registry},
    regular,
};

/// The lock file's path inside the workspace.
pub const WINDOW_LOCK: &str = ".switchboard/window.lock";

fn lock_path(workspace: &Workspace) -> PathBuf {
    workspace.root().join(WINDOW_LOCK)
}

/// The window's hold on its workspace; released on drop.
#[derive(Debug)]
pub struct WindowHold {
    _file: File,
}

/// Marks a window open on `workspace` until the hold is dropped. Refused
/// with `Locked` when another window already holds it.
pub fn hold(workspace: &Workspace) -> Result<WindowHold, StoreError> {
    let path = lock_path(workspace);
    if let Some(dir) = path.parent() {
        crate::own_folders::create_dir_all(dir)?;
    }
    let mut options = cap_std::fs::OpenOptions::new();
    options.create(true).truncate(false).write(true);
    let file = regular::open_in(
        workspace.root(),
        &path,
        &mut options,
        regular::LastLink::Follow,
    )
    .map_err(StoreError::io("could not open lock file", &path))?;
    match file.try_lock() {
        Ok(()) => Ok(WindowHold { _file: file }),
        Err(TryLockError::WouldBlock) => Err(StoreError::Locked {
            path,
            waited: std::time::Duration::ZERO,
        }),
        Err(TryLockError::Error(error)) => Err(StoreError::io("could not lock", &path)(error)),
    }
}

/// Whether a window holds `workspace` now. Never waits, never creates
/// anything: no lock file means no window, and so does anything there
/// but a regular file (a FIFO would otherwise hold every hook call).
pub fn is_open(workspace: &Workspace) -> bool {
    let Ok(file) = regular::open_read_in(workspace.root(), &lock_path(workspace)) else {
        return false;
    };
    matches!(file.try_lock_shared(), Err(TryLockError::WouldBlock))
}

/// Blocks until no window holds `workspace` (at once when none does).
pub fn wait_closed(workspace: &Workspace) -> Result<(), StoreError> {
    let path = lock_path(workspace);
    let Ok(file) = regular::open_read_in(workspace.root(), &path) else {
        return Ok(());
    };
    file.lock_shared()
        .map_err(StoreError::io("could not lock", &path))
}

/// Whether a question asked in `workspace` now is seen: a window is open
/// on it, or on another workspace of this machine, whose "All workspaces"
/// shows it ([`crate::registry`]).
pub fn seen(workspace: &Workspace) -> bool {
    is_open(workspace) || crate::registry::list().any_window()
}

/// Keeps `workspace` in every window's "All workspaces" while a question
/// asked there waits: registered as [`Presence::Asking`] until the guard
/// is dropped. `None` when the runtime folder cannot be used; then only a
/// window on `workspace` itself shows the question.
pub fn asking(workspace: &Workspace, now: Timestamp) -> Option<Registered> {
    let registered =
        Registry::locate().and_then(|registry| registry.register(workspace, Presence::Asking, now));
    match registered {
        Ok(registered) => Some(registered),
        Err(error) => {
            tracing::warn!(%error, "the question shows only in its own workspace's window");
            None
        }
    }
}

/// Blocks until no window sees `workspace`'s questions ([`seen`]): its own
/// window closed, and no window open on any workspace.
pub fn wait_unseen(workspace: &Workspace) -> Result<(), StoreError> {
    wait_closed(workspace)?;
    match Registry::locate() {
        Ok(registry) => registry.wait_no_window(),
        Err(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn a_window_is_open_exactly_while_its_hold_lives_and_a_second_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let workspace = Workspace::open(dir.path()).unwrap();
        assert!(!is_open(&workspace));
        assert!(
            !dir.path().join(".switchboard").exists(),
            "asking creates nothing"
        );
        let held = hold(&workspace).unwrap();
        assert!(is_open(&workspace));
        assert!(matches!(hold(&workspace), Err(StoreError::Locked { .. })));
        let (sender, receiver) = std::sync::mpsc::channel();
        let waiting = workspace.clone();
        std::thread::spawn(move || {
            wait_closed(&waiting).unwrap();
            sender.send(()).unwrap();
        });
        assert!(
            receiver
                .recv_timeout(std::time::Duration::from_millis(200))
                .is_err()
        );
        drop(held);
        receiver
            .recv_timeout(std::time::Duration::from_secs(5))
            .unwrap();
        assert!(!is_open(&workspace));
    }
}
