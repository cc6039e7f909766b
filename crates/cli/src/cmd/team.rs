//! `switchboard team|task|msg`: opencode-teams' teams, tasks and inboxes,
//! changed as the plugin changes them (its locks, its rules, its words).
//! A task id alone finds its team.

use anyhow::Result;
use clap::{Args, Subcommand, ValueEnum};
use serde_json::json;
use switchboard_model::{
    team::{DEFAULT_LEADER, MessageType, Priority, Task, TaskFilter, TaskStatus},
    terminal_text::printable,
};
use switchboard_store::{
    Workspace, clock,
    team::{self, NewTask, Teams},
};

/// The teams folder: the plugin's `OPENCODE_TEAMS_DIR`, else the
/// workspace's `.opencode/opencode-teams`.
fn teams(workspace: &Workspace) -> Teams {
    Teams::locate(workspace)
}

fn print_json(value: &serde_json::Value) -> Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}

/// One task as a line of the terminal: everything in it came from the
/// team's files (any teammate's, a cloned repository's), so nothing in it
/// acts on the terminal.
fn task_line(team: &str, task: &Task) -> String {
    let mut line = format!(
        "{}  {}  {:<11}  {:<6}  {}",
        task.id,
        team,
        task.status.as_str(),
        task.priority.as_str(),
        task.title
    );
    if let Some(owner) = &task.owner {
        line.push_str(&format!("  @{owner}"));
    }
    if !task.dependencies.is_empty() {
        line.push_str(&format!("  after {}", task.dependencies.join(",")));
    }
    if let Some(warning) = &task.warning {
        line.push_str(&format!("  ! {warning}"));
    }
    printable(&line).into_owned()
}

/// Runs `switchboard team …`.
pub fn team(workspace: &Workspace, command: TeamCommand) -> Result<()> {
    let teams = teams(workspace);
    match command {
        TeamCommand::Create {
            team,
            leader,
            leader_name,
            json,
        } => {
            let name = leader_name.unwrap_or_else(|| "Leader".to_owned());
            let config = teams.create_team(&team, (&leader, &name), clock::now())?;
            if json {
                return print_json(&serde_json::to_value(&config)?);
            }
            println!("{}", config.name);
            Ok(())
        }
        TeamCommand::List(flag) => {
            let mut rows = Vec::new();
            for name in teams.team_names()? {
                let row = match teams.board(&name) {
                    Ok(board) => json!({
                        "name": name,
                        "leader": board.config.leader,
                        "members": board.config.members.len(),
                        "tasks": board.tasks.len(),
                        "problems": board.problems.len(),
                    }),
                    Err(error) => json!({"name": name, "error": error.to_string()}),
                };
                rows.push(row);
            }
            if flag.json {
                return print_json(&json!(rows));
            }
            for row in rows {
                let line = match row.get("error") {
                    Some(error) => format!(
                        "{}  error: {}",
                        row["name"].as_str().unwrap_or(""),
                        error.as_str().unwrap_or("")
                    ),
                    None => format!(
                        "{}  leader {}  {} members  {} tasks",
                        row["name"].as_str().unwrap_or(""),
                        row["leader"].as_str().unwrap_or(""),
                        row["members"],
                        row["tasks"]
                    ),
                };
                println!("{}", printable(&line));
            }
            Ok(())
        }
        TeamCommand::Show { team, json } => {
            let board = teams.board(&team)?;
            if json {
                return print_json(&serde_json::to_value(&board)?);
            }
            let head = format!("{}  leader {}", board.config.name, board.config.leader);
            println!("{}", printable(&head));
            for member in &board.config.members {
                let unread = board
                    .inboxes
                    .iter()
                    .find(|inbox| inbox.agent == member.agent_id)
                    .map_or(0, |inbox| inbox.unread());
                let line = format!(
                    "  {} ({})  {unread} unread",
                    member.agent_id,
                    board.config.role_of(&member.agent_id).unwrap_or("member")
                );
                println!("{}", printable(&line));
            }
            for status in TaskStatus::ALL {
                let tasks: Vec<&Task> = board
                    .tasks
                    .iter()
                    .filter(|task| task.status == status)
                    .collect();
                println!("{}: {}", status.as_str(), tasks.len());
                for task in tasks {
                    println!("  {}", task_line(&team, task));
                }
            }
            for problem in &board.problems {
                eprintln!("warning: {} not read: {}", problem.path, problem.reason);
            }
            Ok(())
        }
    }
}

/// Prints a changed task.
fn print_task(team: &str, task: &Task, json: bool) -> Result<()> {
    if json {
        return print_json(&json!({"team": team, "task": task}));
    }
    println!("{}", task_line(team, task));
    Ok(())
}

/// Runs `switchboard task …`.
pub fn task(workspace: &Workspace, command: TaskCommand) -> Result<()> {
    let teams = teams(workspace);
    match command {
        TaskCommand::List {
            team,
            status: wanted,
            owner,
            ready,
            json,
        } => {
            let filter = TaskFilter {
                status: wanted.map(status),
                owner,
                ready,
            };
            let listing = team::list_tasks(&teams, team.as_deref(), &filter)?;
            for problem in &listing.problems {
                eprintln!("warning: {} not read: {}", problem.path, problem.reason);
            }
            if json {
                let rows: Vec<_> = listing
                    .tasks
                    .iter()
                    .map(|found| json!({"team": found.team, "task": found.task}))
                    .collect();
                return print_json(&json!(rows));
            }
            for found in &listing.tasks {
                println!("{}", task_line(&found.team, &found.task));
            }
            Ok(())
        }
        TaskCommand::Create {
            team,
            title,
            description,
            priority: urgency,
            deps,
            json,
        } => {
            let new = NewTask {
                title,
                description,
                priority: priority(urgency),
                dependencies: deps,
            };
            let task = team::create_task(&teams, &team, new, clock::now())?;
            if json {
                return print_task(&team, &task, true);
            }
            println!("{}", task.id);
            Ok(())
        }
        TaskCommand::Claim { id, agent, json } => {
            let team = team::find_task_team(&teams, &id)?;
            let task = team::claim_task(&teams, &team, &id, &agent, clock::now())?;
            print_task(&team, &task, json)
        }
        TaskCommand::Start(TaskId { id, json }) => {
            let team = team::find_task_team(&teams, &id)?;
            let (task, _) =
                team::advance_task(&teams, &team, &id, TaskStatus::InProgress, clock::now())?;
            print_task(&team, &task, json)
        }
        TaskCommand::Done(TaskId { id, json }) => {
            let team = team::find_task_team(&teams, &id)?;
            let (task, unblocked) =
                team::advance_task(&teams, &team, &id, TaskStatus::Completed, clock::now())?;
            if json {
                return print_json(&json!({"team": team, "task": task, "cascaded": unblocked}));
            }
            println!("{}", task_line(&team, &task));
            for other in unblocked {
                println!("  {other} no longer waits for it");
            }
            Ok(())
        }
        TaskCommand::Deps {
            id,
            add,
            remove,
            json,
        } => {
            let team = team::find_task_team(&teams, &id)?;
            let task = team::edit_dependencies(&teams, &team, &id, &add, &remove, clock::now())?;
            print_task(&team, &task, json)
        }
    }
}

/// Runs `switchboard msg …`.
pub fn msg(workspace: &Workspace, command: MsgCommand) -> Result<()> {
    let teams = teams(workspace);
    match command {
        MsgCommand::Send {
            team,
            from,
            to,
            kind,
            text,
            json,
        } => {
            let message = team::send_message(
                &teams,
                &team,
                &from,
                &to,
                message_type(kind),
                &text,
                clock::now(),
            )?;
            if json {
                return print_json(&serde_json::to_value(&message)?);
            }
            println!("sent to {to}");
            Ok(())
        }
        MsgCommand::Broadcast {
            team,
            from,
            text,
            json,
        } => {
            let recipients = team::send_broadcast(&teams, &team, &from, &text, clock::now())?;
            if json {
                return print_json(&json!({"recipients": recipients}));
            }
            println!("sent to {}", recipients.join(", "));
            Ok(())
        }
        MsgCommand::Read {
            team,
            agent,
            unread,
            json,
        } => {
            let messages = team::read_messages(&teams, &team, &agent, unread)?;
            if json {
                return print_json(&serde_json::to_value(&messages)?);
            }
            for message in &messages {
                let line = format!(
                    "{}  {} → {}  [{}]{}  {}",
                    message.timestamp,
                    message.from,
                    message.to,
                    message.kind,
                    if message.read { "" } else { " new" },
                    message.message
                );
                println!("{}", printable(&line));
            }
            Ok(())
        }
    }
}

/// `switchboard team`.
#[derive(Debug, Subcommand)]
pub enum TeamCommand {
    /// Create a team (as opencode-teams' spawn-team does): its leader is
    /// its first member, its task queue empty.
    Create {
        /// The team's name: letters, digits, '-' and '_'.
        team: String,
        /// The leader's agent id.
        #[arg(long, default_value = DEFAULT_LEADER)]
        leader: String,
        /// The leader's display name (default: "Leader").
        #[arg(long)]
        leader_name: Option<String>,
        /// Print the team's config as JSON.
        #[arg(long)]
        json: bool,
    },
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
            Self::Show { json, .. } | Self::Create { json, .. } => *json,
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
fn status(arg: StatusArg) -> TaskStatus {
    match arg {
        StatusArg::Pending => TaskStatus::Pending,
        StatusArg::InProgress => TaskStatus::InProgress,
        StatusArg::Completed => TaskStatus::Completed,
    }
}

/// The priority a `--priority` names.
fn priority(arg: PriorityArg) -> Priority {
    match arg {
        PriorityArg::High => Priority::High,
        PriorityArg::Normal => Priority::Normal,
        PriorityArg::Low => Priority::Low,
    }
}

/// The message type a `--type` names.
fn message_type(arg: TypeArg) -> MessageType {
    match arg {
        TypeArg::Plain => MessageType::Plain,
        TypeArg::Idle => MessageType::Idle,
        TypeArg::TaskAssignment => MessageType::TaskAssignment,
        TypeArg::ShutdownRequest => MessageType::ShutdownRequest,
        TypeArg::ShutdownApproved => MessageType::ShutdownApproved,
    }
}
