//! `switchboard chat`: one turn through a real sidecar process, streamed.

use std::{
    io::{BufRead, BufReader, Write},
    path::PathBuf,
    process::{Command, Stdio},
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

/// Runs one chat turn; `Ok(false)` when the turn failed (already reported).
pub fn run(workspace: &Workspace, args: ChatArgs) -> Result<bool> {
    let sidecar = sidecar_path()?;
    let mut child = Command::new(&sidecar)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
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

    let mut out = std::io::stdout().lock();
    let mut succeeded = false;
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
            ResponseBody::ChatDone { stopped, .. } => {
                writeln!(out)?;
                if stopped {
                    eprintln!("(stopped)");
                }
                succeeded = true;
                break;
            }
            ResponseBody::Error { message } => {
                eprintln!("error: {message}");
                break;
            }
            other => bail!("unexpected sidecar response: {other:?}"),
        }
    }
    let shutdown = SidecarRequest {
        id: 2,
        body: RequestBody::Shutdown,
    };
    let _ = writeln!(stdin, "{}", serde_json::to_string(&shutdown)?);
    drop(stdin);
    let _ = child.wait();
    Ok(succeeded)
}
