//! Standing in for a program from its tapes: the replay engine behind
//! `switchboard play`, with no terminal of its own, so any edge can replay.
//! It knows which tapes are the program's, what to show before the first
//! input (the recorded start-up banner, or for a tape ClaudeControl
//! recorded — which starts at the first send — the first exchange's
//! prompt), and, key by key, when what was typed is an input a tape
//! recorded: looked up under the end of what the screen shows, which a
//! recorded prompt must fit as its recorder meant it
//! (`model::tape::index::prompt_fits`), the same input twice played in the
//! tape's order. The caller shows the chunks at their pace ([`Pace`]) and
//! tells the engine what it showed.

use std::{collections::BTreeSet, time::Duration};

use switchboard_model::tape::{
    Chunk, Exchange, InputKind, Spread, Tape,
    index::{self, Context, TapeIndex},
    record::SCREEN_LIMIT,
};

/// How long to wait before each output read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    /// The delays the tape recorded.
    Recorded,
    /// This many milliseconds each.
    Fixed(u64),
    /// A number of milliseconds picked from this range each time.
    Between(u64, u64),
}

impl Pace {
    /// A tape's own latency: its recorded delays when it is 0.
    pub fn of(tape: &Tape) -> Self {
        let whole = |number: &serde_json::Number| number.as_f64().unwrap_or(0.0).max(0.0) as u64;
        match &tape.meta.latency {
            Spread::One(ms) if whole(ms) > 0 => Self::Fixed(whole(ms)),
            Spread::Range([low, high]) if whole(high) > 0 => {
                Self::Between(whole(low).min(whole(high)), whole(high))
            }
            _ => Self::Recorded,
        }
    }

    /// The wait before `chunk`.
    pub fn delay(self, chunk: &Chunk) -> Duration {
        Duration::from_millis(match self {
            Self::Recorded => chunk.delay_ms,
            Self::Fixed(ms) => ms,
            Self::Between(low, high) => fastrand::u64(low..=high),
        })
    }
}

/// A tape's error rate, in percent (one picked from its range).
pub fn error_rate(tape: &Tape) -> f64 {
    match &tape.meta.error_rate {
        Spread::One(rate) => rate.as_f64().unwrap_or(0.0),
        Spread::Range([low, high]) => {
            let (low, high) = (low.as_f64().unwrap_or(0.0), high.as_f64().unwrap_or(0.0));
            low + fastrand::f64() * (high - low).max(0.0)
        }
    }
}

/// What a key typed came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Nothing yet: the input goes on.
    Typing,
    /// The input is exchange `exchange` of tape `tape`: play its output.
    Play {
        /// The tape, by position.
        tape: usize,
        /// The exchange, by position.
        exchange: usize,
    },
    /// A line was ended that no tape recorded here.
    Missed {
        /// What was typed, line end included.
        input: Vec<u8>,
        /// The line on screen it was typed at.
        prompt: String,
    },
}

/// A replay in progress.
#[derive(Debug)]
pub struct Replay {
    tapes: Vec<Tape>,
    paths: Vec<String>,
    index: TapeIndex,
    /// The program's command, folder and environment; its prompt, what the
    /// screen shows at each key.
    context: Context,
    /// The tapes of the program played, by position.
    mine: Vec<usize>,
    used: BTreeSet<usize>,
    /// The end of everything shown (its last [`SCREEN_LIMIT`] bytes), which
    /// recorded prompts are fitted to.
    shown: Vec<u8>,
    /// The exchange played last.
    last: Option<(usize, usize)>,
    /// The inputs played, each with the line on screen it answered.
    played: Vec<(String, Vec<u8>)>,
    /// What was typed since the last input played.
    input: Vec<u8>,
}

impl Replay {
    /// A replay of the program `context` names (its command and folder;
    /// its prompt is followed as the replay goes) from `tapes` (each with
    /// its path, for the summary): a tape of another program answers only
    /// a lookup of it.
    pub fn new(tapes: Vec<(String, Tape)>, context: Context) -> Self {
        let (paths, tapes): (Vec<String>, Vec<Tape>) = tapes.into_iter().unzip();
        let mine = tapes
            .iter()
            .enumerate()
            .filter(|(_, tape)| {
                tape.meta.program == context.program
                    && tape.meta.args == context.args
                    && tape.meta.cwd == context.cwd
            })
            .map(|(t, _)| t)
            .collect();
        Self {
            index: TapeIndex::build(&tapes),
            tapes,
            paths,
            context,
            mine,
            used: BTreeSet::new(),
            shown: Vec::new(),
            last: None,
            played: Vec::new(),
            input: Vec::new(),
        }
    }

    /// Tape `t`.
    pub fn tape(&self, t: usize) -> &Tape {
        &self.tapes[t]
    }

    /// Tape `t`'s path.
    pub fn path(&self, t: usize) -> &str {
        &self.paths[t]
    }

    /// Exchange `e` of tape `t`.
    pub fn exchange(&self, t: usize, e: usize) -> &Exchange {
        &self.tapes[t].exchanges[e]
    }

    /// What the program showed before its first input, by the first of
    /// its tapes that says: its start-up banner, else (a tape that begins
    /// at the first send, as ClaudeControl's do) the prompt its first
    /// exchange was recorded at, unless that is only a line ending. The
    /// tape counts as used.
    pub fn opening(&mut self) -> Option<(usize, Vec<Chunk>)> {
        let found = self.mine.iter().find_map(|t| {
            let tape = &self.tapes[*t];
            let banner = tape.meta.banner();
            if !banner.is_empty() {
                return Some((*t, banner));
            }
            let prompt = tape.exchanges.first()?.pre.prompt.as_deref()?;
            (!prompt.trim().is_empty()).then(|| (*t, vec![Chunk::of(0, prompt.as_bytes())]))
        })?;
        self.used.insert(found.0);
        Some(found)
    }

    /// Notes what the caller showed on the screen.
    pub fn shown(&mut self, bytes: &[u8]) {
        self.shown.extend_from_slice(bytes);
        if self.shown.len() > SCREEN_LIMIT {
            self.shown.drain(..self.shown.len() - SCREEN_LIMIT);
        }
    }

    /// The line on screen: what was shown after the last newline.
    pub fn screen(&self) -> String {
        let start = self
            .shown
            .iter()
            .rposition(|byte| *byte == b'\n')
            .map_or(0, |newline| newline + 1);
        String::from_utf8_lossy(&self.shown[start..]).into_owned()
    }

    /// Takes one key typed. A raw send a tape recorded plays once all its
    /// bytes are typed (its line end too: ClaudeControl's `/wo=`, 0xff and
    /// a line feed, is found by its 0xff but not played before the line
    /// feed); a line, when it is ended.
    pub fn key(&mut self, byte: u8) -> Step {
        self.input.push(byte);
        let submitted = matches!(byte, b'\r' | b'\n');
        let prompt = self.screen();
        // Looked up under what the screen shows now (the rest of the
        // context — command, folder, environment — stays as it was).
        self.context.prompt = Some(String::from_utf8_lossy(&self.shown).into_owned());
        let found = self
            .index
            .lookup(&self.tapes, &self.context, &self.input, self.last)
            .filter(|(t, e)| {
                let exchange = &self.tapes[*t].exchanges[*e];
                submitted
                    || (exchange.input.kind == InputKind::Raw
                        && self.input.len() >= index::input_bytes(exchange).len())
            });
        match found {
            Some((tape, exchange)) => {
                self.played.push((prompt, std::mem::take(&mut self.input)));
                self.used.insert(tape);
                self.last = Some((tape, exchange));
                Step::Play { tape, exchange }
            }
            None if submitted => Step::Missed {
                input: std::mem::take(&mut self.input),
                prompt,
            },
            None => Step::Typing,
        }
    }

    /// What was typed since the last input played (taken).
    pub fn take_input(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.input)
    }

    /// The inputs played, each with the line on screen it answered.
    pub fn played(&self) -> &[(String, Vec<u8>)] {
        &self.played
    }

    /// The program's tapes used and not used, by path.
    pub fn used_and_unused(&self) -> (Vec<&str>, Vec<&str>) {
        let used = self.used.iter().map(|t| self.paths[*t].as_str()).collect();
        let unused = self
            .mine
            .iter()
            .filter(|t| !self.used.contains(*t))
            .map(|t| self.paths[*t].as_str())
            .collect();
        (used, unused)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use super::*;
    use switchboard_model::tape::codec::decode;

    fn tape() -> Tape {
        decode(
            "{meta: {program: 'calc', args: [], env: {}, cwd: '/w'}, exchanges: [\
             {pre: {prompt: '> '}, input: {type: 'line', dataText: '1+1\\n'}, \
              output: {chunks: [{delay_ms: 1, dataB64: 'Mg0KPiA=', isUtf8: true}]}}, \
             {pre: {prompt: '> '}, input: {type: 'raw', dataText: null, dataBytesB64: '/wo='}, \
              output: {chunks: []}}]}",
        )
        .unwrap()
    }

    fn replay() -> Replay {
        Replay::new(
            vec![("calc/t.json5".into(), tape())],
            Context {
                program: "calc".into(),
                cwd: "/w".into(),
                ..Context::default()
            },
        )
    }

    #[test]
    fn a_line_plays_when_ended_and_a_miss_says_what_was_looked_for() {
        let mut replay = replay();
        let (t, opening) = replay.opening().unwrap();
        assert_eq!(
            (t, opening[0].bytes()),
            (0, b"> ".to_vec()),
            "the first prompt"
        );
        replay.shown(b"> ");
        for byte in *b"1+1" {
            assert_eq!(replay.key(byte), Step::Typing);
        }
        assert_eq!(
            replay.key(b'\r'),
            Step::Play {
                tape: 0,
                exchange: 0
            }
        );
        replay.shown(b"2\r\n> ");
        for byte in *b"2+2" {
            replay.key(byte);
        }
        assert_eq!(
            replay.key(b'\r'),
            Step::Missed {
                input: b"2+2\r".to_vec(),
                prompt: "> ".into()
            }
        );
        assert_eq!(replay.used_and_unused(), (vec!["calc/t.json5"], vec![]));
    }

    #[test]
    fn a_raw_send_plays_once_all_its_bytes_are_typed() {
        let mut replay = replay();
        replay.shown(b"> ");
        assert_eq!(
            replay.key(0xff),
            Step::Typing,
            "its line feed is still to come"
        );
        assert_eq!(
            replay.key(b'\n'),
            Step::Play {
                tape: 0,
                exchange: 1
            }
        );
        assert!(replay.take_input().is_empty(), "nothing left behind");
    }
}
