//! Where the session host listens: a folder only the user can enter
//! (`$XDG_RUNTIME_DIR/switchboard/`, else `switchboard-<uid>` in the temp
//! folder; `$SWITCHBOARD_RUNTIME_DIR` overrides both), holding the socket
//! (0600), the lock that makes one host per user, and the host's log.

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
    #[error("could not prepare the session folder {path}: {source}")]
    Io {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Someone else could reach it: another owner, a symlink, or a mode
    /// that lets others in.
    #[error(
        "the session folder {path} is not private ({why}); remove it or set SWITCHBOARD_RUNTIME_DIR"
    )]
    NotPrivate {
        /// The folder.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
}

/// The session host's private folder and the files in it.
#[derive(Debug, Clone)]
pub struct RuntimeDir {
    dir: PathBuf,
}

impl RuntimeDir {
    /// The folder for this user, made (0700) when missing and checked to
    /// be private when present.
    pub fn locate() -> Result<Self, RuntimeError> {
        let dir = if let Some(dir) = std::env::var_os("SWITCHBOARD_RUNTIME_DIR") {
            PathBuf::from(dir)
        } else if let Some(runtime) = std::env::var_os("XDG_RUNTIME_DIR")
            && Path::new(&runtime).is_absolute()
        {
            Path::new(&runtime).join("switchboard")
        } else {
            std::env::temp_dir().join(format!("switchboard-{}", nix::unistd::getuid()))
        };
        Self::at(dir)
    }

    /// `dir`, made (0700) when missing and checked to be private.
    pub fn at(dir: PathBuf) -> Result<Self, RuntimeError> {
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
        let uid = nix::unistd::getuid().as_raw();
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
        Ok(Self { dir })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The host's socket.
    pub fn socket(&self) -> PathBuf {
        self.dir.join("host.sock")
    }

    /// Held (`flock`) by the running host: one host per folder.
    pub fn lock(&self) -> PathBuf {
        self.dir.join("host.lock")
    }

    /// The host's own log (its errors; never what programs print or what
    /// is typed into them).
    pub fn log(&self) -> PathBuf {
        self.dir.join("host.log")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_others_can_enter_is_refused() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().join("rt");
        let runtime = RuntimeDir::at(dir.clone()).unwrap();
        let mode = std::fs::metadata(runtime.path())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700);
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let error = RuntimeDir::at(dir.clone()).unwrap_err();
        assert!(error.to_string().contains("mode 755"), "{error}");
        let link = temp.path().join("link");
        std::os::unix::fs::symlink(&dir, &link).unwrap();
        assert!(matches!(
            RuntimeDir::at(link),
            Err(RuntimeError::NotPrivate { .. })
        ));
    }
}
