//! A session's log as asciicast v3 (what asciinema and the Tapes player
//! play): a header line, then `[interval, code, data]` events — `o` output,
//! `i` input, `r` resize (`COLSxROWS`), `x` exit status — with intervals in
//! seconds since the previous event. Secrets never reach it: input sent as
//! secret or typed while the program has echo off is written as `***`, and
//! output passes ClaudeControl's redaction.

use serde_json::{Value, json};

use super::{ExitStatus, SessionInfo};

/// The header line of a session's log.
pub fn header(info: &SessionInfo) -> String {
    json!({
        "version": 3,
        "term": {"cols": info.cols, "rows": info.rows},
        "timestamp": info.started.unix_seconds(),
        "command": info.command_line(),
        "title": info.label(),
    })
    .to_string()
}

/// One event of a session's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CastEvent<'a> {
    /// The program printed this.
    Output(&'a [u8]),
    /// This was typed; `masked`: a secret (or typed with echo off).
    Input {
        /// What was typed.
        bytes: &'a [u8],
        /// Written as `***`.
        masked: bool,
    },
    /// The terminal changed size.
    Resize {
        /// Rows.
        rows: u16,
        /// Columns.
        cols: u16,
    },
    /// The program ended.
    Exit(ExitStatus),
}

/// The event's line, `after_ms` after the previous event.
pub fn line(after_ms: u64, event: &CastEvent<'_>) -> String {
    let seconds = after_ms as f64 / 1000.0;
    let (code, data) = match event {
        CastEvent::Output(bytes) => (
            "o",
            crate::tape::redact::redact_text(&String::from_utf8_lossy(bytes)),
        ),
        CastEvent::Input { masked: true, .. } => ("i", "***".to_owned()),
        CastEvent::Input { bytes, .. } => (
            "i",
            crate::tape::redact::redact_text(&String::from_utf8_lossy(bytes)),
        ),
        CastEvent::Resize { rows, cols } => ("r", format!("{cols}x{rows}")),
        CastEvent::Exit(exit) => (
            "x",
            match (exit.code, exit.signal) {
                (_, Some(signal)) => format!("signal {signal}"),
                (Some(code), None) => code.to_string(),
                (None, None) => "0".to_owned(),
            },
        ),
    };
    Value::Array(vec![
        json!((seconds * 1000.0).round() / 1000.0),
        json!(code),
        json!(data),
    ])
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_asciicast_lines_and_secrets_stay_out() {
        assert_eq!(
            line(1500, &CastEvent::Output(b"hi\r\n")),
            r#"[1.5,"o","hi\r\n"]"#
        );
        assert_eq!(
            line(
                0,
                &CastEvent::Input {
                    bytes: b"hunter2\r",
                    masked: true
                }
            ),
            r#"[0.0,"i","***"]"#
        );
        assert_eq!(
            line(2, &CastEvent::Output(b"token=abc123 ok")),
            r#"[0.002,"o","token=*** ok"]"#
        );
        assert_eq!(
            line(
                0,
                &CastEvent::Resize {
                    rows: 30,
                    cols: 100
                }
            ),
            r#"[0.0,"r","100x30"]"#
        );
        let exit = ExitStatus {
            code: None,
            signal: Some(9),
        };
        assert_eq!(line(10, &CastEvent::Exit(exit)), r#"[0.01,"x","signal 9"]"#);
    }
}
