//! Delia's profiles and memories (`.delia/profiles/*.md`,
//! `.delia/memories/*.md`): free-form markdown, shown and searched whole.

pub use switchboard_model::knowledge::document::{Document, DocumentKind};

use super::{files_in, relative};
use crate::{StoreError, Workspace};

/// Every document of `kind`, by file name. Unreadable files are errors.
pub fn list(workspace: &Workspace, kind: DocumentKind) -> Result<Vec<Document>, StoreError> {
    files_in(&workspace.root().join(kind.dir()), "md")?
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
