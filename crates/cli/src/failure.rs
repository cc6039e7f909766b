//! How a failed command reports itself: `error[CODE]: message` on stderr,
//! or `{"error": {"code", "message"}}` on stdout under `--json`, and an
//! exit code per error code, so scripts can act without reading text.

use switchboard_model::{ErrorCode, ErrorPayload};
use switchboard_store::StoreError;

/// The exit code of a failure with `code` (0 is success and 1 a command
/// that ran but reports a negative outcome, e.g. `validate` finding
/// problems; clap's own usage errors exit 2 like `INVALID_REQUEST`).
pub fn exit_code(code: ErrorCode) -> u8 {
    match code {
        ErrorCode::InvalidRequest => 2,
        ErrorCode::NotFound => 3,
        ErrorCode::AlreadyResponded => 4,
        ErrorCode::CorruptFile => 5,
        ErrorCode::Io | ErrorCode::OutsideWorkspace => 6,
        ErrorCode::Internal => 7,
        ErrorCode::Model => 8,
        ErrorCode::Unavailable => 9,
        ErrorCode::LimitReached => 10,
    }
}

/// The code and the whole message of `error`: the store's code when a
/// store error caused it, `IO` for an operating-system failure, and
/// `INVALID_REQUEST` for the rest (bad arguments and input).
pub fn payload(error: &anyhow::Error) -> ErrorPayload {
    let code = error
        .chain()
        .find_map(|cause| {
            if let Some(store) = cause.downcast_ref::<StoreError>() {
                Some(store.code())
            } else if cause.downcast_ref::<std::io::Error>().is_some() {
                Some(ErrorCode::Io)
            } else {
                cause
                    .downcast_ref::<ErrorPayload>()
                    .map(|payload| payload.code)
            }
        })
        .unwrap_or(ErrorCode::InvalidRequest);
    ErrorPayload::new(code, format!("{error:#}"))
}

/// The code's spelling, as in JSON (`ALREADY_RESPONDED`).
pub fn code_name(code: ErrorCode) -> String {
    serde_json::to_value(code)
        .ok()
        .and_then(|value| value.as_str().map(str::to_owned))
        .unwrap_or_else(|| format!("{code:?}"))
}

/// Prints `error` for a person (stderr) or a program (stdout, `json`).
pub fn report(error: &anyhow::Error, json: bool) -> u8 {
    let payload = payload(error);
    if json {
        let line = serde_json::json!({"error": {"code": payload.code, "message": payload.message}});
        println!("{line}");
    } else {
        eprintln!("error[{}]: {}", code_name(payload.code), payload.message);
    }
    exit_code(payload.code)
}
