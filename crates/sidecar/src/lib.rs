//! The sidecar's request loop, independent of where its bytes come from.
//!
//! The binary binds it to stdio; tests bind it to buffers or drive the real
//! process. Model access will hang off this loop; `allow` and `writer`
//! are the only way it writes files.

pub mod allow;
pub mod audit;
pub mod model_client;
pub mod writer;

use std::io::{BufRead, Write};

use switchboard_model::sidecar::{
    PROTOCOL_VERSION, RequestBody, ResponseBody, SidecarRequest, SidecarResponse,
};
use thiserror::Error;

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
    let entry = audit::AuditEntry {
        time: now,
        mode: mode.as_str(),
        path: raw_path.to_owned(),
        bytes: bytes.len(),
        sha256: writer::sha256_hex(bytes),
        decision,
        reason,
    };
    if let Err(error) = audit.record(&entry) {
        eprintln!("switchboard-sidecar: could not append to the audit log: {error}");
    }
    outcome.map_err(|(_, reason)| reason)
}

/// Why the loop stopped abnormally.
#[derive(Debug, Error)]
pub enum ServeError {
    /// Reading a request or writing a response failed.
    #[error("sidecar stdio failed: {0}")]
    Io(#[from] std::io::Error),
    /// A response could not be encoded (a bug).
    #[error("could not encode a response: {0}")]
    Encode(#[from] serde_json::Error),
}

/// Answers requests from `input` on `output`, one JSON line each, until the
/// input ends or a shutdown request arrives. A line that is not a request is
/// answered with an error and the loop goes on.
pub fn serve(input: impl BufRead, mut output: impl Write) -> Result<(), ServeError> {
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let (response, stop) = match serde_json::from_str::<SidecarRequest>(&line) {
            Ok(request) => answer(request),
            Err(error) => (
                SidecarResponse {
                    id: 0,
                    body: ResponseBody::Error {
                        message: format!("not a sidecar request: {error}"),
                    },
                },
                false,
            ),
        };
        serde_json::to_writer(&mut output, &response)?;
        output.write_all(b"\n")?;
        output.flush()?;
        if stop {
            break;
        }
    }
    Ok(())
}

fn answer(request: SidecarRequest) -> (SidecarResponse, bool) {
    let (body, stop) = match request.body {
        RequestBody::Health => (
            ResponseBody::Health {
                protocol: PROTOCOL_VERSION,
                version: env!("CARGO_PKG_VERSION").to_owned(),
            },
            false,
        ),
        RequestBody::Shutdown => (ResponseBody::ShuttingDown, true),
    };
    (
        SidecarResponse {
            id: request.id,
            body,
        },
        stop,
    )
}
