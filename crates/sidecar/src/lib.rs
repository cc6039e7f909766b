//! Switchboard's sidecar: the only process that talks to the model and the
//! only writer of files the model proposes.
//!
//! `serve` is the request loop (the binary binds it to stdio), `chat` runs a
//! turn, `model_client` speaks the OpenAI-compatible API, and every write
//! goes through `allow` (the allow-list) and `audit`, then either `writer`
//! (capability-based, no symlinks followed; [`apply_write`]) or the store's
//! locked learnings append ([`apply_learning`]).

pub mod agent;
pub mod allow;
pub mod audit;
pub mod chat;
pub mod client;
mod error;
pub mod memory;
pub mod model_client;
pub mod prompts;
pub mod proposals;
pub mod serve;
pub mod tools;
pub mod writer;

pub use error::SidecarError;

/// Why a write the model proposed was not made: refused by the allow-list,
/// or allowed and failed in the file system (the audit line says which
/// too). The model is told which, in words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct NotWritten {
    /// [`audit::Decision::Refused`] or [`audit::Decision::Failed`].
    pub decision: audit::Decision,
    /// Why, in words.
    pub reason: String,
}

impl NotWritten {
    /// Whether the allow-list refused it (else the file system failed).
    pub fn refused(&self) -> bool {
        self.decision == audit::Decision::Refused
    }
}

/// Applies one write the model proposed in `mode`: checks the path against
/// `allow`, writes through `writer`, and records the decision in `audit`
/// whatever it is. Returns what was written or why not.
pub fn apply_write(
    allow: &allow::AllowList,
    writer: &writer::WorkspaceWriter,
    audit: &audit::AuditLog,
    mode: switchboard_model::chat::ChatMode,
    raw_path: &str,
    bytes: &[u8],
    now: switchboard_model::Timestamp,
) -> Result<writer::Written, NotWritten> {
    let outcome = match allow.check(raw_path) {
        Err(refusal) => Err((audit::Decision::Refused, refusal.to_string())),
        Ok(path) => writer
            .write(&path, bytes)
            .map_err(|error| (audit::Decision::Failed, error.to_string())),
    };
    audited(audit, now, mode, raw_path, bytes, outcome)
}

/// Records `outcome` of a model write of `bytes` to `path` in `audit`
/// (written, or the decision and reason of a refusal or failure) and
/// returns it with the reason in words.
fn audited(
    audit: &audit::AuditLog,
    now: switchboard_model::Timestamp,
    mode: switchboard_model::chat::ChatMode,
    path: &str,
    bytes: &[u8],
    outcome: Result<writer::Written, (audit::Decision, String)>,
) -> Result<writer::Written, NotWritten> {
    let (decision, reason) = match &outcome {
        Ok(_) => (audit::Decision::Written, None),
        Err((decision, reason)) => (*decision, Some(reason.clone())),
    };
    audit.record_or_warn(&audit::AuditEntry::of(
        now, mode, path, bytes, decision, reason,
    ));
    outcome.map_err(|(decision, reason)| NotWritten { decision, reason })
}

/// A learning the model asked to record: the model crate's one type.
pub use switchboard_model::knowledge::learning::NewLearning;

/// Appends `learning` in `mode` through the store's learnings append (the
/// folder's lock, the layout in use, a file that is not UTF-8 text or lies
/// outside the workspace refused and left as it is), once `allow` has
/// passed the file it goes to; the decision is recorded in `audit` with the
/// entry's bytes, whatever it is.
pub fn apply_learning(
    allow: &allow::AllowList,
    audit: &audit::AuditLog,
    workspace: &switchboard_store::Workspace,
    mode: switchboard_model::chat::ChatMode,
    learning: &NewLearning,
    now: switchboard_model::Timestamp,
) -> Result<writer::Written, NotWritten> {
    use switchboard_store::knowledge::learnings;
    let path = learnings::target_path(workspace, &learning.category);
    let entry =
        switchboard_model::knowledge::learning::entry_text(&learning.title, now, &learning.body);
    let outcome = match allow.check(&path) {
        Err(refusal) => Err((audit::Decision::Refused, refusal.to_string())),
        Ok(_) => learnings::append(
            workspace,
            &learning.category,
            &learning.title,
            &learning.body,
            now,
        )
        .map(|appended| writer::Written {
            path: appended.path,
            bytes: entry.len(),
            sha256: writer::sha256_hex(entry.as_bytes()),
        })
        .map_err(|error| {
            let reason = switchboard_model::ErrorPayload::from(error).message;
            (audit::Decision::Failed, reason)
        }),
    };
    audited(audit, now, mode, &path, entry.as_bytes(), outcome)
}
