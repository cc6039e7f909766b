//! `switchboard chat`: one turn through a real sidecar process, streamed.

use std::{
    io::{BufRead, BufReader, Write},
    os::unix::process::CommandExt,
    path::PathBuf,
    process::{ChildStdin, Command, Stdio},
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
};

use anyhow::{Context, Result, bail};
use switchboard_model::{
    chat::ChatMode,
    sidecar::{ChatRequest, RequestBody, ResponseBody, SidecarRequest, SidecarResponse},
};
use switchboard_store::Workspace;

use crate::args::{ChatArgs, ChatModeArg, ChatsArgs};

/// The sidecar binary: `$SWITCHBOARD_SIDECAR`, or beside this binary.
fn sidecar_path() -> Result<PathBuf> {
    if let Some(path) = std::env::var_os("SWITCHBOARD_SIDECAR") {
        return Ok(PathBuf::from(path));
    }
    let exe = std::env::current_exe().context("could not locate the switchboard binary")?;
    Ok(exe.with_file_name("switchboard-sidecar"))
}

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
        writeln!(
            out,
            "{}{}\t{}\t{} messages\t{}\t{}",
            if chat.active { "* " } else { "  " },
            chat.id,
            chat.updated_at,
            chat.messages,
            chat.mode.as_str(),
            chat.title
        )?;
    }
    Ok(())
}

/// The first Ctrl-C stops the turn (the sidecar saves what arrived); a
/// second one quits at once.
fn stop_on_interrupt(stdin: Arc<Mutex<ChildStdin>>) -> Result<()> {
    let interrupted = AtomicBool::new(false);
    let stop = serde_json::to_string(&SidecarRequest {
        id: 2,
        body: RequestBody::Stop { chat: 1 },
    })?;
    ctrlc::set_handler(move || {
        if interrupted.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        eprintln!("\n(stopping; Ctrl-C again quits at once)");
        if let Ok(mut pipe) = stdin.lock() {
            let _ = writeln!(pipe, "{stop}").and_then(|()| pipe.flush());
        }
    })
    .context("could not watch for Ctrl-C")
}

/// Runs one chat turn; a failure carries the sidecar's code.
pub fn run(workspace: &Workspace, args: ChatArgs) -> Result<bool> {
    let sidecar = sidecar_path()?;
    let mut child = Command::new(&sidecar)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        // Its own process group: Ctrl-C in the terminal reaches only this
        // process, which asks the sidecar to stop the turn and save it.
        .process_group(0)
        .spawn()
        .with_context(|| format!("could not start the sidecar {}", sidecar.display()))?;
    let mut stdin = child.stdin.take().context("no sidecar stdin")?;
    let stdout = child.stdout.take().context("no sidecar stdout")?;
    let request = SidecarRequest {
        id: 1,
        body: RequestBody::Chat(ChatRequest {
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
        }),
    };
    writeln!(stdin, "{}", serde_json::to_string(&request)?)?;
    stdin.flush()?;
    let stdin = Arc::new(Mutex::new(stdin));
    stop_on_interrupt(Arc::clone(&stdin))?;

    let mut out = std::io::stdout().lock();
    let mut succeeded = false;
    let mut failure = None;
    for line in BufReader::new(stdout).lines() {
        let response: SidecarResponse =
            serde_json::from_str(&line?).context("the sidecar sent an unreadable line")?;
        match response.body {
            ResponseBody::Delta { text } => {
                out.write_all(text.as_bytes())?;
                out.flush()?;
            }
            ResponseBody::WriteApplied { path, bytes } => {
                eprintln!("\nwrote {path} ({bytes} bytes)")
            }
            ResponseBody::WriteRefused { path, reason } => eprintln!("\nrefused {path}: {reason}"),
            ResponseBody::WriteProposed { path, bytes, .. } => {
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
    let shutdown = SidecarRequest {
        id: 3,
        body: RequestBody::Shutdown,
    };
    if let Ok(mut stdin) = stdin.lock() {
        let _ = writeln!(stdin, "{}", serde_json::to_string(&shutdown)?);
    }
    drop(stdin);
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
