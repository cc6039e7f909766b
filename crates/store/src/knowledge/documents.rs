//! Delia's profiles and memories (`.delia/profiles/*.md`,
//! `.delia/memories/*.md`) and the spec and plan files
//! (`.prompts/plan/**`, `.prompts/features/**`): free-form markdown, shown
//! and searched whole.

pub use switchboard_model::knowledge::document::{Document, DocumentKind};

use super::{Read, files_in, markdown_under, read, relative};
use crate::{StoreError, Workspace};

/// The documents of one kind, and the files not read because a symlink
/// leads them out of the workspace (in words).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Documents {
    /// By file name.
    pub documents: Vec<Document>,
    /// One sentence per refused file.
    pub refused: Vec<String>,
}

/// Every document of `kind`, by file name. Unreadable files are errors;
/// symlinks out of the workspace are left out and named in
/// [`Documents::refused`].
pub fn list(workspace: &Workspace, kind: DocumentKind) -> Result<Documents, StoreError> {
    let mut paths = Vec::new();
    for dir in kind.dirs() {
        let dir = workspace.root().join(dir);
        if kind.recursive() {
            paths.extend(markdown_under(&dir));
        } else {
            paths.extend(files_in(&dir, "md")?);
        }
    }
    let mut listed = Documents::default();
    for path in paths {
        match read(workspace, &path)? {
            Read::Text(text) => listed.documents.push(Document {
                kind,
                path: relative(workspace, &path),
                name: path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                text,
            }),
            Read::Refused(reason) => listed.refused.push(reason),
        }
    }
    Ok(listed)
}
