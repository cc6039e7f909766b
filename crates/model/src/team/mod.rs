//! Agent teams in opencode-teams' format (`.opencode/opencode-teams/`):
//! team configs, per-agent inboxes and a task queue with dependencies, and
//! the plugin's rules over them, with its exact error strings, so an agent
//! reading an error from Switchboard reads what the plugin would have said.
//!
//! The plugin drops fields it does not know when it rewrites a file, so
//! Switchboard adds none of its own; fields other tools wrote are kept
//! (`extra`) when Switchboard rewrites a file.

mod board;
pub mod claude;
mod config;
pub mod graph;
mod message;
pub(crate) mod task;
mod time;

pub use board::{FileProblem, Inbox, TeamBoard};
pub use claude::{TeamEntry, TeamSource};
pub use config::{DEFAULT_LEADER, Member, TeamConfig, check_team_name};
pub use message::{Message, MessageType, broadcast};
pub use task::{
    CLAIM_WARNING_MARK, DependencyState, Priority, Task, TaskAction, TaskFilter, TaskStatus,
    cascade_completion, check_dependencies, check_transition, claim, claim_warning,
    dependency_candidates, dependency_states, dependents_of, is_ready, readiness,
};

use thiserror::Error;

/// A request the team's rules refuse. Each message is the plugin's own.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TeamError {
    /// A team name with characters the plugin does not allow.
    #[error("Invalid team name \"{0}\": Team name must be alphanumeric with hyphens/underscores")]
    InvalidTeamName(String),
    /// No team of that name.
    #[error("Team \"{0}\" does not exist")]
    TeamMissing(String),
    /// A team of that name was created before.
    #[error("Team \"{0}\" already exists")]
    TeamExists(String),
    /// A message to someone outside the team.
    #[error("Recipient \"{agent}\" is not a member of team \"{team}\"")]
    NotMember {
        /// The recipient.
        agent: String,
        /// The team.
        team: String,
    },
    /// The dependencies would close a cycle through this task.
    #[error("Circular dependency detected: {0}")]
    Circular(String),
    /// A dependency on a task that does not exist.
    #[error("Dependency task {0} does not exist")]
    DependencyMissing(String),
    /// No task with that id in the team.
    #[error("Task {id} not found in team {team}")]
    TaskMissing {
        /// The task id.
        id: String,
        /// The team.
        team: String,
    },
    /// A status change backwards or skipping a step.
    #[error("Invalid status transition: {from} -> {to}")]
    Transition {
        /// The current status.
        from: TaskStatus,
        /// The status asked for.
        to: TaskStatus,
    },
    /// Deleting a task another task depends on.
    #[error("Cannot delete task {id} because task {other} depends on it")]
    Depended {
        /// The task to delete.
        id: String,
        /// A task depending on it.
        other: String,
    },
    /// Claiming a task that is not pending.
    #[error("Task {id} is not available (status: {status})")]
    NotAvailable {
        /// The task.
        id: String,
        /// Its status.
        status: TaskStatus,
    },
    /// A field the plugin's schema requires to be non-empty is empty.
    #[error("{0} must be non-empty")]
    Empty(&'static str),
}
