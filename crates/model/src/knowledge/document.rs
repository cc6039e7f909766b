//! Free-form markdown knowledge: Delia's profiles and memories, and the
//! repository's spec and plan files.

use serde::{Deserialize, Serialize};

use super::playbook::{MEMORY_DIR, PROFILE_DIR};

/// Spec and plan folders (searched recursively), relative to the workspace.
pub const SPEC_DIRS: [&str; 2] = [".prompts/plan", ".prompts/features"];

/// Which kind of document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DocumentKind {
    /// Framework or domain guidance.
    Profile,
    /// Persistent project knowledge.
    Memory,
    /// A spec or plan file.
    Spec,
}

impl DocumentKind {
    /// The folders, relative to the workspace.
    pub fn dirs(self) -> &'static [&'static str] {
        match self {
            Self::Profile => &[PROFILE_DIR],
            Self::Memory => &[MEMORY_DIR],
            Self::Spec => &SPEC_DIRS,
        }
    }

    /// Whether its folders are searched below their first level.
    pub fn recursive(self) -> bool {
        self == Self::Spec
    }
}

/// One document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Document {
    /// Profile, memory or spec.
    pub kind: DocumentKind,
    /// Workspace-relative path.
    pub path: String,
    /// The file name without `.md`.
    pub name: String,
    /// The text.
    pub text: String,
}
