//! The agent backends: the developer's own signed-in agent CLI (Claude
//! Code today) as the chat's model. Each turn runs the CLI once,
//! non-interactively, with the prompt Switchboard assembled and none of the
//! agent's own tools: its only tools are the sidecar's (`read_file`,
//! `search_files`, `write_file`), served to it over MCP for the turn
//! ([`tool_server`]), so every write still goes through the mode's
//! allow-list, the proposals and the audit log. Its answer streams back
//! ([`stream`]); `stop` ends its process.

pub mod detect;
pub mod stream;
pub mod tool_server;

use std::{path::Path, process::Stdio, time::Duration};

use serde_json::{Value, json};
use switchboard_model::{settings::Settings, sidecar::WriteEvent};
use thiserror::Error;
use tokio::{
    io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader},
    sync::watch,
};

use self::{stream::Said, tool_server::RunTool};

/// Why an agent turn failed (all `MODEL` to the app).
#[derive(Debug, Error)]
pub enum AgentError {
    /// The CLI could not be started.
    #[error(
        "{agent} is not installed here: `{program}` could not be started ({why}); install it, or set its path in Settings ({setting})"
    )]
    NotInstalled {
        /// The agent.
        agent: &'static str,
        /// What was started.
        program: String,
        /// The setting that names it.
        setting: &'static str,
        /// The system's words.
        why: String,
    },
    /// The agent says it is not signed in.
    #[error("{agent} is not signed in ({said}); run `{program}` once and sign in")]
    NotSignedIn {
        /// The agent.
        agent: &'static str,
        /// Its program.
        program: String,
        /// Its words.
        said: String,
    },
    /// The agent ended the turn with an error.
    #[error("{agent} failed: {said}")]
    Failed {
        /// The agent.
        agent: &'static str,
        /// Its words.
        said: String,
    },
    /// Nothing came in time.
    #[error(
        "{agent} sent nothing for {after:?} and was stopped; raise SWITCHBOARD_FIRST_TOKEN_SECS if it is slow to start"
    )]
    NoFirstToken {
        /// The agent.
        agent: &'static str,
        /// How long it was given.
        after: Duration,
    },
    /// It went silent.
    #[error("{agent} went silent for {after:?} and was stopped")]
    Stalled {
        /// The agent.
        agent: &'static str,
        /// How long it was silent.
        after: Duration,
    },
    /// A version without the flags the chat needs.
    #[error("this {agent} is too old for the chat ({said}); update it (`{program} update`)")]
    TooOld {
        /// The agent.
        agent: &'static str,
        /// Its program.
        program: String,
        /// Its words.
        said: String,
    },
    /// It ended without saying how the turn went (a crash).
    #[error("{agent} ended ({status}) without a result: {stderr}")]
    Ended {
        /// The agent.
        agent: &'static str,
        /// Its exit status.
        status: String,
        /// The end of what it printed on stderr.
        stderr: String,
    },
    /// The turn's own set-up failed (the tool server, its files).
    #[error("the turn could not be set up for {agent}: {why}")]
    Setup {
        /// The agent.
        agent: &'static str,
        /// Why.
        why: String,
    },
}

/// What the turn hears from the agent as it runs.
#[derive(Debug)]
pub enum Heard<'a> {
    /// More of the answer.
    Text(&'a str),
    /// A write its tool calls made (applied, refused or held).
    Write(WriteEvent),
}

/// One turn for an agent.
pub struct Turn<'a> {
    /// The workspace (the agent runs there).
    pub workspace: &'a Path,
    /// The system prompt (base and mode prompts, learnings, specs,
    /// summary).
    pub system: &'a str,
    /// The rest: recent messages and the message.
    pub prompt: &'a str,
    /// The mode's tools (`tools::definitions`).
    pub definitions: &'a [Value],
    /// Runs one of them.
    pub run_tool: RunTool,
    /// Paths, waits.
    pub settings: &'a Settings,
}

/// How a turn ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Ran {
    /// Everything the agent answered, over all its rounds.
    pub text: String,
    /// Whether `stop` ended it.
    pub stopped: bool,
}

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

fn setup(why: impl std::fmt::Display) -> AgentError {
    AgentError::Setup {
        agent: CLAUDE,
        why: why.to_string(),
    }
}

/// Runs `turn` through Claude Code (`claude -p`, streamed JSON with
/// partial messages, no built-in tools, only the turn's MCP server, no
/// settings files — so no hooks and no `CLAUDE.md` — and no session kept),
/// telling `heard` what comes; `stop` turning true ends it.
pub async fn claude_code(
    turn: Turn<'_>,
    mut heard: impl FnMut(Heard<'_>),
    mut stop: watch::Receiver<bool>,
) -> Result<Ran, AgentError> {
    let program = detect::claude_program(turn.settings);
    let mut server = tool_server::start(turn.definitions, turn.run_tool.clone())
        .await
        .map_err(setup)?;
    let folder = tempfile::Builder::new()
        .prefix("switchboard-chat-")
        .tempdir()
        .map_err(setup)?;
    let config = folder.path().join("mcp.json");
    let servers = json!({"mcpServers": {tool_server::SERVER_NAME: {
        "type": "http",
        "url": server.url,
        "headers": {"Authorization": format!("Bearer {}", server.token)},
    }}});
    std::fs::write(&config, servers.to_string()).map_err(setup)?;
    let system = folder.path().join("system.md");
    std::fs::write(&system, turn.system).map_err(setup)?;
    let allowed: Vec<String> = turn
        .definitions
        .iter()
        .filter_map(|tool| tool["function"]["name"].as_str())
        .map(|name| format!("mcp__{}__{name}", tool_server::SERVER_NAME))
        .collect();

    let mut command = tokio::process::Command::new(&program);
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
    let mut child = command
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
        .env("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|error| AgentError::NotInstalled {
            agent: CLAUDE,
            program: program.clone(),
            setting: "claudeCodePath",
            why: error.to_string(),
        })?;
    let stdout = child.stdout.take().ok_or_else(|| setup("no output"))?;
    let mut stderr = child.stderr.take().ok_or_else(|| setup("no errors"))?;
    let errors = tokio::spawn(async move {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text).await;
        text
    });
    // The prompt goes in beside the reading: an agent that ends early (an
    // old version refusing a flag) shows why on its stderr, not as a
    // broken pipe here.
    if let Some(mut stdin) = child.stdin.take() {
        let prompt = turn.prompt.to_owned();
        tokio::spawn(async move {
            let _ = stdin.write_all(prompt.as_bytes()).await;
        });
    }
    let mut lines = BufReader::new(stdout).lines();
    let first_wait = Duration::from_secs(turn.settings.first_token_secs());
    let idle = Duration::from_secs(turn.settings.idle_secs());
    let mut text = String::new();
    let mut heard_any = false;
    let mut result = None;
    let mut stopped = false;
    loop {
        let wait = if heard_any { idle } else { first_wait };
        tokio::select! {
            line = tokio::time::timeout(wait, lines.next_line()) => {
                let line = match line {
                    Err(_) if heard_any => return Err(AgentError::Stalled { agent: CLAUDE, after: idle }),
                    Err(_) => return Err(AgentError::NoFirstToken { agent: CLAUDE, after: first_wait }),
                    Ok(Ok(Some(line))) => line,
                    Ok(_) => break,
                };
                heard_any = true;
                match stream::read(&line) {
                    Said::Text(more) => {
                        text.push_str(&more);
                        heard(Heard::Text(&more));
                    }
                    Said::Result(ended) => result = Some(ended),
                    Said::Other => {}
                }
            }
            Some(write) = server.writes.recv() => heard(Heard::Write(write)),
            () = async {
                let _ = stop.wait_for(|stopped| *stopped).await;
            } => {
                stopped = true;
                let _ = child.kill().await;
                break;
            }
        }
    }
    while let Ok(write) = server.writes.try_recv() {
        heard(Heard::Write(write));
    }
    let status = child.wait().await.map_err(setup)?;
    if stopped {
        return Ok(Ran { text, stopped });
    }
    match result {
        Some(Ok(answer)) => {
            if text.is_empty() && !answer.is_empty() {
                heard(Heard::Text(&answer));
                text = answer;
            }
            Ok(Ran { text, stopped })
        }
        Some(Err(said)) if not_signed_in(&said) => Err(AgentError::NotSignedIn {
            agent: CLAUDE,
            program,
            said,
        }),
        Some(Err(said)) => Err(AgentError::Failed {
            agent: CLAUDE,
            said,
        }),
        None => {
            let stderr = errors.await.unwrap_or_default();
            let tail: String = stderr
                .trim()
                .chars()
                .rev()
                .take(600)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            if tail.contains("unknown option") || tail.contains("unknown argument") {
                return Err(AgentError::TooOld {
                    agent: CLAUDE,
                    program,
                    said: tail,
                });
            }
            Err(AgentError::Ended {
                agent: CLAUDE,
                status: status.to_string(),
                stderr: tail,
            })
        }
    }
}

/// The part of an assembled prompt that is not the system prompt, as one
/// text for an agent that takes a single prompt: the recent messages
/// (`role`, text), then the message.
pub fn conversation(messages: &[(&str, String)]) -> String {
    let Some(((_, message), earlier)) = messages.split_last() else {
        return String::new();
    };
    if earlier.is_empty() {
        return message.clone();
    }
    let mut text = String::from("The conversation so far:\n\n");
    for (role, said) in earlier {
        let who = if *role == "assistant" {
            "You"
        } else {
            "The developer"
        };
        text.push_str(&format!("{who}: {said}\n\n"));
    }
    text.push_str("The developer now says:\n\n");
    text.push_str(message);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_conversation_ends_with_the_message_and_says_who_said_what() {
        assert_eq!(conversation(&[("user", "Plan it.".into())]), "Plan it.");
        let text = conversation(&[
            ("user", "Plan it.".into()),
            ("assistant", "A plan.".into()),
            ("user", "Shorter.".into()),
        ]);
        assert!(text.starts_with("The conversation so far:"));
        assert!(text.contains("The developer: Plan it.") && text.contains("You: A plan."));
        assert!(text.ends_with("Shorter."));
    }

    #[test]
    fn sign_in_failures_are_told_from_other_failures() {
        assert!(not_signed_in("Not logged in · Please run /login"));
        assert!(not_signed_in("Invalid API key · Fix external API key"));
        assert!(!not_signed_in("Overloaded"));
    }
}
