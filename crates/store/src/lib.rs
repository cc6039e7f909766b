//! Switchboard's workspace storage: every byte Switchboard reads or writes in
//! a workspace goes through here.
//!
//! Writes are atomic (temp file in the same directory, fsync, rename) and
//! read-modify-write cycles hold a cross-process lock, because agents' CLI
//! processes and the app write the same files at once. Records this version
//! cannot read are carried through writes unchanged, never dropped.

pub mod agents;
pub mod annotations;
mod atomic;
pub mod browser_tls;
pub mod browsers;
pub mod chains;
pub mod chats;
pub mod clock;
pub mod codex;
pub mod contain;
pub mod deliveries;
mod error;
pub mod everywhere;
pub mod feedback;
mod git;
mod json_file;
pub mod knowledge;
pub mod launches;
mod lock;
pub mod own_folders;
pub mod probe_reports;
pub mod process;
pub mod program_configs;
pub mod receipts;
mod records;
pub mod registry;
pub mod regular;
pub mod runtime;
pub mod search;
pub mod session_log;
pub mod settings;
pub mod tapes;
pub mod tasks;
pub mod team;
pub mod theme;
pub mod tokens;
pub mod walk;
pub mod watch;
pub mod window;
mod workspace;
pub mod worktrees;

pub use atomic::{write_atomic, write_atomic_private};
pub use error::StoreError;
pub use watch::WorkspaceWatcher;
pub use workspace::Workspace;
