//! The user's private runtime folder (`$XDG_RUNTIME_DIR/switchboard/`,
//! else `switchboard-<uid>` in the temp folder; `$SWITCHBOARD_RUNTIME_DIR`
//! overrides both): made 0700 when missing, refused when anyone else could
//! enter it. The session host keeps its socket there and every running
//! Switchboard its registration ([`crate::registry`]).

use std::{
    fs::DirBuilder,
    os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt},
    path::{Path, PathBuf},
};

use thiserror::Error;

/// Why the runtime folder cannot be used.
#[derive(Debug, Error)]
pub enum RuntimeError {
    /// It could not be made or inspected.
    #[error("could not prepare the runtime folder {path}: {source}")]
    Io {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Someone else could reach it: another owner, a symlink, or a mode
    /// that lets others in.
    #[error(
        "the runtime folder {path} is not private ({why}); remove it or set SWITCHBOARD_RUNTIME_DIR"
    )]
    NotPrivate {
        /// The folder.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
}

/// The folder for this user, made (0700) when missing and checked to be
/// private when present.
pub fn locate() -> Result<PathBuf, RuntimeError> {
    let dir = if let Some(dir) = std::env::var_os("SWITCHBOARD_RUNTIME_DIR") {
        PathBuf::from(dir)
    } else if let Some(runtime) = std::env::var_os("XDG_RUNTIME_DIR")
        && Path::new(&runtime).is_absolute()
    {
        Path::new(&runtime).join("switchboard")
    } else {
        std::env::temp_dir().join(format!(
            "switchboard-{}",
            rustix::process::getuid().as_raw()
        ))
    };
    private(dir)
}

/// `dir`, made (0700) when missing and checked to be private: a folder
/// (not a link to one) of this user that nobody else may enter.
pub fn private(dir: PathBuf) -> Result<PathBuf, RuntimeError> {
    let io = |source| RuntimeError::Io {
        path: dir.clone(),
        source,
    };
    match DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(error) => return Err(io(error)),
    }
    let meta = std::fs::symlink_metadata(&dir).map_err(io)?;
    let not_private = |why: String| RuntimeError::NotPrivate {
        path: dir.clone(),
        why,
    };
    if !meta.is_dir() {
        return Err(not_private("not a folder".into()));
    }
    let uid = rustix::process::getuid().as_raw();
    if meta.uid() != uid {
        return Err(not_private(format!(
            "owned by uid {}, not {uid}",
            meta.uid()
        )));
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(not_private(format!("mode {mode:o}, not 700")));
    }
    Ok(dir)
}
