//! `switchboard session …`: program sessions from the terminal, each
//! command one call over the session host's client.

use crate::failure::{BadInput, refuse};
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use serde_json::json;
use switchboard_model::{
    Timestamp, age_label,
    program::{Key, ProgramSession, handback::HandBack},
};
use switchboard_session::{
    Client, ClientError,
    protocol::{
        ExpectOutcome, Input, Pattern, StartRequest, WaitFor, WaitOutcome, timeout_millis,
        variables,
    },
};
use switchboard_store::{Workspace, clock};

/// The exit status of an expect or wait that ran out of time (as
/// `timeout(1)`'s).
pub const TIMED_OUT: u8 = 124;

/// `switchboard session …`.
#[derive(Debug, Subcommand)]
pub enum SessionCommand {
    /// Start a program on a pseudo-terminal held by the session host;
    /// prints its id. The program is exec'd (not run through a shell) with
    /// this environment plus `--env`.
    Start(StartArgs),
    /// Type into a session: text, a line (`--line`), or a key (`--key`).
    Send(SendArgs),
    /// Wait for the first of several patterns (regexes; `--exact` for
    /// plain text; `eof` for the end) after the session's expect cursor;
    /// prints the output up to and including the match. Exits 124 on a
    /// timeout (the output's tail printed), 1 when the output ended first.
    Expect(ExpectArgs),
    /// Wait for a prompt, for quiet (`--for quiet MS`) or for the end.
    /// Exits 124 on a timeout.
    Wait(WaitArgs),
    /// Print the output since a cursor, and/or the screen (`--screen`).
    Read(ReadArgs),
    /// The sessions of this workspace (`--all`: every session of yours).
    List(ListArgs),
    /// End a session: the signal (default TERM), then KILL after a grace.
    Kill(KillArgs),
    /// Change a session's terminal size.
    Resize(ResizeArgs),
    /// Save a session as ClaudeControl's program configuration NAME: its
    /// command and the patterns its expects matched, with what was sent
    /// after each (ClaudeControl's `config show` reads it).
    SaveConfig(SaveConfigArgs),
    /// Your terminal on a session (raw mode): you have it while attached
    /// (agents' input waits), Ctrl+] detaches and hands it back.
    Attach(AttachArgs),
    /// Record a session of this workspace — ended, or as far as it has
    /// gone — from its log into a ClaudeControl tape (one exchange per
    /// line or key sent; secrets stay masked).
    Record(RecordSessionArgs),
}

/// `session record`.
#[derive(Debug, Args)]
pub struct RecordSessionArgs {
    /// The session's id or name (as its log in this workspace says).
    pub session: String,
    #[command(flatten)]
    pub record: crate::cmd::rec::RecordArgs,
    /// Print what was recorded as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `session attach`.
#[derive(Debug, Args)]
pub struct AttachArgs {
    /// The session's id or name.
    pub session: String,
}

impl SessionCommand {
    /// Whether failures are reported as JSON.
    pub fn wants_json(&self) -> bool {
        match self {
            Self::Start(args) => args.json,
            Self::Send(args) => args.json,
            Self::Expect(args) => args.json,
            Self::Wait(args) => args.json,
            Self::Read(args) => args.json,
            Self::List(args) => args.json,
            Self::Kill(args) => args.json,
            Self::Resize(args) => args.json,
            Self::Attach(_) => false,
            Self::SaveConfig(args) => args.json,
            Self::Record(args) => args.json,
        }
    }
}

/// `session start`.
#[derive(Debug, Args)]
pub struct StartArgs {
    /// A name to find it by (unique among live sessions).
    #[arg(long)]
    pub name: Option<String>,
    /// The folder it runs in (default: the current one).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// A variable set over this environment (repeatable).
    #[arg(long = "env", value_name = "KEY=VALUE")]
    pub env: Vec<String>,
    /// Terminal rows.
    #[arg(long, default_value_t = 24)]
    pub rows: u16,
    /// Terminal columns.
    #[arg(long, default_value_t = 80)]
    pub cols: u16,
    /// Start from ClaudeControl's program configuration NAME
    /// (`~/.claude-control/programs/NAME.json`; `$CLAUDE_CONTROL_HOME`
    /// moves it): its command unless one is given here, then each of its
    /// steps' pattern expected and its answer sent.
    #[arg(long, value_name = "NAME")]
    pub config: Option<String>,
    /// Record the session as a ClaudeControl tape in the workspace's
    /// `tapes/` when it ends (`tapes/<program>/<name or id>.json5`).
    #[arg(long)]
    pub record: bool,
    /// Print the session as JSON.
    #[arg(long)]
    pub json: bool,
    /// The program and its arguments.
    #[arg(
        last = true,
        required_unless_present = "config",
        value_name = "PROGRAM ARGS"
    )]
    pub command: Vec<String>,
}

/// `session save-config`.
#[derive(Debug, Args)]
pub struct SaveConfigArgs {
    /// The session's id or name.
    pub session: String,
    /// The configuration's name.
    pub name: String,
    /// Print the configuration as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `session send`.
#[derive(Debug, Args)]
pub struct SendArgs {
    /// The session's id or name.
    pub session: String,
    /// What to type.
    #[arg(required_unless_present = "key", conflicts_with = "key")]
    pub text: Option<String>,
    /// Press Enter after the text.
    #[arg(long)]
    pub line: bool,
    /// A key instead of text: ctrl-c, ctrl-d, esc, up, down, left, right,
    /// enter, tab, …
    #[arg(long)]
    pub key: Option<Key>,
    /// Keep it out of every log, tape and view (shown as ***).
    #[arg(long)]
    pub secret: bool,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `session expect`.
#[derive(Debug, Args)]
pub struct ExpectArgs {
    /// The session's id or name.
    pub session: String,
    /// Regular expressions (or exact text with `--exact`); `eof` waits
    /// for the end of the output.
    #[arg(required = true)]
    pub patterns: Vec<String>,
    /// The patterns are plain text.
    #[arg(long)]
    pub exact: bool,
    /// Seconds to wait.
    #[arg(long, default_value_t = 30.0)]
    pub timeout: f64,
    /// Print the outcome as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `session wait`.
#[derive(Debug, Args)]
pub struct WaitArgs {
    /// The session's id or name.
    pub session: String,
    /// `prompt`, `quiet MS`, `answer MS` (a prompt, any new one included, or MS of quiet, or the end) or `exit`.
    #[arg(long = "for", num_args = 1..=2, value_names = ["WHAT", "MS"], required = true)]
    pub until: Vec<String>,
    /// Seconds to wait.
    #[arg(long, default_value_t = 30.0)]
    pub timeout: f64,
    /// Print the outcome as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `session read`.
#[derive(Debug, Args)]
pub struct ReadArgs {
    /// The session's id or name.
    pub session: String,
    /// The cursor a previous read gave (default: the oldest output kept).
    #[arg(long)]
    pub since: Option<u64>,
    /// The screen as a person sees it, instead of the output stream.
    #[arg(long)]
    pub screen: bool,
    /// Print the output, cursor and screen as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `session list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Every session of yours, not only this workspace's.
    #[arg(long)]
    pub all: bool,
    /// Print the sessions as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `session kill`.
#[derive(Debug, Args)]
pub struct KillArgs {
    /// The session's id or name.
    pub session: String,
    /// The signal (TERM, INT, HUP, KILL, … or a number).
    #[arg(long)]
    pub signal: Option<String>,
    /// Print the ended session as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `session resize`.
#[derive(Debug, Args)]
pub struct ResizeArgs {
    /// The session's id or name.
    pub session: String,
    /// Rows.
    #[arg(long)]
    pub rows: u16,
    /// Columns.
    #[arg(long)]
    pub cols: u16,
    /// Print the session as JSON.
    #[arg(long)]
    pub json: bool,
}

/// A client error as the CLI reports it (the host's code kept).
fn failed(error: ClientError) -> anyhow::Error {
    anyhow::Error::new(error.payload())
}

fn millis(secs: f64) -> Result<u64> {
    timeout_millis(secs).map_err(|error| crate::failure::invalid(format!("--{error}")))
}

/// Runs a `session` command; the process's exit status.
pub fn run(workspace: &Workspace, command: SessionCommand) -> Result<u8> {
    // From the log in the workspace: no host needed.
    if let SessionCommand::Record(args) = &command {
        return record(workspace, args);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    let client = Client::new().map_err(failed)?;
    runtime.block_on(dispatch(&client, workspace, command))
}

async fn dispatch(client: &Client, workspace: &Workspace, command: SessionCommand) -> Result<u8> {
    match command {
        SessionCommand::Start(args) => start(client, workspace, args).await,
        SessionCommand::Send(args) => {
            let key = args.key.map(Key::name);
            let input = Input::of(args.text, args.line, key.as_deref())?;
            let cursor = client
                .send(&args.session, input, args.secret)
                .await
                .map_err(failed)?;
            if args.json {
                println!("{}", json!({ "cursor": cursor }));
            }
            Ok(0)
        }
        SessionCommand::Expect(args) => expect(client, args).await,
        SessionCommand::Wait(args) => wait(client, args).await,
        SessionCommand::Read(args) => {
            let (output, note) = client
                .read_noted(&args.session, args.since, args.screen)
                .await
                .map_err(failed)?;
            if args.json {
                println!("{}", noted_json(&output, note.as_ref())?);
                return Ok(0);
            }
            if let Some(note) = &note {
                tell(note);
            }
            if let Some(screen) = &output.screen {
                println!("{}", screen.join("\n").trim_end());
            } else {
                print!("{}", output.text);
                if output.missed > 0 {
                    eprintln!(
                        "({} bytes fell out of the buffer before this read)",
                        output.missed
                    );
                }
                eprintln!("(next: --since {})", output.cursor);
            }
            Ok(0)
        }
        SessionCommand::List(args) => {
            let filter = (!args.all).then(|| workspace.root().display().to_string());
            let sessions = client.list(filter).await.map_err(failed)?;
            if args.json {
                println!("{}", json!({ "sessions": sessions }));
            } else {
                print_table(&sessions, clock::now());
            }
            Ok(0)
        }
        SessionCommand::Kill(args) => {
            let info = client
                .kill(&args.session, args.signal)
                .await
                .map_err(failed)?;
            print_session(&info, args.json)?;
            Ok(0)
        }
        SessionCommand::Attach(args) => attach(client, &args.session).await,
        SessionCommand::Record(args) => record(workspace, &args),
        SessionCommand::SaveConfig(args) => {
            let (config, path) =
                switchboard_session::config::save(client, &args.session, &args.name)
                    .await
                    .map_err(anyhow::Error::new)?;
            if args.json {
                println!("{}", serde_json::to_string(&config)?);
            } else {
                println!(
                    "{} ({} steps)",
                    path.display(),
                    config.expect_sequences.len()
                );
            }
            Ok(0)
        }
        SessionCommand::Resize(args) => {
            let info = client
                .resize(&args.session, args.rows, args.cols)
                .await
                .map_err(failed)?;
            print_session(&info, args.json)?;
            Ok(0)
        }
    }
}

/// `session record`: the session's log, cut into a tape.
fn record(workspace: &Workspace, args: &RecordSessionArgs) -> Result<u8> {
    let saved = switchboard_store::session_log::record_tape(
        workspace.root(),
        &args.session,
        &args.record.folder(workspace),
        args.record.name.as_deref(),
        args.record
            .record
            .unwrap_or(switchboard_model::tape::record::RecordMode::New),
    )?;
    if args.json {
        println!(
            "{}",
            json!({
                "tape": saved.written.as_ref().map(|(path, _)| path.display().to_string()),
                "exchanges": saved.written.as_ref().map_or(0, |(_, count)| *count),
                "replaced": saved.replaced.iter().map(|(path, count)| json!({"tape": path, "exchanges": count})).collect::<Vec<_>>(),
                "known": saved.known,
                "unplaced": saved.unplaced.iter().map(|(path, reason)| json!({"tape": path, "reason": reason})).collect::<Vec<_>>(),
            })
        );
    } else {
        println!("{saved}");
    }
    Ok(0)
}

async fn start(client: &Client, workspace: &Workspace, args: StartArgs) -> Result<u8> {
    let env = variables(&args.env).bad_input("--env")?;
    let cwd = match args.cwd {
        Some(dir) => std::path::absolute(&dir)
            .with_context(|| format!("could not resolve {}", dir.display()))?,
        None => std::env::current_dir().context("could not read the current directory")?,
    };
    let mut command = args.command.into_iter();
    let program = match (command.next(), &args.config) {
        (Some(program), _) => program,
        (None, Some(_)) => String::new(),
        (None, None) => refuse!("no program to start"),
    };
    let request = StartRequest {
        program,
        args: command.collect(),
        name: args.name,
        cwd: cwd.display().to_string(),
        base_env: std::env::vars().collect(),
        env,
        rows: Some(args.rows),
        cols: Some(args.cols),
        workspace: Some(workspace.root().display().to_string()),
        record: args.record,
        prompts: Vec::new(),
        run: None,
        started_by: None,
        launch: None,
    };
    let info = match &args.config {
        Some(name) => switchboard_session::config::start_with(client, name, request)
            .await
            .map_err(anyhow::Error::new)?,
        None => client.start(request).await.map_err(failed)?,
    };
    if args.json {
        println!("{}", serde_json::to_string(&info)?);
    } else {
        println!("{}", info.id);
    }
    Ok(0)
}

async fn expect(client: &Client, args: ExpectArgs) -> Result<u8> {
    let patterns = args
        .patterns
        .into_iter()
        .map(|pattern| Pattern::of(pattern, args.exact))
        .collect();
    let (outcome, note) = client
        .expect_noted(&args.session, patterns, millis(args.timeout)?, |_| {})
        .await
        .map_err(failed)?;
    if args.json {
        println!("{}", noted_json(&outcome, note.as_ref())?);
    } else if let Some(note) = &note {
        tell(note);
    }
    Ok(match outcome {
        ExpectOutcome::Matched {
            before, matched, ..
        } => {
            if !args.json {
                print!("{before}{matched}");
            }
            0
        }
        ExpectOutcome::Timeout { tail, .. } => {
            if !args.json {
                print!("{tail}");
                eprintln!("\n(timed out after {} s)", args.timeout);
            }
            TIMED_OUT
        }
        ExpectOutcome::Eof { before, exit } => {
            if !args.json {
                print!("{before}");
                let how = exit.map_or_else(|| "ended".to_owned(), |exit| exit.to_string());
                eprintln!("\n(the output ended first: {how})");
            }
            1
        }
    })
}

async fn wait(client: &Client, args: WaitArgs) -> Result<u8> {
    let until = match args.until.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["prompt"] => WaitFor::Prompt,
        ["exit"] => WaitFor::Exit,
        ["quiet", ms] => WaitFor::Quiet(
            ms.parse()
                .bad_input(format!("quiet needs milliseconds, not {ms:?}"))?,
        ),
        ["answer", ms] => WaitFor::Answer(
            ms.parse()
                .bad_input(format!("answer needs milliseconds, not {ms:?}"))?,
        ),
        ["quiet"] => refuse!("--for quiet needs the milliseconds of quiet: --for quiet 500"),
        ["answer"] => {
            refuse!("--for answer needs the milliseconds of quiet that end it: --for answer 500")
        }
        _ => refuse!("--for takes prompt, quiet MS, answer MS or exit"),
    };
    let (outcome, note) = client
        .wait_noted(&args.session, until, millis(args.timeout)?, |_| {})
        .await
        .map_err(failed)?;
    if args.json {
        println!("{}", noted_json(&outcome, note.as_ref())?);
    } else if let Some(note) = &note {
        tell(note);
    }
    Ok(match outcome {
        WaitOutcome::Prompt { prompt, output, .. } => {
            if !args.json {
                print!("{output}{prompt}");
                println!();
            }
            0
        }
        WaitOutcome::Quiet { output, .. } => {
            if !args.json {
                print!("{output}");
            }
            0
        }
        WaitOutcome::Exit { exit, output } => {
            if !args.json {
                print!("{output}");
                println!("{exit}");
            }
            0
        }
        WaitOutcome::Timeout { tail, .. } => {
            if !args.json {
                print!("{tail}");
                eprintln!("\n(timed out after {} s)", args.timeout);
            }
            TIMED_OUT
        }
    })
}

/// Ctrl+]: detach, as ClaudeControl's (and telnet's) attach.
const DETACH: u8 = 0x1d;

async fn attach(client: &Client, session: &str) -> Result<u8> {
    use base64::{Engine, engine::general_purpose::STANDARD};
    use std::io::Write;
    use switchboard_session::{
        protocol::AttachMessage,
        pty::terminal::{self, RawMode},
    };
    let size = terminal::size();
    eprintln!("attached to {session}: agents wait while you have it; Ctrl+] detaches");
    let raw = RawMode::enter();
    let (keys, typed) = tokio::sync::mpsc::unbounded_channel();
    let resizes = keys.clone();
    terminal::on_stdin(move |bytes| {
        let (before, detach) = match bytes.iter().position(|&byte| byte == DETACH) {
            Some(at) => (&bytes[..at], true),
            None => (bytes, bytes.is_empty()),
        };
        if !before.is_empty() {
            let _ = keys.send(AttachMessage::Input(STANDARD.encode(before)));
        }
        if detach {
            let _ = keys.send(AttachMessage::Detach);
        }
        !detach
    });
    terminal::on_resize(move || {
        let size = terminal::size();
        resizes
            .send(AttachMessage::Resize {
                rows: size.rows,
                cols: size.cols,
            })
            .is_ok()
    });
    let mut out = std::io::stdout().lock();
    let ended = client
        .attach(
            session,
            size.rows,
            size.cols,
            |bytes| {
                let _ = out.write_all(bytes).and_then(|()| out.flush());
            },
            typed,
        )
        .await;
    drop(raw);
    let info = ended.map_err(failed)?;
    let how = info
        .exit
        .map(|exit| format!(" ({exit})"))
        .unwrap_or_default();
    eprintln!(
        "\r\ndetached from {}: {}{how}",
        info.label(),
        info.state.as_str()
    );
    Ok(0)
}

fn print_session(info: &ProgramSession, json: bool) -> Result<()> {
    if json {
        println!("{}", serde_json::to_string(info)?);
    } else {
        let how = info
            .exit
            .map(|exit| format!(" ({exit})"))
            .unwrap_or_default();
        println!("{} {}{how}", info.label(), info.state.as_str());
    }
    Ok(())
}

/// `value` as one JSON line, with what the developer did while they held
/// the session under `handed_back` when this is the agent's first look
/// since.
fn noted_json(value: &impl serde::Serialize, note: Option<&HandBack>) -> Result<String> {
    let mut json = serde_json::to_value(value)?;
    if let (Some(note), Some(object)) = (note, json.as_object_mut()) {
        object.insert("handed_back".to_owned(), serde_json::to_value(note)?);
    }
    Ok(json.to_string())
}

/// Tells the agent, on stderr before the output, what the developer did
/// while they held the session.
fn tell(note: &HandBack) {
    eprintln!(
        "(the developer held this session from {} to {}",
        note.taken_at, note.handed_back_at
    );
    if note.typed.is_empty() {
        eprintln!(" and typed nothing");
    } else {
        eprintln!(" and typed:");
        for line in &note.typed {
            eprintln!("   {line}");
        }
        if note.lines_left_out > 0 {
            eprintln!("   … and {} more lines", note.lines_left_out);
        }
    }
    if !note.output.is_empty() {
        eprintln!(" the output meanwhile:");
        eprintln!("{}", note.output.trim_end());
    }
    if note.more_bytes > 0 {
        eprintln!(
            " … {} more bytes: switchboard session read --since {}",
            note.more_bytes, note.cursor
        );
    }
    eprintln!(")");
}

fn print_table(sessions: &[ProgramSession], now: Timestamp) {
    if sessions.is_empty() {
        println!("no sessions (switchboard session start -- PROGRAM starts one)");
        return;
    }
    println!(
        "{:<16} {:<16} {:>7} {:<8} {:<10} {:<10} {:<6} COMMAND",
        "ID", "NAME", "PID", "STATE", "STARTED", "ACTIVE", "BY"
    );
    for info in sessions {
        println!(
            "{:<16} {:<16} {:>7} {:<8} {:<10} {:<10} {:<6} {}",
            info.id,
            info.name.as_deref().unwrap_or("-"),
            info.pid
                .map_or_else(|| "-".to_owned(), |pid| pid.to_string()),
            info.state.as_str(),
            age_label(info.started, now),
            age_label(info.last_activity, now),
            match info.controller {
                switchboard_model::program::Controller::Agent => "agent",
                switchboard_model::program::Controller::User => "user",
            },
            info.command_line(),
        );
    }
}
