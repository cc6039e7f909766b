//! A session's log as asciicast v3 (what asciinema and the Tapes player
//! play): a header line, then `[interval, code, data]` events — `o` output,
//! `i` input, `r` resize (`COLSxROWS`), `x` exit status — with intervals in
//! seconds since the previous event. Secrets never reach it: input sent as
//! secret or typed while the program has echo off is written as `***`, a
//! secret printed back arrives masked (`super::secret`), and output other
//! than the echo of what was typed passes ClaudeControl's redaction; what
//! was typed is logged as typed (its patterns took `token: '` in `read -p
//! 'token: ' t` for a credential).

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use thiserror::Error;

use super::{ExitStatus, ProgramSession};
use crate::tape::record::{Recorder, Recording};

/// The header line of a session's log: asciicast's fields, and the session
/// (`id`, `name`, `program`, `args`, `cwd`) in a key of its own that
/// players pass over.
pub fn header(info: &ProgramSession) -> String {
    json!({
        "version": 3,
        "term": {"cols": info.cols, "rows": info.rows},
        "timestamp": info.started.unix_seconds(),
        "command": info.command_line(),
        "title": info.label(),
        "session": LoggedSession {
            id: info.id.clone(),
            name: info.name.clone(),
            program: info.program.clone(),
            args: info.args.clone(),
            cwd: info.cwd.clone(),
            run: info.run.clone(),
        },
    })
    .to_string()
}

/// The session a log is of, as its header says.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoggedSession {
    /// `ps-…`.
    pub id: String,
    /// The name its starter gave, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The program as started.
    pub program: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// The folder it ran in.
    #[serde(default)]
    pub cwd: String,
    /// The run that started it, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
}

/// A log's header, as read back.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct LogHeader {
    /// The terminal's size at the start.
    #[serde(default)]
    pub term: LogTerm,
    /// When it started, in seconds since the epoch.
    #[serde(default)]
    pub timestamp: Option<i64>,
    /// The command line.
    #[serde(default)]
    pub command: Option<String>,
    /// The session (absent from logs of other recorders).
    #[serde(default)]
    pub session: Option<LoggedSession>,
}

impl LogHeader {
    /// The session this log is of as `list` shows an ended one: `exit` as
    /// its last event says (`lost` when there is none: the host that held
    /// it was killed), in `workspace`, last active at `last`. `None` for a
    /// log that does not say which session it is of.
    pub fn ended_session(
        &self,
        workspace: &str,
        exit: Option<ExitStatus>,
        last: crate::Timestamp,
    ) -> Option<ProgramSession> {
        let logged = self.session.clone()?;
        let started = self
            .timestamp
            .and_then(|seconds| crate::Timestamp::from_unix_millis(seconds.saturating_mul(1000)))
            .unwrap_or(last);
        // A log written before arguments were masked is masked as read.
        let args = super::command_mask::mask_args(&logged.args);
        let mut info =
            ProgramSession::starting(logged.id, logged.program, args, logged.cwd, started);
        info.name = logged.name;
        info.run = logged.run;
        info.workspace = Some(workspace.to_owned());
        info.state = match exit {
            Some(_) => super::SessionState::Exited,
            None => super::SessionState::Lost,
        };
        info.exit = exit;
        info.last_activity = last.max(started);
        info.rows = self.term.rows.max(1);
        info.cols = self.term.cols.max(1);
        Some(info)
    }
}

/// How a log's last line says the program ended, if it is an exit event.
pub fn exit_of_last_line(line: &str) -> Option<ExitStatus> {
    let (_, code, data) = serde_json::from_str::<(f64, String, String)>(line.trim()).ok()?;
    (code == "x").then(|| exit_of(&data))
}

/// An exit event's status: a number (128 + a signal's when one ended it),
/// or `signal N` as logs written before said it.
fn exit_of(data: &str) -> ExitStatus {
    match data.strip_prefix("signal ") {
        Some(signal) => ExitStatus {
            code: None,
            signal: signal.trim().parse().ok(),
        },
        None => ExitStatus {
            code: data.trim().parse().ok(),
            signal: None,
        },
    }
}

/// A log's terminal size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct LogTerm {
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
}

impl Default for LogTerm {
    fn default() -> Self {
        Self { cols: 80, rows: 24 }
    }
}

/// One event read back from a log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoggedEvent {
    /// The program printed this.
    Output(String),
    /// This was typed (`***` where it was a secret).
    Input(String),
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

/// A log read back: its header and its events, each at its time since the
/// start.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Log {
    /// The header.
    pub header: LogHeader,
    /// The events in order, each with its time since the start.
    pub events: Vec<(Duration, LoggedEvent)>,
}

/// A log that does not read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("line {line} of the session log: {reason}")]
pub struct LogError {
    /// 1-based.
    pub line: usize,
    /// Why.
    pub reason: String,
}

impl Log {
    /// Reads a log's text (its rotated parts joined: a header line again
    /// where a part starts is passed over). A last line cut short — the
    /// host stopped mid-write — is dropped; any other bad line is an error.
    pub fn parse(text: &str) -> Result<Self, LogError> {
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty());
        let Some((_, first)) = lines.next() else {
            return Err(LogError {
                line: 1,
                reason: "the log is empty".to_owned(),
            });
        };
        let header: LogHeader = serde_json::from_str(first).map_err(|error| LogError {
            line: 1,
            reason: format!("the header is not asciicast's: {error}"),
        })?;
        let lines: Vec<(usize, &str)> = lines.collect();
        let last = lines.len();
        let mut log = Self {
            header,
            events: Vec::new(),
        };
        let mut at = Duration::ZERO;
        for (n, (index, line)) in lines.into_iter().enumerate() {
            if line.starts_with('{') {
                continue;
            }
            let event = match serde_json::from_str::<(f64, String, String)>(line) {
                Ok(event) => event,
                Err(_) if n + 1 == last => break,
                Err(error) => {
                    return Err(LogError {
                        line: index + 1,
                        reason: format!("not an [interval, code, data] event: {error}"),
                    });
                }
            };
            let (interval, code, data) = event;
            if interval.is_finite() && interval > 0.0 {
                at += Duration::from_secs_f64(interval.min(1e9));
            }
            let event = match code.as_str() {
                "o" => LoggedEvent::Output(data),
                "i" => LoggedEvent::Input(data),
                "r" => {
                    let size = data
                        .split_once('x')
                        .and_then(|(cols, rows)| Some((cols.parse().ok()?, rows.parse().ok()?)));
                    match size {
                        Some((cols, rows)) => LoggedEvent::Resize { rows, cols },
                        None => continue,
                    }
                }
                "x" => LoggedEvent::Exit(exit_of(&data)),
                // Markers and events of later versions.
                _ => continue,
            };
            log.events.push((at, event));
        }
        Ok(log)
    }

    /// The session cut into a tape's banner and exchanges by the recorder
    /// `rec` uses (one exchange per line or key sent), ending as the log
    /// says.
    pub fn recording(&self) -> Recording {
        let mut recorder = Recorder::new();
        let mut exit = None;
        for (at, event) in &self.events {
            match event {
                LoggedEvent::Output(text) => recorder.output(text.as_bytes(), *at),
                LoggedEvent::Input(text) => recorder.input(text.as_bytes(), *at),
                LoggedEvent::Resize { .. } => {}
                LoggedEvent::Exit(status) => exit = Some((*status).into()),
            }
        }
        recorder.finish(exit, true)
    }
}

/// One event of a session's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CastEvent<'a> {
    /// The program printed this.
    Output {
        /// The output.
        bytes: &'a [u8],
        /// Where in it the terminal echoed what was typed (not redacted).
        echoed: &'a [std::ops::Range<usize>],
    },
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
        CastEvent::Output { bytes, echoed } => ("o", redact_output(bytes, echoed)),
        // The line end stays: what was masked was still submitted.
        CastEvent::Input {
            masked: true,
            bytes,
        } => {
            let kept = bytes.len() - crate::tape::index::trim_line_end(bytes).len();
            (
                "i",
                format!(
                    "***{}",
                    String::from_utf8_lossy(&bytes[bytes.len() - kept..])
                ),
            )
        }
        CastEvent::Input { bytes, .. } => ("i", String::from_utf8_lossy(bytes).into_owned()),
        CastEvent::Resize { rows, cols } => ("r", format!("{cols}x{rows}")),
        // asciicast's exit status is a number: a signal is 128 + its
        // number, as a shell reports it (asciinema refuses anything else).
        CastEvent::Exit(exit) => (
            "x",
            match (exit.code, exit.signal) {
                (_, Some(signal)) => (128 + signal).to_string(),
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

/// Output as text, ClaudeControl's redaction applied to all but the echo
/// of what was typed (a piece that does not split on a character boundary
/// takes the whole output with it).
fn redact_output(bytes: &[u8], echoed: &[std::ops::Range<usize>]) -> String {
    use crate::tape::redact::redact_text;
    let text = String::from_utf8_lossy(bytes);
    let fits = echoed.iter().all(|range| {
        range.start <= range.end
            && text.is_char_boundary(range.start)
            && text.is_char_boundary(range.end)
    });
    if echoed.is_empty() || !fits || text.len() != bytes.len() {
        return redact_text(&text);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for range in echoed {
        if range.start < at {
            continue;
        }
        out.push_str(&redact_text(&text[at..range.start]));
        out.push_str(&text[range.clone()]);
        at = range.end;
    }
    out.push_str(&redact_text(&text[at..]));
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    fn output(bytes: &[u8]) -> CastEvent<'_> {
        CastEvent::Output { bytes, echoed: &[] }
    }

    #[test]
    fn what_was_typed_is_logged_as_typed_and_the_program_s_output_redacted() {
        let typed = b"read -p 'token: ' t; echo \"len ${#t}\"\r";
        assert_eq!(
            line(
                0,
                &CastEvent::Input {
                    bytes: typed,
                    masked: false
                }
            ),
            r#"[0.0,"i","read -p 'token: ' t; echo \"len ${#t}\"\r"]"#
        );
        let printed = b"$ read -p 'token: ' t\r\ntoken: abc\r\n";
        let echoed = [std::ops::Range { start: 2, end: 21 }];
        assert_eq!(
            line(
                0,
                &CastEvent::Output {
                    bytes: printed,
                    echoed: &echoed
                }
            ),
            r#"[0.0,"o","$ read -p 'token: ' t\r\ntoken: ***\r\n"]"#
        );
    }

    #[test]
    fn events_are_asciicast_lines_and_secrets_stay_out() {
        assert_eq!(line(1500, &output(b"hi\r\n")), r#"[1.5,"o","hi\r\n"]"#);
        assert_eq!(
            line(
                0,
                &CastEvent::Input {
                    bytes: b"hunter2\r",
                    masked: true
                }
            ),
            r#"[0.0,"i","***\r"]"#
        );
        assert_eq!(
            line(2, &output(b"token=abc123 ok")),
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
        assert_eq!(line(10, &CastEvent::Exit(exit)), r#"[0.01,"x","137"]"#);
    }
}

#[cfg(test)]
mod log_tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use super::*;

    #[test]
    fn a_log_reads_back_and_cuts_into_exchanges() {
        let mut info = ProgramSession::starting(
            "ps-0123456789ab".into(),
            "bc".into(),
            vec!["-q".into()],
            "/w".into(),
            crate::Timestamp::from_unix_millis(1_700_000_000_000).unwrap(),
        );
        info.name = Some("calc".into());
        let mut text = header(&info);
        for (after, event) in [
            (
                5,
                CastEvent::Output {
                    bytes: b"bc 1.07\r\n",
                    echoed: &[],
                },
            ),
            (
                100,
                CastEvent::Input {
                    bytes: b"1+1\r",
                    masked: false,
                },
            ),
            (
                2,
                CastEvent::Output {
                    bytes: b"1+1\r\n2\r\n",
                    echoed: &[],
                },
            ),
            (
                50,
                CastEvent::Input {
                    bytes: b"hunter2\r",
                    masked: true,
                },
            ),
            (
                1,
                CastEvent::Resize {
                    rows: 30,
                    cols: 100,
                },
            ),
            (
                3,
                CastEvent::Exit(ExitStatus {
                    code: Some(0),
                    signal: None,
                }),
            ),
        ] {
            text.push('\n');
            text.push_str(&line(after, &event));
        }
        // A rotated part starts with the header again; a last line cut
        // short by a crash is dropped.
        let (head, tail) = text.split_at(text.find("\n[0.05").unwrap());
        let joined = format!("{head}\n{}{tail}\n[0.1,\"o\",\"tru", header(&info));

        let log = Log::parse(&joined).unwrap();
        let session = log.header.session.clone().unwrap();
        assert_eq!(
            (session.id.as_str(), session.name.as_deref()),
            ("ps-0123456789ab", Some("calc"))
        );
        assert_eq!(session.args, ["-q"]);
        assert_eq!(log.header.term, LogTerm { cols: 80, rows: 24 });
        assert_eq!(log.events.len(), 6);
        assert_eq!(
            log.events[1],
            (
                Duration::from_millis(105),
                LoggedEvent::Input("1+1\r".into())
            )
        );
        assert_eq!(log.events[3].1, LoggedEvent::Input("***\r".into()));
        assert_eq!(
            log.events[4].1,
            LoggedEvent::Resize {
                rows: 30,
                cols: 100
            }
        );

        let recording = log.recording();
        assert!(
            recording.banner.is_some(),
            "the banner before the first input"
        );
        let inputs: Vec<_> = recording
            .exchanges
            .iter()
            .map(|exchange| exchange.input.data_text.clone().unwrap())
            .collect();
        assert_eq!(inputs, ["1+1\r", "***\r"], "the secret stays masked");
        assert_eq!(recording.exchanges[1].pre.prompt, None);
        assert_eq!(recording.exchanges[1].exit.as_ref().unwrap().code, Some(0));

        let bad = Log::parse(&format!("{}\nnot json\n[0.1,\"o\",\"x\"]", header(&info)));
        assert_eq!(bad.unwrap_err().line, 2);
        assert!(Log::parse("").is_err());
    }
}
