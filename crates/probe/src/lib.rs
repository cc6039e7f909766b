//! Finding out what an unknown program is, over program sessions: an
//! investigation (`investigate`), a quick look (`probe`), ClaudeControl's
//! seven black-box checks (`blackbox`), fuzzing (`fuzz`) and command chains
//! run in one shell (`chain`). Each is a client of the session host
//! (`switchboard-session`) — its sessions show in the window while it
//! works, as one run (`Target::run`), and are logged in the workspace — and
//! each wait ends on the program (a prompt, its end, or quiet after its
//! answer), never on a fixed sleep. The CLI and the MCP server call it,
//! each step a progress callback.

pub mod blackbox;
pub mod chain;
pub mod fuzz;
pub mod investigate;

use std::time::Instant;

use switchboard_model::{
    ErrorCode, ErrorPayload,
    program::{ExitStatus, ProgramSession},
};

use switchboard_session::{
    Client, ClientError,
    protocol::{ExpectOutcome, Input, Pattern, StartRequest, WaitFor, WaitOutcome},
};

/// The program to look at, and where.
#[derive(Debug, Clone, Default)]
pub struct Target {
    /// The program (exec'd).
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Its folder (absolute).
    pub cwd: String,
    /// The caller's environment.
    pub env: Vec<(String, String)>,
    /// The workspace its sessions belong to (absolute), so they are logged
    /// and shown there.
    pub workspace: Option<String>,
    /// The run its sessions belong to: named as the first of them is, when
    /// it starts (one target, one run — every conversation of a test's
    /// checks shares it).
    pub run: std::sync::OnceLock<String>,
}

impl Target {
    /// `command` (the program, then its arguments) run in `cwd` for
    /// `workspace`, with this process's environment; `None` when empty.
    pub fn of(command: &[String], cwd: String, workspace: Option<String>) -> Option<Self> {
        let (program, args) = command.split_first()?;
        Some(Self {
            program: program.clone(),
            args: args.to_vec(),
            cwd,
            env: std::env::vars().collect(),
            workspace,
            run: std::sync::OnceLock::new(),
        })
    }

    /// The run its sessions belong to, once one started.
    pub fn run(&self) -> Option<String> {
        self.run.get().cloned()
    }

    /// The command line as a person would type it (shell-quoted).
    pub fn command_line(&self) -> String {
        std::iter::once(&self.program)
            .chain(&self.args)
            .map(|word| {
                shlex::try_quote(word)
                    .map(|quoted| quoted.into_owned())
                    .unwrap_or_else(|_| word.clone())
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// How the program answered one input (or its start).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// It printed `output` and shows `prompt`.
    Prompt {
        /// What it printed before the prompt.
        output: String,
        /// The prompt's line, trailing spaces trimmed.
        prompt: String,
    },
    /// It printed `output` and went quiet with no prompt.
    Quiet {
        /// What it printed.
        output: String,
    },
    /// It asks for a secret (echo off at a prompt).
    Secret {
        /// What it printed before.
        output: String,
        /// The prompt.
        prompt: String,
    },
    /// It ended.
    Ended {
        /// What it printed first.
        output: String,
        /// How.
        exit: ExitStatus,
    },
    /// It neither answered nor ended in time.
    Hung {
        /// The last of its output.
        tail: String,
    },
}

impl Reply {
    /// What it printed.
    pub fn output(&self) -> &str {
        match self {
            Self::Prompt { output, .. }
            | Self::Quiet { output }
            | Self::Secret { output, .. }
            | Self::Ended { output, .. } => output,
            Self::Hung { tail } => tail,
        }
    }

    /// The prompt it shows, if any.
    pub fn prompt(&self) -> Option<&str> {
        match self {
            Self::Prompt { prompt, .. } | Self::Secret { prompt, .. } => Some(prompt),
            _ => None,
        }
    }
}

/// Times of a conversation, in milliseconds.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// Quiet that ends an answer with no prompt (the most: a conversation
    /// fits it to how fast the program answers).
    pub quiet_ms: u64,
    /// The longest an answer may take.
    pub answer_ms: u64,
    /// The longest start-up may take.
    pub start_ms: u64,
}

impl Default for Timing {
    fn default() -> Self {
        Self {
            quiet_ms: 300,
            answer_ms: 5_000,
            start_ms: 10_000,
        }
    }
}

/// Why a run could not go on.
pub type ProbeError = ErrorPayload;

fn client_error(error: ClientError) -> ProbeError {
    error.payload()
}

/// One program session driven question by question, restarted when it
/// ends.
pub struct Conversation<'a> {
    client: &'a Client,
    /// What it is for (`investigate`, `fuzz`, …): its sessions' names
    /// start with it.
    purpose: &'static str,
    target: &'a Target,
    session: Option<ProgramSession>,
    /// Timing.
    pub timing: Timing,
    /// Inputs sent so far.
    pub exchanges: usize,
    /// Starts so far.
    pub starts: usize,
    /// Each session started, oldest first.
    pub sessions: Vec<String>,
    /// How long the last answer took to end, µs.
    pub last_answer_us: u64,
    /// The quiet asked for: the most an answer with no prompt is waited
    /// for after its last output.
    ceiling_ms: u64,
    /// How long the recent answers took, µs (the quiet is fitted to them).
    recent_us: Vec<u64>,
    /// Prompts the program showed, handed to each new session of it.
    prompts: Vec<String>,
    /// The program showed a prompt at start-up: an answer ends at one, and
    /// going quiet without one for the whole answer time is a hang.
    prompted: bool,
}

/// How many recent answers the quiet is fitted to.
const RECENT: usize = 8;

/// The quiet (ms) that ends an answer with no prompt, fitted to the
/// program: twice its slowest recent answer (µs, from the input to the
/// answer's last output) and half a millisecond, at least 1 ms, at most
/// `ceiling` — and `ceiling` until it has answered.
pub fn fitted_quiet(recent_us: &[u64], ceiling: u64) -> u64 {
    let Some(slowest) = recent_us.iter().copied().max() else {
        return ceiling;
    };
    slowest
        .saturating_mul(2)
        .saturating_add(500)
        .div_ceil(1000)
        .clamp(1, ceiling.max(1))
}

impl<'a> Conversation<'a> {
    /// A conversation with `target` (not started yet) for `purpose`.
    pub fn new(
        client: &'a Client,
        purpose: &'static str,
        target: &'a Target,
        timing: Timing,
    ) -> Self {
        Self {
            client,
            purpose,
            target,
            session: None,
            timing,
            exchanges: 0,
            starts: 0,
            sessions: Vec::new(),
            last_answer_us: 0,
            ceiling_ms: timing.quiet_ms,
            recent_us: Vec::new(),
            prompts: Vec::new(),
            prompted: false,
        }
    }

    /// The session now, if one runs.
    pub fn session(&self) -> Option<&ProgramSession> {
        self.session.as_ref()
    }

    /// Starts the program (ending one still running) with `extra` arguments
    /// after its own; how its start-up ended. The session is named for the
    /// conversation's purpose and the program (`fuzz-toy-4242-7`), so the
    /// window's list says what each was.
    pub async fn start_with(&mut self, extra: &[&str]) -> Result<Reply, ProbeError> {
        self.stop().await;
        let mut args = self.target.args.clone();
        args.extend(extra.iter().map(|arg| (*arg).to_owned()));
        let name = session_name(self.purpose, &self.target.program);
        let run = self.target.run.get_or_init(|| name.clone()).clone();
        let info = self
            .client
            .start(StartRequest {
                program: self.target.program.clone(),
                args,
                name: Some(name),
                run: Some(run),
                cwd: self.target.cwd.clone(),
                base_env: self.target.env.clone(),
                env: Vec::new(),
                rows: None,
                cols: None,
                workspace: self.target.workspace.clone(),
                record: false,
                prompts: self.prompts.clone(),
                started_by: None,
                launch: None,
            })
            .await
            .map_err(client_error)?;
        self.starts += 1;
        self.sessions.push(info.id.clone());
        self.session = Some(info);
        // Start-up gets the whole quiet: a banner may come slowly.
        self.timing.quiet_ms = self.ceiling_ms;
        let banner = self.answer(self.timing.start_ms).await?;
        self.prompted = matches!(banner, Reply::Prompt { .. });
        Ok(banner)
    }

    /// Starts the program as given.
    pub async fn start(&mut self) -> Result<Reply, ProbeError> {
        self.start_with(&[]).await
    }

    /// Types `input` and waits for the answer.
    pub async fn ask(&mut self, input: Input) -> Result<Reply, ProbeError> {
        self.ask_with(input, true).await
    }

    /// Types `input` (a key that may well bring no prompt back, such as an
    /// interrupt) and takes what comes, prompt or not: never a hang.
    pub async fn nudge(&mut self, input: Input) -> Result<Reply, ProbeError> {
        self.ask_with(input, false).await
    }

    async fn ask_with(&mut self, input: Input, prompt_due: bool) -> Result<Reply, ProbeError> {
        let Some(id) = self.session.as_ref().map(|info| info.id.clone()) else {
            return Err(ErrorPayload::new(
                ErrorCode::Internal,
                "no program is running to ask",
            ));
        };
        self.client
            .send(&id, input, false)
            .await
            .map_err(client_error)?;
        self.exchanges += 1;
        let began = Instant::now();
        self.timing.quiet_ms = fitted_quiet(&self.recent_us, self.ceiling_ms);
        let mut reply = self.answer(self.timing.answer_ms).await?;
        if matches!(&reply, Reply::Quiet { output } if output.is_empty())
            && self.timing.quiet_ms < self.ceiling_ms
        {
            // Nothing yet: the whole quiet before it counts as no answer.
            self.timing.quiet_ms = self.ceiling_ms;
            reply = self.answer(self.timing.answer_ms).await?;
        }
        if prompt_due && self.prompted && matches!(reply, Reply::Quiet { .. }) {
            // A program that prompts is done when it prompts again: it gets
            // the rest of the answer time to, quiet or not, else it hangs.
            let spent = u64::try_from(began.elapsed().as_millis()).unwrap_or(u64::MAX);
            let left = self.timing.answer_ms.saturating_sub(spent).max(1);
            self.timing.quiet_ms = left;
            reply = match self.answer(left).await? {
                Reply::Quiet { output } => Reply::Hung { tail: output },
                other => other,
            };
        }
        if matches!(reply, Reply::Prompt { .. } | Reply::Quiet { .. }) {
            self.recent_us.push(self.last_answer_us);
            if self.recent_us.len() > RECENT {
                self.recent_us.remove(0);
            }
        }
        Ok(reply)
    }

    /// Types `line` and Enter, and waits for the answer.
    pub async fn ask_line(&mut self, line: &str) -> Result<Reply, ProbeError> {
        self.ask(Input::Line(line.to_owned())).await
    }

    async fn answer(&mut self, timeout_ms: u64) -> Result<Reply, ProbeError> {
        let Some(id) = self.session.as_ref().map(|info| info.id.clone()) else {
            return Err(ErrorPayload::new(
                ErrorCode::Internal,
                "no program is running",
            ));
        };
        let began = Instant::now();
        let outcome = self
            .client
            .wait(
                &id,
                WaitFor::Answer(self.timing.quiet_ms),
                timeout_ms,
                |_| {},
            )
            .await
            .map_err(client_error)?;
        let waited = u64::try_from(began.elapsed().as_micros()).unwrap_or(u64::MAX);
        let reply = match outcome {
            WaitOutcome::Prompt {
                prompt,
                output,
                wants_secret,
                ..
            } => {
                if !self.prompts.contains(&prompt)
                    && self.prompts.len() < switchboard_model::program::prompt::MAX_PROMPTS
                {
                    self.prompts.push(prompt.clone());
                }
                self.last_answer_us = waited;
                if wants_secret || switchboard_model::probe::safety::asks_secret(&prompt) {
                    Reply::Secret { output, prompt }
                } else {
                    Reply::Prompt { output, prompt }
                }
            }
            WaitOutcome::Quiet {
                output,
                answered_us,
                ..
            } => {
                // The host's measure: from the input to its last output.
                self.last_answer_us = answered_us;
                Reply::Quiet { output }
            }
            WaitOutcome::Exit { exit, output } => {
                self.last_answer_us = waited;
                // What was still on its way; then its log is closed.
                let _ = self
                    .client
                    .expect(&id, vec![Pattern::Eof], 2_000, |_| {})
                    .await;
                self.session = None;
                Reply::Ended { output, exit }
            }
            WaitOutcome::Timeout { tail, .. } => {
                self.last_answer_us = waited;
                Reply::Hung { tail }
            }
        };
        Ok(reply)
    }

    /// Waits until the program ends (after an exit command), up to
    /// `timeout_ms`.
    pub async fn ended(&mut self, timeout_ms: u64) -> Result<Option<ExitStatus>, ProbeError> {
        let Some(id) = self.session.as_ref().map(|info| info.id.clone()) else {
            return Ok(None);
        };
        let outcome = self
            .client
            .expect(&id, vec![Pattern::Eof], timeout_ms, |_| {})
            .await
            .map_err(client_error)?;
        if matches!(outcome, ExpectOutcome::Matched { .. }) {
            let waited = self
                .client
                .wait(&id, WaitFor::Exit, timeout_ms, |_| {})
                .await
                .map_err(client_error)?;
            self.session = None;
            if let WaitOutcome::Exit { exit, .. } = waited {
                return Ok(Some(exit));
            }
        }
        Ok(None)
    }

    /// Ends the program if it runs (answered once it has ended).
    pub async fn stop(&mut self) {
        if let Some(info) = self.session.take() {
            let _ = self.client.kill(&info.id, Some("KILL".into())).await;
        }
    }
}

impl Drop for Conversation<'_> {
    /// A run dropped midway (a cancelled call) leaves no program behind.
    fn drop(&mut self) {
        end_on_drop(self.client, self.session.take().map(|info| info.id));
    }
}

/// The kills of programs that dropped runs left, still under way.
static ENDING: std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>> =
    std::sync::Mutex::new(Vec::new());

/// Ends session `id` from a drop, on the runtime it runs in (if any); a
/// process about to exit awaits it with [`settle`].
pub(crate) fn end_on_drop(client: &Client, id: Option<String>) {
    let (Some(id), Ok(runtime)) = (id, tokio::runtime::Handle::try_current()) else {
        return;
    };
    let client = client.clone();
    let kill = runtime.spawn(async move {
        let _ = client.kill(&id, Some("KILL".into())).await;
    });
    let mut ending = ENDING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    ending.retain(|kill| !kill.is_finished());
    ending.push(kill);
}

/// Waits until every program a dropped (cancelled) run left behind is
/// ended: what a process about to exit after a cancelled run awaits, so
/// that it leaves no program running.
pub async fn settle() {
    loop {
        let pending = std::mem::take(
            &mut *ENDING
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        if pending.is_empty() {
            return;
        }
        for kill in pending {
            let _ = kill.await;
        }
    }
}

/// A session name for `purpose` and `program`: unique among this user's
/// live sessions (the process id and a count), within the names' rules.
pub fn session_name(purpose: &str, program: &str) -> String {
    static STARTED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let count = STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
    let tail = format!("-{}-{count}", std::process::id());
    let room = switchboard_model::program::MAX_NAME_LEN - purpose.len() - tail.len() - 1;
    let stem: String = switchboard_model::probe::file_stem(program)
        .chars()
        .take(room)
        .collect();
    format!("{purpose}-{stem}{tail}")
}

/// Programs that run what they are sent: fuzzing one runs random commands.
pub fn is_shell(program: &str) -> bool {
    let base = program.rsplit('/').next().unwrap_or(program);
    matches!(
        base,
        "sh" | "bash"
            | "zsh"
            | "fish"
            | "dash"
            | "ksh"
            | "mksh"
            | "csh"
            | "tcsh"
            | "pwsh"
            | "nu"
            | "busybox"
            | "xonsh"
            | "elvish"
            | "ash"
    )
}

/// The time now as ClaudeControl writes it: naive ISO, local time.
pub fn iso_now() -> String {
    switchboard_model::time::naive_iso(switchboard_store::clock::local(
        switchboard_store::clock::now(),
    ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn session_names_follow_the_rules() {
        let name = session_name("investigate", "/tmp/a dir/my tool");
        assert!(name.starts_with("investigate-my_tool-"), "{name}");
        switchboard_model::program::check_name(&name).unwrap();
        let long = session_name("fuzz", &"x".repeat(300));
        assert!(long.len() <= switchboard_model::program::MAX_NAME_LEN);
        switchboard_model::program::check_name(&long).unwrap();
        assert_ne!(session_name("fuzz", "cat"), session_name("fuzz", "cat"));
    }

    #[test]
    fn the_quiet_fits_the_program() {
        assert_eq!(fitted_quiet(&[], 300), 300);
        assert_eq!(fitted_quiet(&[0, 200, 0], 300), 1);
        assert_eq!(fitted_quiet(&[0], 300), 1);
        assert_eq!(fitted_quiet(&[5_000], 300), 11);
        assert_eq!(fitted_quiet(&[500_000], 300), 300);
    }
}
