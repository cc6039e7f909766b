//! Writing model-proposed files inside the workspace, and only there.
//!
//! Every path is resolved from a capability on the workspace folder
//! (cap-std, which on Linux uses `openat2` with `RESOLVE_BENEATH`), one
//! folder at a time and without following symlinks: a symlink anywhere in
//! the path, a folder swapped for a symlink mid-write, or a name that
//! resolves elsewhere ends the write with nothing written. The file itself
//! is written atomically (temp file in its folder, fsync, rename), so a
//! symlink at the final name is replaced, never followed.

use std::{
    io::{self, Write},
    path::Path,
};

use cap_fs_ext::DirExt;
use cap_std::{ambient_authority, fs::Dir};
use sha2::{Digest, Sha256};
use thiserror::Error;

use crate::allow::AllowedPath;

/// Why a write did not happen.
#[derive(Debug, Error)]
pub enum WriteError {
    /// The workspace folder could not be opened.
    #[error("could not open the workspace: {0}")]
    Workspace(io::Error),
    /// A folder on the way is a symlink, a file, or unreachable.
    #[error("{path}: {source}")]
    Resolve {
        /// The path being written.
        path: String,
        /// Why resolution stopped.
        source: io::Error,
    },
    /// Writing or renaming the file failed.
    #[error("could not write {path}: {source}")]
    Io {
        /// The path being written.
        path: String,
        /// The operating system's reason.
        source: io::Error,
    },
}

/// What a successful write wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The workspace-relative path.
    pub path: String,
    /// How many bytes.
    pub bytes: usize,
    /// Their SHA-256, hex.
    pub sha256: String,
}

/// Writes inside one workspace folder.
#[derive(Debug)]
pub struct WorkspaceWriter {
    root: Dir,
}

/// The hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

impl WorkspaceWriter {
    /// Opens the workspace folder at `root`.
    pub fn open(root: &Path) -> Result<Self, WriteError> {
        Dir::open_ambient_dir(root, ambient_authority())
            .map(|root| Self { root })
            .map_err(WriteError::Workspace)
    }

    /// Replaces the file at `path` with `bytes`, creating missing folders.
    pub fn write(&self, path: &AllowedPath, bytes: &[u8]) -> Result<Written, WriteError> {
        let shown = path.to_string();
        let resolve = |source| WriteError::Resolve {
            path: shown.clone(),
            source,
        };
        let (file_name, folders) = path
            .components()
            .split_last()
            .ok_or_else(|| resolve(io::Error::new(io::ErrorKind::InvalidInput, "no file name")))?;
        let mut dir = self.root.try_clone().map_err(resolve)?;
        for folder in folders {
            dir = match dir.open_dir_nofollow(folder) {
                Ok(next) => next,
                Err(error) if error.kind() == io::ErrorKind::NotFound => {
                    dir.create_dir(folder).map_err(resolve)?;
                    dir.open_dir_nofollow(folder).map_err(resolve)?
                }
                Err(error) => return Err(resolve(error)),
            };
        }
        let io_error = |source| WriteError::Io {
            path: shown.clone(),
            source,
        };
        let temp_name = format!(".{file_name}.{}.switchboard-tmp", std::process::id());
        let mut options = cap_std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        let mut temp = dir.open_with(&temp_name, &options).map_err(io_error)?;
        let written = temp.write_all(bytes).and_then(|()| temp.sync_all());
        if let Err(error) = written.and_then(|()| dir.rename(&temp_name, &dir, file_name)) {
            let _ = dir.remove_file(&temp_name);
            return Err(io_error(error));
        }
        Ok(Written {
            path: shown,
            bytes: bytes.len(),
            sha256: sha256_hex(bytes),
        })
    }
}
