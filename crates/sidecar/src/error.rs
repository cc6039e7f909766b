//! What can go wrong in the sidecar, each with the stable code the app and
//! the CLI act on (it travels in the protocol's error line).

use switchboard_model::ErrorCode;
use switchboard_store::StoreError;
use thiserror::Error;

use crate::{allow::GlobError, model_client::ClientError, writer::WriteError};

/// A failed request or chat turn.
#[derive(Debug, Error)]
pub enum SidecarError {
    /// Reading or writing the workspace failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The model server failed or misbehaved.
    #[error(transparent)]
    Model(#[from] ClientError),
    /// The agent CLI used as the model failed.
    #[error(transparent)]
    Agent(#[from] crate::agent::AgentError),
    /// A configured Building glob does not parse.
    #[error(transparent)]
    Glob(#[from] GlobError),
    /// The workspace could not be opened for writing.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// A request line that is not a request.
    #[error("not a sidecar request: {0}")]
    BadRequest(String),
    /// No chat turn has that id.
    #[error("no chat {0} is running")]
    NoChat(u64),
    /// No held write proposal has that id.
    #[error("no write proposal {0} is waiting (already settled, or the sidecar restarted)")]
    NoProposal(String),
    /// No backend works: no server configured, none answering at the local
    /// address, no signed-in agent; says what was tried and how to change.
    #[error("{0}")]
    NoBackend(String),
    /// A bug: a poisoned lock or a failed task.
    #[error("{0}")]
    Internal(String),
}

impl SidecarError {
    /// The code the app and the CLI act on.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::Store(error) => error.code(),
            Self::Model(_) | Self::Agent(_) | Self::NoBackend(_) => ErrorCode::Model,
            Self::Glob(_) | Self::BadRequest(_) => ErrorCode::InvalidRequest,
            Self::Write(_) => ErrorCode::Io,
            Self::NoChat(_) | Self::NoProposal(_) => ErrorCode::NotFound,
            Self::Internal(_) => ErrorCode::Internal,
        }
    }

    /// The protocol's error line for it: the code and the whole message.
    pub fn into_response(self) -> switchboard_model::sidecar::ResponseBody {
        let code = self.code();
        let message = match self {
            Self::Store(error) => switchboard_model::ErrorPayload::from(error).message,
            other => other.to_string(),
        };
        switchboard_model::sidecar::ResponseBody::Error { code, message }
    }
}
