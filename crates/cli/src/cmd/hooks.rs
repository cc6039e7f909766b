//! `switchboard hooks install` / `uninstall`: add and remove exactly
//! Switchboard's hooks in an agent's project settings, everything else
//! kept.

use std::path::Path;

use anyhow::{Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use jsonc_parser::{ParseOptions, cst::CstRootNode};
use serde_json::{Value, json};
use switchboard_model::agent::{AgentKind, launch};
use switchboard_store::Workspace;

use crate::mcp::install::{cst_value, unparsable};

use super::hook::{DEFAULT_WAIT_SECS, HookAgent};

/// `switchboard hooks …`.
#[derive(Debug, Subcommand)]
pub enum HooksCommand {
    /// Print the hooks that bring an agent's questions into Switchboard;
    /// with --write, add them to the project's settings for that agent,
    /// everything else kept (again: nothing changes).
    Install(InstallArgs),
    /// Remove exactly the hooks `install` added.
    Uninstall(InstallArgs),
}

/// Where and how hooks are installed.
#[derive(Debug, Args)]
pub struct InstallArgs {
    /// The agent.
    #[arg(value_enum)]
    pub agent: HookAgent,
    /// Change the settings file instead of printing what would change.
    #[arg(long)]
    pub write: bool,
    /// Claude Code: the shared `.claude/settings.json` (committed) instead
    /// of your own `.claude/settings.local.json`.
    #[arg(long)]
    pub shared: bool,
    /// Seconds a permission request waits for an answer in the window.
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_WAIT_SECS)]
    pub wait: u64,
}

/// Whether Codex runs Switchboard's hooks in `folder`, and the sentence
/// that says so (what to do when it does not); `None` when none are
/// installed there.
pub(crate) fn codex_trust_note(folder: &Path) -> Option<(bool, String)> {
    match switchboard_store::codex::hooks_trust_here(folder) {
        Ok(trust) => trust.map(|trust| (trust.runs(), trust.sentence())),
        Err(error) => Some((
            false,
            format!("Could not tell whether Codex trusts Switchboard's hooks: {error}"),
        )),
    }
}

/// Tells, for Codex, how it comes to run the hooks and whether it does now.
fn tell_codex_trust(workspace: &Workspace, agent: HookAgent) {
    if agent != HookAgent::Codex {
        return;
    }
    println!("{CODEX_TRUST_HOWTO}");
    if let Some((_, note)) = codex_trust_note(workspace.root()) {
        println!("Now: {note}");
    }
}

/// How Codex comes to run project hooks, told after they are installed.
const CODEX_TRUST_HOWTO: &str = "Codex runs a project's hooks only once it trusts the project \
(its first start in the folder asks; or [projects.\"<folder>\"] trust_level = \"trusted\" in \
$CODEX_HOME/config.toml) and each hook (its start lists them for review: \"Trust all and \
continue\", or /hooks and t; a hook changed since is reviewed again). For one run without \
review: `codex --dangerously-bypass-hook-trust`.";

/// The marker every hook command Switchboard installs starts with.
const OURS: &str = "switchboard hook";

/// The settings file and the hooks for `args`.
struct Plan {
    file: &'static str,
    timeout_key: &'static str,
    events: Vec<(&'static str, u64, String)>,
}

fn plan(args: &InstallArgs) -> Plan {
    let agent = args
        .agent
        .to_possible_value()
        .map_or_else(String::new, |value| value.get_name().to_owned());
    let asking = format!(
        "{OURS} --agent {agent} --wait {}",
        args.wait.saturating_sub(10).max(1)
    );
    let telling = format!("{OURS} --agent {agent}");
    let (kind, file) = match args.agent {
        HookAgent::ClaudeCode => (
            AgentKind::ClaudeCode,
            if args.shared {
                ".claude/settings.json"
            } else {
                ".claude/settings.local.json"
            },
        ),
        HookAgent::Codex => (AgentKind::Codex, ".codex/hooks.json"),
    };
    Plan {
        file,
        // Codex 0.171 reads `timeout` too (a `timeout_sec` key is ignored,
        // leaving its 600 s default).
        timeout_key: "timeout",
        events: launch::hook_events(kind)
            .iter()
            .map(|(event, asks)| {
                if *asks {
                    (*event, args.wait, asking.clone())
                } else {
                    (*event, launch::TELLING_TIMEOUT_SECS, telling.clone())
                }
            })
            .collect(),
    }
}

/// Whether a matcher group is one Switchboard installed.
fn is_ours(group: &Value) -> bool {
    group["hooks"].as_array().is_some_and(|hooks| {
        hooks.iter().any(|hook| {
            hook["command"]
                .as_str()
                .is_some_and(|command| command.starts_with(OURS))
        })
    })
}

fn group(plan: &Plan, command: &str, timeout: u64) -> Value {
    json!({
        "matcher": "",
        "hooks": [{"type": "command", "command": command, plan.timeout_key: timeout}],
    })
}

/// `text` with Switchboard's hooks set (`install`) or removed; every
/// other key, hook and comment stays as it was.
fn edit(text: &str, plan: &Plan, install: bool) -> Result<String> {
    let source = if text.trim().is_empty() { "{}\n" } else { text };
    let root = CstRootNode::parse(source, &ParseOptions::default())
        .map_err(|error| unparsable(format!("it is not JSON: {error}")))?;
    let top = root
        .object_value()
        .ok_or_else(|| unparsable("its top level is not an object"))?;
    if !install && top.get("hooks").is_none() {
        return Ok(text.to_owned());
    }
    let hooks = top
        .object_value_or_create("hooks")
        .ok_or_else(|| unparsable("\"hooks\" is there but is not an object"))?;
    for (event, timeout, command) in &plan.events {
        let wanted = group(plan, command, *timeout);
        if !install && hooks.get(event).is_none() {
            continue;
        }
        let groups = hooks
            .array_value_or_create(event)
            .ok_or_else(|| unparsable(format!("hooks.{event} is there but is not a list")))?;
        let ours: Vec<_> = groups
            .elements()
            .into_iter()
            .filter(|element| {
                element
                    .to_serde_value()
                    .is_some_and(|value| is_ours(&value))
            })
            .collect();
        let already = ours.len() == 1 && ours[0].to_serde_value().as_ref() == Some(&wanted);
        if install && already {
            continue;
        }
        for element in ours {
            element.remove();
        }
        if install {
            groups.append(cst_value(&wanted));
        } else if groups.elements().is_empty()
            && let Some(property) = hooks.get(event)
        {
            property.remove();
        }
    }
    if !install
        && hooks.properties().is_empty()
        && let Some(property) = top.get("hooks")
    {
        property.remove();
    }
    Ok(root.to_string())
}

/// `hooks install` / `hooks uninstall`.
pub fn install(workspace: &Workspace, command: &HooksCommand) -> Result<()> {
    let (args, installing) = match command {
        HooksCommand::Install(args) => (args, true),
        HooksCommand::Uninstall(args) => (args, false),
    };
    let plan = plan(args);
    let path = workspace.root().join(plan.file);
    let existing = switchboard_store::regular::read_text_in(workspace.root(), &path, 1 << 20)?
        .unwrap_or_default();
    let edited = edit(&existing, &plan, installing).with_context(|| {
        format!(
            "{} was left as it is because it could not be edited safely",
            path.display()
        )
    })?;
    if edited == existing || (!installing && existing.is_empty()) {
        let state = if installing {
            "already has"
        } else {
            "has none of"
        };
        println!("{} {state} Switchboard's hooks", path.display());
        if installing {
            tell_codex_trust(workspace, args.agent);
        }
        return Ok(());
    }
    if !args.write {
        let verb = if installing { "add" } else { "remove" };
        eprintln!(
            "This would {verb} Switchboard's hooks in {} (run again with --write):",
            path.display()
        );
        println!("{edited}");
        if installing && args.agent == HookAgent::Codex {
            eprintln!("{CODEX_TRUST_HOWTO}");
        }
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("could not create {}", parent.display()))?;
    }
    switchboard_store::write_atomic(&path, edited.as_bytes())?;
    let events: Vec<&str> = plan.events.iter().map(|(event, ..)| *event).collect();
    if installing {
        println!(
            "updated {}: switchboard hook on {}",
            path.display(),
            events.join(", ")
        );
        tell_codex_trust(workspace, args.agent);
    } else {
        println!("updated {}: Switchboard's hooks removed", path.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use super::*;

    fn args(agent: HookAgent) -> InstallArgs {
        InstallArgs {
            agent,
            write: true,
            shared: false,
            wait: 300,
        }
    }

    #[test]
    fn install_keeps_every_other_hook_and_key_and_uninstall_removes_exactly_ours() {
        let before = r#"{
  // mine
  "permissions": {"allow": ["Bash(ls)"]},
  "hooks": {
    "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send done"}]}]
  }
}
"#;
        let plan = plan(&args(HookAgent::ClaudeCode));
        let after = edit(before, &plan, true).unwrap();
        assert!(
            after.contains("// mine") && after.contains(r#""allow": ["Bash(ls)"]"#),
            "{after}"
        );
        let parsed: Value =
            jsonc_parser::parse_to_serde_value(&after, &ParseOptions::default()).unwrap();
        assert_eq!(parsed["hooks"]["Stop"].as_array().unwrap().len(), 2);
        assert_eq!(
            parsed["hooks"]["Stop"][0]["hooks"][0]["command"],
            "notify-send done"
        );
        assert_eq!(
            parsed["hooks"]["PermissionRequest"][0]["hooks"][0],
            json!({"type": "command", "command": "switchboard hook --agent claude-code --wait 290", "timeout": 300})
        );
        assert_eq!(
            edit(&after, &plan, true).unwrap(),
            after,
            "a second install changes nothing"
        );
        let removed = edit(&after, &plan, false).unwrap();
        let parsed: Value =
            jsonc_parser::parse_to_serde_value(&removed, &ParseOptions::default()).unwrap();
        assert_eq!(
            parsed,
            json!({"permissions": {"allow": ["Bash(ls)"]}, "hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send done"}]}]}})
        );
        // A fresh file: install, then uninstall leaves no trace of hooks.
        let fresh = edit("", &plan, true).unwrap();
        let cleared: Value = jsonc_parser::parse_to_serde_value(
            &edit(&fresh, &plan, false).unwrap(),
            &ParseOptions::default(),
        )
        .unwrap();
        assert_eq!(cleared, json!({}));
    }

    #[test]
    fn codex_gets_its_own_file_events_and_timeout_key_and_bad_files_are_refused() {
        let plan = plan(&args(HookAgent::Codex));
        assert_eq!(plan.file, ".codex/hooks.json");
        let written: Value = serde_json::from_str(&edit("", &plan, true).unwrap()).unwrap();
        assert_eq!(
            written["hooks"]["PermissionRequest"][0]["hooks"][0]["timeout"], 300,
            "the key Codex reads"
        );
        assert!(written["hooks"].get("Notification").is_none());
        assert!(edit("[1]", &plan, true).is_err());
        assert!(edit("{\"hooks\": 3}", &plan, true).is_err());
        assert!(edit("{not json", &plan, true).is_err());
    }
}
