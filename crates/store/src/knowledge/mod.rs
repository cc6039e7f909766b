//! Knowledge in the workspace: Naide's learnings (markdown per category),
//! Delia's playbooks (JSON), profiles and memories (markdown), and our
//! quarantine list. Reading never changes a file; every change is atomic,
//! under the folder's lock, and refused for files that do not parse.

pub mod documents;
pub mod learnings;
pub mod playbooks;
pub mod quarantine;

use std::path::{Path, PathBuf};

use crate::{StoreError, Workspace, contain};

/// A knowledge file as read: its text, or why it was not read (a symlink
/// leading out of the workspace), to report beside the others.
pub(crate) enum Read {
    /// The file's text.
    Text(String),
    /// Not read, in words.
    Refused(String),
}

/// Reads the knowledge file `path` through [`contain::read_inside`]; a
/// symlink out of the workspace is [`Read::Refused`], other failures are
/// errors.
pub(crate) fn read(workspace: &Workspace, path: &Path) -> Result<Read, StoreError> {
    match contain::read_inside(workspace.root(), path) {
        Ok(text) => Ok(Read::Text(text)),
        Err(refused @ StoreError::OutsideWorkspace { .. }) => Ok(Read::Refused(format!(
            "{}: {refused}",
            relative(workspace, path)
        ))),
        Err(error) => Err(error),
    }
}

/// `path` relative to the workspace root, with `/` separators.
pub(crate) fn relative(workspace: &Workspace, path: &Path) -> String {
    path.strip_prefix(workspace.root())
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// The files in `dir` ending in `.{extension}`, sorted; none when `dir`
/// does not exist.
pub(crate) fn files_in(dir: &Path, extension: &str) -> Result<Vec<PathBuf>, StoreError> {
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

/// Markdown files under `dir` at any depth, sorted; symlinks are not
/// followed.
pub fn markdown_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                pending.push(path);
            } else if kind.is_file() && path.extension().is_some_and(|ext| ext == "md") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}
