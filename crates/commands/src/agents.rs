//! The Agents view's commands: the agents seen here, whether Codex runs
//! the hooks installed for it, and "All workspaces".

use switchboard_model::{
    agent::{AgentRow, codex_hooks::CodexHooksTrust},
    registry::WorkspaceAttention,
};
use switchboard_store::{StoreError, Workspace, agents, clock, codex, everywhere, registry};

/// Every agent session, waiting ones first, each with its last messages.
pub fn list_agents(own: &Workspace) -> Result<Vec<AgentRow>, StoreError> {
    agents::list(own, clock::now())
}

/// Whether Codex runs Switchboard's hooks in the workspace (`None`: none
/// installed), read from Codex's own files.
pub fn codex_hooks_trust(own: &Workspace) -> Result<Option<CodexHooksTrust>, StoreError> {
    codex::hooks_trust_here(own.root())
}

/// Every running workspace's waiting questions and agents, this one first.
pub fn everywhere(own: &Workspace) -> Vec<WorkspaceAttention> {
    everywhere::attention(&registry::list(), own, clock::now())
}
