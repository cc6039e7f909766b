//! The command line, as clap parses it.

use std::path::PathBuf;

use clap::{ArgGroup, Args, Parser, Subcommand, ValueEnum};

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
    Deliver(DeliverArgs),
    /// Wait for the answer to a delivery and print one JSON line.
    Await(AwaitArgs),
    /// Answer a delivery from the terminal, as the window would.
    Answer(AnswerArgs),
    /// List deliveries, newest first.
    List(ListArgs),
    /// Show one delivery with its annotations and feedback.
    Show(IdArgs),
    /// Print the feedback records of a delivery as JSON.
    Feedback(IdArgs),
    /// Print the annotations of a delivery as JSON.
    Annotations(IdArgs),
    /// Close a delivery by hand (completed, without an answer).
    Close(IdArgs),
    /// Talk to the model about the workspace; the answer streams to stdout,
    /// file writes and refusals to stderr.
    Chat(ChatArgs),
    /// List the chats (the active one first, then the archives).
    Chats(ChatsArgs),
    /// Which backend the chat uses here and why (the one set, or the first
    /// that works), and the models it offers.
    Models(ModelsArgs),
    /// Record a learning: the body comes from stdin (or --body), appended to
    /// the category's file in Naide's format.
    Learn(LearnArgs),
    /// Check Delia playbooks (structure, ids, schema version, content
    /// length, profiles and memories); exits 1 while problems remain.
    Validate(ValidateArgs),
    /// Search learnings, playbook bullets, profiles, memories and specs,
    /// best first (relevance × utility^0.5 × recency^0.3).
    Search(SearchArgs),
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
    Hook(crate::hooks::HookArgs),
    /// Add or remove Switchboard's hooks in an agent's project settings.
    #[command(subcommand)]
    Hooks(crate::hooks::HooksCommand),
    /// The agents seen through hooks and MCP: what each does, since when,
    /// where, and what it waits on.
    Agents(crate::hooks::AgentsArgs),
    /// Start an agent (Claude Code, Codex) in a live terminal, in the
    /// workspace or its own git worktree; review, merge or discard its
    /// work.
    #[command(subcommand)]
    Agent(crate::cmd::agent::AgentCommand),
    /// Serve the workspace to agents over the Model Context Protocol
    /// (stdio): deliver, ask and wait, feedback, annotations, knowledge,
    /// team tasks.
    Mcp(McpArgs),
}

/// `switchboard mcp`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct McpArgs {
    /// Instead of serving: register the server with an agent client.
    #[command(subcommand)]
    pub action: Option<McpAction>,
    /// Milliseconds between the progress notifications a waiting `ask`
    /// sends, so clients do not time the call out.
    #[arg(long, value_name = "MS", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(10..=600_000))]
    pub heartbeat_ms: u64,
    /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio (default
    /// 127.0.0.1 on a free port; loopback only); every request needs a
    /// token from `switchboard mcp token`.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:0")]
    pub http: Option<String>,
    /// Another loopback `Host` the HTTP server answers to (repeatable): the
    /// far end of an SSH tunnel, `127.0.0.1:PORT` there.
    #[arg(long, value_name = "HOST:PORT", requires = "http")]
    pub allow_host: Vec<String>,
    /// End the HTTP server when its stdin closes (what `connect` starts
    /// ends with it, however it ends).
    #[arg(long, requires = "http", hide = true)]
    pub exit_with_stdin: bool,
}

/// What `switchboard mcp` does besides serving.
#[derive(Debug, Subcommand)]
pub enum McpAction {
    /// Print the config entry that makes a client start `switchboard mcp`
    /// for this project; with --write, add it to the project's config file
    /// for that client, other entries kept.
    Install {
        /// The client.
        #[arg(value_enum)]
        client: crate::mcp::install::Client,
        /// Add the entry to the config file instead of printing it.
        #[arg(long)]
        write: bool,
        /// An entry for `switchboard mcp --http` at this URL instead (Claude
        /// Code, Codex, opencode; without a URL: the server running for
        /// this workspace); the token comes from the agent's environment
        /// variable SWITCHBOARD_TOKEN, never from the file.
        #[arg(long, value_name = "URL", num_args = 0..=1, default_missing_value = "")]
        http: Option<String>,
    },
    /// Bearer tokens for `switchboard mcp --http`: make one (printed once;
    /// only its digest is kept, in the config folder), list or revoke them.
    Token {
        /// The agent the new token names (a machine, a container).
        #[arg(long, default_value = "agent", conflicts_with_all = ["list", "revoke"])]
        name: String,
        /// List the tokens' names and dates.
        #[arg(long)]
        list: bool,
        /// Revoke the token with this name; it stops working at once.
        #[arg(long, value_name = "NAME", conflicts_with = "list")]
        revoke: Option<String>,
        /// Grant the new token a scope beyond inbox, knowledge and tasks:
        /// `programs` (start and drive any program on this machine:
        /// program sessions and investigation).
        #[arg(
            long,
            value_name = "SCOPE",
            value_delimiter = ',',
            conflicts_with_all = ["list", "revoke"]
        )]
        allow: Vec<switchboard_model::token::Scope>,
    },
    /// Run a tool call recorded as a task to its end (what `switchboard
    /// mcp` starts for a long call; SIGTERM cancels it).
    #[command(hide = true)]
    RunTask {
        /// The stored task (`t_…`).
        id: String,
    },
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
            | Command::Hook(_)
            | Command::Connect(_)
            | Command::Hooks(_)
            | Command::Play(_)
            | Command::Rec(_)
            | Command::Open(_) => false,
        }
    }
}

/// The kinds of knowledge, for `--kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KindArg {
    /// Learnings entries.
    Learning,
    /// Playbook bullets.
    Bullet,
    /// Delia profiles.
    Profile,
    /// Delia memories.
    Memory,
    /// Spec and plan files.
    Spec,
}

/// `switchboard search`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// What to look for.
    #[arg(required = true)]
    pub query: Vec<String>,
    /// Only these kinds (repeatable).
    #[arg(long = "kind", value_enum)]
    pub kinds: Vec<KindArg>,
    /// At most this many hits.
    #[arg(long, default_value_t = 10)]
    pub limit: usize,
    /// One JSON document instead of lines.
    #[arg(long)]
    pub json: bool,
}

/// `switchboard learn`.
#[derive(Debug, Args)]
pub struct LearnArgs {
    /// The category (its file is `<category>.md`).
    #[arg(long)]
    pub category: String,
    /// The entry's title.
    #[arg(long)]
    pub title: String,
    /// The body; read from stdin when absent.
    #[arg(long)]
    pub body: Option<String>,
}

/// `switchboard validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// One playbook file to check (default: every playbook, plus profiles
    /// and memories).
    pub path: Option<PathBuf>,
    /// Migrate v1 files to v2 and give id-less bullets an id.
    #[arg(long)]
    pub fix: bool,
    /// One JSON document instead of lines.
    #[arg(long)]
    pub json: bool,
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
