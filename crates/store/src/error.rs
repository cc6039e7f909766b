//! The store's error type, with the stable code each error maps to at the IPC
//! boundary.

use std::{io, path::PathBuf};

use switchboard_model::{
    DeliveryError, ErrorCode, ErrorPayload, ReplyRefusal,
    annotation::AnnotationError,
    feedback::{AnswerErrors, FieldError, SchemaError},
    knowledge::{learning::LearningError, playbook::BulletError},
    team::TeamError,
};
use thiserror::Error;

/// Everything that can go wrong reading or writing workspace data.
#[derive(Debug, Error)]
pub enum StoreError {
    /// A file or directory could not be read or written.
    #[error("{action} {path}")]
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
    #[error("could not encode {what}")]
    Encode {
        /// What was being encoded.
        what: &'static str,
        /// The serialiser's reason.
        source: serde_json::Error,
    },
    /// The workspace folder is missing or not a folder.
    #[error("workspace {path} is not a readable folder")]
    Workspace {
        /// The path given as workspace.
        path: PathBuf,
        /// Why it was refused.
        source: io::Error,
    },
    /// A symlink leads a path the workspace names out of the workspace; it
    /// is not read.
    #[error("{path} is a symlink to {target}, outside the workspace; not read")]
    OutsideWorkspace {
        /// The path inside the workspace.
        path: PathBuf,
        /// Where it leads.
        target: PathBuf,
    },
    /// No record has that id.
    #[error("no {what} with id {id:?}")]
    NotFound {
        /// The kind of record.
        what: &'static str,
        /// The id asked for.
        id: String,
    },
    /// A new delivery is invalid; nothing was written.
    #[error(transparent)]
    Delivery(#[from] DeliveryError),
    /// A stored feedback schema is invalid, so no answer can be checked.
    #[error("the delivery's feedback schema is invalid")]
    StoredSchema(#[from] SchemaError),
    /// The delivery does not take this reply now.
    #[error(transparent)]
    Refused(#[from] ReplyRefusal),
    /// The answer does not fit the form; nothing was written.
    #[error("the answer does not fit the form")]
    Answer(#[from] AnswerErrors),
    /// The annotation is invalid; nothing was written.
    #[error(transparent)]
    Annotation(#[from] AnnotationError),
    /// A request a team's rules refuse (in the plugin's words); nothing was
    /// written.
    #[error(transparent)]
    Team(#[from] TeamError),
    /// A change to a playbook its rules refuse (a bullet too long, a
    /// duplicate, an unknown bullet); nothing was written.
    #[error(transparent)]
    Bullet(#[from] BulletError),
    /// A learning the rules refuse (no title, no body); nothing was
    /// written.
    #[error(transparent)]
    Learning(#[from] LearningError),
    /// A bearer token the rules refuse (a bad or taken name, an unknown
    /// one); nothing was written.
    #[error(transparent)]
    Token(#[from] switchboard_model::token::TokenError),
    /// A change to a task that ended; nothing was written.
    #[error(transparent)]
    Task(#[from] switchboard_model::task::TaskError),
    /// A name that cannot name a file (a path, a dot name, a character
    /// outside the rule); nothing was read or written.
    #[error("{what} {name:?} cannot name a file: {rule}")]
    BadName {
        /// What it names (`chain`, `team`, `tape folder`…).
        what: &'static str,
        /// The name given.
        name: String,
        /// What a name of this kind may hold.
        rule: String,
    },
    /// A file other processes lock (a tape) stayed locked longer than we
    /// wait; nothing was written.
    #[error("{} is locked by another writer for more than {} s", path.display(), waited.as_secs())]
    Locked {
        /// The lock file.
        path: PathBuf,
        /// How long we waited.
        waited: std::time::Duration,
    },
    /// The exchange asked for is not in the tape.
    #[error("tape {tape} has {count} exchanges, not {asked}")]
    NoExchange {
        /// The tape's id.
        tape: String,
        /// How many it has.
        count: usize,
        /// The 1-based number asked for.
        asked: usize,
    },
    /// Every name tried for a new file is taken.
    #[error("{} and 99 numbered names beside it are taken", path.display())]
    NamesTaken {
        /// The name wanted first.
        path: PathBuf,
    },
    /// A text file is not UTF-8; nothing was changed.
    #[error("{} is not UTF-8 text; nothing was appended and the file is left as it is", path.display())]
    NotText {
        /// The file (relative to the workspace).
        path: PathBuf,
    },
    /// A session log does not say which program it is of (another
    /// recorder's asciicast).
    #[error("the log of {session} does not say which program it is of")]
    ForeignLog {
        /// The session.
        session: String,
    },
    /// A merge would replace files of the developer's checkout that git
    /// does not track (an ignored `.env`, an untracked note).
    #[error(
        "merging into {base} would replace files in {} that git does not track: {} — move them away (or commit them), then merge",
        checkout.display(),
        files.join(", ")
    )]
    WouldReplace {
        /// The base branch.
        base: String,
        /// The checkout it is in.
        checkout: PathBuf,
        /// The files, relative to the checkout.
        files: Vec<String>,
    },
    /// No folder for Switchboard's own records: no config folder.
    #[error(
        "no folder for Switchboard's own records: set HOME, or SWITCHBOARD_CONFIG_DIR to a folder only you can write"
    )]
    NoConfigDir,
    /// No folder for ClaudeControl's reports: no home folder.
    #[error("no home folder: set CLAUDE_CONTROL_HOME to where ClaudeControl keeps its reports")]
    NoReportsHome,
    /// A path that is not a report directly in one of the report folders.
    #[error("{} is not a report in {}", path.display(), home.display())]
    NotAReport {
        /// The path asked for.
        path: PathBuf,
        /// The reports' home.
        home: PathBuf,
    },
    /// An HTML delivery asked for as another format.
    #[error("delivery {id} is HTML: it can be saved as an HTML page, not as {format}")]
    NotExportable {
        /// The delivery.
        id: String,
        /// The format asked for.
        format: String,
    },
    /// The search index failed.
    #[error("the search index at {path} failed: {reason}")]
    Search {
        /// The index folder.
        path: PathBuf,
        /// What the index library said.
        reason: String,
    },
    /// A started agent's name, worktree or state refuses the change.
    #[error(transparent)]
    Launch(#[from] switchboard_model::agent::launch::LaunchError),
    /// git refused or failed.
    #[error("git {action} failed in {}: {said}", dir.display())]
    Git {
        /// What git was asked, e.g. "worktree add".
        action: String,
        /// Where.
        dir: PathBuf,
        /// What git said (its last lines).
        said: String,
    },
    /// A merge would conflict: nothing was changed.
    #[error("merging {branch} into {base} would conflict in {}: nothing was changed (resolve it in the worktree, e.g. merge {base} there, then merge again)", .files.join(", "))]
    Conflict {
        /// The branch to merge.
        branch: String,
        /// What it would merge into.
        base: String,
        /// The files that conflict.
        files: Vec<String>,
    },
    /// Something is in the way of landing or discarding an agent's work.
    #[error("{0}")]
    InTheWay(String),
    /// A merge asked without committing the worktree's uncommitted
    /// changes first: nothing was changed. Each edge names its own way to
    /// say "commit them" (the CLI's `--commit`, the window's button).
    #[error(
        "{name}'s worktree has uncommitted changes in {files} file(s): merge them committed, or commit them yourself in {}",
        worktree.display()
    )]
    Uncommitted {
        /// The agent.
        name: String,
        /// How many files.
        files: usize,
        /// Its worktree.
        worktree: PathBuf,
    },
    /// A discard not confirmed would lose work: nothing was removed. Each
    /// edge names its own way to confirm (the CLI's `--force`, the
    /// window's "Discard anyway").
    #[error("discarding would lose {}: confirm to discard it anyway", .work.join(" and "))]
    WouldLose {
        /// What would be lost, in words.
        work: Vec<String>,
    },
    /// A pairing code or a browser session is refused.
    #[error(transparent)]
    Browser(#[from] switchboard_model::browser::BrowserError),
    /// The user's private runtime folder cannot be used.
    #[error(transparent)]
    Runtime(#[from] crate::runtime::RuntimeError),
    /// The file watcher could not be started.
    #[error("could not watch {path}")]
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
            Self::Io { .. }
            | Self::Workspace { .. }
            | Self::Watch { .. }
            | Self::Runtime(_)
            | Self::Search { .. }
            | Self::Git { .. } => ErrorCode::Io,
            Self::Launch(error) => error.code(),
            Self::NoConfigDir => ErrorCode::Unavailable,
            Self::Conflict { .. } | Self::WouldReplace { .. } => ErrorCode::Conflict,
            Self::InTheWay(_) | Self::Uncommitted { .. } | Self::WouldLose { .. } => {
                ErrorCode::InvalidRequest
            }
            Self::BadName { .. }
            | Self::NoReportsHome
            | Self::NotAReport { .. }
            | Self::NotExportable { .. }
            | Self::ForeignLog { .. } => ErrorCode::InvalidRequest,
            Self::Locked { .. } => ErrorCode::Busy,
            Self::NoExchange { .. } => ErrorCode::NotFound,
            Self::NamesTaken { .. } => ErrorCode::LimitReached,
            Self::Corrupt { .. } | Self::NotText { .. } => ErrorCode::CorruptFile,
            Self::Encode { .. } | Self::StoredSchema(_) => ErrorCode::Internal,
            Self::NotFound { .. }
            | Self::Bullet(BulletError::Missing { .. })
            | Self::Team(TeamError::TaskMissing { .. } | TeamError::TeamMissing(_)) => {
                ErrorCode::NotFound
            }
            Self::Team(_) => ErrorCode::InvalidRequest,
            Self::Token(switchboard_model::token::TokenError::Unknown(_)) => ErrorCode::NotFound,
            Self::Browser(switchboard_model::browser::BrowserError::Unknown(_)) => {
                ErrorCode::NotFound
            }
            Self::Browser(switchboard_model::browser::BrowserError::BadCode) => {
                ErrorCode::Forbidden
            }
            Self::Browser(_) => ErrorCode::NotPaired,
            Self::Token(_) => ErrorCode::InvalidRequest,
            Self::OutsideWorkspace { .. } => ErrorCode::OutsideWorkspace,
            Self::Refused(ReplyRefusal::AlreadyResponded) => ErrorCode::AlreadyResponded,
            Self::Refused(ReplyRefusal::ChangedSinceShown) => ErrorCode::Conflict,
            Self::Refused(ReplyRefusal::NoFeedbackExpected | ReplyRefusal::NotShown)
            | Self::Delivery(_)
            | Self::Bullet(_)
            | Self::Learning(_)
            | Self::Answer(_)
            | Self::Annotation(_)
            | Self::Task(_) => ErrorCode::InvalidRequest,
        }
    }

    /// Field-level problems of a rejected answer, for the form to show.
    pub fn field_errors(&self) -> &[FieldError] {
        match self {
            Self::Answer(errors) => &errors.0,
            _ => &[],
        }
    }
}

impl From<StoreError> for ErrorPayload {
    fn from(error: StoreError) -> Self {
        // The message is the whole chain: "could not read X: permission denied".
        let mut message = error.to_string();
        let mut source = std::error::Error::source(&error);
        while let Some(cause) = source {
            message.push_str(": ");
            message.push_str(&cause.to_string());
            source = cause.source();
        }
        Self {
            code: error.code(),
            message,
            fields: error.field_errors().to_vec(),
        }
    }
}
