//! Where the session host listens: a folder only the user can enter
//! (`$XDG_RUNTIME_DIR/switchboard/`, else `switchboard-<uid>` in the temp
//! folder; `$SWITCHBOARD_RUNTIME_DIR` overrides both), holding the socket
//! (0600), the lock that makes one host per user, and the host's log.
//! The folder itself is the store's ([`switchboard_store::runtime`]).

use std::path::{Path, PathBuf};

pub use switchboard_store::runtime::RuntimeError;

/// The session host's private folder and the files in it.
#[derive(Debug, Clone)]
pub struct RuntimeDir {
    dir: PathBuf,
}

impl RuntimeDir {
    /// The folder for this user, made (0700) when missing and checked to
    /// be private when present.
    pub fn locate() -> Result<Self, RuntimeError> {
        Ok(Self {
            dir: switchboard_store::runtime::locate()?,
        })
    }

    /// `dir`, made (0700) when missing and checked to be private.
    pub fn at(dir: PathBuf) -> Result<Self, RuntimeError> {
        Ok(Self {
            dir: switchboard_store::runtime::private(dir)?,
        })
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
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use std::os::unix::fs::PermissionsExt as _;

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
