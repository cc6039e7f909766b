//! Why starting an agent, or landing its work, failed.

use switchboard_model::{
    ErrorCode, ErrorPayload,
    agent::{AgentKind, launch::LaunchError},
};
use switchboard_session::ClientError;
use switchboard_store::StoreError;
use thiserror::Error;

/// A failure of this crate, with its code.
#[derive(Debug, Error)]
pub enum LaunchFailure {
    /// The request breaks a rule.
    #[error(transparent)]
    Rule(#[from] LaunchError),
    /// The store refused or failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The session host refused or failed.
    #[error(transparent)]
    Session(#[from] ClientError),
    /// The agent's program is not on the caller's PATH.
    #[error(
        "{} (`{program}`) was not found on PATH: install it ({how}), run `{program}` once to sign in, then start the agent again",
        .agent.label()
    )]
    NotInstalled {
        /// Which agent.
        agent: AgentKind,
        /// Its program's name.
        program: &'static str,
        /// How to install it.
        how: &'static str,
    },
    /// The agent is installed but not signed in.
    #[error(
        "Claude Code is not signed in: run `claude auth login` (or give it ANTHROPIC_API_KEY), then start the agent again"
    )]
    SignedOut,
    /// The agent's program has ended: nothing takes what is typed.
    #[error("{name} is not running: {why} (start another agent, or read its terminal's record)")]
    NotRunning {
        /// The agent.
        name: String,
        /// Why, as its row says it: "it was stopped", "its work was
        /// merged, which ends it", a session limit.
        why: String,
    },
    /// Words for the agent's own prompt, while its screen shows something
    /// else (a dialog, a permission menu, its turn under way): typed now,
    /// they would answer what it asks ("1" is "Yes").
    #[error(
        "{name} is not waiting at its own prompt (it is busy, or asks something in its terminal): a prompt is sent once it waits for one — answer its question in the inbox, or take its terminal over where that is allowed"
    )]
    NotAtItsPrompt {
        /// The agent.
        name: String,
    },
    /// The agent has no worktree to review, merge or discard.
    #[error(
        "{0} works in the workspace itself, not in a worktree of its own: there is nothing of its own to merge or discard"
    )]
    NoWorktree(String),
}

impl LaunchFailure {
    /// The error as every edge reports it.
    pub fn payload(&self) -> ErrorPayload {
        match self {
            Self::Session(error) => error.payload(),
            other => ErrorPayload::new(other.code(), other.to_string()),
        }
    }

    /// Its stable code.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::Rule(error) => error.code(),
            Self::Store(error) => error.code(),
            Self::Session(error) => error.payload().code,
            Self::NotInstalled { .. } | Self::SignedOut => ErrorCode::Unavailable,
            Self::NotRunning { .. } | Self::NoWorktree(_) => ErrorCode::InvalidRequest,
            Self::NotAtItsPrompt { .. } => ErrorCode::Conflict,
        }
    }
}
