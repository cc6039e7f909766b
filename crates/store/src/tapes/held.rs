//! The writers' lock on one tape, and the write done under it.

use std::{
    fs::File,
    io::Write,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use switchboard_model::tape::{Tape, codec};

use super::LOCK_WAIT;
use crate::StoreError;

/// The writers' lock on a tape: an exclusive `flock` on `<tape>.json5.tmp`,
/// the file the new text is written into before it is renamed over the
/// tape (what ClaudeControl's portalocker takes), retried every 0.25 s for
/// up to [`LOCK_WAIT`].
pub(super) struct Held {
    file: File,
    temp: PathBuf,
    path: PathBuf,
}

impl Held {
    pub(super) fn take(path: &Path) -> Result<Self, StoreError> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(StoreError::io("could not create", parent))?;
        }
        let mut temp_name = path.as_os_str().to_owned();
        temp_name.push(".tmp");
        let temp = PathBuf::from(temp_name);
        // ClaudeControl's lock: the tape's `.tmp`, opened (made) within
        // the tape's own folder.
        let folder = temp.parent().unwrap_or(Path::new("."));
        let mut options = cap_std::fs::OpenOptions::new();
        options.create(true).truncate(false).write(true);
        let file = crate::regular::open_in(
            folder,
            &temp,
            &mut options,
            crate::regular::LastLink::Refuse,
        )
        .map_err(StoreError::io("could not open", &temp))?;
        let started = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) if started.elapsed() < LOCK_WAIT => {
                    std::thread::sleep(Duration::from_millis(250));
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(StoreError::Locked {
                        path: temp,
                        waited: LOCK_WAIT,
                    });
                }
                Err(std::fs::TryLockError::Error(error)) => {
                    return Err(StoreError::Io {
                        action: "could not lock",
                        path: temp,
                        source: error,
                    });
                }
            }
        }
        Ok(Self {
            file,
            temp,
            path: path.to_owned(),
        })
    }

    /// Writes `tape` into the locked temp file and renames it over the tape.
    pub(super) fn replace(mut self, tape: &Tape) -> Result<(), StoreError> {
        let text = codec::encode(tape).map_err(|source| StoreError::Encode {
            what: "tape",
            source,
        })?;
        self.file
            .set_len(0)
            .and_then(|()| self.file.write_all(text.as_bytes()))
            .and_then(|()| self.file.sync_all())
            .map_err(StoreError::io("could not write", &self.temp))?;
        std::fs::rename(&self.temp, &self.path)
            .map_err(StoreError::io("could not replace", &self.path))
    }
}
