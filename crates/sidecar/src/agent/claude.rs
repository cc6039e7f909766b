//! Claude Code as the chat's model: each turn is one `claude -p` run.

use serde_json::json;
use tokio::sync::watch;

use super::{AgentError, Cli, Heard, Ran, Turn, claude_stream, detect, tool_server};

/// Its name for people.
const CLAUDE: &str = "Claude Code";

/// The flags every turn runs `claude` with: print mode, streamed JSON with
/// partial messages, none of its built-in tools, no settings files (so no
/// hooks and no `CLAUDE.md`), no session kept. The turn adds its MCP
/// configuration, system prompt and allowed tools.
pub const CLAUDE_ARGS: [&str; 11] = [
    "-p",
    "--output-format",
    "stream-json",
    "--include-partial-messages",
    "--verbose",
    "--tools",
    "",
    "--strict-mcp-config",
    "--setting-sources",
    "",
    "--no-session-persistence",
];

/// Whether Claude Code's words mean it has no usable sign-in.
fn not_signed_in(said: &str) -> bool {
    let said = said.to_lowercase();
    [
        "not logged in",
        "/login",
        "invalid api key",
        "authentication",
        "oauth token",
    ]
    .iter()
    .any(|sign| said.contains(sign))
}

/// Runs `turn` through Claude Code (`claude -p`, streamed JSON with
/// partial messages, no built-in tools, only the turn's MCP server, no
/// settings files — so no hooks and no `CLAUDE.md` — and no session kept),
/// telling `heard` what comes; `stop` turning true ends it.
pub async fn claude_code(
    turn: Turn<'_>,
    mut heard: impl FnMut(Heard<'_>),
    stop: watch::Receiver<bool>,
) -> Result<Ran, AgentError> {
    let cli = Cli {
        agent: CLAUDE,
        program: detect::claude_program(turn.settings),
        setting: "claudeCodePath",
        signed_out: not_signed_in,
    };
    let (mut server, folder, system) = cli.prepare(&turn).await?;
    let config = folder.path().join("mcp.json");
    let servers = json!({"mcpServers": {tool_server::SERVER_NAME: {
        "type": "http",
        "url": server.url,
        "headers": {"Authorization": format!("Bearer {}", server.token)},
    }}});
    std::fs::write(&config, servers.to_string()).map_err(|error| cli.setup(error))?;
    let allowed: Vec<String> = turn
        .definitions
        .iter()
        .filter_map(|tool| tool["function"]["name"].as_str())
        .map(|name| format!("mcp__{}__{name}", tool_server::SERVER_NAME))
        .collect();

    let mut command = tokio::process::Command::new(&cli.program);
    // A model Claude Code knows by name; anything else (another backend's
    // model) is left to its default.
    if let Some(model) = turn
        .settings
        .model
        .as_deref()
        .filter(|model| detect::CLAUDE_MODELS.contains(model) || model.starts_with("claude-"))
    {
        command.arg("--model").arg(model);
    }
    command
        .args(CLAUDE_ARGS)
        .arg("--mcp-config")
        .arg(&config)
        .arg("--system-prompt-file")
        .arg(&system)
        .arg("--allowedTools")
        .arg(allowed.join(","))
        .current_dir(turn.workspace)
        // Its own project memory (CLAUDE.md, auto-memory) is not part of
        // the prompt Switchboard assembled.
        .env("CLAUDE_CODE_DISABLE_CLAUDE_MDS", "1")
        .env("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1");
    cli.drive(
        command,
        &turn,
        claude_stream::read,
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
    fn sign_in_failures_are_told_from_other_failures() {
        assert!(not_signed_in("Not logged in · Please run /login"));
        assert!(not_signed_in("Invalid API key · Fix external API key"));
        assert!(!not_signed_in("Overloaded"));
    }
}
