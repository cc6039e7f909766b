//! Routes the parsed command line to its command (`crate::cmd`), and
//! gives the process its exit status.

use anyhow::{Context, Result};
use switchboard_store::Workspace;

use crate::{
    args::{Cli, Command},
    cmd,
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
        return Ok(Status::from(!cmd::hook::hook(cli.workspace, args)));
    }
    let named = cli.workspace.is_some();
    let root = match cli.workspace {
        Some(path) => path,
        None => std::env::current_dir().context("could not read the current directory")?,
    };
    let workspace = Workspace::belonging(&root)?;
    match cli.command {
        Command::Deliver(args) => cmd::inbox::deliver(&workspace, args).map(outcome),
        Command::Await(args) => cmd::inbox::wait(&workspace, args).map(outcome),
        Command::Answer(args) => cmd::inbox::answer(&workspace, args).map(|()| 0),
        Command::List(args) => cmd::inbox::list(&workspace, args).map(|()| 0),
        Command::Show(args) => cmd::inbox::show(&workspace, args).map(|()| 0),
        Command::Feedback(args) => cmd::inbox::feedback(&workspace, &args).map(|()| 0),
        Command::Annotations(args) => cmd::inbox::annotations(&workspace, &args).map(|()| 0),
        Command::Chat(args) => cmd::chat::run(&workspace, args).map(outcome),
        Command::Chats(args) => cmd::chat::list(&workspace, args).map(|()| 0),
        Command::Models(args) => cmd::chat::models(&args).map(|()| 0),
        Command::Learn(args) => cmd::knowledge::learn(&workspace, args).map(|()| 0),
        Command::Validate(args) => cmd::knowledge::validate(&workspace, args).map(outcome),
        Command::Search(args) => cmd::knowledge::search(&workspace, args).map(|()| 0),
        Command::Team(command) => cmd::team::team(&workspace, command).map(|()| 0),
        Command::Task(command) => cmd::team::task(&workspace, command).map(|()| 0),
        Command::Msg(command) => cmd::team::msg(&workspace, command).map(|()| 0),
        Command::Tapes(command) => cmd::tapes::run(&workspace, command).map(outcome),
        Command::Open(args) => cmd::open::run(&workspace, args).map(|()| 0),
        Command::Hook(_) => Ok(1),
        Command::Connect(args) => cmd::connect::run(&workspace, &args).map(|()| 0),
        Command::Hooks(command) => cmd::hooks::install(&workspace, &command).map(|()| 0),
        Command::Agents(args) => cmd::agents::list(&workspace, &args).map(|()| 0),
        Command::Agent(command) => cmd::agent::run(&workspace, command).map(|()| 0),
        // The recorded exit status is the process's.
        Command::Play(args) => cmd::play::run(&workspace, args),
        // The program's exit status is the process's.
        Command::Run(args) => cmd::run::run(args),
        Command::Session(command) => cmd::session::run(&workspace, command),
        Command::Investigate(args) => cmd::probe::investigate(&workspace, args),
        Command::Probe(args) => cmd::probe::probe(&workspace, args),
        Command::Test(args) => cmd::probe::test(&workspace, args),
        Command::Fuzz(args) => cmd::probe::fuzz(&workspace, args),
        Command::Chain(command) => cmd::probe::chain(&workspace, command),
        // The program's exit status is the process's.
        Command::Rec(args) => cmd::rec::run(&workspace, args),
        Command::Mcp(args) => cmd::mcp::run(workspace, named, args).map(|()| 0),
        Command::Serve(args) => cmd::serve::run(workspace, &args).map(|()| 0),
        Command::Pair(args) => cmd::serve::pair(&workspace, &args).map(|()| 0),
        Command::Close(args) => cmd::inbox::close(&workspace, &args).map(|()| 0),
    }
}

/// The status of a command that says whether its outcome was positive.
fn outcome(positive: bool) -> Status {
    Status::from(!positive)
}
