//! The arguments of `switchboard team|task|msg`, as clap reads them, and
//! the model's values they name.

use clap::{Args, Subcommand, ValueEnum};
use switchboard_model::team::{MessageType, Priority, TaskStatus};

/// `switchboard team`.
#[derive(Debug, Subcommand)]
pub enum TeamCommand {
    /// The teams, with their leader, members and task counts.
    List(JsonFlag),
    /// One team: members (role, unread messages), tasks by status, and the
    /// files that could not be read.
    Show {
        /// The team.
        team: String,
        /// One JSON document instead of lines.
        #[arg(long)]
        json: bool,
    },
}

/// Just `--json`.
#[derive(Debug, Args)]
pub struct JsonFlag {
    /// One JSON document instead of lines.
    #[arg(long)]
    pub json: bool,
}

/// A task status, for `--status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StatusArg {
    /// Not started.
    Pending,
    /// Claimed.
    #[value(alias = "in_progress")]
    InProgress,
    /// Done.
    Completed,
}

/// A priority, for `--priority`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PriorityArg {
    /// First.
    High,
    /// The default.
    Normal,
    /// Last.
    Low,
}

/// A message type, for `--type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TypeArg {
    /// Free text.
    Plain,
    /// Nothing to do.
    Idle,
    /// A task was given.
    #[value(alias = "task_assignment")]
    TaskAssignment,
    /// Asks the team to stop.
    #[value(alias = "shutdown_request")]
    ShutdownRequest,
    /// Agrees to stop.
    #[value(alias = "shutdown_approved")]
    ShutdownApproved,
}

/// `switchboard task`.
#[derive(Debug, Subcommand)]
pub enum TaskCommand {
    /// Tasks, by team and file name.
    List {
        /// Only this team's.
        #[arg(long)]
        team: Option<String>,
        /// Only tasks in this status.
        #[arg(long, value_enum)]
        status: Option<StatusArg>,
        /// Only tasks this agent owns.
        #[arg(long)]
        owner: Option<String>,
        /// Only tasks that can start now (pending, every dependency done).
        #[arg(long)]
        ready: bool,
        /// One JSON document instead of lines.
        #[arg(long)]
        json: bool,
    },
    /// Create a pending task; prints its id.
    Create {
        /// The team.
        #[arg(long)]
        team: String,
        /// What to do.
        #[arg(long)]
        title: String,
        /// Details.
        #[arg(long)]
        description: Option<String>,
        /// How urgent.
        #[arg(long, value_enum, default_value_t = PriorityArg::Normal)]
        priority: PriorityArg,
        /// A task that must be completed first (repeatable).
        #[arg(long = "dep", value_name = "ID")]
        deps: Vec<String>,
        /// Print the task as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Claim a pending task for an agent.
    Claim {
        /// The task.
        id: String,
        /// The agent taking it.
        #[arg(long = "as", value_name = "AGENT")]
        agent: String,
        /// Print the task as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Mark a task in progress.
    Start(TaskId),
    /// Complete a task; its dependents lose it from their dependencies.
    Done(TaskId),
    /// Add or remove dependencies (cycles are refused).
    Deps {
        /// The task.
        id: String,
        /// A dependency to add (repeatable).
        #[arg(long, value_name = "ID")]
        add: Vec<String>,
        /// A dependency to remove (repeatable).
        #[arg(long, value_name = "ID")]
        remove: Vec<String>,
        /// Print the task as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// A task id, and `--json`.
#[derive(Debug, Args)]
pub struct TaskId {
    /// The task.
    pub id: String,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `switchboard msg`.
#[derive(Debug, Subcommand)]
pub enum MsgCommand {
    /// Send a message to one member's inbox.
    Send {
        /// The team.
        #[arg(long)]
        team: String,
        /// The sender's agent id.
        #[arg(long)]
        from: String,
        /// The recipient's agent id.
        #[arg(long)]
        to: String,
        /// What it is about.
        #[arg(long = "type", value_enum, default_value_t = TypeArg::Plain)]
        kind: TypeArg,
        /// The text.
        text: String,
        /// Print the message as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Send a message to every member but the sender.
    Broadcast {
        /// The team.
        #[arg(long)]
        team: String,
        /// The sender's agent id.
        #[arg(long)]
        from: String,
        /// The text.
        text: String,
        /// Print the recipients as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Read an agent's inbox (and mark it read).
    Read {
        /// The team.
        #[arg(long)]
        team: String,
        /// Whose inbox.
        #[arg(long = "as", value_name = "AGENT")]
        agent: String,
        /// Only messages not read before.
        #[arg(long)]
        unread: bool,
        /// One JSON document instead of lines.
        #[arg(long)]
        json: bool,
    },
}

impl TeamCommand {
    /// Whether the output is for a program.
    pub fn wants_json(&self) -> bool {
        match self {
            Self::List(flag) => flag.json,
            Self::Show { json, .. } => *json,
        }
    }
}

impl TaskCommand {
    /// Whether the output is for a program.
    pub fn wants_json(&self) -> bool {
        match self {
            Self::List { json, .. }
            | Self::Create { json, .. }
            | Self::Claim { json, .. }
            | Self::Deps { json, .. } => *json,
            Self::Start(id) | Self::Done(id) => id.json,
        }
    }
}

impl MsgCommand {
    /// Whether the output is for a program.
    pub fn wants_json(&self) -> bool {
        match self {
            Self::Send { json, .. } | Self::Broadcast { json, .. } | Self::Read { json, .. } => {
                *json
            }
        }
    }
}

/// The status a `--status` names.
pub(super) fn status(arg: StatusArg) -> TaskStatus {
    match arg {
        StatusArg::Pending => TaskStatus::Pending,
        StatusArg::InProgress => TaskStatus::InProgress,
        StatusArg::Completed => TaskStatus::Completed,
    }
}

/// The priority a `--priority` names.
pub(super) fn priority(arg: PriorityArg) -> Priority {
    match arg {
        PriorityArg::High => Priority::High,
        PriorityArg::Normal => Priority::Normal,
        PriorityArg::Low => Priority::Low,
    }
}

/// The message type a `--type` names.
pub(super) fn message_type(arg: TypeArg) -> MessageType {
    match arg {
        TypeArg::Plain => MessageType::Plain,
        TypeArg::Idle => MessageType::Idle,
        TypeArg::TaskAssignment => MessageType::TaskAssignment,
        TypeArg::ShutdownRequest => MessageType::ShutdownRequest,
        TypeArg::ShutdownApproved => MessageType::ShutdownApproved,
    }
}
