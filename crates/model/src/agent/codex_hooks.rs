//! Whether Codex will run the hooks Switchboard installed in a project's
//! `.codex/hooks.json`, worked out the way Codex 0.171 does it, from what
//! its user configuration (`$CODEX_HOME/config.toml`) records. Codex runs a
//! project's hooks only when both hold:
//!
//! - the project is trusted: `[projects."<folder>"] trust_level =
//!   "trusted"` for the folder holding `.codex/`, else for its project root
//!   (the nearest folder above holding `.git`), else for the repository's
//!   main checkout (a worktree's);
//! - each hook was reviewed: `[hooks.state."<hooks.json path>:<event>:<group>:<handler>"]`
//!   holds a `trusted_hash` equal to the hook's hash ([`hook_hash`]); a
//!   hook changed since it was trusted needs trusting again.
//!
//! Otherwise Codex skips the hooks without a word. Nothing here reads a
//! file; the store hands the configuration over as [`CodexTrustConfig`].

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// What Codex's user configuration says about trust, as far as hooks go.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CodexTrustConfig {
    /// The configuration file (for the sentences that name it).
    pub file: String,
    /// `[projects."<folder>"] trust_level`, by folder.
    pub projects: HashMap<String, String>,
    /// `[hooks.state."<key>"]`, by key.
    pub hook_states: HashMap<String, CodexHookState>,
}

/// One hook's state in Codex's user configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CodexHookState {
    /// The hash the developer trusted.
    pub trusted_hash: Option<String>,
    /// `false` when the developer turned the hook off.
    pub enabled: Option<bool>,
}

/// The folders whose trust decides a project's, in the order Codex asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustCandidates {
    /// The folder holding `.codex/`.
    pub folder: String,
    /// The nearest folder at or above it holding `.git`, if any.
    pub project_root: Option<String>,
    /// The main checkout of the repository, when it differs (a worktree).
    pub repo_root: Option<String>,
}

/// Whether Codex will run Switchboard's hooks in a project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum CodexHooksTrust {
    /// Codex runs them.
    Trusted,
    /// Codex does not load the project's `.codex/` at all: the project is
    /// not trusted (`explicit`: marked untrusted rather than never asked).
    ProjectNotTrusted {
        /// The folder to trust.
        folder: String,
        /// Whether the configuration marks it untrusted.
        explicit: bool,
        /// Codex's configuration file.
        config: String,
    },
    /// The project is trusted, but some hooks were never reviewed or
    /// changed since: Codex skips those.
    NotReviewed {
        /// Hooks never trusted.
        new: usize,
        /// Hooks changed since they were trusted.
        changed: usize,
    },
    /// Every hook is trusted, but the developer turned some off in Codex.
    TurnedOff {
        /// How many.
        count: usize,
    },
}

impl CodexHooksTrust {
    /// Whether Codex runs every one of Switchboard's hooks.
    pub fn runs(&self) -> bool {
        matches!(self, Self::Trusted)
    }

    /// What a person reads: the state and what to do about it.
    pub fn sentence(&self) -> String {
        match self {
            Self::Trusted => "Codex trusts Switchboard's hooks here.".to_owned(),
            Self::ProjectNotTrusted {
                folder,
                explicit,
                config,
            } => {
                let state = if *explicit {
                    "is marked untrusted"
                } else {
                    "is not trusted yet"
                };
                format!(
                    "Codex will not run Switchboard's hooks: the project {folder} {state} \
                     in {config}. Start `codex` there and trust the folder (or set \
                     [projects.\"{folder}\"] trust_level = \"trusted\"), then trust the \
                     hooks it lists for review."
                )
            }
            Self::NotReviewed { new, changed } => {
                let mut parts = Vec::new();
                if *new > 0 {
                    parts.push(format!("{new} not yet trusted"));
                }
                if *changed > 0 {
                    parts.push(format!("{changed} changed since trusted"));
                }
                format!(
                    "Codex will not run Switchboard's hooks until you trust them ({}): start \
                     `codex` here and choose \"Trust all and continue\" (or type /hooks and \
                     press t).",
                    parts.join(", ")
                )
            }
            Self::TurnedOff { count } => format!(
                "{count} of Switchboard's hooks {} turned off in Codex (/hooks turns {} on).",
                if *count == 1 { "is" } else { "are" },
                if *count == 1 { "it" } else { "them" }
            ),
        }
    }
}

/// Codex's label for an event in a hook's key and hash.
fn event_label(event: &str) -> Option<&'static str> {
    Some(match event {
        "PreToolUse" => "pre_tool_use",
        "PermissionRequest" => "permission_request",
        "PostToolUse" => "post_tool_use",
        "PreCompact" => "pre_compact",
        "PostCompact" => "post_compact",
        "SessionStart" => "session_start",
        "UserPromptSubmit" => "user_prompt_submit",
        "SubagentStart" => "subagent_start",
        "SubagentStop" => "subagent_stop",
        "Stop" => "stop",
        _ => return None,
    })
}

/// Whether Codex keeps a group's matcher for `event` (it drops it for
/// events that match nothing).
fn keeps_matcher(event: &str) -> bool {
    matches!(
        event,
        "PreToolUse"
            | "PermissionRequest"
            | "PostToolUse"
            | "PreCompact"
            | "PostCompact"
            | "SessionStart"
            | "SubagentStart"
            | "SubagentStop"
    )
}

/// How every hook command Switchboard installs starts.
pub const SWITCHBOARD_HOOK: &str = "switchboard hook";

/// The timeout Codex gives a command hook that names none.
pub const DEFAULT_TIMEOUT_SECS: u64 = 600;

/// Codex's hash of one command hook: SHA-256 of the hook's normalised
/// identity as compact JSON with its keys sorted — the event's label, the
/// matcher (for events that keep one) and the one handler with its
/// timeout (default [`DEFAULT_TIMEOUT_SECS`], at least 1) and `async`.
pub fn hook_hash(
    event: &str,
    matcher: Option<&str>,
    command: &str,
    timeout: Option<u64>,
    run_async: bool,
) -> Option<String> {
    let label = event_label(event)?;
    let mut handler = BTreeMap::new();
    handler.insert("type", json!("command"));
    handler.insert("command", json!(command));
    handler.insert(
        "timeout",
        json!(timeout.unwrap_or(DEFAULT_TIMEOUT_SECS).max(1)),
    );
    handler.insert("async", json!(run_async));
    let mut identity = BTreeMap::new();
    identity.insert("event_name", json!(label));
    if keeps_matcher(event)
        && let Some(matcher) = matcher
    {
        identity.insert("matcher", json!(matcher));
    }
    identity.insert("hooks", json!([handler]));
    let canonical = serde_json::to_vec(&identity).ok()?;
    let digest = Sha256::digest(&canonical);
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    Some(format!("sha256:{hex}"))
}

/// Where Codex keeps the hooks given on its command line (`-c hooks=…`):
/// their trust keys start with it.
pub const SESSION_FLAGS_SOURCE: &str = "/<session-flags>/config.toml";

/// Codex's `[hooks.state]` entries that trust the command hooks `hooks`
/// (the `hooks` table a run is given with `-c`, `{EVENT: [{matcher,
/// hooks: [{type, command, timeout}]}]}`) for that run: each keyed by its
/// event label and place, with the hash Codex computes for it. Trusting
/// them is Switchboard's to do — they are its own, given by it for this
/// run only.
pub fn session_trust(hooks: &Value) -> Value {
    let mut state = serde_json::Map::new();
    for (event, groups) in hooks.as_object().into_iter().flatten() {
        let Some(label) = event_label(event) else {
            continue;
        };
        for (group_index, group) in groups.as_array().into_iter().flatten().enumerate() {
            let matcher = group["matcher"].as_str();
            for (handler_index, handler) in
                group["hooks"].as_array().into_iter().flatten().enumerate()
            {
                let Some(hash) = handler["command"].as_str().and_then(|command| {
                    hook_hash(event, matcher, command, handler["timeout"].as_u64(), false)
                }) else {
                    continue;
                };
                state.insert(
                    format!("{SESSION_FLAGS_SOURCE}:{label}:{group_index}:{handler_index}"),
                    json!({"trusted_hash": hash}),
                );
            }
        }
    }
    Value::Object(state)
}

/// One of Switchboard's hooks as a hooks file holds it, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstalledHook {
    /// Codex's key for it in `[hooks.state]`.
    pub key: String,
    /// Its hash as Codex computes it now.
    pub hash: Option<String>,
}

/// Switchboard's hooks in a Codex hooks file (`hooks`, at `hooks_path`),
/// chosen by `is_ours` (a command), each with its key and hash. Empty when
/// the file holds none.
pub fn installed_hooks(
    hooks: &Value,
    hooks_path: &str,
    is_ours: impl Fn(&str) -> bool,
) -> Vec<InstalledHook> {
    let mut found = Vec::new();
    let Some(events) = hooks.get("hooks").and_then(Value::as_object) else {
        return found;
    };
    for (event, groups) in events {
        let (Some(label), Some(groups)) = (event_label(event), groups.as_array()) else {
            continue;
        };
        for (group_index, group) in groups.iter().enumerate() {
            let matcher = group.get("matcher").and_then(Value::as_str);
            let handlers = group.get("hooks").and_then(Value::as_array);
            for (handler_index, handler) in handlers.into_iter().flatten().enumerate() {
                let Some(command) = handler.get("command").and_then(Value::as_str) else {
                    continue;
                };
                if !is_ours(command) {
                    continue;
                }
                let timeout = handler
                    .get("timeout")
                    .or_else(|| handler.get("timeoutSec"))
                    .and_then(Value::as_u64);
                let run_async = handler
                    .get("async")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                found.push(InstalledHook {
                    key: format!("{hooks_path}:{label}:{group_index}:{handler_index}"),
                    hash: hook_hash(event, matcher, command, timeout, run_async),
                });
            }
        }
    }
    found
}

/// Whether Codex runs `hooks` (Switchboard's, from [`installed_hooks`])
/// of the project whose trust `candidates` decide; `None` when there are
/// none.
pub fn assess(
    hooks: &[InstalledHook],
    candidates: &TrustCandidates,
    config: &CodexTrustConfig,
) -> Option<CodexHooksTrust> {
    if hooks.is_empty() {
        return None;
    }
    let decided = [
        Some(&candidates.folder),
        candidates.project_root.as_ref(),
        candidates.repo_root.as_ref(),
    ]
    .into_iter()
    .flatten()
    .find_map(|folder| config.projects.get(folder).map(|level| (folder, level)));
    match decided {
        Some((_, level)) if level == "trusted" => {}
        decided => {
            let folder = candidates
                .repo_root
                .as_ref()
                .or(candidates.project_root.as_ref())
                .unwrap_or(&candidates.folder);
            return Some(CodexHooksTrust::ProjectNotTrusted {
                folder: decided.map_or(folder, |(folder, _)| folder).clone(),
                explicit: decided.is_some(),
                config: config.file.clone(),
            });
        }
    }
    let (mut new, mut changed, mut off) = (0, 0, 0);
    for hook in hooks {
        let state = config.hook_states.get(&hook.key);
        match state.and_then(|state| state.trusted_hash.as_ref()) {
            None => new += 1,
            Some(trusted) if Some(trusted) != hook.hash.as_ref() => changed += 1,
            Some(_) if state.and_then(|state| state.enabled) == Some(false) => off += 1,
            Some(_) => {}
        }
    }
    Some(if new + changed > 0 {
        CodexHooksTrust::NotReviewed { new, changed }
    } else if off > 0 {
        CodexHooksTrust::TurnedOff { count: off }
    } else {
        CodexHooksTrust::Trusted
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use super::*;

    /// Hashes Codex 0.171 itself reported (`codex app-server`, `hooks/list`)
    /// for the hooks `switchboard hooks install codex` writes.
    #[test]
    fn hashes_are_codex_s_own() {
        assert_eq!(
            hook_hash(
                "PermissionRequest",
                Some(""),
                "switchboard hook --agent codex --wait 290",
                Some(300),
                false
            )
            .unwrap(),
            "sha256:72760f364db7e7f5993a50bc79eafea6188b497a0b44f5484a3b218c490f74c2"
        );
        assert_eq!(
            hook_hash(
                "Stop",
                Some(""),
                "switchboard hook --agent codex",
                Some(10),
                false
            )
            .unwrap(),
            "sha256:6a823aa9ba79357e5cca918d125d3ed9851e1357ba13cfe040f81783eaf9550a",
            "Stop keeps no matcher"
        );
        // A timeout Codex does not read (`timeout_sec`) is its default.
        assert_eq!(
            hook_hash(
                "PermissionRequest",
                Some(""),
                "switchboard hook --agent codex --wait 290",
                None,
                false
            )
            .unwrap(),
            "sha256:399190d0eb18c4eb9cd18dcde649c2a660b89d494451bea95e22d3bfe3e65d95"
        );
    }

    fn file() -> Value {
        json!({"hooks": {
            "PermissionRequest": [
                {"matcher": "", "hooks": [{"type": "command", "command": "mine.sh"}]},
                {"matcher": "", "hooks": [{"type": "command", "command": "switchboard hook --agent codex --wait 290", "timeout": 300}]}
            ],
            "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "switchboard hook --agent codex", "timeout": 10}]}]
        }})
    }

    fn ours(command: &str) -> bool {
        command.starts_with("switchboard hook")
    }

    fn candidates() -> TrustCandidates {
        TrustCandidates {
            folder: "/w/app".into(),
            project_root: Some("/w".into()),
            repo_root: None,
        }
    }

    #[test]
    fn keys_name_the_file_event_group_and_handler() {
        let hooks = installed_hooks(&file(), "/w/app/.codex/hooks.json", ours);
        let keys: Vec<&str> = hooks.iter().map(|hook| hook.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "/w/app/.codex/hooks.json:permission_request:1:0",
                "/w/app/.codex/hooks.json:stop:0:0"
            ]
        );
        assert!(installed_hooks(&json!({}), "x", ours).is_empty());
        assert_eq!(
            assess(&[], &candidates(), &CodexTrustConfig::default()),
            None
        );
    }

    #[test]
    fn trust_needs_the_project_and_each_hook() {
        let hooks = installed_hooks(&file(), "/w/app/.codex/hooks.json", ours);
        let mut config = CodexTrustConfig {
            file: "/home/me/.codex/config.toml".into(),
            ..CodexTrustConfig::default()
        };
        assert_eq!(
            assess(&hooks, &candidates(), &config),
            Some(CodexHooksTrust::ProjectNotTrusted {
                folder: "/w".into(),
                explicit: false,
                config: "/home/me/.codex/config.toml".into()
            }),
            "never asked: the project root is the folder to trust"
        );
        config.projects.insert("/w".into(), "untrusted".into());
        assert!(matches!(
            assess(&hooks, &candidates(), &config),
            Some(CodexHooksTrust::ProjectNotTrusted { explicit: true, .. })
        ));
        // The folder itself decides before its project root.
        config.projects.insert("/w/app".into(), "trusted".into());
        assert_eq!(
            assess(&hooks, &candidates(), &config),
            Some(CodexHooksTrust::NotReviewed { new: 2, changed: 0 })
        );
        config.hook_states.insert(
            hooks[0].key.clone(),
            CodexHookState {
                trusted_hash: Some("sha256:old".into()),
                enabled: None,
            },
        );
        config.hook_states.insert(
            hooks[1].key.clone(),
            CodexHookState {
                trusted_hash: hooks[1].hash.clone(),
                enabled: None,
            },
        );
        let changed = assess(&hooks, &candidates(), &config).unwrap();
        assert_eq!(changed, CodexHooksTrust::NotReviewed { new: 0, changed: 1 });
        assert!(
            changed.sentence().contains("/hooks"),
            "{}",
            changed.sentence()
        );
        config
            .hook_states
            .get_mut(&hooks[0].key)
            .unwrap()
            .trusted_hash = hooks[0].hash.clone();
        assert_eq!(
            assess(&hooks, &candidates(), &config),
            Some(CodexHooksTrust::Trusted)
        );
        config.hook_states.get_mut(&hooks[0].key).unwrap().enabled = Some(false);
        assert_eq!(
            assess(&hooks, &candidates(), &config),
            Some(CodexHooksTrust::TurnedOff { count: 1 })
        );
    }
}
