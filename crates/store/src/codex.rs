//! What Codex's own files say about the hooks Switchboard installs in a
//! project: the project's `.codex/hooks.json` and Codex's user
//! configuration (`$CODEX_HOME/config.toml`, by default `~/.codex/`), both
//! read and never written — trusting is the developer's act, in Codex.
//! The rule is `switchboard_model::agent::codex_hooks`.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
};

use serde::Deserialize;
use switchboard_model::agent::codex_hooks::{
    CodexHookState, CodexHooksTrust, CodexTrustConfig, SWITCHBOARD_HOOK, TrustCandidates, assess,
    installed_hooks,
};

use crate::StoreError;

/// The project's hooks file, relative to its folder.
pub const HOOKS_FILE: &str = ".codex/hooks.json";

/// The most of Codex's configuration or hooks file read: a few KiB are
/// usual; a file made to exhaust memory is refused.
const MAX_BYTES: u64 = 4 << 20;

/// Codex's home: `$CODEX_HOME`, else `~/.codex`.
pub fn home() -> Option<PathBuf> {
    std::env::var_os("CODEX_HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from)
        .or_else(|| dirs::home_dir().map(|home| home.join(".codex")))
}

#[derive(Deserialize, Default)]
struct ConfigFile {
    #[serde(default)]
    projects: HashMap<String, ProjectEntry>,
    #[serde(default)]
    hooks: HooksTable,
}

#[derive(Deserialize, Default)]
struct ProjectEntry {
    trust_level: Option<String>,
}

#[derive(Deserialize, Default)]
struct HooksTable {
    #[serde(default)]
    state: HashMap<String, StateEntry>,
}

#[derive(Deserialize, Default)]
struct StateEntry {
    trusted_hash: Option<String>,
    enabled: Option<bool>,
}

/// The trust Codex's user configuration in `home` records (none when the
/// file does not exist).
pub fn trust_config(home: &Path) -> Result<CodexTrustConfig, StoreError> {
    let path = home.join("config.toml");
    let text = crate::regular::read_text_in(home, &path, MAX_BYTES)?.unwrap_or_default();
    let parsed: ConfigFile = toml::from_str(&text).map_err(|error| StoreError::Corrupt {
        path: path.clone(),
        reason: error.to_string(),
    })?;
    Ok(CodexTrustConfig {
        file: path.display().to_string(),
        projects: parsed
            .projects
            .into_iter()
            .filter_map(|(folder, entry)| entry.trust_level.map(|level| (folder, level)))
            .collect(),
        hook_states: parsed
            .hooks
            .state
            .into_iter()
            .map(|(key, entry)| {
                (
                    key,
                    CodexHookState {
                        trusted_hash: entry.trusted_hash,
                        enabled: entry.enabled,
                    },
                )
            })
            .collect(),
    })
}

/// The folders whose trust decides `folder`'s (a canonical path): itself,
/// its project root (the nearest folder at or above it holding `.git`) and,
/// for a git worktree, the repository's main checkout.
pub fn trust_candidates(folder: &Path) -> TrustCandidates {
    let project_root = folder
        .ancestors()
        .find(|ancestor| ancestor.join(".git").exists());
    let repo_root = project_root
        .and_then(main_checkout)
        .filter(|main| Some(main.as_path()) != project_root);
    TrustCandidates {
        folder: folder.display().to_string(),
        project_root: project_root.map(|root| root.display().to_string()),
        repo_root: repo_root.map(|root| root.display().to_string()),
    }
}

/// A worktree's main checkout: its `.git` file names its git folder, whose
/// `commondir` is the repository's, inside the main checkout.
fn main_checkout(checkout: &Path) -> Option<PathBuf> {
    let dot_git = checkout.join(".git");
    if dot_git.is_dir() {
        return Some(checkout.to_owned());
    }
    let pointer = crate::regular::read_to_string_in(checkout, &dot_git, 4096).ok()?;
    let git_dir = checkout.join(pointer.trim().strip_prefix("gitdir:")?.trim());
    // Where git's own pointer leads.
    let anywhere = Path::new(crate::regular::ANYWHERE);
    let common =
        crate::regular::read_to_string_in(anywhere, &git_dir.join("commondir"), 4096).ok()?;
    let common = git_dir.join(common.trim()).canonicalize().ok()?;
    common.parent().map(Path::to_owned)
}

/// Whether Codex runs Switchboard's hooks in `folder`'s
/// `.codex/hooks.json`, by the configuration in Codex's `home`; `None`
/// when the file holds none of them (or does not parse: Codex ignores it
/// too).
pub fn hooks_trust(folder: &Path, home: &Path) -> Result<Option<CodexHooksTrust>, StoreError> {
    let path = folder.join(HOOKS_FILE);
    let Some(text) = crate::regular::read_text_in(folder, &path, MAX_BYTES)? else {
        return Ok(None);
    };
    let Ok(hooks) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Ok(None);
    };
    let installed = installed_hooks(&hooks, &path.display().to_string(), |command| {
        command.starts_with(SWITCHBOARD_HOOK)
    });
    if installed.is_empty() {
        return Ok(None);
    }
    Ok(assess(
        &installed,
        &trust_candidates(folder),
        &trust_config(home)?,
    ))
}

/// [`hooks_trust`] for Codex's own home ([`home`]); `None` also when there
/// is no home to read.
pub fn hooks_trust_here(folder: &Path) -> Result<Option<CodexHooksTrust>, StoreError> {
    match home() {
        Some(home) => hooks_trust(folder, &home),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use super::*;

    #[test]
    fn a_worktree_is_decided_by_itself_its_checkout_and_the_main_checkout() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let main = root.join("main");
        let worktree = root.join("wt");
        std::fs::create_dir_all(main.join(".git/worktrees/wt")).unwrap();
        std::fs::write(main.join(".git/worktrees/wt/commondir"), "../..\n").unwrap();
        std::fs::create_dir_all(worktree.join("app")).unwrap();
        std::fs::write(
            worktree.join(".git"),
            format!("gitdir: {}\n", main.join(".git/worktrees/wt").display()),
        )
        .unwrap();
        assert_eq!(
            trust_candidates(&worktree.join("app")),
            TrustCandidates {
                folder: worktree.join("app").display().to_string(),
                project_root: Some(worktree.display().to_string()),
                repo_root: Some(main.display().to_string()),
            }
        );
        assert_eq!(
            trust_candidates(&main),
            TrustCandidates {
                folder: main.display().to_string(),
                project_root: Some(main.display().to_string()),
                repo_root: None,
            },
            "a main checkout is its own repository root"
        );
    }

    #[test]
    fn hooks_not_switchboard_s_or_no_file_say_nothing_and_a_bad_config_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(home.join("x")).unwrap();
        assert_eq!(hooks_trust(dir.path(), &home).unwrap(), None);
        std::fs::create_dir_all(dir.path().join(".codex")).unwrap();
        std::fs::write(
            dir.path().join(HOOKS_FILE),
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send"}]}]}}"#,
        )
        .unwrap();
        assert_eq!(hooks_trust(dir.path(), &home).unwrap(), None);
        std::fs::write(
            dir.path().join(HOOKS_FILE),
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "switchboard hook --agent codex"}]}]}}"#,
        )
        .unwrap();
        assert!(matches!(
            hooks_trust(dir.path(), &home).unwrap(),
            Some(CodexHooksTrust::ProjectNotTrusted { .. })
        ));
        std::fs::write(home.join("config.toml"), "[projects\n").unwrap();
        assert!(matches!(
            hooks_trust(dir.path(), &home),
            Err(StoreError::Corrupt { .. })
        ));
    }
}
