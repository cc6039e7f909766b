//! `switchboard chat`: one turn through a real sidecar process, streamed.

use std::{
    io::Write,
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
};

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use switchboard_model::{
    ErrorPayload,
    chat::ChatMode,
    sidecar::{ChatRequest, RequestBody, ResponseBody, WriteEvent},
};
use switchboard_sidecar::client::{self, Launch, Link, LinkError, Requests};
use switchboard_store::Workspace;

/// Prints the chat history: a table, or JSON with `--json`.
pub fn list(workspace: &Workspace, args: ChatsArgs) -> Result<()> {
    let history = switchboard_store::chats::history(workspace)?;
    for warning in &history.warnings {
        eprintln!("warning: {warning}");
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string(&history)?)?;
        return Ok(());
    }
    for chat in &history.sessions {
        // A chat's file may come with a cloned repository: its id and
        // title are shown, never obeyed.
        let line = format!(
            "{}{}\t{}\t{} messages\t{}\t{}",
            if chat.active { "* " } else { "  " },
            chat.id,
            chat.updated_at,
            chat.messages,
            chat.mode.as_str(),
            chat.title
        );
        writeln!(
            out,
            "{}",
            switchboard_model::terminal_text::printable(&line)
        )?;
    }
    Ok(())
}

/// Prints the chat's backend, why, and its models (the one in use marked
/// `*`), or JSON with `--json`; a sidecar that cannot say fails with its
/// code (no backend works here: what was tried and how to give it one).
pub fn models(args: &ModelsArgs) -> Result<()> {
    let Link {
        mut child,
        requests,
        responses,
    } = client::start(&Launch::default(), Arc::new(AtomicU64::new(1))).map_err(link_failure)?;
    let asked = requests
        .send(RequestBody::ListModels)
        .map_err(link_failure)?;
    let answer = responses
        .into_iter()
        .find_map(|response| match response {
            Ok(response) if response.id == asked => Some(Ok(response.body)),
            Ok(_) => None,
            Err(error) => Some(Err(error)),
        })
        .transpose()
        .map_err(link_failure)?;
    let _ = requests.send(RequestBody::Shutdown);
    drop(requests);
    let _ = child.wait();
    let (models, backend) = match answer {
        Some(ResponseBody::Models { models, backend }) => (models, backend),
        Some(ResponseBody::Error { code, message }) => {
            return Err(anyhow::Error::new(ErrorPayload::new(code, message)));
        }
        Some(other) => bail!("unexpected sidecar response: {other:?}"),
        None => {
            return Err(anyhow::Error::new(ErrorPayload::new(
                switchboard_model::ErrorCode::Unavailable,
                "the sidecar stopped before it answered",
            )));
        }
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        let list = switchboard_model::ipc::ModelList { models, backend };
        writeln!(out, "{}", serde_json::to_string(&list)?)?;
        return Ok(());
    }
    if let Some(backend) = &backend {
        writeln!(
            out,
            "via {}: {}",
            backend.backend.short_label(),
            backend.reason
        )?;
    }
    let current = switchboard_store::settings::effective().model().to_owned();
    for model in models {
        let mark = if model == current { "* " } else { "  " };
        writeln!(out, "{mark}{model}")?;
    }
    Ok(())
}

/// The first Ctrl-C stops turn `chat` (the sidecar saves what arrived); a
/// second one quits at once.
fn stop_on_interrupt(requests: Requests, chat: u64) -> Result<()> {
    let interrupted = AtomicBool::new(false);
    ctrlc::set_handler(move || {
        if interrupted.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        eprintln!("\n(stopping; Ctrl-C again quits at once)");
        let _ = requests.send(RequestBody::Stop { chat });
    })
    .context("could not watch for Ctrl-C")
}

/// A link failure as an error reported with its code.
fn link_failure(error: LinkError) -> anyhow::Error {
    anyhow::Error::new(ErrorPayload::new(error.code(), error.to_string()))
}

/// Runs one chat turn; a failure carries the sidecar's code.
pub fn run(workspace: &Workspace, args: ChatArgs) -> Result<bool> {
    // Its own process group: Ctrl-C in the terminal reaches only this
    // process, which asks the sidecar to stop the turn and save it.
    let launch = Launch {
        own_process_group: true,
        ..Launch::default()
    };
    let Link {
        mut child,
        requests,
        responses,
    } = client::start(&launch, Arc::new(AtomicU64::new(1))).map_err(link_failure)?;
    let chat = requests
        .send(RequestBody::Chat(ChatRequest {
            workspace: workspace.root().display().to_string(),
            mode: match args.mode {
                ChatModeArg::Planning => ChatMode::Planning,
                ChatModeArg::Building => ChatMode::Building,
                ChatModeArg::Analyzing => ChatMode::Analyzing,
            },
            message: args.message.join(" "),
            new_session: args.new,
            session: args.session,
            dry_run: args.dry_run,
        }))
        .map_err(link_failure)?;
    stop_on_interrupt(requests.clone(), chat)?;

    let mut out = std::io::stdout().lock();
    let mut succeeded = false;
    let mut failure = None;
    for response in responses {
        let response = response.map_err(link_failure)?;
        if response.id != chat {
            continue;
        }
        match response.body {
            ResponseBody::Delta { text } => {
                out.write_all(text.as_bytes())?;
                out.flush()?;
            }
            ResponseBody::Write(WriteEvent::Applied { path, bytes }) => {
                eprintln!("\nwrote {path} ({bytes} bytes)")
            }
            ResponseBody::Write(WriteEvent::Refused { path, reason }) => {
                eprintln!("\nrefused {path}: {reason}")
            }
            ResponseBody::Write(WriteEvent::Proposed { path, bytes, .. }) => {
                eprintln!("\nwould write {path} ({bytes} bytes); not applied (dry run)")
            }
            ResponseBody::ChatDone {
                stopped, prompt, ..
            } => {
                writeln!(out)?;
                for part in prompt.iter().filter(|part| part.refused) {
                    eprintln!("note: not read: {}", part.text);
                }
                if stopped {
                    eprintln!("(stopped)");
                }
                succeeded = true;
                break;
            }
            ResponseBody::Error { code, message } => {
                failure = Some(switchboard_model::ErrorPayload::new(code, message));
                break;
            }
            other => bail!("unexpected sidecar response: {other:?}"),
        }
    }
    let _ = requests.send(RequestBody::Shutdown);
    drop(requests);
    let _ = child.wait();
    match failure {
        // Reported as `error[CODE]: …` with the code's exit status.
        Some(payload) => Err(anyhow::Error::new(payload)),
        None if !succeeded => Err(anyhow::Error::new(switchboard_model::ErrorPayload::new(
            switchboard_model::ErrorCode::Unavailable,
            "the sidecar stopped before the turn ended",
        ))),
        None => Ok(true),
    }
}

/// `switchboard chats`.
#[derive(Debug, Args)]
pub struct ChatsArgs {
    /// One JSON document instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// `switchboard models`.
#[derive(Debug, Args)]
pub struct ModelsArgs {
    /// One JSON document (`{"models": […], "backend": {"backend", "reason"}}`).
    #[arg(long)]
    pub json: bool,
}

/// The chat modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ChatModeArg {
    /// Specs and plans.
    Planning,
    /// Code too.
    Building,
    /// Read and search only.
    Analyzing,
}

/// `switchboard chat`.
#[derive(Debug, Args)]
pub struct ChatArgs {
    /// The mode of this turn.
    #[arg(long, value_enum, default_value_t = ChatModeArg::Planning)]
    pub mode: ChatModeArg,
    /// Start a fresh chat (the active one is archived).
    #[arg(long, conflicts_with = "session")]
    pub new: bool,
    /// Continue this chat (see `switchboard chats`); an archived chat
    /// becomes the active one again.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Show the writes the model proposes without applying any.
    #[arg(long)]
    pub dry_run: bool,
    /// The message.
    #[arg(required = true)]
    pub message: Vec<String>,
}
