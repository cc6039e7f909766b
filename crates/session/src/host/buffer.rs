//! A session's output in memory: a bounded window onto the whole stream,
//! addressed by absolute byte offsets (cursors) so readers that come back
//! later lose nothing while it is kept, and are told what they missed when
//! it is not. The echo of typed input is marked (each input's in turn), so
//! an expect never matches the caller's own send (a secret's echo comes
//! masked, as the session's `SecretMask` lets every occurrence through).

use std::{collections::VecDeque, ops::Range};

use switchboard_model::program::secret::MASK;

/// How many echo ranges are remembered.
const MAX_ECHOES: usize = 256;

/// The output kept, with cursors into the whole stream.
#[derive(Debug)]
pub struct OutputBuffer {
    data: VecDeque<u8>,
    /// Offset of `data[0]` in the stream.
    start: u64,
    /// Offsets just past each line feed kept, oldest first.
    line_ends: VecDeque<u64>,
    max_bytes: usize,
    max_lines: usize,
    /// Stream ranges that were the terminal's echo of input.
    echoes: VecDeque<Range<u64>>,
    /// The echoes still expected of input typed, oldest first (input typed
    /// quickly is echoed in order, each after the one before).
    pending: VecDeque<PendingEcho>,
}

#[derive(Debug)]
struct PendingEcho {
    expected: Vec<u8>,
    matched: usize,
    range_start: Option<u64>,
    /// Output seen before the echo began.
    skipped: usize,
}

/// How many inputs' echoes are awaited at once.
const MAX_PENDING: usize = 16;

/// How much output may come between typing and its echo (output that was
/// already on its way) before no echo is expected any more.
const MAX_ECHO_DELAY: usize = 4096;

/// What matching an awaited echo against a read came to.
enum EchoStep {
    /// It ended `taken` bytes after `at` (complete, or diverged).
    Ended {
        /// Where in the read it began (0 when it went on from before).
        at: usize,
        /// How many bytes of the read it took.
        taken: usize,
    },
    /// It will not come: no longer awaited.
    Dropped,
    /// The read ended first, `taken` bytes of it from `at` the echo's: it
    /// goes on in the next.
    Waiting {
        /// Where in the read it began.
        at: usize,
        /// How many bytes of the read it took.
        taken: usize,
    },
}

/// Where in `chunk` the echo of `expected` begins: the first place from
/// which the chunk's rest and the expected text agree.
fn echo_start(chunk: &[u8], expected: &[u8]) -> Option<usize> {
    (0..chunk.len()).find(|&at| {
        let rest = &chunk[at..];
        let common = rest.len().min(expected.len());
        rest[..common] == expected[..common]
    })
}

impl OutputBuffer {
    /// An empty buffer keeping at most `max_bytes` and `max_lines`.
    pub fn new(max_bytes: usize, max_lines: usize) -> Self {
        Self {
            data: VecDeque::new(),
            start: 0,
            line_ends: VecDeque::new(),
            max_bytes: max_bytes.max(1024),
            max_lines: max_lines.max(1),
            echoes: VecDeque::new(),
            pending: VecDeque::new(),
        }
    }

    /// The offset of the oldest byte kept.
    pub fn start(&self) -> u64 {
        self.start
    }

    /// The offset just past the newest byte: the stream's length.
    pub fn end(&self) -> u64 {
        self.start + self.data.len() as u64
    }

    /// Expects the terminal to echo `typed` next (as a terminal echoes:
    /// a carriage return or line feed as CR LF; up to the first other
    /// control character); a secret's echo arrives masked, so it is
    /// expected masked.
    pub fn expect_echo(&mut self, typed: &[u8], secret: bool) {
        let mut expected = Vec::with_capacity(typed.len() + 1);
        for &byte in typed {
            match byte {
                b'\r' | b'\n' => expected.extend_from_slice(b"\r\n"),
                b'\t' => expected.push(b'\t'),
                byte if byte < 0x20 || byte == 0x7f => break,
                _ if secret => expected.push(MASK),
                byte => expected.push(byte),
            }
        }
        if expected.is_empty() {
            return;
        }
        if self.pending.len() == MAX_PENDING {
            let end = self.end();
            self.close_echo_at(end);
        }
        self.pending.push_back(PendingEcho {
            expected,
            matched: 0,
            range_start: None,
            skipped: 0,
        });
    }

    /// Adds output; returns where in it the echo of typed input is.
    pub fn push(&mut self, stored: &[u8]) -> Vec<Range<usize>> {
        let here = self.end();
        let mut echoed: Vec<Range<usize>> = Vec::new();
        let mut pos = 0;
        while pos < stored.len() {
            let Some(step) = self.match_echo(&stored[pos..], here + pos as u64) else {
                break;
            };
            if let EchoStep::Ended { at, taken } | EchoStep::Waiting { at, taken } = step
                && taken > 0
            {
                echoed.push(pos + at..pos + at + taken);
            }
            match step {
                EchoStep::Ended { at, taken } => {
                    let pending = &self.pending[0];
                    // The line end of an echoed line stays in what is
                    // searched: what follows starts a line, as on screen
                    // (`^42$` after `>>> ` and the echo of `print(6*7)`).
                    let line_end = pending.expected[..pending.matched].ends_with(b"\r\n");
                    let end = here + (pos + at + taken) as u64 - if line_end { 2 } else { 0 };
                    self.close_echo_at(end);
                    pos += at + taken;
                }
                // Not echoed (echo off): the next input's echo is looked for.
                EchoStep::Dropped => {
                    self.pending.pop_front();
                }
                EchoStep::Waiting { .. } => break,
            }
        }
        let mut offset = self.end();
        for &byte in stored {
            offset += 1;
            if byte == b'\n' {
                self.line_ends.push_back(offset);
            }
        }
        self.data.extend(stored);
        self.trim();
        echoed
    }

    /// Matches the oldest awaited echo against `chunk`, which starts at
    /// stream offset `offset`; `None` when no echo is awaited.
    fn match_echo(&mut self, chunk: &[u8], offset: u64) -> Option<EchoStep> {
        let next_starts = self
            .pending
            .get(1)
            .is_some_and(|next| echo_start(chunk, &next.expected).is_some());
        let pending = self.pending.front_mut()?;
        // Output already on its way when the input was typed comes first:
        // the echo starts where the expected text does (a false start that
        // diverges within this read is passed over).
        let resumed = pending.matched > 0;
        let mut from = 0;
        let found = loop {
            let start = if resumed {
                0
            } else {
                match echo_start(&chunk[from..], &pending.expected) {
                    Some(at) => from + at,
                    None => break None,
                }
            };
            let wanted = &pending.expected[pending.matched..];
            let taken = chunk[start..]
                .iter()
                .zip(wanted)
                .take_while(|(got, want)| got == want)
                .count();
            let diverged = start + taken < chunk.len() && taken < wanted.len();
            if diverged && !resumed {
                from = start + 1;
                continue;
            }
            break Some((start, taken));
        };
        let Some((start, taken)) = found else {
            pending.skipped += chunk.len();
            return Some(if next_starts || pending.skipped > MAX_ECHO_DELAY {
                EchoStep::Dropped
            } else {
                EchoStep::Waiting { at: 0, taken: 0 }
            });
        };
        pending.matched += taken;
        if taken > 0 {
            pending.range_start.get_or_insert(offset + start as u64);
        }
        let diverged = resumed && taken < chunk.len() && pending.matched < pending.expected.len();
        Some(if pending.matched == pending.expected.len() || diverged {
            EchoStep::Ended { at: start, taken }
        } else {
            EchoStep::Waiting { at: start, taken }
        })
    }

    /// Ends the oldest awaited echo at `end`, keeping its range.
    fn close_echo_at(&mut self, end: u64) {
        if let Some(PendingEcho {
            range_start: Some(start),
            ..
        }) = self.pending.pop_front()
            && end > start
        {
            if self.echoes.len() == MAX_ECHOES {
                self.echoes.pop_front();
            }
            self.echoes.push_back(start..end);
        }
    }

    fn trim(&mut self) {
        let mut drop_to = self.start;
        if self.data.len() > self.max_bytes {
            drop_to = self.end() - self.max_bytes as u64;
        }
        if self.line_ends.len() > self.max_lines {
            let keep_from = self.line_ends[self.line_ends.len() - self.max_lines - 1];
            drop_to = drop_to.max(keep_from);
        }
        if drop_to > self.start {
            let count = usize::try_from(drop_to - self.start).unwrap_or(self.data.len());
            self.data.drain(..count.min(self.data.len()));
            self.start = drop_to;
            while self.line_ends.front().is_some_and(|&end| end <= drop_to) {
                self.line_ends.pop_front();
            }
            while self
                .echoes
                .front()
                .is_some_and(|range| range.end <= drop_to)
            {
                self.echoes.pop_front();
            }
        }
    }

    /// The bytes from `from` (clamped to what is kept) to the end.
    pub fn bytes_from(&self, from: u64) -> Vec<u8> {
        let from = from.clamp(self.start, self.end());
        let skip = usize::try_from(from - self.start).unwrap_or(0);
        self.data.range(skip..).copied().collect()
    }

    /// The last `count` bytes or fewer, as text.
    pub fn tail(&self, count: usize) -> String {
        let from = self.end().saturating_sub(count as u64);
        String::from_utf8_lossy(&self.bytes_from(from)).into_owned()
    }

    /// The output from `from` to the end without the echo of input.
    pub fn searchable(&self, from: u64) -> Searchable {
        let from = from.clamp(self.start, self.end());
        let end = self.end();
        let pending = self
            .pending
            .front()
            .and_then(|pending| pending.range_start)
            .map(|start| start..end);
        let mut text = Vec::new();
        let mut segments = Vec::new();
        let mut at = from;
        for echo in self.echoes.iter().chain(pending.as_ref()) {
            if echo.end <= at {
                continue;
            }
            if echo.start > at {
                self.copy(at, echo.start.min(end), &mut text, &mut segments);
            }
            at = at.max(echo.end);
        }
        if at < end {
            self.copy(at, end, &mut text, &mut segments);
        }
        Searchable { text, segments }
    }

    fn copy(&self, from: u64, to: u64, text: &mut Vec<u8>, segments: &mut Vec<(usize, u64)>) {
        let skip = usize::try_from(from - self.start).unwrap_or(0);
        let count = usize::try_from(to - from).unwrap_or(0);
        segments.push((text.len(), from));
        text.extend(self.data.range(skip..skip + count));
    }
}

/// Output with the echo of input left out, and where each piece of it is
/// in the stream.
#[derive(Debug, Clone, Default)]
pub struct Searchable {
    /// The text.
    pub text: Vec<u8>,
    /// `(position in text, stream offset)` where each piece starts.
    segments: Vec<(usize, u64)>,
}

impl Searchable {
    /// The stream offset just past the text's first `count` bytes.
    pub fn offset_after(&self, count: usize) -> Option<u64> {
        let last = count.checked_sub(1)?;
        let index = self
            .segments
            .partition_point(|(at, _)| *at <= last)
            .checked_sub(1)?;
        let (at, offset) = self.segments[index];
        Some(offset + (last - at) as u64 + 1)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn cursors_survive_trimming_and_say_what_was_missed() {
        let mut buffer = OutputBuffer::new(1024, 3);
        for n in 0..5 {
            buffer.push(format!("line {n}\n").as_bytes());
        }
        assert_eq!(buffer.end(), 35);
        assert_eq!(buffer.start(), 14, "two of five lines fell out");
        assert_eq!(buffer.bytes_from(0), b"line 2\nline 3\nline 4\n");
        assert_eq!(buffer.bytes_from(28), b"line 4\n");
        let mut buffer = OutputBuffer::new(1024, 1_000_000);
        buffer.push(&[b'x'; 3000]);
        assert_eq!(buffer.start(), 3000 - 1024);
        assert_eq!(buffer.bytes_from(0).len(), 1024);
    }

    #[test]
    fn the_echo_of_input_is_not_searched() {
        let mut buffer = OutputBuffer::new(4096, 100);
        buffer.push(b">>> ");
        buffer.expect_echo(b"print('>>> ')\r", false);
        buffer.push(b"print('>>");
        buffer.push(b"> ')\r\n>>> \r\n>>> ");
        let searchable = buffer.searchable(0);
        assert_eq!(searchable.text, b">>> \r\n>>> \r\n>>> ");
        let all = searchable.text.len();
        assert_eq!(searchable.offset_after(all), Some(buffer.end()));
        assert_eq!(
            searchable.offset_after(5),
            Some(4 + 13 + 1),
            "past the echo"
        );
        assert_eq!(searchable.offset_after(4), Some(4));
        assert_eq!(
            buffer.searchable(10).text,
            b"\r\n>>> \r\n>>> ",
            "from inside the echo"
        );
    }

    #[test]
    fn the_echo_follows_output_that_was_already_on_its_way() {
        let mut buffer = OutputBuffer::new(4096, 100);
        buffer.expect_echo(b"pwd\r", false);
        buffer.push(b"$ pw");
        buffer.push(b"d\r\n/tmp\r\n$ ");
        assert_eq!(buffer.searchable(0).text, b"$ \r\n/tmp\r\n$ ");
        // A prompt that starts like the input is not taken for its echo.
        let mut buffer = OutputBuffer::new(4096, 100);
        buffer.expect_echo(b"print(1)\r", false);
        buffer.push(b"p> print(1)\r\n1\r\n");
        assert_eq!(buffer.searchable(0).text, b"p> \r\n1\r\n");
    }

    #[test]
    fn inputs_typed_quickly_are_each_echoed_in_turn() {
        let mut buffer = OutputBuffer::new(4096, 100);
        buffer.expect_echo(b"item 1\r", false);
        buffer.expect_echo(b"item 2\r", false);
        buffer.push(b"item 1\r\nitem 1\r\nit");
        buffer.push(b"em 2\r\nitem 2\r\n");
        assert_eq!(buffer.searchable(0).text, b"\r\nitem 1\r\n\r\nitem 2\r\n");
        // An input the program did not echo (a password) does not stop the
        // next one's echo from being known.
        let mut buffer = OutputBuffer::new(4096, 100);
        buffer.expect_echo(b"hunter2\r", true);
        buffer.push(b"\r\nwelcome\r\n$ ");
        buffer.expect_echo(b"ls\r", false);
        buffer.push(b"ls\r\nfile\r\n$ ");
        assert_eq!(
            buffer.searchable(0).text,
            b"\r\nwelcome\r\n$ \r\nfile\r\n$ "
        );
    }

    #[test]
    fn a_secret_echo_is_known_masked_and_the_echo_is_told_where_it_is() {
        let mut buffer = OutputBuffer::new(4096, 100);
        buffer.expect_echo(b"hunter2\n", true);
        let echoed = buffer.push(b"*******\r\nok *******\r\n");
        assert_eq!(
            echoed,
            [Range { start: 0, end: 9 }],
            "the masked echo and its line end"
        );
        assert_eq!(buffer.searchable(0).text, b"\r\nok *******\r\n");
        // An echo split across reads is told in each.
        let mut buffer = OutputBuffer::new(4096, 100);
        buffer.expect_echo(b"ls\r", false);
        assert_eq!(buffer.push(b"$ l"), [Range { start: 2, end: 3 }]);
        assert_eq!(buffer.push(b"s\r\nfile"), [Range { start: 0, end: 3 }]);
        // No echo (a password prompt): nothing is taken for one.
        let mut buffer = OutputBuffer::new(4096, 100);
        buffer.expect_echo(b"pw\r", true);
        assert!(buffer.push(b"\r\nwelcome\r\n").is_empty());
        assert_eq!(buffer.searchable(0).text, b"\r\nwelcome\r\n");
    }
}
