//! The inbox's commands: `deliver`, `await`, `answer`, `list`, `show`,
//! `feedback`, `annotations` and `close`, each a few lines over the
//! store.

use std::{io::Read, path::PathBuf};

use anyhow::{Context, Result};
use clap::{ArgGroup, Args, ValueEnum};
use serde_json::Value;
use switchboard_model::{
    ContentType, Delivery, DeliveryMode, DeliveryStatus, NewDelivery, Timestamp, age_label,
    blocking::{AwaitOutcome, Reply},
    feedback::words,
    inbox::InboxFilter,
    receipt,
    registry::waiting_questions,
    terminal_text::printable,
};
use switchboard_store::{Workspace, annotations, clock, deliveries, everywhere, feedback};

use crate::failure::BadInput;

fn mode(mode: Mode) -> DeliveryMode {
    match mode {
        Mode::Passive => DeliveryMode::Passive,
        Mode::Interactive => DeliveryMode::Interactive,
        Mode::Blocking => DeliveryMode::Blocking,
    }
}

/// Reads `--schema JSON` or `--schema @FILE`.
#[allow(
    clippy::disallowed_methods,
    reason = "a file its caller named on the command line (it may be a pipe: <(…))"
)]
fn read_schema(text: &str) -> Result<Value> {
    let json = match text.strip_prefix('@') {
        Some(path) => std::fs::read_to_string(path)
            .with_context(|| format!("could not read --schema file {path}"))?,
        None => text.to_owned(),
    };
    serde_json::from_str(&json).bad_input("--schema is not valid JSON")
}

#[allow(
    clippy::disallowed_methods,
    reason = "a file its caller named on the command line (it may be a pipe: <(…))"
)]
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
pub fn deadline(seconds: u64) -> Timestamp {
    let now = clock::now();
    let millis = i64::try_from(seconds.saturating_mul(1000)).unwrap_or(i64::MAX);
    Timestamp::from_unix_millis(now.unix_millis().saturating_add(millis)).unwrap_or(now)
}

/// `switchboard deliver`: publishes a result or a question; a blocking
/// one waits for its answer. Whether the outcome was a success.
pub fn deliver(workspace: &Workspace, args: DeliverArgs) -> Result<bool> {
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

/// `switchboard await ID`: the answer to a question asked earlier, as
/// one JSON line. Whether the outcome was a success.
pub fn wait(workspace: &Workspace, args: AwaitArgs) -> Result<bool> {
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

/// `switchboard answer ID`: answers, declines or dismisses a question.
pub fn answer(workspace: &Workspace, args: AnswerArgs) -> Result<()> {
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
    let seen = match args.seen {
        Some(seen) => Some(seen),
        None => confirmed_at_terminal(workspace, &args.id, &reply)?,
    };
    let replied =
        feedback::reply_as_seen(workspace, &args.id, reply, seen.as_deref(), clock::now())?;
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

/// For an answer Switchboard acts on given at a terminal: the question as
/// it reads now, and whether to answer it so — what was shown then (its
/// digest, [`receipt::shown`]); `None` when nothing needs showing or
/// nobody is at a terminal (the store then refuses an answer that acts).
fn confirmed_at_terminal(workspace: &Workspace, id: &str, reply: &Reply) -> Result<Option<String>> {
    use std::io::{BufRead as _, IsTerminal as _, Write as _};
    if !matches!(reply, Reply::Answer { .. })
        || !std::io::stdin().is_terminal()
        || !std::io::stderr().is_terminal()
    {
        return Ok(None);
    }
    let delivery = deliveries::get(workspace, id)?;
    if !receipt::answer_acts(&delivery) {
        return Ok(None);
    }
    // The answer in the words the inbox shows it with once given.
    let answer = match reply {
        Reply::Answer { answer } => words::values_words(&delivery, answer),
        _ => String::new(),
    };
    let mut shown_to = std::io::stderr();
    write!(
        shown_to,
        "{}\n\n{}\n\nYour answer: {}. Send it? [y/N] ",
        printable(&delivery.title),
        printable(delivery.content.body.trim_end()),
        printable(&answer)
    )?;
    shown_to.flush()?;
    let mut said = String::new();
    std::io::stdin().lock().read_line(&mut said)?;
    if !matches!(said.trim(), "y" | "Y" | "yes") {
        return Err(switchboard_model::ErrorPayload::new(
            switchboard_model::ErrorCode::Cancelled,
            "not answered: nothing was sent (the question still waits)",
        )
        .into());
    }
    Ok(Some(receipt::shown(&delivery)))
}

/// `switchboard list`: the inbox, as a table or JSON.
pub fn list(workspace: &Workspace, args: ListArgs) -> Result<()> {
    if args.all {
        return list_waiting_everywhere(workspace, args.json);
    }
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
    let waiting: std::collections::BTreeSet<String> = waiting_questions(&listed.deliveries)
        .into_iter()
        .map(|question| question.id)
        .collect();
    let shown: Vec<&Delivery> = listed
        .deliveries
        .iter()
        .filter(|d| filter.matches(d) && (!args.waiting || waiting.contains(&d.id)))
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
            words::status_word(delivery),
            age_label(delivery.created_at, now),
            printable(&delivery.title)
        );
    }
    Ok(())
}

/// `switchboard list --all --waiting`: the questions waiting in every
/// running workspace, with the workspace each is in.
fn list_waiting_everywhere(workspace: &Workspace, json: bool) -> Result<()> {
    let now = clock::now();
    let lines = everywhere::attention(&super::agents::registered(), workspace, now);
    let mut rows = Vec::new();
    for line in &lines {
        for problem in &line.problems {
            eprintln!(
                "warning: {}",
                printable(&format!("{}: {problem}", line.workspace))
            );
        }
        for question in &line.questions {
            rows.push((line, question));
        }
    }
    rows.sort_by_key(|(_, question)| question.since);
    if json {
        let rows: Vec<_> = rows
            .iter()
            .map(|(line, question)| {
                serde_json::json!({
                    "workspace": line.workspace,
                    "id": question.id,
                    "title": question.title,
                    "mode": question.mode,
                    "since": question.since,
                    "sent_by": question.sent_by,
                })
            })
            .collect();
        return print_json(&rows);
    }
    for (line, question) in rows {
        println!(
            "{:<16} {:<18} {:<11} {:>9}  {}",
            printable(&line.name),
            printable(&question.id),
            question.mode.as_str(),
            age_label(question.since, now),
            printable(&question.title)
        );
    }
    Ok(())
}

/// `switchboard show ID`: one delivery.
pub fn show(workspace: &Workspace, args: IdArgs) -> Result<()> {
    let detail = deliveries::detail(workspace, &args.id)?;
    for warning in &detail.warnings {
        eprintln!("warning: {warning}");
    }
    let (delivery, annotations, responses) = (detail.delivery, detail.annotations, detail.feedback);
    if args.json {
        // `seen`: what `answer --seen` takes to answer what this shows.
        return print_json(&serde_json::json!({
            "seen": receipt::shown(&delivery),
            "delivery": delivery,
            "annotations": annotations,
            "quotes": detail.quotes,
            "feedback": responses,
        }));
    }
    println!("{}  {}", delivery.id, printable(&delivery.title));
    println!(
        "{} · {} · {}",
        delivery.mode.as_str(),
        words::status_word(&delivery),
        delivery.created_at
    );
    println!("\n{}\n", printable(delivery.content.body.trim_end()));
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
            "annotation {}{}: {}",
            annotation.id,
            printable(&format!("{range}{quote}")),
            printable(&annotation.content)
        );
    }
    for response in &responses {
        let answer = words::answer_words(&delivery, response);
        println!("answer {}: {}", response.id, printable(&answer));
    }
    // An answer that allows a command or types keys is taken for the
    // question as shown here.
    if receipt::answer_acts(&delivery) && delivery.check_open_for_reply().is_ok() {
        println!(
            "\nTo answer what is shown here: switchboard answer {} --seen {} --value true|false",
            delivery.id,
            receipt::shown(&delivery)
        );
    }
    Ok(())
}

fn print_json<T: serde::Serialize + ?Sized>(value: &T) -> Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}

/// `switchboard feedback ID`: the answers stored for a delivery.
pub fn feedback(workspace: &Workspace, args: &IdArgs) -> Result<()> {
    print_json(&feedback::responses_for(workspace, &args.id)?)
}

/// `switchboard annotations ID`: the developer's notes on a delivery.
pub fn annotations(workspace: &Workspace, args: &IdArgs) -> Result<()> {
    print_json(&annotations::for_delivery(workspace, &args.id)?)
}

/// `switchboard close ID`: closes a question without an answer.
pub fn close(workspace: &Workspace, args: &IdArgs) -> Result<()> {
    let closed = deliveries::close(workspace, &args.id, clock::now())?;
    println!("{} {}", closed.id, closed.status.as_str());
    Ok(())
}

/// How the agent expects an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// No answer expected.
    Passive,
    /// Asks for feedback; does not wait.
    Interactive,
    /// Asks for feedback and waits for it.
    Blocking,
}

/// `switchboard deliver`.
#[derive(Debug, Args)]
pub struct DeliverArgs {
    /// One-line title shown in the inbox.
    #[arg(long)]
    pub title: String,
    /// The body text (default: read from stdin).
    #[arg(long, conflicts_with = "content_file")]
    pub content: Option<String>,
    /// Read the body from this file.
    #[arg(long, value_name = "PATH")]
    pub content_file: Option<PathBuf>,
    /// The body's markup.
    #[arg(long = "type", value_enum, default_value_t = Markup::Markdown)]
    pub markup: Markup,
    /// How an answer is expected.
    #[arg(long, value_enum, default_value_t = Mode::Passive)]
    pub mode: Mode,
    /// The feedback form as JSON, or @FILE to read it from a file.
    #[arg(long, value_name = "JSON|@FILE")]
    pub schema: Option<String>,
    /// Seconds a blocking delivery waits for its answer.
    #[arg(long, value_name = "SECS", default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub timeout: u64,
    /// Print the whole stored record as JSON instead of the id.
    #[arg(long)]
    pub json: bool,
}

/// The markup of a body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Markup {
    /// CommonMark with GitHub extensions.
    Markdown,
    /// HTML, shown sandboxed.
    Html,
}

/// `switchboard await`.
#[derive(Debug, Args)]
pub struct AwaitArgs {
    /// The delivery id.
    pub id: String,
    /// Seconds to wait.
    #[arg(long, value_name = "SECS", default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub timeout: u64,
}

/// `switchboard answer`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("reply").required(true).args(["value", "values", "decline", "dismiss"])))]
pub struct AnswerArgs {
    /// The delivery id.
    pub id: String,
    /// The answer to a confirm, select or rating, as JSON (`true`,
    /// `"staging"`, `["a","b"]`, `4`); text that is not JSON is a string.
    #[arg(long, value_name = "JSON")]
    pub value: Option<String>,
    /// The answer to a form, as a JSON object of field values.
    #[arg(long, value_name = "JSON")]
    pub values: Option<String>,
    /// Say no to the question as a whole.
    #[arg(long)]
    pub decline: bool,
    /// Close the question without answering.
    #[arg(long)]
    pub dismiss: bool,
    /// With a confirm's --value: a note the agent reads (why not, for a
    /// denied permission).
    #[arg(long, value_name = "TEXT", requires = "value")]
    pub comment: Option<String>,
    /// With a confirm's --value: the same answer next time (an agent's
    /// permission: always allow this).
    #[arg(long, requires = "value")]
    pub remember: bool,
    /// What the question said when you read it, as `switchboard show`
    /// printed it: an answer that allows a command or types keys is taken
    /// only for the question as it was shown (at a terminal, `answer`
    /// shows it and asks first).
    #[arg(long, value_name = "DIGEST")]
    pub seen: Option<String>,
}

/// `switchboard list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only deliveries of this mode.
    #[arg(long, value_enum)]
    pub mode: Option<Mode>,
    /// Only deliveries in this status (delivered, awaiting_feedback,
    /// completed, timeout).
    #[arg(long)]
    pub status: Option<String>,
    /// Only questions waiting for an answer (blocking or interactive).
    #[arg(long)]
    pub waiting: bool,
    /// With --waiting: in every workspace a Switchboard runs on (a window,
    /// a server, a question waiting) on this machine, not only this one.
    #[arg(long, requires = "waiting")]
    pub all: bool,
    /// Print JSON (an array of records) instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Commands that take one delivery id.
#[derive(Debug, Args)]
pub struct IdArgs {
    /// The delivery id.
    pub id: String,
    /// Print JSON (show only; the others always print JSON).
    #[arg(long)]
    pub json: bool,
}
