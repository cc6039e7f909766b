//! Delia's profiles and memories (`.delia/profiles/*.md`,
//! `.delia/memories/*.md`) and the spec and plan files
//! (`.prompts/plan/**`, `.prompts/features/**`): free-form markdown, shown
//! and searched whole.

pub use switchboard_model::knowledge::document::{Document, DocumentKind};

use super::{files_in, markdown_under, relative};
use crate::{StoreError, Workspace};

/// Every document of `kind`, by file name. Unreadable files are errors.
pub fn list(workspace: &Workspace, kind: DocumentKind) -> Result<Vec<Document>, StoreError> {
    let mut paths = Vec::new();
    for dir in kind.dirs() {
        let dir = workspace.root().join(dir);
        if kind.recursive() {
            paths.extend(markdown_under(&dir));
        } else {
            paths.extend(files_in(&dir, "md")?);
        }
    }
    paths
        .into_iter()
        .map(|path| {
            let text =
                std::fs::read_to_string(&path).map_err(StoreError::io("could not read", &path))?;
            Ok(Document {
                kind,
                path: relative(workspace, &path),
                name: path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                text,
            })
        })
        .collect()
}
