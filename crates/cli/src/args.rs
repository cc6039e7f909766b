//! The command line, as clap parses it.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// Switchboard: publish results and questions to the developer's inbox,
/// and read the answers.
#[derive(Debug, Parser)]
#[command(name = "switchboard", version, about)]
pub struct Cli {
    /// The workspace folder (default: `SWITCHBOARD_WORKSPACE`, else the
    /// current directory; a linked git worktree's is its main working tree).
    #[arg(
        short = 'C',
        long,
        global = true,
        value_name = "PATH",
        env = "SWITCHBOARD_WORKSPACE"
    )]
    pub workspace: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Publish a result or a question. Passive: prints the id. Blocking:
    /// waits for the answer and prints one JSON line.
    Deliver(crate::cmd::inbox::DeliverArgs),
    /// Wait for the answer to a delivery and print one JSON line.
    Await(crate::cmd::inbox::AwaitArgs),
    /// Answer a delivery from the terminal, as the window would.
    Answer(crate::cmd::inbox::AnswerArgs),
    /// List deliveries, newest first.
    List(crate::cmd::inbox::ListArgs),
    /// Show one delivery with its annotations and feedback.
    Show(crate::cmd::inbox::IdArgs),
    /// Print the feedback records of a delivery as JSON.
    Feedback(crate::cmd::inbox::IdArgs),
    /// Print the annotations of a delivery as JSON.
    Annotations(crate::cmd::inbox::IdArgs),
    /// Close a delivery by hand (completed, without an answer).
    Close(crate::cmd::inbox::IdArgs),
    /// Talk to the model about the workspace; the answer streams to stdout,
    /// file writes and refusals to stderr.
    Chat(crate::cmd::chat::ChatArgs),
    /// List the chats (the active one first, then the archives).
    Chats(crate::cmd::chat::ChatsArgs),
    /// Which backend the chat uses here and why (the one set, or the first
    /// that works), and the models it offers.
    Models(crate::cmd::chat::ModelsArgs),
    /// Record a learning: the body comes from stdin (or --body), appended to
    /// the category's file in Naide's format.
    Learn(crate::cmd::knowledge::LearnArgs),
    /// Check Delia playbooks (structure, ids, schema version, content
    /// length, profiles and memories); exits 1 while problems remain.
    Validate(crate::cmd::knowledge::ValidateArgs),
    /// Search learnings, playbook bullets, profiles, memories and specs,
    /// best first (relevance × utility^0.5 × recency^0.3).
    Search(crate::cmd::knowledge::SearchArgs),
    /// opencode-teams' teams.
    #[command(subcommand)]
    Team(crate::cmd::team::TeamCommand),
    /// opencode-teams' task queue (a task id alone finds its team).
    #[command(subcommand)]
    Task(crate::cmd::team::TaskCommand),
    /// opencode-teams' inboxes.
    #[command(subcommand)]
    Msg(crate::cmd::team::MsgCommand),
    /// Terminal tapes in ClaudeControl's format.
    #[command(subcommand)]
    Tapes(crate::cmd::tapes::TapesCommand),
    /// Stand in for a program from its tapes: banner, recorded answers at
    /// the recorded pace, the recorded exit status.
    Play(crate::cmd::play::PlayArgs),
    /// Run a program on a pseudo-terminal, used as usual, and record the
    /// session as a tape (banner, exchanges, exit; secrets masked).
    Rec(crate::cmd::rec::RecArgs),
    /// Run a program once on a pseudo-terminal, answering it through
    /// --expect/--send pairs; prints its output and exits with its status
    /// (124 when --timeout ran out; it is never left running).
    Run(crate::cmd::run::RunArgs),
    /// Program sessions: interactive programs on pseudo-terminals that
    /// outlive this command, driven by agents (start, send, expect, wait,
    /// read, list, kill, resize).
    #[command(subcommand)]
    Session(crate::cmd::session::SessionCommand),
    /// Find out what an unknown interactive program is: its prompts,
    /// commands, modes, formats, errors and exits, by asking it (safe by
    /// default: commands that read destructive are never sent); the report
    /// goes to ClaudeControl's investigations folder.
    Investigate(crate::cmd::probe::InvestigateArgs),
    /// A quick look at a program: does it answer, is it interactive
    /// (measured), its prompt, the commands its help lists.
    Probe(crate::cmd::probe::ProbeArgs),
    /// ClaudeControl's seven black-box checks of a program (startup, help,
    /// invalid input, exit, resources, concurrent sessions, fuzz); exit
    /// status 1 when one fails.
    Test(crate::cmd::probe::TestArgs),
    /// Fuzz a program's input from a seed (the same seed, the same inputs);
    /// each crash is saved as a tape that replays it; exit status 1 when it
    /// crashed.
    Fuzz(crate::cmd::probe::FuzzArgs),
    /// Command chains (`.switchboard/chains/NAME.json`), run in one shell
    /// session so each step sees the last one's `cd` and variables.
    #[command(subcommand)]
    Chain(crate::cmd::probe::ChainCommand),
    /// Open the workspace's window, or bring it forward when it is open.
    Open(crate::cmd::open::OpenArgs),
    /// Give agents on another machine this workspace's Switchboard through
    /// one SSH connection (`ssh -R` to a local HTTP server, a token named
    /// for the machine, its settings written there); kept up until Ctrl-C.
    Connect(crate::cmd::connect::ConnectArgs),
    /// Run as an agent's hook (Claude Code, Codex): reads the event on
    /// stdin; a permission request is asked in the window when one is
    /// open and the decision printed in the agent's shape.
    Hook(crate::cmd::hook::HookArgs),
    /// Add or remove Switchboard's hooks in an agent's project settings.
    #[command(subcommand)]
    Hooks(crate::cmd::hooks::HooksCommand),
    /// The agents seen through hooks and MCP: what each does, since when,
    /// where, and what it waits on.
    Agents(crate::cmd::agents::AgentsArgs),
    /// Start an agent (Claude Code, Codex) in a live terminal, in the
    /// workspace or its own git worktree; review, merge or discard its
    /// work.
    #[command(subcommand)]
    Agent(crate::cmd::agent::AgentCommand),
    /// Serve the workspace to agents over the Model Context Protocol
    /// (stdio): deliver, ask and wait, feedback, annotations, knowledge,
    /// team tasks.
    Mcp(crate::cmd::mcp::McpArgs),
    /// Serve the inbox to a browser (a phone, another computer through a
    /// tunnel, or over TLS): paired with a one-time link.
    Serve(crate::cmd::serve::ServeArgs),
    /// Print a new one-time pairing link (and its QR code) for the
    /// `switchboard serve` already serving this workspace (the window's
    /// own too).
    Pair(crate::cmd::serve::PairArgs),
}

impl Command {
    /// Whether the output is for a program (`--json`), errors included.
    pub fn wants_json(&self) -> bool {
        match self {
            Command::Deliver(args) => args.json,
            Command::List(args) => args.json,
            Command::Show(args) | Command::Feedback(args) | Command::Annotations(args) => args.json,
            Command::Chats(args) => args.json,
            Command::Models(args) => args.json,
            Command::Validate(args) => args.json,
            Command::Search(args) => args.json,
            Command::Team(command) => command.wants_json(),
            Command::Task(command) => command.wants_json(),
            Command::Msg(command) => command.wants_json(),
            Command::Tapes(command) => command.wants_json(),
            Command::Session(command) => command.wants_json(),
            Command::Run(args) => args.json,
            Command::Investigate(args) => args.target.json,
            Command::Probe(args) => args.target.json,
            Command::Test(args) => args.target.json,
            Command::Fuzz(args) => args.target.json,
            Command::Chain(command) => command.wants_json(),
            Command::Agents(args) => args.json,
            Command::Agent(command) => command.wants_json(),
            Command::Await(_)
            | Command::Answer(_)
            | Command::Close(_)
            | Command::Chat(_)
            | Command::Learn(_)
            | Command::Mcp(_)
            | Command::Serve(_)
            | Command::Pair(_)
            | Command::Hook(_)
            | Command::Connect(_)
            | Command::Hooks(_)
            | Command::Play(_)
            | Command::Rec(_)
            | Command::Open(_) => false,
        }
    }
}
