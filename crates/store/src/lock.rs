//! Cross-process locks around read-modify-write cycles.
//!
//! Data files are replaced by rename, so locking the data file itself would
//! lock a file that is about to vanish. Each data directory instead has one
//! stable `.lock` file; holding it excludes every other Switchboard process
//! (CLI, app) from changing that directory's files.

use std::{fs::File, path::Path};

use crate::StoreError;

/// An exclusive lock on a data directory, released on drop.
#[derive(Debug)]
pub(crate) struct DirLock {
    _file: File,
}

impl DirLock {
    /// Blocks until this process holds the lock on `dir`, creating `dir` and
    /// its lock file as needed.
    pub(crate) fn acquire(dir: &Path) -> Result<Self, StoreError> {
        std::fs::create_dir_all(dir).map_err(StoreError::io("could not create", dir))?;
        let path = dir.join(".lock");
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(StoreError::io("could not open lock file", &path))?;
        file.lock()
            .map_err(StoreError::io("could not lock", &path))?;
        Ok(Self { _file: file })
    }

    /// [`DirLock::acquire`] for a directory whose every write happens under
    /// this lock (the inbox data directory), then removes the temporary
    /// files of writes that were killed before their rename: holding the
    /// lock, no write of ours can be in flight there. Only names
    /// `write_atomic` gives (`.{name}.{random}.tmp`) are touched.
    pub(crate) fn acquire_sweeping(dir: &Path) -> Result<Self, StoreError> {
        let lock = Self::acquire(dir)?;
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
