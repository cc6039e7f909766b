//! Cross-process locks around read-modify-write cycles.
//!
//! Data files are replaced by rename, so locking the data file itself would
//! lock a file that is about to vanish. Each data directory instead has one
//! stable `.lock` file; holding it excludes every other Switchboard process
//! (CLI, app) from changing that directory's files.

use std::{
    fs::File,
    path::{Path, PathBuf},
};

use crate::{StoreError, regular};

/// An exclusive lock on a data directory, released on drop. The files it
/// guards are named through it ([`DirLock::file`]), and a data file can
/// only be loaded for rewriting (`records::Editable`) or appended to with
/// one in hand.
#[derive(Debug)]
pub(crate) struct DirLock {
    _file: File,
    dir: PathBuf,
    /// The folder its files are read within (the workspace, for a folder
    /// of the workspace's).
    within: PathBuf,
}

/// A shared hold of a data directory's lock: no change is being written
/// while it is held. Released on drop.
#[derive(Debug)]
pub(crate) struct SharedDirLock {
    _file: File,
}

impl DirLock {
    /// Blocks until this process holds the lock on `dir`, creating `dir` and
    /// its lock file as needed; its files are read within `dir`.
    pub(crate) fn acquire(dir: &Path) -> Result<Self, StoreError> {
        Self::acquire_within(dir, dir)
    }

    /// [`DirLock::acquire`] for a folder `dir` of the workspace (or other
    /// folder) `within`: its files, and its lock, are read within that.
    pub(crate) fn acquire_within(within: &Path, dir: &Path) -> Result<Self, StoreError> {
        crate::own_folders::create_dir_all(dir)?;
        let (file, path) = lock_file(within, dir)?;
        file.lock()
            .map_err(StoreError::io("could not lock", &path))?;
        Ok(Self {
            _file: file,
            dir: dir.to_path_buf(),
            within: within.to_path_buf(),
        })
    }

    /// The file `name` in the locked directory.
    pub(crate) fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// The folder the locked directory's files are read within.
    pub(crate) fn within(&self) -> &Path {
        &self.within
    }

    /// Blocks until no other process changes `dir` (a shared hold: readers
    /// do not wait for each other), for a read that must see a change whole
    /// or not at all. `None` when `dir` does not exist: nothing to read.
    pub(crate) fn acquire_shared(
        within: &Path,
        dir: &Path,
    ) -> Result<Option<SharedDirLock>, StoreError> {
        if !dir.is_dir() {
            return Ok(None);
        }
        let (file, path) = lock_file(within, dir)?;
        file.lock_shared()
            .map_err(StoreError::io("could not lock", &path))?;
        Ok(Some(SharedDirLock { _file: file }))
    }

    /// [`DirLock::acquire`] for a directory whose every write happens under
    /// this lock (the inbox data directory), then removes the temporary
    /// files of writes that were killed before their rename: holding the
    /// lock, no write of ours can be in flight there. Only names
    /// `write_atomic` gives (`.{name}.{random}.tmp`) are touched.
    pub(crate) fn acquire_sweeping(within: &Path, dir: &Path) -> Result<Self, StoreError> {
        let lock = Self::acquire_within(within, dir)?;
        if let Ok(entries) = std::fs::read_dir(dir) {
            for entry in entries.flatten() {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                let orphan = name.starts_with('.')
                    && name.ends_with(".tmp")
                    && name.matches('.').count() >= 3
                    && entry.file_type().is_ok_and(|kind| kind.is_file());
                if orphan && let Err(error) = std::fs::remove_file(entry.path()) {
                    tracing::debug!(%error, file = %name, "could not remove an orphaned temp file");
                }
            }
        }
        Ok(lock)
    }
}

/// The `.lock` file of `dir`, opened within `within` (created if need be).
fn lock_file(within: &Path, dir: &Path) -> Result<(File, PathBuf), StoreError> {
    let path = dir.join(".lock");
    let mut options = cap_std::fs::OpenOptions::new();
    options.create(true).truncate(false).write(true);
    let file = regular::open_in(within, &path, &mut options, regular::LastLink::Follow)
        .map_err(StoreError::io("could not open lock file", &path))?;
    Ok((file, path))
}

/// A POSIX record lock over a whole lock file, released on drop: the kind
/// opencode-teams takes (`fcntl` `F_SETLKW`), so each excludes the other.
/// `flock`, which std's `File::lock` uses on Linux, does not exclude those.
///
/// On Linux it is an open-file-description lock (`F_OFD_SETLKW`): it
/// excludes classic `fcntl` locks both ways, and unlike them it also
/// excludes other threads of this process and is not dropped when some
/// other handle of the file is closed.
#[derive(Debug)]
pub(crate) struct RecordLock {
    _file: File,
}

impl RecordLock {
    /// Blocks until this handle holds the lock on `path` (exclusive, or
    /// shared for reads), creating the file (0644) and its folder as needed.
    pub(crate) fn acquire(path: &Path, exclusive: bool) -> Result<Self, StoreError> {
        use cap_std::fs::OpenOptionsExt;
        use nix::{
            errno::Errno,
            fcntl::{FcntlArg, fcntl},
            libc,
        };

        let dir = path.parent().unwrap_or(Path::new("."));
        crate::own_folders::create_dir_all(dir)?;
        let mut options = cap_std::fs::OpenOptions::new();
        options
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o644);
        let file = regular::open_in(dir, path, &mut options, regular::LastLink::Follow)
            .map_err(StoreError::io("could not open lock file", path))?;
        let kind = if exclusive {
            libc::F_WRLCK
        } else {
            libc::F_RDLCK
        };
        let whole = libc::flock {
            l_type: kind as libc::c_short,
            l_whence: libc::SEEK_SET as libc::c_short,
            l_start: 0,
            l_len: 0,
            l_pid: 0,
        };
        loop {
            #[cfg(any(target_os = "linux", target_os = "android"))]
            let taken = fcntl(&file, FcntlArg::F_OFD_SETLKW(&whole));
            #[cfg(not(any(target_os = "linux", target_os = "android")))]
            let taken = fcntl(&file, FcntlArg::F_SETLKW(&whole));
            match taken {
                Ok(_) => return Ok(Self { _file: file }),
                Err(Errno::EINTR) => continue,
                Err(errno) => {
                    return Err(StoreError::Io {
                        action: "could not lock",
                        path: path.to_owned(),
                        source: errno.into(),
                    });
                }
            }
        }
    }
}
