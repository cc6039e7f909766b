//! Bullets the developer quarantined: kept in their playbook (Delia's file
//! is not touched) but left out of prompts, listed in
//! `.switchboard/knowledge/quarantine.json`.

use std::path::PathBuf;

use switchboard_model::Timestamp;
pub use switchboard_model::knowledge::Quarantined;

use crate::{StoreError, Workspace, lock::DirLock, write_atomic};

fn path(workspace: &Workspace) -> PathBuf {
    workspace
        .root()
        .join(".switchboard")
        .join("knowledge")
        .join("quarantine.json")
}

/// Every quarantined bullet.
pub fn list(workspace: &Workspace) -> Result<Vec<Quarantined>, StoreError> {
    let path = path(workspace);
    match crate::regular::read_text_in(workspace.root(), &path, crate::regular::DATA_LIMIT)? {
        Some(text) => serde_json::from_str(&text).map_err(|error| StoreError::Corrupt {
            path,
            reason: error.to_string(),
        }),
        None => Ok(Vec::new()),
    }
}

/// Quarantines (`on`) or releases bullet `task_type/id`.
pub fn set(
    workspace: &Workspace,
    task_type: &str,
    id: &str,
    on: bool,
    reason: &str,
    now: Timestamp,
) -> Result<Vec<Quarantined>, StoreError> {
    let path = path(workspace);
    let dir = path.parent().map(PathBuf::from).unwrap_or_default();
    let _lock = DirLock::acquire(&dir)?;
    let mut all = list(workspace)?;
    all.retain(|q| !(q.task_type == task_type && q.id == id));
    if on {
        all.push(Quarantined {
            task_type: task_type.to_owned(),
            id: id.to_owned(),
            reason: reason.trim().to_owned(),
            at: now,
        });
    }
    let text = serde_json::to_string_pretty(&all).map_err(|source| StoreError::Encode {
        what: "quarantine list",
        source,
    })?;
    write_atomic(&path, text.as_bytes())?;
    Ok(all)
}
