//! Finding a folder's files of one kind: in the folder itself, or at any
//! depth below it (symlinks never followed), sorted; and the folders in a
//! folder. The one walk the domains share (tapes, knowledge documents,
//! playbooks, chains, chats, teams' tasks and inboxes, session logs,
//! reports).

use std::path::{Path, PathBuf};

use crate::StoreError;

/// What a deep walk does with a folder below its root that it cannot list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unlistable {
    /// The walk fails with the folder's error (a listing must be whole).
    Fail,
    /// The folder is passed over (what can be found is enough).
    Skip,
}

/// The files directly in `dir` ending in `.{extension}`, sorted; none when
/// `dir` does not exist.
pub fn files_in(dir: &Path, extension: &str) -> Result<Vec<PathBuf>, StoreError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(StoreError::io("could not list", dir)(error)),
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == extension) && path.is_file())
        .collect();
    files.sort();
    Ok(files)
}

/// The names of the folders directly in `dir` (symlinks to folders not
/// followed), sorted; none when `dir` does not exist.
pub fn folders_in(dir: &Path) -> Result<Vec<String>, StoreError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(StoreError::io("could not list", dir)(error)),
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
        .filter_map(|entry| entry.file_name().into_string().ok())
        .collect();
    names.sort();
    Ok(names)
}

/// The files under `dir` at any depth ending in `.{extension}`, sorted;
/// symlinks are not followed, and a `dir` that does not exist holds none.
pub fn files_under(
    dir: &Path,
    extension: &str,
    unlistable: Unlistable,
) -> Result<Vec<PathBuf>, StoreError> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(dir) = pending.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
            Err(_) if unlistable == Unlistable::Skip => continue,
            Err(error) => return Err(StoreError::io("could not list", &dir)(error)),
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                pending.push(path);
            } else if kind.is_file() && path.extension().is_some_and(|ext| ext == extension) {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn walks_find_one_kind_sorted_and_never_follow_links() {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path();
        std::fs::create_dir_all(root.join("b/deep")).unwrap();
        std::fs::write(root.join("z.md"), "").unwrap();
        std::fs::write(root.join("a.md"), "").unwrap();
        std::fs::write(root.join("a.txt"), "").unwrap();
        std::fs::write(root.join("b/deep/c.md"), "").unwrap();
        std::os::unix::fs::symlink(root.join("b"), root.join("link")).unwrap();
        let names = |paths: Vec<PathBuf>| -> Vec<String> {
            paths
                .iter()
                .map(|path| path.strip_prefix(root).unwrap().display().to_string())
                .collect()
        };
        assert_eq!(names(files_in(root, "md").unwrap()), ["a.md", "z.md"]);
        assert_eq!(
            names(files_under(root, "md", Unlistable::Fail).unwrap()),
            ["a.md", "b/deep/c.md", "z.md"]
        );
        assert!(
            files_under(&root.join("none"), "md", Unlistable::Fail)
                .unwrap()
                .is_empty()
        );
        assert!(files_in(&root.join("none"), "md").unwrap().is_empty());
    }
}
