//! The system prompts: built in, overridable per workspace in
//! `.prompts/system/{base,planning,building,analyzing}.md`.

use std::path::Path;

use switchboard_model::chat::ChatMode;

const BASE: &str = include_str!("../prompts/base.md");
const PLANNING: &str = include_str!("../prompts/planning.md");
const BUILDING: &str = include_str!("../prompts/building.md");
const ANALYZING: &str = include_str!("../prompts/analyzing.md");

fn load(workspace: &Path, name: &str, built_in: &str) -> String {
    let path = workspace.join(".prompts/system").join(format!("{name}.md"));
    std::fs::read_to_string(path)
        .ok()
        .filter(|text| !text.trim().is_empty())
        .unwrap_or_else(|| built_in.to_owned())
}

/// The base prompt.
pub fn base(workspace: &Path) -> String {
    load(workspace, "base", BASE)
}

/// The prompt of `mode`.
pub fn for_mode(workspace: &Path, mode: ChatMode) -> String {
    let built_in = match mode {
        ChatMode::Planning => PLANNING,
        ChatMode::Building => BUILDING,
        ChatMode::Analyzing => ANALYZING,
    };
    load(workspace, mode.as_str(), built_in)
}
