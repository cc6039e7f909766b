//! The store's error type, with the stable code each error maps to at the IPC
//! boundary.

use std::{io, path::PathBuf};

use switchboard_model::{ErrorCode, ErrorPayload};
use thiserror::Error;

/// Everything that can go wrong reading or writing workspace data.
#[derive(Debug, Error)]
pub enum StoreError {
    /// A file or directory could not be read or written.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done, e.g. "could not read".
        action: &'static str,
        /// The file or directory concerned.
        path: PathBuf,
        /// The operating system's reason.
        source: io::Error,
    },
    /// A data file is not valid JSON, or not the shape its format requires.
    #[error("{path} is not a valid data file: {reason}")]
    Corrupt {
        /// The unreadable file.
        path: PathBuf,
        /// What the parser said.
        reason: String,
    },
    /// A record could not be serialised (a bug, not bad input).
    #[error("could not encode {what}: {source}")]
    Encode {
        /// What was being encoded.
        what: &'static str,
        /// The serialiser's reason.
        source: serde_json::Error,
    },
    /// The workspace folder is missing or not a folder.
    #[error("workspace {path} is not a readable folder: {source}")]
    Workspace {
        /// The path given as workspace.
        path: PathBuf,
        /// Why it was refused.
        source: io::Error,
    },
    /// The file watcher could not be started.
    #[error("could not watch {path}: {source}")]
    Watch {
        /// The directory that could not be watched.
        path: PathBuf,
        /// The watcher's reason.
        source: notify::Error,
    },
}

impl StoreError {
    /// Builds an [`StoreError::Io`] for `path`.
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(io::Error) -> Self {
        let path = path.into();
        move |source| Self::Io {
            action,
            path,
            source,
        }
    }

    /// The stable code the UI and scripts act on.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::Io { .. } | Self::Workspace { .. } | Self::Watch { .. } => ErrorCode::Io,
            Self::Corrupt { .. } => ErrorCode::CorruptFile,
            Self::Encode { .. } => ErrorCode::Internal,
        }
    }
}

impl From<StoreError> for ErrorPayload {
    fn from(error: StoreError) -> Self {
        Self {
            code: error.code(),
            message: error.to_string(),
        }
    }
}
