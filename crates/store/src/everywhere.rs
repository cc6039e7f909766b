//! What waits in every workspace on this machine ("All workspaces"): the
//! registered ones ([`crate::registry`]) and the one asking, each read
//! from its own inbox and agent records, as the window, `switchboard
//! agents --all` and `switchboard list --all --waiting` show it.

use std::{collections::BTreeMap, path::PathBuf};

use switchboard_model::{
    Timestamp,
    registry::{self, Presence, WorkspaceAttention},
};

use crate::{StoreError, Workspace, agents, deliveries, registry::Listed};

/// Every workspace `listed` ([`crate::registry::list`]) with its waiting
/// questions and agents, `current`'s first; problems reading one are kept
/// in its line.
pub fn attention(listed: &Listed, current: &Workspace, now: Timestamp) -> Vec<WorkspaceAttention> {
    for problem in &listed.problems {
        tracing::debug!(%problem, "a registration was not taken");
    }
    let mut presences: BTreeMap<PathBuf, Vec<Presence>> = BTreeMap::new();
    presences.entry(current.root().to_owned()).or_default();
    for registration in &listed.registrations {
        let found = presences
            .entry(PathBuf::from(&registration.workspace))
            .or_default();
        if !found.contains(&registration.presence) {
            found.push(registration.presence);
        }
    }
    let mut lines: Vec<WorkspaceAttention> = presences
        .into_iter()
        .map(|(root, mut presences)| {
            presences.sort();
            let is_current = root == current.root();
            of(&root, presences, is_current, now)
        })
        .collect();
    registry::arrange(&mut lines);
    lines
}

/// One workspace's line.
fn of(
    root: &std::path::Path,
    presences: Vec<Presence>,
    current: bool,
    now: Timestamp,
) -> WorkspaceAttention {
    let mut line = WorkspaceAttention {
        workspace: root.to_string_lossy().into_owned(),
        name: root.file_name().map_or_else(
            || root.display().to_string(),
            |name| name.to_string_lossy().into_owned(),
        ),
        presences,
        current,
        questions: Vec::new(),
        agents: Vec::new(),
        problems: Vec::new(),
    };
    let workspace = match Workspace::open(root) {
        Ok(workspace) if workspace.root() == root => workspace,
        Ok(_) => {
            line.problems
                .push("its folder is reached through a link".into());
            return line;
        }
        Err(error) => {
            line.problems.push(error.to_string());
            return line;
        }
    };
    match deliveries::list(&workspace) {
        Ok(listed) => {
            line.questions = registry::waiting_questions(&listed.deliveries);
            line.problems.extend(listed.warnings);
        }
        Err(error) => line.problems.push(error.to_string()),
    }
    match agents::states(&workspace, now) {
        Ok(rows) => line.agents = registry::shown_agents(rows),
        Err(error) => line.problems.push(error.to_string()),
    }
    line
}

/// The workspace at `root`, if it is `current` or `listed` now: what a
/// window or command may answer in besides its own. Anything else is
/// refused, so a caller cannot be pointed at an arbitrary folder.
pub fn reachable(
    listed: &Listed,
    current: &Workspace,
    root: &str,
) -> Result<Workspace, StoreError> {
    let root = std::path::Path::new(root);
    if root == current.root() {
        return Ok(current.clone());
    }
    let refused = || StoreError::NotFound {
        what: "running workspace",
        id: root.display().to_string(),
    };
    if !listed.has(root) {
        return Err(refused());
    }
    let workspace = Workspace::open(root)?;
    if workspace.root() != root {
        return Err(refused());
    }
    Ok(workspace)
}
