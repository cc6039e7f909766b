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
        ErrorCode::Cancelled => 11,
        ErrorCode::Busy => 12,
        ErrorCode::Forbidden | ErrorCode::NotPaired => 13,
        ErrorCode::Conflict => 14,
    }
}

/// A failure caused by the caller's arguments or input.
pub fn invalid(message: impl Into<String>) -> anyhow::Error {
    ErrorPayload::new(ErrorCode::InvalidRequest, message).into()
}

/// Returns early with [`invalid`]`(format!(…))`: the caller's bad
/// arguments or input.
macro_rules! refuse {
    ($($message:tt)*) => {
        return Err($crate::failure::invalid(format!($($message)*)))
    };
}
pub(crate) use refuse;

/// Marks a failure as the caller's bad arguments or input
/// (`INVALID_REQUEST`), saying which.
pub trait BadInput<T> {
    /// `what` was wrong (and why, when the failure says).
    fn bad_input(self, what: impl std::fmt::Display) -> anyhow::Result<T>;
}

impl<T, E: std::fmt::Display> BadInput<T> for Result<T, E> {
    fn bad_input(self, what: impl std::fmt::Display) -> anyhow::Result<T> {
        self.map_err(|error| invalid(format!("{what}: {error}")))
    }
}

impl<T> BadInput<T> for Option<T> {
    fn bad_input(self, what: impl std::fmt::Display) -> anyhow::Result<T> {
        self.ok_or_else(|| invalid(what.to_string()))
    }
}

/// The code and the whole message of `error`: the store's code when a
/// store error caused it, `IO` for an operating-system failure, the code
/// of an [`ErrorPayload`] in its chain (bad input is [`invalid`]), and
/// `INTERNAL` for the rest — a failure nobody classified is a bug.
pub fn payload(error: &anyhow::Error) -> ErrorPayload {
    let code = error
        .chain()
        .find_map(classify)
        .unwrap_or(ErrorCode::Internal);
    ErrorPayload::new(code, format!("{error:#}"))
}

/// The code of one cause, when it is of a kind that says.
fn classify(cause: &(dyn std::error::Error + 'static)) -> Option<ErrorCode> {
    use switchboard_model as model;
    if let Some(store) = cause.downcast_ref::<StoreError>() {
        return Some(store.code());
    }
    if let Some(payload) = cause.downcast_ref::<ErrorPayload>() {
        return Some(payload.code);
    }
    if let Some(client) = cause.downcast_ref::<switchboard_session::ClientError>() {
        return Some(client.payload().code);
    }
    if cause.downcast_ref::<std::io::Error>().is_some() {
        return Some(ErrorCode::Io);
    }
    // The rules' refusals: what was asked for breaks them.
    let refused = cause.is::<switchboard_session::protocol::ArgumentError>()
        || cause.is::<model::program::NameError>()
        || cause.is::<model::program::key::KeyError>()
        || cause.is::<model::program::config::ConfigError>()
        || cause.is::<model::probe::chain::ChainError>()
        || cause.is::<model::team::TeamError>()
        || cause.is::<model::id::IdParseError>()
        || cause.is::<model::feedback::SchemaError>()
        || cause.is::<model::feedback::AnswerErrors>()
        || cause.is::<model::delivery::DeliveryError>()
        || cause.is::<model::annotation::AnnotationError>()
        || cause.is::<model::knowledge::playbook::BulletError>()
        || cause.is::<model::knowledge::learning::LearningError>();
    if refused {
        return Some(ErrorCode::InvalidRequest);
    }
    // Files that do not read.
    let unreadable = cause.is::<model::tape::codec::DecodeError>()
        || cause.is::<model::program::cast::LogError>();
    unreadable.then_some(ErrorCode::CorruptFile)
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

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    fn refused() -> anyhow::Result<()> {
        refuse!("--for takes prompt, quiet MS, answer MS or exit")
    }

    #[test]
    fn each_failure_says_what_happened() {
        let code = |error: anyhow::Error| payload(&error).code;
        assert_eq!(
            code(refused().unwrap_err()),
            ErrorCode::InvalidRequest,
            "bad arguments"
        );
        assert_eq!(
            code(anyhow::anyhow!(
                "the delivery was closed without a recorded outcome"
            )),
            ErrorCode::Internal,
            "a failure nobody classified is a bug, not the caller's fault"
        );
        let locked = StoreError::Locked {
            path: "tapes/x.json5.tmp".into(),
            waited: std::time::Duration::from_secs(5),
        };
        assert_eq!(
            code(anyhow::Error::new(locked).context("could not save the tape")),
            ErrorCode::Busy,
            "a lock held too long: try again"
        );
        let bad_key = "nope"
            .parse::<switchboard_model::program::Key>()
            .unwrap_err();
        assert_eq!(code(anyhow::Error::new(bad_key)), ErrorCode::InvalidRequest);
        assert_eq!(
            code("x".parse::<u64>().bad_input("--latency").unwrap_err()),
            ErrorCode::InvalidRequest
        );
        assert_eq!(exit_code(ErrorCode::Cancelled), 11);
        assert_eq!(code_name(ErrorCode::Busy), "BUSY");
    }
}
