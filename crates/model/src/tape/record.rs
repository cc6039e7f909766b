//! Cutting a live terminal session into a tape: the bytes typed and the
//! bytes read, each with the time it happened, become the start-up banner
//! and the exchanges.
//!
//! An exchange opens with the first byte typed after the previous one
//! closed; its prompt is what was on screen after the last newline at that
//! moment (the same text `play` looks the input up under). It closes on a
//! carriage return or newline (a line), on a control byte such as Ctrl-C or
//! Ctrl-D, or at the end of a read holding an escape sequence (a raw send).
//! Tab, backspace and delete are line editing and stay in the line. Every
//! read from the program from the exchange's first byte until the next
//! exchange opens is its output — the echo of the typing included, which is
//! what makes a replay's screen equal the original's. A read's delay counts
//! from the later of the previous read and the last key typed, so the
//! time spent typing is not replayed as the program's slowness.

use std::time::Duration;

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{
    Chunk, Exchange, Exit, Input, InputKind, Meta, Output, Pre, Pty, Session, Spread, Tape,
    index::Context, redact,
};

/// A tape of `exchanges` recorded from `context`'s program (its folder;
/// the environment is not kept) on a `pty`-sized terminal at `created_at`,
/// by `version`, with `banner` (`meta.banner`) when there is one and
/// whether secrets were masked (`meta.redacted`, in the part of `meta`
/// ClaudeControl's schema leaves open).
pub fn tape_of(
    context: &Context,
    pty: Option<Pty>,
    created_at: String,
    version: String,
    banner: Option<Value>,
    redacted: bool,
    exchanges: Vec<Exchange>,
) -> Tape {
    let mut extra = Map::new();
    extra.insert("redacted".to_owned(), redacted.into());
    if let Some(banner) = banner {
        extra.insert("banner".to_owned(), banner);
    }
    Tape {
        meta: Meta {
            created_at,
            program: context.program.clone(),
            args: context.args.clone(),
            env: std::collections::BTreeMap::new(),
            cwd: context.cwd.clone(),
            pty,
            tag: None,
            latency: Spread::default(),
            error_rate: Spread::default(),
            seed: None,
            extra,
        },
        session: Session {
            platform: Some(std::env::consts::OS.to_owned()),
            version: Some(version),
            extra: Map::new(),
        },
        exchanges,
        extra: Map::new(),
    }
}

/// What a recording does with exchanges already on tape (ClaudeControl's
/// record modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RecordMode {
    /// Keeps what is on tape (an exchange `play` would find is not recorded
    /// again) and writes the rest to a new tape.
    New,
    /// Replaces the exchanges already on tape where they are (and a tape of
    /// the same name whole), writing the rest to the new tape.
    Overwrite,
    /// Records nothing.
    Disabled,
}

/// A record mode that is not `new`, `overwrite` or `disabled`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("record mode {0:?} is not one of new, overwrite, disabled")]
pub struct UnknownRecordMode(pub String);

impl std::str::FromStr for RecordMode {
    type Err = UnknownRecordMode;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "new" => Ok(Self::New),
            "overwrite" => Ok(Self::Overwrite),
            "disabled" => Ok(Self::Disabled),
            _ => Err(UnknownRecordMode(text.to_owned())),
        }
    }
}

/// One input being typed or typed, and what it drew so far.
#[derive(Debug)]
struct Draft {
    prompt: Option<String>,
    input: Vec<u8>,
    kind: InputKind,
    reads: Vec<(u64, Vec<u8>)>,
    started: Duration,
    ended: Duration,
}

/// The most of a line kept as the prompt on screen: a program that never
/// prints a newline (a full-screen one) does not make it grow for ever.
pub const SCREEN_LIMIT: usize = 4096;

/// Adds `bytes` the program printed to `screen`, the text after the last
/// newline (its last [`SCREEN_LIMIT`] bytes): the prompt an input answers,
/// the same for the recorder and the player.
pub fn follow_screen(screen: &mut Vec<u8>, bytes: &[u8]) {
    match bytes.iter().rposition(|byte| *byte == b'\n') {
        Some(newline) => {
            screen.clear();
            screen.extend_from_slice(&bytes[newline + 1..]);
        }
        None => screen.extend_from_slice(bytes),
    }
    if screen.len() > SCREEN_LIMIT {
        screen.drain(..screen.len() - SCREEN_LIMIT);
    }
}

/// A session being recorded.
#[derive(Debug, Default)]
pub struct Recorder {
    banner: Vec<(u64, Vec<u8>)>,
    done: Vec<Draft>,
    current: Option<Draft>,
    typing: bool,
    last: Duration,
    screen: Vec<u8>,
}

/// What a recording holds once the program ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Recording {
    /// What the program printed before the first input, as `meta.banner`
    /// holds it (`{"chunks": […]}`), or `None` when it printed nothing.
    pub banner: Option<Value>,
    /// The exchanges, in order; the last carries the exit.
    pub exchanges: Vec<Exchange>,
    /// Whether secrets were masked.
    pub redacted: bool,
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

impl Recorder {
    /// A recorder with nothing seen yet; times are measured from its start.
    pub fn new() -> Self {
        Self::default()
    }

    /// A recorder that starts at a prompt already on screen (a session
    /// taken over part way).
    pub fn at_prompt(screen: &str) -> Self {
        Self {
            screen: screen.as_bytes().to_vec(),
            ..Self::default()
        }
    }

    /// The text after the last newline the program printed: the prompt an
    /// input typed now answers.
    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.screen).into_owned()
    }

    /// Whether an input has been started and not yet submitted.
    pub fn typing(&self) -> bool {
        self.typing
    }

    /// Bytes typed at `at` (since the recording started).
    pub fn input(&mut self, bytes: &[u8], at: Duration) {
        let mut escape = false;
        for &byte in bytes {
            if !self.typing {
                let prompt = self.screen();
                self.done.extend(self.current.take());
                self.current = Some(Draft {
                    prompt: (!prompt.is_empty()).then_some(prompt),
                    input: Vec::new(),
                    kind: InputKind::Raw,
                    reads: Vec::new(),
                    started: at,
                    ended: at,
                });
                self.typing = true;
            }
            let Some(draft) = self.current.as_mut() else {
                continue;
            };
            draft.input.push(byte);
            match byte {
                b'\r' | b'\n' => {
                    draft.kind = InputKind::Line;
                    self.typing = false;
                    escape = false;
                }
                0x1b => escape = true,
                b'\t' | 0x08 => {}
                control if control < 0x20 => {
                    draft.kind = InputKind::Raw;
                    self.typing = false;
                    escape = false;
                }
                _ => {}
            }
        }
        if escape {
            self.typing = false;
        }
        self.last = self.last.max(at);
    }

    /// Bytes the program printed at `at`.
    pub fn output(&mut self, bytes: &[u8], at: Duration) {
        if bytes.is_empty() {
            return;
        }
        let delay = millis(at.saturating_sub(self.last));
        self.last = self.last.max(at);
        match self.current.as_mut() {
            Some(draft) => {
                draft.reads.push((delay, bytes.to_vec()));
                draft.ended = at;
            }
            None => self.banner.push((delay, bytes.to_vec())),
        }
        follow_screen(&mut self.screen, bytes);
    }

    /// The recording, the program having ended with `exit`; secrets are
    /// masked unless `redact` is false (see [`redact`]): across all the reads
    /// of an exchange, in inputs and in the banner.
    pub fn finish(mut self, exit: Option<Exit>, redact: bool) -> Recording {
        self.done.extend(self.current.take());
        let mut banner: Vec<Vec<u8>> = self.banner.iter().map(|(_, b)| b.clone()).collect();
        if redact {
            redact::redact_chunks(&mut banner);
        }
        let banner = (!banner.is_empty()).then(|| {
            let chunks: Vec<Chunk> = self
                .banner
                .iter()
                .zip(&banner)
                .map(|((delay, _), bytes)| Chunk::of(*delay, bytes))
                .collect();
            json!({ "chunks": chunks })
        });
        let count = self.done.len();
        let mut exit = exit;
        let exchanges = self
            .done
            .into_iter()
            .enumerate()
            .map(|(n, draft)| {
                let mut reads: Vec<Vec<u8>> = draft.reads.iter().map(|(_, b)| b.clone()).collect();
                if redact {
                    redact::redact_chunks(&mut reads);
                }
                let input = match String::from_utf8(draft.input) {
                    Ok(text) if redact => (Some(redact::redact_text(&text)), None),
                    Ok(text) => (Some(text), None),
                    Err(bytes) => (
                        None,
                        Some(base64::engine::general_purpose::STANDARD.encode(bytes.into_bytes())),
                    ),
                };
                Exchange {
                    pre: Pre {
                        prompt: draft.prompt,
                        extra: Map::new(),
                    },
                    input: Input {
                        kind: draft.kind,
                        data_text: input.0,
                        data_b64: input.1,
                        extra: Map::new(),
                    },
                    output: Output {
                        chunks: draft
                            .reads
                            .iter()
                            .zip(&reads)
                            .map(|((delay, _), bytes)| Chunk::of(*delay, bytes))
                            .collect(),
                        extra: Map::new(),
                    },
                    exit: if n + 1 == count { exit.take() } else { None },
                    dur_ms: Some(millis(draft.ended.saturating_sub(draft.started))),
                    annotations: Map::new(),
                    extra: Map::new(),
                }
            })
            .collect();
        Recording {
            banner,
            exchanges,
            redacted: redact,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn text(chunk: &Chunk) -> String {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&chunk.data_b64)
            .unwrap();
        String::from_utf8(bytes).unwrap()
    }

    fn exit(code: i64) -> Exit {
        Exit {
            code: Some(code),
            signal: None,
            extra: Map::new(),
        }
    }

    #[test]
    fn a_typed_session_becomes_banner_and_exchanges_with_their_prompts() {
        let mut rec = Recorder::new();
        rec.output(b"calc 1.0\r\n> ", ms(5));
        // Typed key by key, each echoed; the pause while typing is not a
        // delay of the program's.
        for (n, key) in b"1+2".iter().enumerate() {
            let at = 100 + 400 * n as u64;
            rec.input(&[*key], ms(at));
            rec.output(&[*key], ms(at + 1));
        }
        rec.input(b"\r", ms(1400));
        rec.output(b"\r\n", ms(1401));
        rec.output(b"3\r\n> ", ms(1420));
        // A fast client sends a whole line, then Ctrl-D.
        rec.input(b"q\r", ms(2000));
        rec.output(b"q\r\n> ", ms(2003));
        rec.input(&[0x04], ms(2100));
        let recording = rec.finish(Some(exit(0)), true);

        let banner = recording.banner.unwrap();
        assert_eq!(banner["chunks"][0]["delay_ms"], 5);
        let [sum, quit, eof] = recording.exchanges.as_slice() else {
            panic!("{:?}", recording.exchanges)
        };
        assert_eq!(sum.pre.prompt.as_deref(), Some("> "));
        assert_eq!(sum.input.kind, InputKind::Line);
        assert_eq!(sum.input.data_text.as_deref(), Some("1+2\r"));
        let echoed: String = sum.output.chunks.iter().map(text).collect();
        assert_eq!(echoed, "1+2\r\n3\r\n> ");
        let delays: Vec<u64> = sum.output.chunks.iter().map(|c| c.delay_ms).collect();
        assert_eq!(delays, [1, 1, 1, 1, 19]);
        assert_eq!(quit.pre.prompt.as_deref(), Some("> "));
        assert_eq!(eof.input.kind, InputKind::Raw);
        assert_eq!(eof.input.data_text.as_deref(), Some("\u{4}"));
        assert!(sum.exit.is_none() && quit.exit.is_none());
        assert_eq!(eof.exit, Some(exit(0)));
    }

    #[test]
    fn escape_sequences_and_control_keys_are_raw_sends_and_bytes_stay_bytes() {
        let mut rec = Recorder::new();
        rec.input(b"\x1b[A", ms(1));
        rec.input(b"ab\x03", ms(2));
        rec.input(&[0xff, b'\n'], ms(3));
        let recording = rec.finish(None, true);
        let inputs: Vec<(InputKind, Option<&str>, Option<&str>)> = recording
            .exchanges
            .iter()
            .map(|e| {
                (
                    e.input.kind,
                    e.input.data_text.as_deref(),
                    e.input.data_b64.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            inputs,
            [
                (InputKind::Raw, Some("\u{1b}[A"), None),
                (InputKind::Raw, Some("ab\u{3}"), None),
                (InputKind::Line, None, Some("/wo=")),
            ]
        );
        assert!(recording.banner.is_none());
    }

    #[test]
    fn a_secret_echoed_key_by_key_is_masked_across_reads_and_in_the_input() {
        let typed = "password=hunter22\r";
        let mut on = Recorder::new();
        let mut off = Recorder::new();
        for rec in [&mut on, &mut off] {
            for (n, key) in typed.bytes().enumerate() {
                rec.input(&[key], ms(n as u64));
                rec.output(&[key], ms(n as u64));
            }
        }
        let masked = on.finish(None, true).exchanges.remove(0);
        let echoed: String = masked.output.chunks.iter().map(text).collect();
        assert!(!echoed.contains("hunter"), "{echoed}");
        assert_eq!(masked.output.chunks.len(), typed.len());
        assert!(!masked.input.data_text.unwrap().contains("hunter"));
        let kept = off.finish(None, false).exchanges.remove(0);
        let echoed: String = kept.output.chunks.iter().map(text).collect();
        assert_eq!(echoed, typed);
    }
}
