//! Codex as the chat's model: each turn is one `codex exec --json` run.

use tokio::sync::watch;

use super::{AgentError, Cli, Heard, Ran, Turn, codex_events::Events, detect, tool_server};

/// Its name for people.
const CODEX: &str = "Codex";

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

/// Runs `turn` through Codex (`codex exec --json`, see [`CODEX_ARGS`]) with
/// the turn's MCP server as its only one (it replaces the developer's
/// `mcp_servers` for this run), telling `heard` what comes; `stop` turning
/// true ends it.
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
    let (mut server, _folder, system) = cli.prepare(&turn).await?;
    let servers = format!(
        "mcp_servers={{{}={{url={},bearer_token_env_var={},default_tools_approval_mode=\"approve\"}}}}",
        tool_server::SERVER_NAME,
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
        .arg(servers)
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
    fn settings_are_written_as_toml_strings() {
        assert_eq!(toml_string("a \"b\" \\c"), r#""a \"b\" \\c""#);
    }
}
