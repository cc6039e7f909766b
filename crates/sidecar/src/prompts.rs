//! The system prompts: built in, overridable per workspace in
//! `.prompts/system/{base,planning,building,analyzing}.md`.

use std::path::Path;

use switchboard_model::chat::ChatMode;
use switchboard_store::{StoreError, contain};

const BASE: &str = include_str!("../prompts/base.md");
const PLANNING: &str = include_str!("../prompts/planning.md");
const BUILDING: &str = include_str!("../prompts/building.md");
const ANALYZING: &str = include_str!("../prompts/analyzing.md");

/// A system prompt, and why the workspace's override was not read when a
/// symlink leads it out of the workspace (the built-in one is used then).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemPrompt {
    /// The text sent.
    pub text: String,
    /// Why the override was refused, in words.
    pub refused: Option<String>,
}

fn load(workspace: &Path, name: &str, built_in: &str) -> SystemPrompt {
    let path = workspace.join(".prompts/system").join(format!("{name}.md"));
    let (text, refused) = match contain::read_inside(workspace, &path) {
        Ok(text) => (Some(text), None),
        Err(refused @ StoreError::OutsideWorkspace { .. }) => (None, Some(refused.to_string())),
        Err(_) => (None, None),
    };
    SystemPrompt {
        text: text
            .filter(|text| !text.trim().is_empty())
            .unwrap_or_else(|| built_in.to_owned()),
        refused,
    }
}

/// The base prompt.
pub fn base(workspace: &Path) -> SystemPrompt {
    load(workspace, "base", BASE)
}

/// The prompt of `mode`.
pub fn for_mode(workspace: &Path, mode: ChatMode) -> SystemPrompt {
    let built_in = match mode {
        ChatMode::Planning => PLANNING,
        ChatMode::Building => BUILDING,
        ChatMode::Analyzing => ANALYZING,
    };
    load(workspace, mode.as_str(), built_in)
}
