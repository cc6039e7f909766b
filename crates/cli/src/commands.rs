//! One function per subcommand, each a few lines over `switchboard-store`.

use crate::failure::BadInput;
use std::io::Read;

use anyhow::{Context, Result};
use serde_json::Value;
use switchboard_model::{
    ContentType, Delivery, DeliveryMode, DeliveryStatus, NewDelivery, Timestamp, age_label,
    blocking::{AwaitOutcome, Reply},
    inbox::InboxFilter,
};
use switchboard_store::{Workspace, annotations, clock, deliveries, feedback};

use crate::args::{
    AnswerArgs, AwaitArgs, Cli, Command, DeliverArgs, IdArgs, ListArgs, Markup, McpAction, McpArgs,
    Mode,
};

/// The process's exit status when a command ran: 0 for success, 1 for a
/// negative outcome it printed itself (an `{"status":"error"}` line), or
/// the status a command passes on (a program's, a report's).
pub type Status = u8;

/// Runs the parsed command line: the process's exit status (a failure is
/// an error, mapped to its code in one place, `failure::report`).
pub fn run(cli: Cli) -> Result<Status> {
    // A hook finds its workspace from the event it reads.
    if let Command::Hook(args) = &cli.command {
        return Ok(Status::from(!crate::hooks::hook(cli.workspace, args)));
    }
    let named = cli.workspace.is_some();
    let root = match cli.workspace {
        Some(path) => path,
        None => std::env::current_dir().context("could not read the current directory")?,
    };
    let workspace = Workspace::belonging(&root)?;
    match cli.command {
        Command::Deliver(args) => deliver(&workspace, args).map(outcome),
        Command::Await(args) => wait(&workspace, args).map(outcome),
        Command::Answer(args) => answer(&workspace, args).map(|()| 0),
        Command::List(args) => list(&workspace, args).map(|()| 0),
        Command::Show(args) => show(&workspace, args).map(|()| 0),
        Command::Feedback(args) => {
            print_json(&feedback::responses_for(&workspace, &args.id)?).map(|()| 0)
        }
        Command::Annotations(args) => {
            print_json(&annotations::for_delivery(&workspace, &args.id)?).map(|()| 0)
        }
        Command::Chat(args) => crate::cmd::chat::run(&workspace, args).map(outcome),
        Command::Chats(args) => crate::cmd::chat::list(&workspace, args).map(|()| 0),
        Command::Models(args) => crate::cmd::chat::models(&args).map(|()| 0),
        Command::Learn(args) => crate::cmd::knowledge::learn(&workspace, args).map(|()| 0),
        Command::Validate(args) => crate::cmd::knowledge::validate(&workspace, args).map(outcome),
        Command::Search(args) => crate::cmd::knowledge::search(&workspace, args).map(|()| 0),
        Command::Team(command) => crate::cmd::team::team(&workspace, command).map(|()| 0),
        Command::Task(command) => crate::cmd::team::task(&workspace, command).map(|()| 0),
        Command::Msg(command) => crate::cmd::team::msg(&workspace, command).map(|()| 0),
        Command::Tapes(command) => crate::cmd::tapes::run(&workspace, command).map(outcome),
        Command::Open(args) => crate::cmd::open::run(&workspace, args).map(|()| 0),
        Command::Hook(_) => Ok(1),
        Command::Connect(args) => crate::cmd::connect::run(&workspace, &args).map(|()| 0),
        Command::Hooks(command) => crate::hooks::install(&workspace, &command).map(|()| 0),
        Command::Agents(args) => crate::hooks::list(&workspace, &args).map(|()| 0),
        Command::Agent(command) => crate::cmd::agent::run(&workspace, command).map(|()| 0),
        // The recorded exit status is the process's.
        Command::Play(args) => crate::cmd::play::run(&workspace, args),
        // The program's exit status is the process's.
        Command::Run(args) => crate::cmd::run::run(args),
        Command::Session(command) => crate::cmd::session::run(&workspace, command),
        Command::Investigate(args) => crate::cmd::probe::investigate(&workspace, args),
        Command::Probe(args) => crate::cmd::probe::probe(&workspace, args),
        Command::Test(args) => crate::cmd::probe::test(&workspace, args),
        Command::Fuzz(args) => crate::cmd::probe::fuzz(&workspace, args),
        Command::Chain(command) => crate::cmd::probe::chain(&workspace, command),
        // The program's exit status is the process's.
        Command::Rec(args) => crate::cmd::rec::run(&workspace, args),
        Command::Mcp(McpArgs {
            action:
                Some(McpAction::Install {
                    client,
                    write,
                    http,
                }),
            ..
        }) => crate::mcp::install::run(&workspace, client, write, http.as_deref()).map(|()| 0),
        Command::Mcp(McpArgs {
            action:
                Some(McpAction::Token {
                    name,
                    list,
                    revoke,
                    allow,
                }),
            ..
        }) => crate::mcp::http::token(&name, list, revoke.as_deref(), &allow).map(|()| 0),
        Command::Mcp(McpArgs {
            action: Some(McpAction::RunTask { id }),
            ..
        }) => crate::mcp::tasks::run_worker(workspace, &id).map(|()| 0),
        Command::Mcp(McpArgs {
            http: Some(address),
            heartbeat_ms,
            allow_host,
            exit_with_stdin,
            ..
        }) => crate::mcp::http::serve(
            workspace,
            &address,
            &allow_host,
            exit_with_stdin,
            std::time::Duration::from_millis(heartbeat_ms),
        )
        .map(|()| 0),
        Command::Mcp(args) => crate::mcp::run(
            workspace,
            !named,
            std::time::Duration::from_millis(args.heartbeat_ms),
        )
        .map(|()| 0),
        Command::Close(args) => {
            let closed = deliveries::close(&workspace, &args.id, clock::now())?;
            println!("{} {}", closed.id, closed.status.as_str());
            Ok(0)
        }
    }
}

/// The status of a command that says whether its outcome was positive.
fn outcome(positive: bool) -> Status {
    Status::from(!positive)
}

fn mode(mode: Mode) -> DeliveryMode {
    match mode {
        Mode::Passive => DeliveryMode::Passive,
        Mode::Interactive => DeliveryMode::Interactive,
        Mode::Blocking => DeliveryMode::Blocking,
    }
}

/// Reads `--schema JSON` or `--schema @FILE`.
fn read_schema(text: &str) -> Result<Value> {
    let json = match text.strip_prefix('@') {
        Some(path) => std::fs::read_to_string(path)
            .with_context(|| format!("could not read --schema file {path}"))?,
        None => text.to_owned(),
    };
    serde_json::from_str(&json).bad_input("--schema is not valid JSON")
}

fn read_body(args: &DeliverArgs) -> Result<String> {
    match (&args.content, &args.content_file) {
        (Some(text), _) => Ok(text.clone()),
        (None, Some(path)) => std::fs::read_to_string(path)
            .with_context(|| format!("could not read --content-file {}", path.display())),
        (None, None) => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .context("could not read the body from stdin")?;
            Ok(text)
        }
    }
}

/// `seconds` from now.
pub(crate) fn deadline(seconds: u64) -> Timestamp {
    let now = clock::now();
    let millis = i64::try_from(seconds.saturating_mul(1000)).unwrap_or(i64::MAX);
    Timestamp::from_unix_millis(now.unix_millis().saturating_add(millis)).unwrap_or(now)
}

fn deliver(workspace: &Workspace, args: DeliverArgs) -> Result<bool> {
    let blocking = args.mode == Mode::Blocking;
    let new = NewDelivery {
        mode: mode(args.mode),
        title: args.title.clone(),
        content_type: match args.markup {
            Markup::Markdown => ContentType::Markdown,
            Markup::Html => ContentType::Html,
        },
        body: read_body(&args)?,
        feedback_schema: args.schema.as_deref().map(read_schema).transpose()?,
    };
    let now = clock::now();
    if blocking {
        let (appended, session) = feedback::ask(workspace, new, now, deadline(args.timeout))?;
        warn_backup(&appended);
        eprintln!(
            "switchboard: waiting for the answer to {} ({} s)…",
            appended.delivery.id, args.timeout
        );
        let outcome = feedback::wait_for_reply(workspace, &session.id, clock::now);
        return Ok(print_outcome(outcome.map_err(anyhow::Error::from)));
    }
    let appended = deliveries::append(workspace, new, now)?;
    warn_backup(&appended);
    if args.json {
        print_json(&appended.delivery)?;
    } else {
        println!("{}", appended.delivery.id);
    }
    Ok(true)
}

fn warn_backup(appended: &deliveries::Appended) {
    if let Some(backup) = &appended.backed_up {
        eprintln!(
            "warning: deliveries.json did not parse; it was kept as {}",
            backup.display()
        );
    }
}

fn wait(workspace: &Workspace, args: AwaitArgs) -> Result<bool> {
    let outcome = feedback::await_answer(workspace, &args.id, deadline(args.timeout), clock::now)
        .map_err(anyhow::Error::from);
    Ok(print_outcome(outcome))
}

/// Prints the one JSON line a waiting agent reads; returns whether the
/// outcome was a success (exit 0).
fn print_outcome(outcome: Result<AwaitOutcome>) -> bool {
    let outcome = outcome.unwrap_or_else(|error| AwaitOutcome::Error {
        message: format!("{error:#}"),
    });
    match serde_json::to_string(&outcome) {
        Ok(line) => println!("{line}"),
        Err(error) => {
            println!(r#"{{"status":"error","message":"could not encode the outcome: {error}"}}"#)
        }
    }
    !matches!(outcome, AwaitOutcome::Error { .. })
}

fn answer(workspace: &Workspace, args: AnswerArgs) -> Result<()> {
    let reply = if args.decline {
        Reply::Decline
    } else if args.dismiss {
        Reply::Dismiss
    } else if let Some(values) = &args.values {
        let values: Value = serde_json::from_str(values).bad_input("--values is not valid JSON")?;
        Reply::Answer {
            answer: serde_json::json!({ "values": values }),
        }
    } else {
        let text = args.value.as_deref().unwrap_or_default();
        let value = serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()));
        let mut answer = serde_json::json!({ "value": value });
        if let Some(comment) = &args.comment {
            answer["comment"] = Value::String(comment.clone());
        }
        if args.remember {
            answer["remember"] = Value::Bool(true);
        }
        Reply::Answer { answer }
    };
    let replied = feedback::reply(workspace, &args.id, reply, clock::now())?;
    match &replied.feedback {
        Some(record) => println!("{} {}", record.id, serde_json::to_string(&record.values)?),
        None => println!(
            "{} {}",
            replied.delivery.id,
            replied.delivery.status.as_str()
        ),
    }
    Ok(())
}

fn list(workspace: &Workspace, args: ListArgs) -> Result<()> {
    let listed = deliveries::list(workspace)?;
    for warning in &listed.warnings {
        eprintln!("warning: {warning}");
    }
    let status = match &args.status {
        Some(text) => Some(DeliveryStatus::parse(text).bad_input({
            let known: Vec<_> = DeliveryStatus::ALL.iter().map(|s| s.as_str()).collect();
            format!("unknown --status {text:?}; use one of {}", known.join(", "))
        })?),
        None => None,
    };
    let filter = InboxFilter {
        mode: args.mode.map(mode),
        status,
    };
    let shown: Vec<&Delivery> = listed
        .deliveries
        .iter()
        .filter(|d| filter.matches(d))
        .collect();
    if args.json {
        return print_json(&shown);
    }
    let now = clock::now();
    for delivery in shown {
        println!(
            "{:<18} {:<12} {:<18} {:>9}  {}",
            delivery.id,
            delivery.mode.as_str(),
            delivery.status.as_str(),
            age_label(delivery.created_at, now),
            delivery.title
        );
    }
    Ok(())
}

fn show(workspace: &Workspace, args: IdArgs) -> Result<()> {
    let detail = deliveries::detail(workspace, &args.id)?;
    for warning in &detail.warnings {
        eprintln!("warning: {warning}");
    }
    let (delivery, annotations, responses) = (detail.delivery, detail.annotations, detail.feedback);
    if args.json {
        return print_json(&serde_json::json!({
            "delivery": delivery,
            "annotations": annotations,
            "quotes": detail.quotes,
            "feedback": responses,
        }));
    }
    println!("{}  {}", delivery.id, delivery.title);
    println!(
        "{} · {} · {}",
        delivery.mode.as_str(),
        delivery.status.as_str(),
        delivery.created_at
    );
    println!("\n{}\n", delivery.content.body.trim_end());
    for annotation in &annotations {
        let range = annotation
            .target
            .as_ref()
            .and_then(|target| Some(format!(" [{}..{}]", target.start?, target.end?)))
            .unwrap_or_default();
        let quote = detail
            .quotes
            .get(&annotation.id)
            .map(|quote| format!(" “{quote}”"))
            .unwrap_or_default();
        println!(
            "annotation {}{range}{quote}: {}",
            annotation.id, annotation.content
        );
    }
    for response in &responses {
        println!(
            "feedback {}: {}",
            response.id,
            serde_json::to_string(&response.values)?
        );
    }
    Ok(())
}

fn print_json<T: serde::Serialize + ?Sized>(value: &T) -> Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}
