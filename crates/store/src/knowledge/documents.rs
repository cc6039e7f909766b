//! Delia's profiles and memories (`.delia/profiles/*.md`,
//! `.delia/memories/*.md`): free-form markdown, shown and searched whole.

use serde::{Deserialize, Serialize};
use switchboard_model::knowledge::playbook::{MEMORY_DIR, PROFILE_DIR};

use super::{files_in, relative};
use crate::{StoreError, Workspace};

/// Which kind of document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DocumentKind {
    /// Framework or domain guidance.
    Profile,
    /// Persistent project knowledge.
    Memory,
}

impl DocumentKind {
    /// The folder, relative to the workspace.
    pub fn dir(self) -> &'static str {
        match self {
            Self::Profile => PROFILE_DIR,
            Self::Memory => MEMORY_DIR,
        }
    }
}

/// One document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Document {
    /// Profile or memory.
    pub kind: DocumentKind,
    /// Workspace-relative path.
    pub path: String,
    /// The file name without `.md`.
    pub name: String,
    /// The text.
    pub text: String,
}

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
