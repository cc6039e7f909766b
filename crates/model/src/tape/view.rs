//! What the window's Tapes view is sent: a tape's line in the list, the
//! tape laid out for the player (its output as one stream of frames, each
//! tied to its exchange), and search hits. The types travel to the wasm UI;
//! building them (`patterns`) happens in the shell.

use serde::{Deserialize, Serialize};

/// The workspace's tapes folder.
pub const TAPES_DIR: &str = "tapes";

/// A tape's id (`<program>/<name>`) from its path in the tapes folder:
/// `.json5` dropped.
pub fn tape_id(path: &str) -> &str {
    path.strip_suffix(".json5").unwrap_or(path)
}

/// A tape's id from its path in the workspace (`tapes/<program>/…`, as a
/// fuzz finding names its tape).
pub fn tape_id_in_workspace(path: &str) -> &str {
    tape_id(
        path.strip_prefix(TAPES_DIR)
            .and_then(|rest| rest.strip_prefix('/'))
            .unwrap_or(path),
    )
}

/// A tape in the list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TapeSummary {
    /// `<program>/<name>` (its path in the folder without `.json5`).
    pub id: String,
    /// The program (its base name: the list's group).
    pub program: String,
    /// The tape's name.
    pub name: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// How many exchanges.
    pub exchanges: usize,
    /// The recorded time: the banner's delays and each exchange's.
    pub duration_ms: u64,
    /// How the program ended (`exit 3`, `signal 15`), when it did.
    pub exit: Option<String>,
    /// Its tag.
    pub tag: Option<String>,
    /// When it was recorded, as written.
    pub created_at: String,
    /// Whether secrets were masked when recording (`None`: not said, as
    /// in ClaudeControl's own tapes).
    pub redacted: Option<bool>,
}

/// One read of the output, in the order shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Frame {
    /// The exchange it belongs to; `None` for the start-up banner.
    pub exchange: Option<usize>,
    /// Milliseconds since the previous frame (as recorded).
    pub delay_ms: u64,
    /// The text (UTF-8 decoded across reads: a character split between
    /// two reads is whole in the second).
    pub text: String,
}

/// One exchange, for the list beside the player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExchangeView {
    /// The prompt, ANSI escapes stripped.
    pub prompt: String,
    /// What was typed (control bytes shown as `^C`, `⏎`).
    pub input: String,
    /// Whether it was a raw send.
    pub raw: bool,
    /// Its output, ANSI escapes stripped.
    pub output: String,
    /// The note in its `annotations.note`.
    pub note: String,
    /// How the program ended here, when it did.
    pub exit: Option<String>,
}

/// A tape laid out for the player.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TapeView {
    /// Its line in the list.
    pub summary: TapeSummary,
    /// The terminal's columns and rows (80×24 when not recorded).
    pub cols: u16,
    /// Rows.
    pub rows: u16,
    /// The exchanges.
    pub exchanges: Vec<ExchangeView>,
    /// All output, banner first.
    pub frames: Vec<Frame>,
}

/// A tape that did not load, for the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TapeProblemView {
    /// Its path in the folder.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// Why.
    pub reason: String,
}

/// The tapes folder, for the list.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TapeList {
    /// The tapes, by path.
    pub tapes: Vec<TapeSummary>,
    /// The files that did not load.
    pub problems: Vec<TapeProblemView>,
}

/// A search hit: an exchange whose input or output holds the query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TapeHit {
    /// The tape.
    pub id: String,
    /// The exchange.
    pub exchange: usize,
    /// The exchange's input, for the hit's line.
    pub input: String,
    /// The text around the first match (ANSI stripped).
    pub context: String,
}

/// A tape id and a search query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TapeSearchRequest {
    /// What to find (case-insensitive).
    pub query: String,
}

/// Names a tape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TapeRequest {
    /// `<program>/<name>`.
    pub id: String,
}

/// A note to keep on an exchange.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TapeNoteRequest {
    /// The tape.
    pub id: String,
    /// The exchange.
    pub exchange: usize,
    /// The note (empty removes it).
    pub note: String,
}

#[cfg(feature = "patterns")]
mod build {
    use serde_json::Value;

    use super::*;
    use crate::tape::{Chunk, Exit, InputKind, Tape, index::strip_ansi};

    fn ended(exit: &Exit) -> String {
        match (&exit.code, &exit.signal) {
            (Some(code), _) => format!("exit {code}"),
            (None, Some(Value::Null) | None) => "ended".to_owned(),
            (None, Some(signal)) => format!("signal {signal}"),
        }
    }

    /// What was typed, control bytes made visible.
    fn typed(bytes: &[u8]) -> String {
        String::from_utf8_lossy(bytes)
            .chars()
            .map(|c| match c {
                '\r' | '\n' => "⏎".to_owned(),
                '\u{1b}' => "⎋".to_owned(),
                c if (c as u32) < 0x20 => format!("^{}", char::from(b'@' + c as u8)),
                c => c.to_string(),
            })
            .collect()
    }

    /// Decodes reads as one UTF-8 stream: bytes of a character cut at a
    /// read's end wait for the next read.
    #[derive(Default)]
    struct Stream {
        held: Vec<u8>,
    }

    impl Stream {
        fn text(&mut self, bytes: &[u8]) -> String {
            self.held.extend_from_slice(bytes);
            let cut = match std::str::from_utf8(&self.held) {
                Ok(_) => self.held.len(),
                Err(error) if error.error_len().is_none() => error.valid_up_to(),
                Err(_) => self.held.len(),
            };
            let rest = self.held.split_off(cut);
            let text = String::from_utf8_lossy(&self.held).into_owned();
            self.held = rest;
            text
        }
    }

    /// `tape`'s line in the list.
    pub fn summary(id: &str, tape: &Tape) -> TapeSummary {
        let banner_ms: u64 = tape.meta.banner().iter().map(|chunk| chunk.delay_ms).sum();
        let exchanges_ms: u64 = tape
            .exchanges
            .iter()
            .map(|exchange| {
                exchange.dur_ms.unwrap_or_else(|| {
                    exchange
                        .output
                        .chunks
                        .iter()
                        .map(|chunk| chunk.delay_ms)
                        .sum()
                })
            })
            .sum();
        TapeSummary {
            id: id.to_owned(),
            program: id.split('/').next().unwrap_or_default().to_owned(),
            name: id.rsplit('/').next().unwrap_or_default().to_owned(),
            args: tape.meta.args.clone(),
            exchanges: tape.exchanges.len(),
            duration_ms: banner_ms + exchanges_ms,
            exit: tape
                .exchanges
                .iter()
                .rev()
                .find_map(|exchange| exchange.exit.as_ref())
                .map(ended),
            tag: tape.meta.tag.clone(),
            created_at: tape.meta.created_at.clone(),
            redacted: tape.meta.extra.get("redacted").and_then(Value::as_bool),
        }
    }

    /// `tape` laid out for the player.
    pub fn view(id: &str, tape: &Tape) -> TapeView {
        let mut stream = Stream::default();
        let mut frames: Vec<Frame> = tape
            .meta
            .banner()
            .iter()
            .map(|chunk| Frame {
                exchange: None,
                delay_ms: chunk.delay_ms,
                text: stream.text(&chunk.bytes()),
            })
            .collect();
        let mut exchanges = Vec::new();
        for (n, exchange) in tape.exchanges.iter().enumerate() {
            let mut output = String::new();
            for chunk in &exchange.output.chunks {
                let text = stream.text(&chunk.bytes());
                output.push_str(&text);
                frames.push(Frame {
                    exchange: Some(n),
                    delay_ms: chunk.delay_ms,
                    text,
                });
            }
            exchanges.push(ExchangeView {
                prompt: strip_ansi(exchange.pre.prompt.as_deref().unwrap_or("")),
                input: typed(&crate::tape::index::input_bytes(exchange)),
                raw: exchange.input.kind == InputKind::Raw,
                output: strip_ansi(&output),
                note: exchange
                    .annotations
                    .get("note")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                exit: exchange.exit.as_ref().map(ended),
            });
        }
        let (cols, rows) = tape
            .meta
            .pty
            .filter(|pty| pty.cols > 0 && pty.rows > 0)
            .map_or((80, 24), |pty| (pty.cols, pty.rows));
        TapeView {
            summary: summary(id, tape),
            cols,
            rows,
            exchanges,
            frames,
        }
    }

    /// The exchanges of `tapes` (by id) whose input or output, ANSI
    /// stripped, holds `query`, ignoring case; at most `limit`.
    pub fn search<'a>(
        tapes: impl IntoIterator<Item = (&'a str, &'a Tape)>,
        query: &str,
        limit: usize,
    ) -> Vec<TapeHit> {
        let needle = query.trim().to_lowercase();
        if needle.is_empty() {
            return Vec::new();
        }
        let mut hits = Vec::new();
        for (id, tape) in tapes {
            // Each exchange's text alone: no frames laid out for a search.
            for (n, exchange) in tape.exchanges.iter().enumerate() {
                let typed_bytes = crate::tape::index::input_bytes(exchange);
                let input = String::from_utf8_lossy(&typed_bytes).into_owned();
                let read: Vec<u8> = exchange
                    .output
                    .chunks
                    .iter()
                    .flat_map(Chunk::bytes)
                    .collect();
                let output = strip_ansi(&String::from_utf8_lossy(&read));
                let found = [&input, &output].into_iter().find_map(|text| {
                    let lower = text.to_lowercase();
                    // Lower-casing can change lengths; fall back to the start.
                    lower.find(&needle).map(|at| {
                        let start = text.floor_char_boundary(at.saturating_sub(30).min(text.len()));
                        let end = text.ceil_char_boundary((at + needle.len() + 30).min(text.len()));
                        text[start..end].replace(['\r', '\n'], " ")
                    })
                });
                if let Some(context) = found {
                    hits.push(TapeHit {
                        id: id.to_owned(),
                        exchange: n,
                        input: typed(&typed_bytes),
                        context,
                    });
                    if hits.len() >= limit {
                        return hits;
                    }
                }
            }
        }
        hits
    }

    #[cfg(test)]
    mod tests {
        #![allow(clippy::unwrap_used)] // Tests fail loudly by design.
        #![allow(clippy::disallowed_methods)] // Tests read the files they made.

        use super::*;
        use crate::tape::codec::decode as read;

        fn b64(bytes: &[u8]) -> String {
            use base64::Engine as _;
            base64::engine::general_purpose::STANDARD.encode(bytes)
        }

        #[test]
        fn frames_follow_the_banner_and_exchanges_and_join_split_characters() {
            let euro = "€".as_bytes();
            let tape = read(&format!(
                r#"{{meta: {{program: 'calc', args: [], env: {{}}, cwd: '/w', pty: {{rows: 10, cols: 40}},
                   banner: {{chunks: [{{delay_ms: 5, dataB64: '{}'}}]}}, redacted: true}},
                   exchanges: [{{pre: {{prompt: '\u001b[1m> \u001b[0m'}}, input: {{type: 'line', dataText: 'price\r'}},
                     output: {{chunks: [{{delay_ms: 1, dataB64: '{}'}}, {{delay_ms: 2, dataB64: '{}'}}]}},
                     exit: {{code: 3, signal: null}}, dur_ms: 7, annotations: {{note: 'slow'}}}}]}}"#,
                b64(b"calc\r\n> "),
                b64(&[b"5 ".as_slice(), &euro[..1]].concat()),
                b64(&euro[1..]),
            ))
            .unwrap();
            let view = view("calc/a", &tape);
            let texts: Vec<(Option<usize>, &str)> = view
                .frames
                .iter()
                .map(|frame| (frame.exchange, frame.text.as_str()))
                .collect();
            assert_eq!(
                texts,
                [(None, "calc\r\n> "), (Some(0), "5 "), (Some(0), "€")]
            );
            let exchange = &view.exchanges[0];
            assert_eq!(exchange.prompt, "> ");
            assert_eq!(exchange.input, "price⏎");
            assert_eq!(exchange.note, "slow");
            assert_eq!(exchange.exit.as_deref(), Some("exit 3"));
            assert_eq!((view.cols, view.rows), (40, 10));
            let summary = view.summary;
            assert_eq!(
                (summary.program.as_str(), summary.name.as_str()),
                ("calc", "a")
            );
            assert_eq!(summary.duration_ms, 12);
            assert_eq!(summary.redacted, Some(true));
            let hits = search([("calc/a", &tape)], "5 €", 10);
            assert_eq!(hits.len(), 1);
            assert_eq!(hits[0].exchange, 0);
            assert!(
                search([("calc/a", &tape)], "PRICE", 10).len() == 1,
                "input, any case"
            );
            assert!(
                search([("calc/a", &tape)], "1m", 10).is_empty(),
                "ANSI is not text"
            );
        }
    }
}

#[cfg(feature = "patterns")]
pub use build::{search, summary, view};

#[cfg(test)]
mod id_tests {
    use super::{tape_id, tape_id_in_workspace};

    #[test]
    fn ids_come_from_folder_and_workspace_paths() {
        assert_eq!(tape_id("bc/session.json5"), "bc/session");
        // A program named `tapes` keeps its folder.
        assert_eq!(tape_id("tapes/first.json5"), "tapes/first");
        assert_eq!(
            tape_id_in_workspace("tapes/toy/fuzz-7-8.json5"),
            "toy/fuzz-7-8"
        );
        assert_eq!(tape_id_in_workspace("tapes/tapes/a.json5"), "tapes/a");
        assert_eq!(tape_id_in_workspace("tapesx/a.json5"), "tapesx/a");
    }
}
