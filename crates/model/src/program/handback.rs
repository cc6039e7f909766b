//! The developer's turn at a program session, told to the agent: while the
//! developer holds a session, what they type is gathered into lines
//! ([`TypedLines`]: keys as a line editor takes them, a secret as `***`);
//! when they hand it back, the agent's next read, expect or wait carries a
//! [`HandBack`] — when they held it, what they typed, and the output
//! meanwhile (bounded, with the cursor to read the rest).

use serde::{Deserialize, Serialize};

use crate::time::Timestamp;

/// How much of the output produced during the developer's turn a note
/// carries; the rest is read from its `cursor`.
pub const MAX_NOTE_OUTPUT: usize = 4096;

/// How many lines a note keeps (the newest are dropped past this, and
/// counted).
pub const MAX_NOTE_LINES: usize = 200;

/// The longest line a note keeps, in bytes (cut there).
pub const MAX_LINE_LEN: usize = 1024;

/// What the developer did while they held a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandBack {
    /// When they took it over.
    pub taken_at: Timestamp,
    /// When they handed it back.
    pub handed_back_at: Timestamp,
    /// Each line they typed, in order (a secret, or a line typed while the
    /// program hid input, as `***`); a line not ended when they handed it
    /// back comes last, as typed so far.
    pub typed: Vec<String>,
    /// Lines typed past [`MAX_NOTE_LINES`], not listed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lines_left_out: usize,
    /// The output from when they took it over: its first
    /// [`MAX_NOTE_OUTPUT`] bytes at most (echo included, secrets masked).
    pub output: String,
    /// Where `output` starts in the session's output.
    pub from: u64,
    /// Just past `output`: a read from here brings what it left out.
    pub cursor: u64,
    /// Bytes after `cursor` produced before the hand-back (0: `output` is
    /// all of it).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub more_bytes: u64,
}

fn is_zero<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// The output part of a note: the first [`MAX_NOTE_OUTPUT`] bytes of
/// `bytes` (which start at stream offset `from` and end at `end`), cut on a
/// character boundary; `(text, cursor, more_bytes)`.
pub fn note_output(bytes: &[u8], from: u64, end: u64) -> (String, u64, u64) {
    let mut cut = bytes.len().min(MAX_NOTE_OUTPUT);
    // Never half a character: back up to the start of one.
    while cut < bytes.len() && cut > 0 && bytes[cut] & 0xC0 == 0x80 {
        cut -= 1;
    }
    let text = String::from_utf8_lossy(&bytes[..cut]).into_owned();
    let cursor = from + cut as u64;
    (text, cursor, end.saturating_sub(cursor))
}

/// Keys the developer typed, gathered into the lines a line editor would
/// submit: printable text appended, Backspace and Delete take back a
/// character, Ctrl-U and Ctrl-C drop the line, Enter ends it; escape
/// sequences (arrows, function keys) are passed over.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TypedLines {
    lines: Vec<String>,
    left_out: usize,
    current: Vec<u8>,
    /// The line being typed holds a secret.
    current_masked: bool,
    /// Inside an escape sequence: how many bytes of it were seen.
    escape: Option<usize>,
}

impl TypedLines {
    /// Nothing typed yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes what was typed; `masked` when it was a secret (sent as one,
    /// or typed while the program hid input): its line is `***`.
    pub fn push(&mut self, bytes: &[u8], masked: bool) {
        for &byte in bytes {
            self.current_masked |= masked;
            if let Some(seen) = self.escape {
                // CSI's parameters and intermediates, then a final byte;
                // `ESC O x` (SS3) and two-byte sequences end sooner.
                let ended = match (seen, byte) {
                    (1, b'[') => false,
                    (1, b'O') => false,
                    (1, _) => true,
                    (_, 0x20..=0x3f) => false,
                    _ => true,
                };
                self.escape = if ended { None } else { Some(seen + 1) };
                continue;
            }
            match byte {
                0x1b => self.escape = Some(1),
                b'\r' | b'\n' => self.end_line(),
                0x08 | 0x7f => {
                    while let Some(last) = self.current.pop() {
                        if last & 0xC0 != 0x80 {
                            break;
                        }
                    }
                }
                0x03 | 0x15 => {
                    self.current.clear();
                    self.current_masked = masked;
                }
                b'\t' => self.current.push(b'\t'),
                byte if byte < 0x20 => {}
                byte if self.current.len() < MAX_LINE_LEN => self.current.push(byte),
                _ => {}
            }
        }
    }

    fn end_line(&mut self) {
        let line = std::mem::take(&mut self.current);
        let masked = std::mem::replace(&mut self.current_masked, false);
        if self.lines.len() == MAX_NOTE_LINES {
            self.left_out += 1;
            return;
        }
        self.lines.push(if masked {
            "***".to_owned()
        } else {
            String::from_utf8_lossy(&line).into_owned()
        });
    }

    /// The lines typed, a line not yet ended last (when it holds
    /// anything), and how many were left out past [`MAX_NOTE_LINES`].
    pub fn finish(mut self) -> (Vec<String>, usize) {
        if !self.current.is_empty() {
            self.end_line();
        }
        (self.lines, self.left_out)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    fn typed(keys: &[(&[u8], bool)]) -> Vec<String> {
        let mut lines = TypedLines::new();
        for (bytes, masked) in keys {
            lines.push(bytes, *masked);
        }
        lines.finish().0
    }

    #[test]
    fn keys_become_the_lines_a_line_editor_submits() {
        assert_eq!(
            typed(&[(b"cd /tmp && ls\r", false)]),
            ["cd /tmp && ls"],
            "a whole line sent at once"
        );
        let keys: Vec<(&[u8], bool)> = "lsx\x7f -l\r"
            .as_bytes()
            .chunks(1)
            .map(|key| (key, false))
            .collect();
        assert_eq!(typed(&keys), ["ls -l"], "key by key, one taken back");
        assert_eq!(
            typed(&[
                (b"git st\x1b[A\x1bOBatus\r", false),
                (b"oops\x15pwd\r", false)
            ]),
            ["git status", "pwd"],
            "arrows passed over, Ctrl-U drops the line"
        );
        assert_eq!(
            typed(&[(b"half", false)]),
            ["half"],
            "a line not ended comes last"
        );
    }

    #[test]
    fn a_secret_line_is_stars() {
        assert_eq!(
            typed(&[
                (b"sudo -k\r", false),
                (b"hunter2\r", true),
                (b"whoami\r", false)
            ]),
            ["sudo -k", "***", "whoami"]
        );
        // Typed key by key at a hidden prompt: the whole line is masked.
        assert_eq!(typed(&[(b"p", true), (b"w", true), (b"\r", true)]), ["***"]);
    }

    #[test]
    fn a_long_turn_is_bounded() {
        let mut lines = TypedLines::new();
        for _ in 0..MAX_NOTE_LINES + 5 {
            lines.push(b"y\r", false);
        }
        let (kept, left_out) = lines.finish();
        assert_eq!((kept.len(), left_out), (MAX_NOTE_LINES, 5));
    }

    #[test]
    fn the_output_is_cut_on_a_character_and_says_where_the_rest_is() {
        let mut bytes = vec![b'a'; MAX_NOTE_OUTPUT - 1];
        bytes.extend("é and more".as_bytes());
        let (text, cursor, more) = note_output(&bytes, 100, 100 + bytes.len() as u64);
        assert_eq!(text.len(), MAX_NOTE_OUTPUT - 1, "é is not split");
        assert_eq!(cursor, 100 + MAX_NOTE_OUTPUT as u64 - 1);
        assert_eq!(more, bytes.len() as u64 - (MAX_NOTE_OUTPUT as u64 - 1));
        assert_eq!(note_output(b"ok\r\n", 7, 11), ("ok\r\n".to_owned(), 11, 0));
    }
}
