//! Reading a tape from JSON5, and writing it as ClaudeControl does (its
//! writer is pyjson5's): one line of compact JSON and a newline, keys in its
//! order, every character outside printable ASCII, and `"`, `<`, `>`, `&`,
//! `'`, written `\u00xx` (lowercase), except the short escapes `\b \t \n
//! \f \r \\`.

use std::io;

use serde::Serialize;
use serde_json::ser::{CharEscape, Formatter};
use thiserror::Error;

use super::Tape;

/// Why a tape could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{line}:{column}: {reason}")]
pub struct DecodeError {
    /// 1-based line of the problem (1 when unknown).
    pub line: usize,
    /// 1-based column of the problem (1 when unknown).
    pub column: usize,
    /// What is wrong.
    pub reason: String,
}

/// Reads a tape from JSON5 text. Tapes as written are plain JSON, read by
/// the faster JSON parser; anything else (or an error, for its position)
/// goes through the JSON5 parser.
pub fn decode(text: &str) -> Result<Tape, DecodeError> {
    if let Ok(tape) = serde_json::from_str(text) {
        return Ok(tape);
    }
    json5::from_str(text).map_err(decode_error)
}

/// A JSON5 parser's error as a [`DecodeError`], 1-based, without the
/// position it appends to its message.
pub(crate) fn decode_error(error: json5::Error) -> DecodeError {
    let (line, column) = error
        .position()
        .map_or((1, 1), |at| (at.line + 1, at.column + 1));
    let mut reason = error.to_string();
    if let Some(cut) = reason.rfind(" at line ") {
        reason.truncate(cut);
    }
    DecodeError {
        line,
        column,
        reason,
    }
}

/// Escapes as ClaudeControl's writer does.
struct Escaping;

fn escape(writer: &mut (impl io::Write + ?Sized), unit: u16) -> io::Result<()> {
    write!(writer, "\\u{unit:04x}")
}

impl Formatter for Escaping {
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        for ch in fragment.chars() {
            match ch {
                '<' | '>' | '&' | '\'' => escape(writer, ch as u16)?,
                ' '..='~' => writer.write_all(&[ch as u8])?,
                _ => {
                    let mut units = [0_u16; 2];
                    for unit in ch.encode_utf16(&mut units) {
                        escape(writer, *unit)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn write_char_escape<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        char_escape: CharEscape,
    ) -> io::Result<()> {
        // pyjson5's table: the short escapes \b \t \n \f \r \\, and
        // `\u00XX` for the rest, the double quote included.
        match char_escape {
            CharEscape::Quote => escape(writer, 0x22),
            CharEscape::ReverseSolidus => writer.write_all(b"\\\\"),
            CharEscape::Solidus => writer.write_all(b"/"),
            CharEscape::Backspace => writer.write_all(b"\\b"),
            CharEscape::FormFeed => writer.write_all(b"\\f"),
            CharEscape::LineFeed => writer.write_all(b"\\n"),
            CharEscape::CarriageReturn => writer.write_all(b"\\r"),
            CharEscape::Tab => writer.write_all(b"\\t"),
            CharEscape::AsciiControl(byte) => escape(writer, u16::from(byte)),
        }
    }
}

/// The tape as ClaudeControl writes it: one line and a newline.
pub fn encode(tape: &Tape) -> Result<String, serde_json::Error> {
    let mut bytes = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut bytes, Escaping);
    tape.serialize(&mut serializer)?;
    bytes.push(b'\n');
    // Only ASCII was written.
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use super::*;
    use crate::tape::InputKind;

    /// A tape as ClaudeControl wrote it (one line), and the same tape as a
    /// person might edit it.
    const WRITTEN: &str = concat!(
        r#"{"meta":{"createdAt":"2025-09-20T10:00:00.%f","program":"python3","args":["-q"],"env":{"LANG":"C.UTF-8"},"cwd":"/w","pty":{"rows":24,"cols":80},"tag":null,"latency":0,"errorRate":0,"seed":null},"#,
        r#""session":{"platform":"linux","version":"0.1.0"},"#,
        r#""exchanges":[{"pre":{"prompt":"\u003e\u003e\u003e "},"input":{"type":"line","dataText":"print(\u0027\u00e9\u003c\u0026\u003e\u0022)\n","dataBytesB64":null},"#,
        r#""output":{"chunks":[{"delay_ms":3,"dataB64":"w6k8Jj4NCj4+PiA=","isUtf8":true}]},"exit":null,"dur_ms":5,"annotations":{}}]}"#,
        "\n"
    );

    #[test]
    fn a_written_tape_round_trips_byte_for_byte() {
        let tape = decode(WRITTEN).unwrap();
        assert_eq!(tape.meta.program, "python3");
        assert_eq!(tape.exchanges[0].input.kind, InputKind::Line);
        assert_eq!(
            tape.exchanges[0].input.data_text.as_deref(),
            Some("print('é<&>\")\n")
        );
        assert_eq!(encode(&tape).unwrap(), WRITTEN);
    }

    #[test]
    fn a_tape_claudecontrol_wrote_is_written_back_byte_for_byte() {
        // Recorded by ClaudeControl itself (its Sep 2025 head, pyjson5
        // 2.x) driving sqlite3 through its Python API: `é<>&'` escaped,
        // a literal `%f` in createdAt, a line's `\n` kept.
        let written = include_str!("fixtures/claudecontrol-sqlite3.json5");
        let tape = decode(written).unwrap();
        assert_eq!(
            tape.exchanges[1].input.data_text.as_deref(),
            Some("select 'é<>&';\n")
        );
        assert_eq!(encode(&tape).unwrap(), written);
    }

    #[test]
    fn hand_written_json5_and_old_names_are_read() {
        let text = r#"// recorded by hand
        {
          meta: {created_at: '2025-01-01', program: 'bc', args: [], env: {}, cwd: '/', latency: [10, 20],},
          session: {},
          exchanges: [{
            pre: null,
            input: {kind: 'raw', data_b64: 'Aw=='},
            output: {chunks: [{delay_ms: 0, data_b64: 'Xw==', isUtf8: true}]},
            exit: {code: 0, signal: null},
          }],
          future: 'kept',
        }"#;
        let tape = decode(text).unwrap();
        assert_eq!(tape.meta.created_at, "2025-01-01");
        assert_eq!(tape.exchanges[0].input.data_b64.as_deref(), Some("Aw=="));
        assert_eq!(tape.exchanges[0].output.chunks[0].data_b64, "Xw==");
        assert_eq!(tape.extra["future"], "kept");
        let written = encode(&tape).unwrap();
        assert!(written.contains(r#""createdAt":"2025-01-01""#), "{written}");
        assert!(written.contains(r#""latency":[10,20]"#), "{written}");
        assert!(written.ends_with("}\n") && !written[..written.len() - 1].contains('\n'));
        assert_eq!(decode(&written).unwrap(), tape);
    }

    #[test]
    fn a_broken_tape_says_where() {
        let error = decode("{\n  meta: {program: 'x',\n  exchanges: ]\n}").unwrap_err();
        assert_eq!((error.line, error.column), (3, 14), "{error}");
        let missing = decode("{meta: {args: []}, exchanges: []}").unwrap_err();
        assert!(missing.reason.contains("program"), "{missing}");
    }
}
