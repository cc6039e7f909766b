//! The one atomic-write function: every file Switchboard writes goes through it.

use std::{
    fs::{self, Permissions},
    io::Write,
    os::unix::fs::PermissionsExt,
    path::Path,
};

use tempfile::NamedTempFile;

use crate::StoreError;

/// Replaces `path` with `bytes` so that a reader sees either the old file or
/// the new one, never a mix, and a crash at any point leaves one of the two.
///
/// The bytes go to a temporary file in the same directory, are flushed to
/// disk, and the file is renamed over `path`; the directory is then synced so
/// the rename itself survives a power cut. Missing parent directories are
/// created. A file that is replaced keeps its mode (another tool's 0644
/// stays readable to others); a new file gets the usual 0666 less the
/// umask.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let kept = fs::symlink_metadata(path)
        .ok()
        .filter(|meta| meta.is_file())
        .map(|meta| meta.permissions().mode() & 0o7777);
    write_with_mode(path, bytes, kept.map_or(Mode::Default, Mode::Exactly))
}

/// [`write_atomic`] for a file only its owner may read (0600), whatever
/// mode the file it replaces had: settings that may hold an API key.
pub fn write_atomic_private(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    write_with_mode(path, bytes, Mode::Exactly(0o600))
}

/// The mode a written file gets.
#[derive(Debug, Clone, Copy)]
enum Mode {
    /// 0666 less the umask, as any new file.
    Default,
    /// These bits, whatever the umask.
    Exactly(u32),
}

fn write_with_mode(path: &Path, bytes: &[u8], mode: Mode) -> Result<(), StoreError> {
    let dir = path
        .parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    crate::own_folders::create_dir_all(dir)?;
    let file_name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let created = match mode {
        // Created with 0666, which the kernel narrows by the umask.
        Mode::Default => Permissions::from_mode(0o666),
        // Created private, then set exactly (fchmod ignores the umask).
        Mode::Exactly(_) => Permissions::from_mode(0o600),
    };
    let mut temp = tempfile::Builder::new()
        .prefix(&format!(".{file_name}."))
        .suffix(".tmp")
        .permissions(created)
        .tempfile_in(dir)
        .map_err(StoreError::io("could not create a temporary file in", dir))?;
    if let Mode::Exactly(bits) = mode {
        temp.as_file()
            .set_permissions(Permissions::from_mode(bits))
            .map_err(StoreError::io("could not set the mode of", temp.path()))?;
    }
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
    #[allow(
        clippy::disallowed_methods,
        reason = "a folder just written to, opened to sync it, never read"
    )]
    let opened = fs::File::open(dir);
    if let Err(error) = opened.and_then(|handle| handle.sync_all()) {
        tracing::debug!(dir = %dir.display(), %error, "directory sync skipped");
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
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
    fn replaced_files_keep_their_mode_and_new_ones_follow_the_umask() {
        let dir = tempfile::tempdir().unwrap();
        let mode = |path: &Path| fs::metadata(path).unwrap().permissions().mode() & 0o777;
        let shared = dir.path().join("deliveries.json");
        fs::write(&shared, "[]").unwrap();
        fs::set_permissions(&shared, Permissions::from_mode(0o644)).unwrap();
        write_atomic(&shared, b"[1]").unwrap();
        assert_eq!(mode(&shared), 0o644, "another tool's 0644 stays");
        fs::set_permissions(&shared, Permissions::from_mode(0o640)).unwrap();
        write_atomic(&shared, b"[2]").unwrap();
        assert_eq!(mode(&shared), 0o640);

        // New files: 0666 less the umask, as `touch` would make them.
        let touched = dir.path().join("touched");
        fs::File::create(&touched).unwrap();
        let fresh = dir.path().join("fresh.json");
        write_atomic(&fresh, b"{}").unwrap();
        assert_eq!(mode(&fresh), mode(&touched));

        let private = dir.path().join("settings.json");
        fs::write(&private, "{}").unwrap();
        fs::set_permissions(&private, Permissions::from_mode(0o644)).unwrap();
        write_atomic_private(&private, b"{}").unwrap();
        assert_eq!(mode(&private), 0o600, "private files stay private");
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
