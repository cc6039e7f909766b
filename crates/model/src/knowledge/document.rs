//! Delia's profiles and memories: free-form markdown files.

use serde::{Deserialize, Serialize};

use super::playbook::{MEMORY_DIR, PROFILE_DIR};

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
