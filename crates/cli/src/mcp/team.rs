//! The team tools over opencode-teams' files, under the plugin's locks and
//! rules: `list_tasks`, `create_task`, `claim_task`, `update_task`,
//! `send_message`, `read_messages`. A task id alone finds its team.

use rmcp::{Json, handler::server::wrapper::Parameters, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use switchboard_model::team::{
    Message, MessageType, Priority, Task, TaskFilter, TaskStatus, readiness,
};
use switchboard_store::{
    clock,
    team::{self, NewTask, TaskUpdate, Teams},
};

use super::{Server, ToolError};

/// A task as the tools show it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TaskView {
    /// Its team.
    pub team: String,
    /// `{ms}-{8 hex}`.
    pub id: String,
    /// What to do.
    pub title: String,
    /// Details.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `high`, `normal` or `low`.
    pub priority: String,
    /// `pending`, `in_progress` or `completed`.
    pub status: String,
    /// Who claimed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// Tasks that must be completed first.
    pub dependencies: Vec<String>,
    /// Tasks waiting for this one.
    pub blocks: Vec<String>,
    /// A caution, e.g. claimed before its dependencies were met.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// Pending with every dependency completed: it can start now.
    pub ready: bool,
    /// When it was created.
    pub created_at: String,
}

impl TaskView {
    fn of(team: &str, task: &Task, ready: bool) -> Self {
        Self {
            team: team.to_owned(),
            id: task.id.clone(),
            title: task.title.clone(),
            description: task.description.clone(),
            priority: task.priority.as_str().to_owned(),
            status: task.status.as_str().to_owned(),
            owner: task.owner.clone(),
            dependencies: task.dependencies.clone(),
            blocks: task.blocks.clone(),
            warning: task.warning.clone(),
            ready,
            created_at: task.created_at.to_string(),
        }
    }

    /// A task just changed, its readiness read from its board.
    fn fresh(teams: &Teams, team: &str, task: &Task) -> Self {
        let ready = teams.board(team).ok().is_some_and(|board| {
            let ready = readiness(&board.tasks);
            board
                .tasks
                .iter()
                .zip(ready)
                .any(|(other, ready)| other.id == task.id && ready)
        });
        Self::of(team, task, ready)
    }
}

/// `list_tasks`' arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListTasksArgs {
    /// Only this team (default: every team).
    #[serde(default)]
    pub team: Option<String>,
    /// Only this status: `pending`, `in_progress` or `completed`.
    #[serde(default)]
    pub status: Option<String>,
    /// Only tasks this agent owns.
    #[serde(default)]
    pub owner: Option<String>,
    /// Only tasks that can start now (pending, every dependency completed).
    #[serde(default)]
    pub ready: bool,
}

/// `list_tasks`' result.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TaskList {
    /// The tasks, by team and the plugin's order.
    pub tasks: Vec<TaskView>,
    /// Files that could not be read, each with its reason.
    pub problems: Vec<String>,
}

/// `create_task`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateTaskArgs {
    /// The team.
    pub team: String,
    /// What to do.
    pub title: String,
    /// Details.
    #[serde(default)]
    pub description: Option<String>,
    /// `high`, `normal` (default) or `low`.
    #[serde(default)]
    pub priority: Option<String>,
    /// Ids of tasks that must be completed first.
    #[serde(default)]
    pub dependencies: Vec<String>,
}

/// `claim_task`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClaimArgs {
    /// The task id.
    pub id: String,
    /// The member claiming it.
    pub agent: String,
}

/// `update_task`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateArgs {
    /// The task id.
    pub id: String,
    /// Move it forward: `in_progress` or `completed` (completing frees its
    /// dependents).
    #[serde(default)]
    pub status: Option<String>,
    /// Dependencies to add (a cycle is refused).
    #[serde(default)]
    pub add_dependencies: Vec<String>,
    /// Dependencies to remove.
    #[serde(default)]
    pub remove_dependencies: Vec<String>,
}

/// A task after a change.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Updated {
    /// The task now.
    pub task: TaskView,
    /// Tasks that no longer wait for it (after completion).
    pub unblocked: Vec<String>,
}

/// `send_message`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendArgs {
    /// The team.
    pub team: String,
    /// The sender's agent id.
    pub from: String,
    /// The recipient; without it the message goes to every member but the
    /// sender (a broadcast).
    #[serde(default)]
    pub to: Option<String>,
    /// `plain` (default), `idle`, `task_assignment`, `shutdown_request` or
    /// `shutdown_approved` (a broadcast is always plain).
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    /// The text.
    pub text: String,
}

/// Who a message reached.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Sent {
    /// The inboxes it landed in.
    pub recipients: Vec<String>,
}

/// `read_messages`' arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    /// The team.
    pub team: String,
    /// Whose inbox (they are marked read).
    pub agent: String,
    /// Only the unread ones.
    #[serde(default)]
    pub unread: bool,
}

/// One message.
#[derive(Debug, Serialize, JsonSchema)]
pub struct MessageView {
    /// The sender.
    pub from: String,
    /// The recipient, or `broadcast`.
    pub to: String,
    /// The text.
    pub message: String,
    /// Its type.
    #[serde(rename = "type")]
    pub kind: String,
    /// When it was sent.
    pub timestamp: String,
    /// Whether it had been read before this call.
    pub read: bool,
}

impl From<Message> for MessageView {
    fn from(message: Message) -> Self {
        Self {
            from: message.from,
            to: message.to,
            message: message.message,
            kind: message.kind.as_str().to_owned(),
            timestamp: message.timestamp.to_string(),
            read: message.read,
        }
    }
}

/// `read_messages`' result.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Messages {
    /// Oldest first.
    pub messages: Vec<MessageView>,
}

fn status(name: &str) -> Result<TaskStatus, ToolError> {
    TaskStatus::parse(name).ok_or_else(|| {
        ToolError::invalid(format!(
            "unknown status {name:?}; use pending, in_progress or completed"
        ))
    })
}

#[tool_router(router = team_tools, vis = "pub(super)")]
impl Server {
    /// Lists tasks.
    #[tool(
        description = "List the agent team's tasks (opencode-teams), optionally one team's, one \
                       status, one owner, or only those ready to start (pending, every \
                       dependency completed)."
    )]
    pub async fn list_tasks(
        &self,
        Parameters(args): Parameters<ListTasksArgs>,
    ) -> Result<Json<TaskList>, ToolError> {
        let filter = TaskFilter {
            status: args.status.as_deref().map(status).transpose()?,
            owner: args.owner,
            ready: args.ready,
        };
        self.blocking(move |workspace| {
            let listing =
                team::list_tasks(&Teams::locate(workspace), args.team.as_deref(), &filter)?;
            Ok(TaskList {
                tasks: listing
                    .tasks
                    .iter()
                    .map(|found| TaskView::of(&found.team, &found.task, found.ready))
                    .collect(),
                problems: listing
                    .problems
                    .into_iter()
                    .map(|problem| format!("{}: {}", problem.path, problem.reason))
                    .collect(),
            })
        })
        .await
        .map(Json)
    }

    /// Creates a task.
    #[tool(
        description = "Create a task in a team's queue, with dependencies on other tasks (a \
                       cycle or an unknown dependency is refused in the plugin's words)."
    )]
    pub async fn create_task(
        &self,
        Parameters(args): Parameters<CreateTaskArgs>,
    ) -> Result<Json<TaskView>, ToolError> {
        let priority = match args.priority.as_deref() {
            None => Priority::Normal,
            Some(name) => Priority::parse(name).ok_or_else(|| {
                ToolError::invalid(format!(
                    "unknown priority {name:?}; use high, normal or low"
                ))
            })?,
        };
        self.blocking(move |workspace| {
            let teams = Teams::locate(workspace);
            let new = NewTask {
                title: args.title,
                description: args.description,
                priority,
                dependencies: args.dependencies,
            };
            let task = team::create_task(&teams, &args.team, new, clock::now())?;
            Ok(TaskView::fresh(&teams, &args.team, &task))
        })
        .await
        .map(Json)
    }

    /// Claims a task.
    #[tool(
        description = "Claim a pending task for a member; it moves to in_progress. Claiming \
                       before its dependencies are completed succeeds with the plugin's warning."
    )]
    pub async fn claim_task(
        &self,
        Parameters(args): Parameters<ClaimArgs>,
    ) -> Result<Json<TaskView>, ToolError> {
        self.blocking(move |workspace| {
            let teams = Teams::locate(workspace);
            let team = team::find_task_team(&teams, &args.id)?;
            let task = team::claim_task(&teams, &team, &args.id, &args.agent, clock::now())?;
            Ok(TaskView::fresh(&teams, &team, &task))
        })
        .await
        .map(Json)
    }

    /// Moves a task forward or edits its dependencies.
    #[tool(
        description = "Move a task forward (in_progress, completed — completion frees the tasks \
                       waiting for it) and/or add and remove its dependencies."
    )]
    pub async fn update_task(
        &self,
        Parameters(args): Parameters<UpdateArgs>,
    ) -> Result<Json<Updated>, ToolError> {
        let update = TaskUpdate {
            status: args.status.as_deref().map(status).transpose()?,
            add: args.add_dependencies,
            remove: args.remove_dependencies,
        };
        if update.is_empty() {
            return Err(ToolError::invalid(
                "nothing to change: give status, add_dependencies or remove_dependencies",
            ));
        }
        self.blocking(move |workspace| {
            let teams = Teams::locate(workspace);
            let team = team::find_task_team(&teams, &args.id)?;
            let (task, unblocked) =
                team::update_task(&teams, &team, &args.id, &update, clock::now())?;
            Ok(Updated {
                task: TaskView::fresh(&teams, &team, &task),
                unblocked,
            })
        })
        .await
        .map(Json)
    }

    /// Sends or broadcasts a message.
    #[tool(
        description = "Send a message to a team member's inbox, or to every member but the \
                       sender when no recipient is given."
    )]
    pub async fn send_message(
        &self,
        Parameters(args): Parameters<SendArgs>,
    ) -> Result<Json<Sent>, ToolError> {
        let kind = match args.kind.as_deref() {
            None => MessageType::Plain,
            Some(name) => MessageType::parse(name).ok_or_else(|| {
                ToolError::invalid(format!(
                    "unknown type {name:?}; use plain, idle, task_assignment, shutdown_request \
                     or shutdown_approved"
                ))
            })?,
        };
        self.blocking(move |workspace| {
            let teams = Teams::locate(workspace);
            let now = clock::now();
            let recipients = match &args.to {
                Some(to) => {
                    team::send_message(&teams, &args.team, &args.from, to, kind, &args.text, now)?;
                    vec![to.clone()]
                }
                None => team::send_broadcast(&teams, &args.team, &args.from, &args.text, now)?,
            };
            Ok(Sent { recipients })
        })
        .await
        .map(Json)
    }

    /// Reads an inbox.
    #[tool(
        description = "Read a member's inbox, oldest first, marking the messages read (only the \
                       unread ones with unread: true)."
    )]
    pub async fn read_messages(
        &self,
        Parameters(args): Parameters<ReadArgs>,
    ) -> Result<Json<Messages>, ToolError> {
        self.blocking(move |workspace| {
            let teams = Teams::locate(workspace);
            let messages = team::read_messages(&teams, &args.team, &args.agent, args.unread)?;
            Ok(Messages {
                messages: messages.into_iter().map(MessageView::from).collect(),
            })
        })
        .await
        .map(Json)
    }
}
