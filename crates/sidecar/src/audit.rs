//! The audit log of model-proposed writes: one JSON line per decision in
//! `.switchboard/audit/writes.jsonl` (time, mode, path, bytes, sha256,
//! decision, reason), appended with one write per line.

use std::{
    fs::OpenOptions,
    io::{self, Write},
    path::{Path, PathBuf},
};

use serde::Serialize;
use switchboard_model::{Timestamp, chat::ChatMode};

/// The log's place inside the workspace.
pub const AUDIT_LOG: &str = ".switchboard/audit/writes.jsonl";

/// What happened to a proposed write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Written.
    Written,
    /// Refused by the allow-list.
    Refused,
    /// Allowed, but the file system refused (e.g. a symlink on the way).
    Failed,
    /// Allowed and held for the developer's approval (dry run).
    Proposed,
    /// A proposal the developer dropped.
    Discarded,
}

/// One line of the log.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditEntry {
    /// When.
    pub time: Timestamp,
    /// The chat mode.
    pub mode: &'static str,
    /// The path as the model proposed it.
    pub path: String,
    /// Bytes proposed.
    pub bytes: usize,
    /// SHA-256 of the bytes, hex.
    pub sha256: String,
    /// The decision.
    pub decision: Decision,
    /// Why, when not written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl AuditEntry {
    /// The entry for `bytes` proposed for `path` in `mode`.
    pub fn of(
        time: Timestamp,
        mode: ChatMode,
        path: &str,
        bytes: &[u8],
        decision: Decision,
        reason: Option<String>,
    ) -> Self {
        Self {
            time,
            mode: mode.as_str(),
            path: path.to_owned(),
            bytes: bytes.len(),
            sha256: crate::writer::sha256_hex(bytes),
            decision,
            reason,
        }
    }
}

/// The append-only log of one workspace.
#[derive(Debug, Clone)]
pub struct AuditLog {
    path: PathBuf,
}

impl AuditLog {
    /// The log of the workspace at `root`.
    pub fn new(root: &Path) -> Self {
        Self {
            path: root.join(AUDIT_LOG),
        }
    }

    /// Appends `entry` as one line; a failure is reported on stderr (the
    /// write itself has already been decided).
    pub fn record_or_warn(&self, entry: &AuditEntry) {
        if let Err(error) = self.record(entry) {
            eprintln!("switchboard-sidecar: could not append to the audit log: {error}");
        }
    }

    /// Appends `entry` as one line.
    pub fn record(&self, entry: &AuditEntry) -> io::Result<()> {
        if let Some(dir) = self.path.parent() {
            switchboard_store::own_folders::create_dir_all(dir).map_err(io::Error::other)?;
        }
        let mut line = serde_json::to_vec(entry).map_err(io::Error::other)?;
        line.push(b'\n');
        #[allow(
            clippy::disallowed_methods,
            reason = "the audit log is appended to, never read back here"
        )]
        let log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path);
        log?.write_all(&line)
    }
}
