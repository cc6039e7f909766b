//! Secrets kept out of a session's output: every secret a session was sent
//! is masked wherever the program prints it afterwards (its echo, `you
//! typed …`, a line editor's redraw), however the output is cut into reads
//! and whatever cursor or colour sequences come between its characters.
//!
//! [`SecretMask`] sits between the terminal and everything that keeps or
//! shows output (the buffer reads come from, the screen, the log, tapes
//! recorded from it). Each secret byte becomes `*`, so the output keeps its
//! length and layout. Output that could be the start of a secret is held
//! back until the next read tells (it is, or it is not); a program that
//! goes quiet part way is flushed ([`SecretMask::flush`]), and a secret
//! that resumes after that still has its rest masked.

/// What a masked byte becomes.
pub const MASK: u8 = b'*';

/// How long a line typed while the program hides input must be to be
/// masked in later output: shorter answers at a hidden prompt (`y`, an
/// empty line) would mask every such letter the program prints.
pub const MIN_HIDDEN_LEN: usize = 4;

/// How many secrets a session remembers (the oldest are forgotten).
pub const MAX_SECRETS: usize = 64;

/// The longest secret remembered, in bytes (longer ones are cut there).
pub const MAX_SECRET_LEN: usize = 1024;

/// How much output may be held back waiting to know whether it is a
/// secret (escape sequences between a secret's characters count): past
/// this it is released as if the program had gone quiet.
const MAX_HELD: usize = 64 * 1024;

/// The longest escape sequence passed over inside a secret; a longer one
/// is taken for plain text.
const MAX_ESCAPE: usize = 4096;

/// The secrets of one session and the output held back while it is not
/// yet known whether it is one of them.
#[derive(Debug, Clone, Default)]
pub struct SecretMask {
    secrets: Vec<Vec<u8>>,
    /// Output not released yet: it may be the start of a secret.
    held: Vec<u8>,
    /// Output released by the last flush while it could still have been
    /// the start of a secret: what follows is matched as its continuation.
    released: Vec<u8>,
    /// A line being typed while the program hides input.
    hidden_line: Vec<u8>,
}

impl SecretMask {
    /// A mask that knows no secret yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether it knows any secret.
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// Learns what was typed: `sent_as_secret` input is a secret whatever
    /// its length (its line end left off); input typed while the program
    /// hides it (`hidden`) is gathered key by key into a line, which is a
    /// secret once it ends and is at least [`MIN_HIDDEN_LEN`] long.
    pub fn learn(&mut self, typed: &[u8], sent_as_secret: bool, hidden: bool) {
        if sent_as_secret {
            for line in typed.split(|&byte| matches!(byte, b'\r' | b'\n')) {
                self.add(line);
            }
            return;
        }
        if !hidden {
            self.hidden_line.clear();
            return;
        }
        for &byte in typed {
            match byte {
                b'\r' | b'\n' => {
                    let line = std::mem::take(&mut self.hidden_line);
                    if line.len() >= MIN_HIDDEN_LEN {
                        self.add(&line);
                    }
                }
                // Backspace and delete take back the last character.
                0x08 | 0x7f => {
                    while let Some(last) = self.hidden_line.pop() {
                        if last & 0xc0 != 0x80 {
                            break;
                        }
                    }
                }
                // Ctrl-C, Ctrl-U: the line is abandoned.
                0x03 | 0x15 => self.hidden_line.clear(),
                byte if byte < 0x20 => {}
                byte if self.hidden_line.len() < MAX_SECRET_LEN => self.hidden_line.push(byte),
                _ => {}
            }
        }
    }

    /// Adds one secret (nothing when empty or already known).
    pub fn add(&mut self, secret: &[u8]) {
        let secret = &secret[..secret.len().min(MAX_SECRET_LEN)];
        if secret.is_empty() || self.secrets.iter().any(|known| known == secret) {
            return;
        }
        if self.secrets.len() == MAX_SECRETS {
            self.secrets.remove(0);
        }
        self.secrets.push(secret.to_vec());
    }

    /// Whether output is held back, waiting to tell whether it is a secret.
    pub fn is_holding(&self) -> bool {
        !self.held.is_empty()
    }

    /// Takes a read of output; returns what may go out now, every secret
    /// in it masked. What could be the start of a secret stays held until
    /// the next read or [`flush`](Self::flush).
    pub fn push(&mut self, chunk: &[u8]) -> Vec<u8> {
        if self.secrets.is_empty() && self.held.is_empty() {
            self.released.clear();
            return chunk.to_vec();
        }
        let mut data = std::mem::take(&mut self.released);
        let floor = data.len();
        data.append(&mut self.held);
        data.extend_from_slice(chunk);
        let final_scan = data.len() - floor > MAX_HELD;
        self.release(data, floor, final_scan)
    }

    /// Releases what is held (the program went quiet, or ended), every
    /// whole secret in it masked; a secret it begins has its rest masked
    /// when the rest comes.
    pub fn flush(&mut self) -> Vec<u8> {
        if self.held.is_empty() {
            return Vec::new();
        }
        let mut data = std::mem::take(&mut self.released);
        let floor = data.len();
        data.append(&mut self.held);
        let out = self.release(data, floor, true);
        self.released = out.clone();
        // Only what could still go on as a secret is worth remembering.
        let keep = self.released.len().min(MAX_HELD);
        self.released.drain(..self.released.len() - keep);
        out
    }

    /// Scans `data`, whose first `floor` bytes went out already; returns
    /// the bytes from `floor` that may go out now, masked, holding back the
    /// rest unless `final_scan`.
    fn release(&mut self, mut data: Vec<u8>, floor: usize, final_scan: bool) -> Vec<u8> {
        let (masked, hold_from) = scan(&self.secrets, &data, final_scan);
        for range in masked {
            data[range.start.max(floor)..range.end.max(floor)].fill(MASK);
        }
        let hold_from = hold_from.unwrap_or(data.len());
        if hold_from < floor {
            // The start of a possible secret went out with a flush: keep
            // it as context, hold everything after it.
            self.held = data.split_off(floor);
            self.released = data.split_off(hold_from);
            return Vec::new();
        }
        self.held = data.split_off(hold_from);
        data.split_off(floor)
    }
}

/// One piece of output as a terminal reads it.
enum Token {
    /// A byte of text.
    Text,
    /// A whole escape sequence of this many bytes.
    Escape(usize),
    /// An escape sequence the data ends inside.
    Unfinished,
}

/// What is at `at`: text, or an escape sequence (CSI, OSC and the other
/// string sequences, or a two-byte one).
fn token_at(data: &[u8], at: usize) -> Token {
    if data[at] != 0x1b {
        return Token::Text;
    }
    let Some(&kind) = data.get(at + 1) else {
        return Token::Unfinished;
    };
    let limit = data.len().min(at + MAX_ESCAPE);
    match kind {
        b'[' => {
            for (end, &byte) in data.iter().enumerate().take(limit).skip(at + 2) {
                match byte {
                    0x20..=0x3f => {}
                    0x40..=0x7e => return Token::Escape(end + 1 - at),
                    // Malformed: it ends before the stray byte.
                    _ => return Token::Escape(end - at),
                }
            }
            unfinished_unless_too_long(data, at)
        }
        b']' | b'P' | b'_' | b'^' | b'X' => {
            for (end, &byte) in data.iter().enumerate().take(limit).skip(at + 2) {
                match byte {
                    0x07 => return Token::Escape(end + 1 - at),
                    0x1b if data.get(end + 1) == Some(&b'\\') => {
                        return Token::Escape(end + 2 - at);
                    }
                    0x1b if end + 1 == data.len() => return Token::Unfinished,
                    _ => {}
                }
            }
            unfinished_unless_too_long(data, at)
        }
        _ => {
            for (end, &byte) in data.iter().enumerate().take(limit).skip(at + 1) {
                match byte {
                    0x20..=0x2f => {}
                    0x30..=0x7e => return Token::Escape(end + 1 - at),
                    _ => return Token::Escape(end - at),
                }
            }
            unfinished_unless_too_long(data, at)
        }
    }
}

fn unfinished_unless_too_long(data: &[u8], at: usize) -> Token {
    if data.len() - at >= MAX_ESCAPE {
        Token::Text
    } else {
        Token::Unfinished
    }
}

/// How far a secret matched at a place.
enum Matched {
    /// Wholly: its bytes are at these ranges, the match ends at `end`.
    Whole {
        ranges: Vec<std::ops::Range<usize>>,
        end: usize,
    },
    /// The data ended part way through it.
    Partly,
    /// Not here.
    No,
}

/// Matches `secret` at `at`, passing over escape sequences between its
/// bytes.
fn match_at(data: &[u8], at: usize, secret: &[u8]) -> Matched {
    let mut ranges: Vec<std::ops::Range<usize>> = Vec::new();
    let mut pos = at;
    let mut next = 0;
    while next < secret.len() {
        if pos == data.len() {
            return Matched::Partly;
        }
        if next > 0 {
            match token_at(data, pos) {
                Token::Escape(len) => {
                    pos += len;
                    continue;
                }
                Token::Unfinished => return Matched::Partly,
                Token::Text => {}
            }
        }
        if data[pos] != secret[next] {
            return Matched::No;
        }
        match ranges.last_mut() {
            Some(last) if last.end == pos => last.end += 1,
            _ => ranges.push(pos..pos + 1),
        }
        pos += 1;
        next += 1;
    }
    Matched::Whole { ranges, end: pos }
}

/// Finds every secret in `data`: the byte ranges to mask, and where output
/// that could still become a secret starts (none when `final_scan`).
fn scan(
    secrets: &[Vec<u8>],
    data: &[u8],
    final_scan: bool,
) -> (Vec<std::ops::Range<usize>>, Option<usize>) {
    let mut masked = Vec::new();
    let mut at = 0;
    while at < data.len() {
        match token_at(data, at) {
            Token::Escape(len) => {
                at += len;
                continue;
            }
            Token::Unfinished if !final_scan => return (masked, Some(at)),
            Token::Unfinished | Token::Text => {}
        }
        let mut longest: Option<(Vec<std::ops::Range<usize>>, usize)> = None;
        let mut partly = false;
        for secret in secrets {
            match match_at(data, at, secret) {
                Matched::Whole { ranges, end } => {
                    if longest.as_ref().is_none_or(|(_, longest)| end > *longest) {
                        longest = Some((ranges, end));
                    }
                }
                Matched::Partly => partly = true,
                Matched::No => {}
            }
        }
        // A longer secret may still come: wait for it.
        if partly && !final_scan {
            return (masked, Some(at));
        }
        match longest {
            Some((ranges, end)) => {
                masked.extend(ranges);
                at = end;
            }
            None => at += 1,
        }
    }
    (masked, None)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    fn mask_of(secrets: &[&str]) -> SecretMask {
        let mut mask = SecretMask::new();
        for secret in secrets {
            mask.learn(secret.as_bytes(), true, false);
        }
        mask
    }

    fn through(mask: &mut SecretMask, chunks: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for chunk in chunks {
            out.extend(mask.push(chunk));
        }
        out.extend(mask.flush());
        out
    }

    #[test]
    fn a_secret_printed_back_is_masked_wherever_it_appears() {
        let mut mask = mask_of(&["Zq7-hunter2-Xy\r"]);
        let out = through(
            &mut mask,
            &[b"Zq7-hunter2-Xy\r\nyou typed Zq7-hun", b"ter2-Xy\r\n$ "],
        );
        assert_eq!(
            out, b"**************\r\nyou typed **************\r\n$ ",
            "the echo and the program's own line, split across reads"
        );
    }

    #[test]
    fn colour_and_cursor_sequences_between_its_characters_stay_and_hide_nothing() {
        let mut mask = mask_of(&["hunter2"]);
        let out = through(&mut mask, &[b"> hu\x1b[1;3", b"1mnt\x1b[Ker2\x1b]0;t\x07!"]);
        assert_eq!(out, b"> **\x1b[1;31m**\x1b[K***\x1b]0;t\x07!");
    }

    #[test]
    fn output_that_only_starts_like_a_secret_goes_out_whole() {
        let mut mask = mask_of(&["hunter2"]);
        assert_eq!(mask.push(b"$ hun"), b"$ ", "held: it may be the secret");
        assert!(mask.is_holding());
        assert_eq!(mask.push(b"gry\r\n"), b"hungry\r\n");
        assert!(!mask.is_holding());
        // Overlapping starts: the second `hh` begins the secret.
        let mut mask = mask_of(&["hhx"]);
        assert_eq!(through(&mut mask, &[b"hh", b"hx"]), b"h***");
    }

    #[test]
    fn a_secret_that_resumes_after_a_flush_has_its_rest_masked() {
        let mut mask = mask_of(&["hunter2"]);
        assert_eq!(mask.push(b"a hun"), b"a ");
        assert_eq!(mask.flush(), b"hun", "the program went quiet");
        assert_eq!(mask.push(b"ter2 b"), b"**** b");
        // A flush masks whole secrets it holds.
        let mut mask = mask_of(&["ab", "abcd"]);
        assert_eq!(mask.push(b"xabc"), b"x");
        assert_eq!(mask.flush(), b"**c");
    }

    #[test]
    fn lines_typed_at_a_hidden_prompt_are_secrets_once_long_enough() {
        let mut mask = SecretMask::new();
        for key in [b"p".as_slice(), b"w", b"x", b"\x7f", b"d", b"9", b"\r"] {
            mask.learn(key, false, true);
        }
        mask.learn(b"y\r", false, true);
        assert_eq!(through(&mut mask, &[b"pwd9 y"]), b"**** y");
        // Typing with echo on forgets a half-typed hidden line.
        let mut mask = SecretMask::new();
        mask.learn(b"abcd", false, true);
        mask.learn(b"ls\r", false, false);
        mask.learn(b"\r", false, true);
        assert!(mask.is_empty());
    }

    #[test]
    fn no_secret_no_cost() {
        let mut mask = SecretMask::new();
        assert_eq!(mask.push(b"\x1b[31"), b"\x1b[31");
        assert!(
            !mask.is_holding(),
            "nothing is held while no secret is known"
        );
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        /// Cursor and colour sequences a line editor redraws with.
        fn escape() -> impl Strategy<Value = Vec<u8>> {
            prop_oneof![
                Just(b"\x1b[K".to_vec()),
                Just(b"\x1b[0m".to_vec()),
                Just(b"\x1b[1;32m".to_vec()),
                Just(b"\x1b[?2004h".to_vec()),
                (1_u8..80).prop_map(|n| format!("\x1b[{n}D").into_bytes()),
                (1_u8..80).prop_map(|n| format!("\x1b[{n}G").into_bytes()),
                Just(b"\x1b]0;title\x07".to_vec()),
                Just(b"\x1b7".to_vec()),
                Just(b"\x1b8".to_vec()),
            ]
        }

        /// Output around the secrets: letters the secrets never use, so
        /// what must come out unchanged is known.
        fn filler() -> impl Strategy<Value = Vec<u8>> {
            prop::collection::vec(
                prop_oneof![
                    prop::sample::select(b"ABCDEFGH \r\n$>:".to_vec()).prop_map(|b| vec![b]),
                    escape(),
                ],
                0..6,
            )
            .prop_map(|parts| parts.concat())
        }

        /// An output with the secret in it several times, escapes between
        /// some of its characters; and which of its bytes are the secret's.
        fn output(secret: Vec<u8>) -> impl Strategy<Value = (Vec<u8>, Vec<bool>)> {
            let occurrence = prop::collection::vec(prop::option::of(escape()), secret.len());
            prop::collection::vec((filler(), occurrence), 1..4).prop_flat_map(move |parts| {
                let secret = secret.clone();
                filler().prop_map(move |tail| {
                    let mut bytes = Vec::new();
                    let mut is_secret = Vec::new();
                    for (filler, escapes) in &parts {
                        is_secret.extend(std::iter::repeat_n(false, filler.len()));
                        bytes.extend(filler);
                        for (n, (&byte, escape)) in secret.iter().zip(escapes).enumerate() {
                            if n > 0
                                && let Some(escape) = escape
                            {
                                is_secret.extend(std::iter::repeat_n(false, escape.len()));
                                bytes.extend(escape);
                            }
                            bytes.push(byte);
                            is_secret.push(true);
                        }
                    }
                    is_secret.extend(std::iter::repeat_n(false, tail.len()));
                    bytes.extend(&tail);
                    (bytes, is_secret)
                })
            })
        }

        fn chunked(bytes: &[u8], cuts: &[usize]) -> Vec<Vec<u8>> {
            let mut cuts: Vec<usize> = cuts.iter().map(|cut| cut % (bytes.len() + 1)).collect();
            cuts.sort_unstable();
            let mut chunks = Vec::new();
            let mut from = 0;
            for cut in cuts.into_iter().chain([bytes.len()]) {
                chunks.push(bytes[from..cut].to_vec());
                from = cut;
            }
            chunks
        }

        proptest! {
            #[test]
            fn the_secret_never_comes_out_and_every_other_byte_does(
                (secret, (bytes, is_secret)) in "[a-z0-9!@#%^&*()_+=-]{1,24}"
                    .prop_flat_map(|secret| {
                        let secret = secret.into_bytes();
                        (Just(secret.clone()), output(secret))
                    }),
                cuts in prop::collection::vec(any::<usize>(), 0..12),
            ) {
                let mut mask = SecretMask::new();
                mask.learn(&secret, true, false);
                let mut out = Vec::new();
                for chunk in chunked(&bytes, &cuts) {
                    out.extend(mask.push(&chunk));
                }
                out.extend(mask.flush());
                prop_assert_eq!(out.len(), bytes.len(), "nothing is added or lost");
                for (n, (&got, &was)) in out.iter().zip(&bytes).enumerate() {
                    if is_secret[n] {
                        prop_assert_eq!(got, MASK, "byte {} of the secret came out", n);
                    } else {
                        prop_assert_eq!(got, was, "byte {} is not the secret's", n);
                    }
                }
            }
        }
    }
}
