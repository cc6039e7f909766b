//! Knowledge in the workspace: Naide's learnings (markdown per category),
//! Delia's playbooks (JSON), profiles and memories (markdown), and our
//! quarantine list. Reading never changes a file; every change is atomic,
//! under the folder's lock, and refused for files that do not parse.

pub mod documents;
pub mod learnings;
mod overview;
pub mod playbooks;
pub mod quarantine;

pub use overview::overview;

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

pub(crate) use crate::walk::files_in;

/// Markdown files under `dir` at any depth, sorted; symlinks are not
/// followed.
pub fn markdown_under(dir: &Path) -> Vec<PathBuf> {
    crate::walk::files_under(dir, "md", crate::walk::Unlistable::Skip).unwrap_or_default()
}
