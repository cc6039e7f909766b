//! The one atomic-write function: every file Switchboard writes goes through it.

use std::{fs, io::Write, path::Path};

use tempfile::NamedTempFile;

use crate::StoreError;

/// Replaces `path` with `bytes` so that a reader sees either the old file or
/// the new one, never a mix, and a crash at any point leaves one of the two.
///
/// The bytes go to a temporary file in the same directory, are flushed to
/// disk, and the file is renamed over `path`; the directory is then synced so
/// the rename itself survives a power cut. Missing parent directories are
/// created.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let dir = path
        .parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(StoreError::io("could not create", dir))?;
    let file_name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut temp = tempfile::Builder::new()
        .prefix(&format!(".{file_name}."))
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(StoreError::io("could not create a temporary file in", dir))?;
    write_and_sync(&mut temp, bytes).map_err(StoreError::io("could not write", temp.path()))?;
    temp.persist(path)
        .map_err(|error| StoreError::io("could not replace", path)(error.error))?;
    sync_dir(dir);
    Ok(())
}

fn write_and_sync(temp: &mut NamedTempFile, bytes: &[u8]) -> std::io::Result<()> {
    temp.write_all(bytes)?;
    temp.as_file().sync_all()
}

/// Makes a rename in `dir` durable. Some file systems cannot sync a
/// directory; the data itself is already synced, so that is only logged.
fn sync_dir(dir: &Path) {
    if let Err(error) = fs::File::open(dir).and_then(|handle| handle.sync_all()) {
        tracing::debug!(dir = %dir.display(), %error, "directory sync skipped");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_parents_and_replaces_whole_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/data.json");
        write_atomic(&path, b"first, and longer").unwrap();
        write_atomic(&path, b"second").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"second");
        let leftovers: Vec<_> = fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(
            leftovers,
            ["data.json"],
            "no temporary file may be left behind"
        );
    }

    #[test]
    fn a_failed_write_leaves_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data.json");
        write_atomic(&path, b"kept").unwrap();
        // A directory where the file should go makes the rename fail.
        let blocked = dir.path().join("blocked");
        fs::create_dir_all(blocked.join("inner")).unwrap();
        assert!(write_atomic(&blocked, b"x").is_err());
        assert_eq!(fs::read(&path).unwrap(), b"kept");
    }
}
