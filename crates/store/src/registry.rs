//! The Switchboards running on this machine ([`switchboard_model::registry`]):
//! one file per registration in `workspaces/` of the user's private runtime
//! folder ([`crate::runtime`]), each held by an exclusive `flock` of its
//! registering process for as long as it runs. A registration is live
//! while its lock is held — the kernel drops it when the process ends,
//! however it ends, so a crashed window never counts (its process id is
//! kept to show, not to decide) — and removed by its owner when dropped.
//! A file is written under a temporary name, locked, then renamed into
//! place, so no reader ever sees an unlocked live one; a file found
//! unlocked is stale, and the next registration clears it.

use std::{
    collections::BTreeMap,
    fs::{File, TryLockError},
    io::Write as _,
    os::unix::fs::MetadataExt as _,
    path::{Path, PathBuf},
};

use switchboard_model::{
    Timestamp,
    registry::{MAX_REGISTRATION_BYTES, Presence, Registration},
};

use crate::{StoreError, Workspace, regular, runtime};

/// The folder, inside the runtime folder, registrations are kept in.
pub const FOLDER: &str = "workspaces";

/// The registrations' folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registry {
    folder: PathBuf,
}

impl Registry {
    /// The user's: `workspaces/` in the runtime folder, made private when
    /// missing.
    pub fn locate() -> Result<Self, StoreError> {
        Self::at(runtime::locate()?.join(FOLDER))
    }

    /// The one at `folder`, made private when missing.
    pub fn at(folder: PathBuf) -> Result<Self, StoreError> {
        Ok(Self {
            folder: runtime::private(folder)?,
        })
    }

    /// The folder.
    pub fn folder(&self) -> &Path {
        &self.folder
    }
}

/// A live registration; removed when dropped (and released by the kernel
/// if the process ends first). The same workspace registered again with
/// the same presence by this process (two questions one server asks at
/// once) shares the one file, removed when the last guard is dropped.
#[derive(Debug)]
pub struct Registered {
    path: PathBuf,
}

impl Registered {
    /// The registration's file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The registrations this process holds: each file's lock, and how many
/// guards share it.
static HELD: std::sync::Mutex<BTreeMap<PathBuf, (File, usize)>> =
    std::sync::Mutex::new(BTreeMap::new());

fn held() -> std::sync::MutexGuard<'static, BTreeMap<PathBuf, (File, usize)>> {
    HELD.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Drop for Registered {
    fn drop(&mut self) {
        let mut held = held();
        let Some((_, guards)) = held.get_mut(&self.path) else {
            return;
        };
        *guards -= 1;
        if *guards == 0 {
            // Removed while still locked: nobody takes it for stale
            // meanwhile.
            let _ = std::fs::remove_file(&self.path);
            held.remove(&self.path);
        }
    }
}

impl Registry {
    /// Registers `workspace` as `presence` of this process until the
    /// returned guard is dropped, clearing stale registrations on the way.
    pub fn register(
        &self,
        workspace: &Workspace,
        presence: Presence,
        now: Timestamp,
    ) -> Result<Registered, StoreError> {
        self.register_at(workspace, presence, None, now)
    }

    /// [`Registry::register`], saying where a browser opens it (`origin`,
    /// a server of the inbox to browsers): what `switchboard pair` makes
    /// its links with.
    pub fn register_at(
        &self,
        workspace: &Workspace,
        presence: Presence,
        origin: Option<&str>,
        now: Timestamp,
    ) -> Result<Registered, StoreError> {
        let folder = &self.folder;
        let registration = Registration {
            workspace: workspace.root().to_string_lossy().into_owned(),
            presence,
            pid: std::process::id(),
            since: now,
            origin: origin.map(str::to_owned),
        };
        let path = folder.join(registration.file_name());
        let mut held = held();
        if let Some((_, guards)) = held.get_mut(&path) {
            *guards += 1;
            return Ok(Registered { path });
        }
        clear_stale(folder);
        let text =
            serde_json::to_vec_pretty(&registration).map_err(|source| StoreError::Encode {
                what: "registration",
                source,
            })?;
        let temporary = tempfile::Builder::new()
            .prefix(".registering-")
            .tempfile_in(folder)
            .map_err(StoreError::io("could not create a registration in", folder))?;
        temporary
            .as_file()
            .lock()
            .map_err(StoreError::io("could not lock", temporary.path()))?;
        temporary
            .as_file()
            .write_all(&text)
            .map_err(StoreError::io("could not write", temporary.path()))?;
        let file = temporary
            .persist(&path)
            .map_err(|error| StoreError::io("could not register", &path)(error.error))?;
        held.insert(path.clone(), (file, 1));
        Ok(Registered { path })
    }

    /// The live registrations.
    pub fn list(&self) -> Listed {
        list_in(&self.folder)
    }

    /// Blocks until nothing that answers questions (a window, a server of
    /// the inbox to browsers: [`Presence::answers`]) runs on any workspace
    /// (at once when none does): what an agent's question waits for before
    /// it gives up.
    pub fn wait_no_window(&self) -> Result<(), StoreError> {
        loop {
            let window = self
                .list()
                .registrations
                .into_iter()
                .find(|registration| registration.presence.answers());
            let Some(window) = window else {
                return Ok(());
            };
            let path = self.folder.join(window.file_name());
            // Its owner holds it exclusively: a shared lock is had once it
            // lets go (or its file is gone, which is the same).
            if let Ok(file) = regular::open_read_in(&self.folder, &path) {
                file.lock_shared()
                    .map_err(StoreError::io("could not wait on", &path))?;
            }
        }
    }
}

/// The live registrations, and what was found in the folder but not
/// taken (said plainly: a file another process wrote there is read
/// with care).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listed {
    /// The live registrations, by file name.
    pub registrations: Vec<Registration>,
    /// Files that are not registrations, with why.
    pub problems: Vec<String>,
}

impl Listed {
    /// Whether something that answers questions runs on any workspace: a
    /// window, or a server of the inbox to browsers.
    pub fn any_window(&self) -> bool {
        self.registrations
            .iter()
            .any(|registration| registration.presence.answers())
    }

    /// Whether `root` is registered (by anything).
    pub fn has(&self, root: &Path) -> bool {
        self.registrations
            .iter()
            .any(|registration| Path::new(&registration.workspace) == root)
    }
}

/// The user's live registrations ([`Registry::locate`]); a runtime folder
/// that cannot be used lists nothing and says why.
pub fn list() -> Listed {
    match Registry::locate() {
        Ok(registry) => registry.list(),
        Err(error) => Listed {
            registrations: Vec::new(),
            problems: vec![error.to_string()],
        },
    }
}

fn list_in(folder: &Path) -> Listed {
    let mut listed = Listed::default();
    let Ok(entries) = std::fs::read_dir(folder) else {
        return listed;
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| name.ends_with(".json") && !name.starts_with('.'))
        .collect();
    names.sort();
    for name in names {
        match read_live(&folder.join(&name), &name) {
            Ok(Some(registration)) => listed.registrations.push(registration),
            Ok(None) => {}
            Err(why) => listed.problems.push(format!("{name}: {why}")),
        }
    }
    listed
}

/// The registration in `path` if its owner still holds it; `None` when it
/// is stale.
fn read_live(path: &Path, name: &str) -> Result<Option<Registration>, String> {
    let folder = path.parent().unwrap_or(Path::new(regular::ANYWHERE));
    let file = regular::open_read_in(folder, path).map_err(|error| error.to_string())?;
    match file.try_lock_shared() {
        Ok(()) => return Ok(None),
        Err(TryLockError::WouldBlock) => {}
        Err(TryLockError::Error(error)) => return Err(error.to_string()),
    }
    let text = regular::read_to_string_in(folder, path, MAX_REGISTRATION_BYTES)
        .map_err(|e| e.to_string())?;
    Registration::read(name, &text)
        .map(Some)
        .map_err(|error| error.to_string())
}

/// Removes the registrations nobody holds any more (their process ended
/// without removing them): each is locked first and removed only while
/// the name still names the file locked, so a live one is never touched.
/// Only a registration's name (or a registering one's) is looked at: any
/// other file in the folder is someone else's.
fn clear_stale(folder: &Path) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if Registration::parse_name(&name).is_err() && !name.starts_with(".registering-") {
            continue;
        }
        let path = entry.path();
        let Ok(file) = regular::open_read_in(folder, &path) else {
            continue;
        };
        if file.try_lock().is_err() {
            continue;
        }
        let same = match (file.metadata(), std::fs::symlink_metadata(&path)) {
            (Ok(held), Ok(named)) => held.ino() == named.ino() && held.dev() == named.dev(),
            _ => false,
        };
        let fresh_temporary = entry
            .file_name()
            .to_string_lossy()
            .starts_with(".registering-")
            && file
                .metadata()
                .and_then(|meta| meta.modified())
                .is_ok_and(|modified| modified.elapsed().unwrap_or_default().as_secs() < 60);
        if same && !fresh_temporary {
            let _ = std::fs::remove_file(&path);
        }
    }
}
