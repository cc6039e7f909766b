//! Codex as the chat's model: each turn is one `codex exec --json` run.

use std::{path::Path, process::Stdio, time::Duration};

use serde::Deserialize;
use tokio::sync::watch;

use super::{
    AgentError, Cli, Heard, Ran, STDERR_KEPT, Turn, codex_events::Events, detect, refused_a_flag,
    tail,
};

/// Its name for people.
const CODEX: &str = "Codex";

/// The turn's MCP server's name in Codex (its tools are
/// `mcp__switchboard_chat__read_file`, …). Not `switchboard`: the
/// developer's Codex may have Switchboard's own MCP server under that name
/// (`switchboard mcp install`), and Codex lays `-c` settings over its
/// configured servers — a command and a URL under one name make a server
/// it refuses to load.
const SERVER_NAME: &str = "switchboard_chat";

/// How long listing the developer's MCP servers may take.
const LIST_LIMIT: Duration = Duration::from_secs(10);

/// One server of `codex mcp list --json` (the fields read here).
#[derive(Debug, Deserialize)]
struct Listed {
    name: String,
    #[serde(default = "enabled")]
    enabled: bool,
}

fn enabled() -> bool {
    true
}

/// The variable the turn's MCP token reaches Codex in (never a flag: flags
/// are visible to every user in the process list).
const TOKEN_VARIABLE: &str = "SWITCHBOARD_CHAT_TOKEN";

/// The flags every turn runs `codex` with: non-interactive, JSON events, no
/// session kept, none of its tools that run commands, read images, search
/// the web, spawn agents, set goals, sleep, draw images, drive a browser or
/// the computer, or reach apps and plugins; no hooks, no `notify` program,
/// no execpolicy rules;
/// its sandbox read-only with approvals never asked, so the `apply_patch`
/// some model families carry is refused; and none of its own prompt parts
/// (`AGENTS.md`, skills, the environment, the sandbox's instructions). The
/// turn adds the workspace, the system prompt and its MCP server; the
/// prompt comes on stdin (`-`).
pub const CODEX_ARGS: [&str; 49] = [
    "exec",
    "--json",
    "--skip-git-repo-check",
    "--ephemeral",
    "--ignore-rules",
    "--sandbox",
    "read-only",
    "--disable",
    "shell_tool",
    "--disable",
    "unified_exec",
    "--disable",
    "view_image",
    "--disable",
    "multi_agent",
    "--disable",
    "goals",
    "--disable",
    "hooks",
    "--disable",
    "sleep_tool",
    "--disable",
    "image_generation",
    "--disable",
    "browser_use",
    "--disable",
    "computer_use",
    "--disable",
    "apps",
    "--disable",
    "plugins",
    "--disable",
    "tool_suggest",
    "--disable",
    "memories",
    "-c",
    "web_search=\"disabled\"",
    "-c",
    "approval_policy=\"never\"",
    "-c",
    "project_doc_max_bytes=0",
    "-c",
    "skills.include_instructions=false",
    "-c",
    "include_environment_context=false",
    "-c",
    "include_permissions_instructions=false",
    "-c",
    "notify=[]",
];

/// Whether Codex's words mean it has no usable sign-in.
fn not_signed_in(said: &str) -> bool {
    let said = said.to_lowercase();
    ["401", "unauthorized", "not logged in", "codex login"]
        .iter()
        .any(|sign| said.contains(sign))
}

/// Whether `model` is one Codex would know (its catalog's names), so it is
/// passed on; another backend's model is left to Codex's default.
fn a_codex_model(model: &str) -> bool {
    let mut chars = model.chars();
    model.starts_with("gpt-")
        || model.starts_with("codex-")
        || (chars.next() == Some('o') && chars.next().is_some_and(|c| c.is_ascii_digit()))
}

/// A TOML string holding `text` (a JSON string is one).
fn toml_string(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

/// The settings that turn off, for one run, the MCP servers the
/// developer's Codex would start in `workspace` (from its user, project and
/// managed settings, as `codex mcp list --json` names them): `-c
/// mcp_servers=…` adds the turn's server to them, it does not replace them.
async fn others_off(cli: &Cli, workspace: &Path) -> Result<Vec<String>, AgentError> {
    let listing = tokio::process::Command::new(&cli.program)
        .args(["mcp", "list", "--json"])
        .current_dir(workspace)
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(LIST_LIMIT, listing)
        .await
        .map_err(|_| AgentError::Failed {
            agent: CODEX,
            said: format!(
                "`{} mcp list --json` did not answer within {} s",
                cli.program,
                LIST_LIMIT.as_secs()
            ),
        })?
        .map_err(|error| cli.not_installed(error))?;
    if !output.status.success() {
        let said = tail(&String::from_utf8_lossy(&output.stderr), STDERR_KEPT);
        return Err(if refused_a_flag(&said) {
            AgentError::TooOld {
                agent: CODEX,
                program: cli.program.clone(),
                said,
            }
        } else {
            AgentError::Failed {
                agent: CODEX,
                said: format!("listing its MCP servers ({}): {said}", output.status),
            }
        });
    }
    let listed: Vec<Listed> = serde_json::from_slice(&output.stdout).map_err(|error| {
        cli.setup(format!(
            "`codex mcp list --json` printed what it cannot read: {error}"
        ))
    })?;
    turn_off(listed)
}

/// The `-c` settings that turn off each of `listed` that is on.
fn turn_off(listed: Vec<Listed>) -> Result<Vec<String>, AgentError> {
    listed
        .into_iter()
        .filter(|server| server.enabled)
        .map(|server| {
            let plain = !server.name.is_empty()
                && server
                    .name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            if server.name == SERVER_NAME || !plain {
                return Err(AgentError::Setup {
                    agent: CODEX,
                    why: format!(
                        "its MCP server `{}` cannot be left out of the chat's turns; rename it in Codex's settings",
                        server.name
                    ),
                });
            }
            Ok(format!("mcp_servers.{}.enabled=false", server.name))
        })
        .collect()
}

/// Runs `turn` through Codex (`codex exec --json`, see [`CODEX_ARGS`]) with
/// the turn's MCP server as its only one (the developer's are turned off
/// for this run, [`others_off`]), telling `heard` what comes; `stop`
/// turning true ends it.
pub async fn codex(
    turn: Turn<'_>,
    mut heard: impl FnMut(Heard<'_>),
    stop: watch::Receiver<bool>,
) -> Result<Ran, AgentError> {
    let cli = Cli {
        agent: CODEX,
        program: detect::codex_program(turn.settings),
        setting: "codexPath",
        signed_out: not_signed_in,
    };
    let (prepared, off) = tokio::join!(cli.prepare(&turn), others_off(&cli, turn.workspace));
    let (mut server, _folder, system) = prepared?;
    let servers = format!(
        "mcp_servers={{{}={{url={},bearer_token_env_var={},default_tools_approval_mode=\"approve\"}}}}",
        SERVER_NAME,
        toml_string(&server.url),
        toml_string(TOKEN_VARIABLE),
    );
    let instructions = format!(
        "model_instructions_file={}",
        toml_string(&system.to_string_lossy())
    );

    let mut command = tokio::process::Command::new(&cli.program);
    command.args(CODEX_ARGS);
    if let Some(model) = turn.settings.model.as_deref().filter(|m| a_codex_model(m)) {
        command.arg("--model").arg(model);
    }
    command
        .arg("--cd")
        .arg(turn.workspace)
        .arg("-c")
        .arg(instructions)
        .arg("-c")
        .arg(servers);
    for setting in off? {
        command.arg("-c").arg(setting);
    }
    command
        .arg("-")
        .current_dir(turn.workspace)
        .env(TOKEN_VARIABLE, &server.token);
    let mut events = Events::default();
    cli.drive(
        command,
        &turn,
        |line| events.read(line),
        &mut server,
        &mut heard,
        stop,
    )
    .await
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn only_codex_models_are_passed_on() {
        for model in [
            "gpt-5.5",
            "gpt-6.2-sol",
            "o3",
            "o4-mini",
            "codex-mini-latest",
        ] {
            assert!(a_codex_model(model), "{model}");
        }
        for model in ["llama3.2", "sonnet", "claude-opus-4", "ollama", "o"] {
            assert!(!a_codex_model(model), "{model}");
        }
    }

    #[test]
    fn sign_in_failures_are_told_from_other_failures() {
        assert!(not_signed_in(
            "unexpected status 401 Unauthorized: Incorrect API key provided"
        ));
        assert!(!not_signed_in(
            "unexpected status 500 Internal Server Error"
        ));
    }

    #[test]
    fn the_developers_servers_are_turned_off_and_odd_names_refused() {
        let listed = |names: &[(&str, bool)]| {
            names
                .iter()
                .map(|(name, enabled)| Listed {
                    name: (*name).to_owned(),
                    enabled: *enabled,
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            turn_off(listed(&[
                ("switchboard", true),
                ("docs-2", true),
                ("off", false)
            ]))
            .unwrap(),
            [
                "mcp_servers.switchboard.enabled=false",
                "mcp_servers.docs-2.enabled=false"
            ]
        );
        for odd in [SERVER_NAME, "a.b", "x=y", ""] {
            let refused = turn_off(listed(&[(odd, true)])).unwrap_err().to_string();
            assert!(refused.contains("rename it"), "{odd}: {refused}");
        }
        let parsed: Vec<Listed> =
            serde_json::from_str(r#"[{"name":"a","enabled":false,"transport":{}},{"name":"b"}]"#)
                .unwrap();
        assert_eq!(turn_off(parsed).unwrap(), ["mcp_servers.b.enabled=false"]);
    }

    #[test]
    fn settings_are_written_as_toml_strings() {
        assert_eq!(toml_string("a \"b\" \\c"), r#""a \"b\" \\c""#);
    }
}
