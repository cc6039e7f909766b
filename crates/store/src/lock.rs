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
}
