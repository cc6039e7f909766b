//! Switchboard's sidecar: the only process that talks to the model and the
//! only writer of files the model proposes.
//!
//! `serve` is the request loop (the binary binds it to stdio), `chat` runs a
//! turn, `model_client` speaks the OpenAI-compatible API, and every write
//! goes through `allow` (the allow-list), `writer` (capability-based, no
//! symlinks followed) and `audit`.

pub mod allow;
pub mod audit;
pub mod chat;
pub mod memory;
pub mod model_client;
pub mod prompts;
pub mod proposals;
pub mod serve;
pub mod tools;
pub mod writer;

/// Applies one write the model proposed in `mode`: checks the path against
/// `allow`, writes through `writer`, and records the decision in `audit`
/// whatever it is. Returns what was written or why not, in words.
pub fn apply_write(
    allow: &allow::AllowList,
    writer: &writer::WorkspaceWriter,
    audit: &audit::AuditLog,
    mode: switchboard_model::chat::ChatMode,
    raw_path: &str,
    bytes: &[u8],
    now: switchboard_model::Timestamp,
) -> Result<writer::Written, String> {
    let outcome = match allow.check(raw_path) {
        Err(refusal) => Err((audit::Decision::Refused, refusal.to_string())),
        Ok(path) => writer
            .write(&path, bytes)
            .map_err(|error| (audit::Decision::Failed, error.to_string())),
    };
    let (decision, reason) = match &outcome {
        Ok(_) => (audit::Decision::Written, None),
        Err((decision, reason)) => (*decision, Some(reason.clone())),
    };
    audit.record_or_warn(&audit::AuditEntry::of(
        now, mode, raw_path, bytes, decision, reason,
    ));
    outcome.map_err(|(_, reason)| reason)
}
