//! The agent backends: the developer's own signed-in agent CLI (Claude
//! Code, Codex) as the chat's model. Each turn runs the CLI once,
//! non-interactively, with the prompt Switchboard assembled and none of the
//! agent's own tools that run commands, read files or write: its file tools
//! are the sidecar's (`read_file`, `search_files`, `write_file`), served to
//! it over MCP for the turn ([`tool_server`]), so every write still goes
//! through the mode's allow-list, the proposals and the audit log. Its
//! answer streams back (read by `claude_stream` or `codex_events`); `stop`
//! ends its process. [`detect`] finds the backend when none is set.

mod claude;
mod claude_stream;
mod codex;
mod codex_events;
pub mod detect;
pub mod tool_server;

use std::{path::Path, process::Stdio, time::Duration};

use serde_json::Value;
use switchboard_model::{settings::Settings, sidecar::WriteEvent};
use thiserror::Error;
use tokio::{
    io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader},
    sync::watch,
};

use self::tool_server::RunTool;
pub use self::{
    claude::{CLAUDE_ARGS, claude_code},
    codex::{CODEX_ARGS, codex},
};

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
        "{agent} began no answer for {after:?} and was stopped; raise SWITCHBOARD_FIRST_TOKEN_SECS if its model thinks long before answering"
    )]
    NoFirstToken {
        /// The agent.
        agent: &'static str,
        /// How long it was given.
        after: Duration,
    },
    /// It went silent (or only said it was waiting).
    #[error(
        "{agent} made no progress for {after:?} and was stopped{last}; raise SWITCHBOARD_IDLE_SECS if it is slow"
    )]
    Stalled {
        /// The agent.
        agent: &'static str,
        /// How long it made none.
        after: Duration,
        /// Its last words while waiting (`; it last said: …`), or nothing.
        last: String,
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

/// What one line of an agent's output says, as far as a turn cares.
#[derive(Debug, Clone, PartialEq)]
pub enum Said {
    /// More of the answer's text.
    Text(String),
    /// The run ended: `Ok` with the whole answer (empty when it came as
    /// [`Said::Text`]), `Err` with why not.
    Result(Result<String, String>),
    /// The agent ignored a setting the turn needs (a version that does not
    /// know it): the turn stops, as it could not keep its promises.
    TooOld(String),
    /// Alive but making no progress (reconnecting), in these words: not
    /// counted as progress against the idle limit.
    Waiting(String),
    /// Anything else (the start, whole messages, tool calls): progress,
    /// nothing to show.
    Other,
}

/// The agent CLI a turn runs and how to read its failures.
#[derive(Debug, Clone)]
struct Cli {
    /// Its name for people.
    agent: &'static str,
    /// What was started.
    program: String,
    /// The setting that names its path.
    setting: &'static str,
    /// Whether its words mean it has no usable sign-in.
    signed_out: fn(&str) -> bool,
}

/// The most of an agent's stderr kept, for the error that quotes it.
const STDERR_KEPT: usize = 4096;

/// Whether what a CLI printed means it does not know a flag the turn used.
fn refused_a_flag(said: &str) -> bool {
    [
        "unknown option",
        "unknown argument",
        "unexpected argument",
        "Unknown feature flag",
        "unknown configuration field",
    ]
    .iter()
    .any(|sign| said.contains(sign))
}

/// The last `most` characters of `text`, trimmed.
fn tail(text: &str, most: usize) -> String {
    let text = text.trim();
    let skip = text.chars().count().saturating_sub(most);
    text.chars().skip(skip).collect()
}

impl Cli {
    fn setup(&self, why: impl std::fmt::Display) -> AgentError {
        AgentError::Setup {
            agent: self.agent,
            why: why.to_string(),
        }
    }

    /// The program could not be started.
    fn not_installed(&self, why: impl std::fmt::Display) -> AgentError {
        AgentError::NotInstalled {
            agent: self.agent,
            program: self.program.clone(),
            setting: self.setting,
            why: why.to_string(),
        }
    }

    /// What every turn needs before the agent starts: the tool server
    /// serving the turn's tools, a private folder (0700, removed when
    /// dropped) and in it the system prompt, `system.md`.
    async fn prepare(
        &self,
        turn: &Turn<'_>,
    ) -> Result<
        (
            tool_server::ToolServer,
            tempfile::TempDir,
            std::path::PathBuf,
        ),
        AgentError,
    > {
        let server = tool_server::start(turn.definitions, turn.run_tool.clone())
            .await
            .map_err(|error| self.setup(error))?;
        let folder = tempfile::Builder::new()
            .prefix("switchboard-chat-")
            .tempdir()
            .map_err(|error| self.setup(error))?;
        let system = folder.path().join("system.md");
        std::fs::write(&system, turn.system).map_err(|error| self.setup(error))?;
        Ok((server, folder, system))
    }

    /// Starts `command` (stdio piped), gives it the turn's prompt on stdin
    /// and reads its output a line at a time through `read`, telling
    /// `heard` the answer and the writes `server` reports, until it ends,
    /// `stop` turns true (it is killed) or it is silent past the turn's
    /// first-token or idle limits.
    async fn drive(
        &self,
        mut command: tokio::process::Command,
        turn: &Turn<'_>,
        mut read: impl FnMut(&str) -> Said,
        server: &mut tool_server::ToolServer,
        heard: &mut impl FnMut(Heard<'_>),
        mut stop: watch::Receiver<bool>,
    ) -> Result<Ran, AgentError> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|error| self.not_installed(error))?;
        let stdout = child.stdout.take().ok_or_else(|| self.setup("no output"))?;
        let mut stderr = child.stderr.take().ok_or_else(|| self.setup("no errors"))?;
        let errors = tokio::spawn(async move {
            let mut kept: Vec<u8> = Vec::new();
            let mut chunk = [0_u8; 4096];
            while let Ok(read) = stderr.read(&mut chunk).await {
                if read == 0 {
                    break;
                }
                kept.extend_from_slice(&chunk[..read]);
                let over = kept.len().saturating_sub(STDERR_KEPT);
                kept.drain(..over);
            }
            String::from_utf8_lossy(&kept).into_owned()
        });
        // The prompt goes in beside the reading: an agent that ends early
        // (an old version refusing a flag) shows why on its stderr, not as
        // a broken pipe here.
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
        // The first-token limit holds until the answer begins (an agent
        // prints its start at once, then may think long); the idle limit
        // after it. Any line but a waiting one is progress.
        let mut answering = false;
        let mut last_progress = tokio::time::Instant::now();
        let mut waiting: Option<String> = None;
        let mut result = None;
        let mut stopped = false;
        loop {
            let limit = if answering { idle } else { first_wait };
            tokio::select! {
                line = tokio::time::timeout_at(last_progress + limit, lines.next_line()) => {
                    let line = match line {
                        Err(_) if answering => {
                            let last = waiting.map(|said| format!("; it last said: {said}")).unwrap_or_default();
                            return Err(AgentError::Stalled { agent: self.agent, after: idle, last });
                        }
                        Err(_) => return Err(AgentError::NoFirstToken { agent: self.agent, after: first_wait }),
                        Ok(Ok(Some(line))) => line,
                        Ok(_) => break,
                    };
                    let said = read(&line);
                    if let Said::Waiting(words) = &said {
                        waiting = Some(words.clone());
                    } else {
                        answering |= matches!(said, Said::Text(_));
                        last_progress = tokio::time::Instant::now();
                        waiting = None;
                    }
                    match said {
                        Said::Text(more) => {
                            text.push_str(&more);
                            heard(Heard::Text(&more));
                        }
                        Said::Result(ended) => result = Some(ended),
                        Said::TooOld(said) => {
                            let _ = child.kill().await;
                            return Err(AgentError::TooOld { agent: self.agent, program: self.program.clone(), said });
                        }
                        Said::Waiting(_) | Said::Other => {}
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
        let status = child.wait().await.map_err(|error| self.setup(error))?;
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
            Some(Err(said)) if (self.signed_out)(&said) => Err(AgentError::NotSignedIn {
                agent: self.agent,
                program: self.program.clone(),
                said,
            }),
            Some(Err(said)) => Err(AgentError::Failed {
                agent: self.agent,
                said,
            }),
            None => {
                let stderr = tail(&errors.await.unwrap_or_default(), 600);
                if refused_a_flag(&stderr) {
                    return Err(AgentError::TooOld {
                        agent: self.agent,
                        program: self.program.clone(),
                        said: stderr,
                    });
                }
                Err(AgentError::Ended {
                    agent: self.agent,
                    status: status.to_string(),
                    stderr,
                })
            }
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
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
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
}
