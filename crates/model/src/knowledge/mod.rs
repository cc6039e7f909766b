//! What agents and developers learned, in the formats of the tools that
//! write it: Naide's learnings (markdown), Delia's playbooks (JSON), with
//! Delia's validation, curation and ranking rules.

pub mod curate;
pub mod document;
pub mod learning;
pub mod playbook;
pub mod rank;
pub mod search;
pub mod validate;

use serde::{Deserialize, Serialize};

use crate::Timestamp;

/// One quarantined bullet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Quarantined {
    /// Its playbook's task type.
    pub task_type: String,
    /// Its id.
    pub id: String,
    /// Why, in the developer's words.
    #[serde(default)]
    pub reason: String,
    /// When.
    pub at: Timestamp,
}
