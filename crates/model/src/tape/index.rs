//! Finding the recorded exchange for an input, as ClaudeControl keys it:
//! program and arguments, folder, the prompt with ANSI escapes stripped,
//! and the input without its trailing CR/LF — exactly first, then through
//! its normalised fallback (ANSI, timestamps, `0x…` values, 7–40-character
//! hex ids, runs of whitespace) — kept as a second hash table of normalised
//! keys, so a miss is one more lookup, not a scan of candidates. Unlike ClaudeControl, the environment is
//! compared only for the variables a tape recorded, against their current
//! values, so a tape still plays in a shell with another `PATH`.

use std::{
    collections::{BTreeMap, HashMap},
    sync::OnceLock,
};

use regex::Regex;

use super::{Exchange, Tape};

/// Where an exchange is: tape, then exchange, by position.
pub type Place = (usize, usize);

/// ANSI escape sequences (CSI).
fn ansi() -> &'static Regex {
    static ANSI: OnceLock<Regex> = OnceLock::new();
    ANSI.get_or_init(|| {
        Regex::new(r"\x1b\[[0-?]*[ -/]*[@-~]").unwrap_or_else(|_| unreachable!("fixed pattern"))
    })
}

/// `text` without ANSI escape sequences.
pub fn strip_ansi(text: &str) -> String {
    if text.contains('\x1b') {
        ansi().replace_all(text, "").into_owned()
    } else {
        text.to_owned()
    }
}

/// ClaudeControl's three volatile patterns (timestamps, `0x…` values,
/// 7–40-character hex ids) as one alternation in its order, so a text is
/// scanned once: at each place the first that matches wins, as its
/// pattern-after-pattern replacement would have it. ASCII word boundaries
/// and digits (`(?-u:…)`): the same as Python's for the ASCII text these
/// values are made of, and matchable by a DFA.
fn volatile() -> &'static Regex {
    static VOLATILE: OnceLock<Regex> = OnceLock::new();
    VOLATILE.get_or_init(|| {
        Regex::new(concat!(
            r"(?-u:\b(?:\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:\.\d+)?",
            r"|0x[0-9a-fA-F]+|[0-9a-f]{7,40})\b)"
        ))
        .unwrap_or_else(|_| unreachable!("a fixed pattern"))
    })
}

/// `text` as the fallback compares it: ANSI stripped, volatile values
/// replaced by placeholders, whitespace collapsed.
pub fn normalise(text: &str) -> String {
    let stripped = strip_ansi(text);
    // Which alternative matched shows in the text itself (only a timestamp
    // holds `-`, only a `0x…` value an `x`), so a plain find is enough:
    // no capture groups to resolve.
    let mut scrubbed = String::with_capacity(stripped.len());
    let mut last = 0;
    for found in volatile().find_iter(&stripped) {
        scrubbed.push_str(&stripped[last..found.start()]);
        let value = found.as_str();
        scrubbed.push_str(if value.contains('-') {
            "<TS>"
        } else if value.starts_with("0x") {
            "<HEX>"
        } else {
            "<ID>"
        });
        last = found.end();
    }
    scrubbed.push_str(&stripped[last..]);
    let mut out = String::with_capacity(scrubbed.len());
    for word in scrubbed.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Compiles the patterns now (they are compiled on first use otherwise),
/// so a measurement or the first lookup does not pay for it.
pub fn warm_up() {
    let _ = (ansi(), volatile());
}

/// An input's bytes, decoded from the tape.
pub fn input_bytes(exchange: &Exchange) -> Vec<u8> {
    use base64::Engine as _;
    match (&exchange.input.data_b64, &exchange.input.data_text) {
        (Some(encoded), _) => base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .unwrap_or_default(),
        (None, Some(text)) => text.as_bytes().to_vec(),
        (None, None) => Vec::new(),
    }
}

/// `bytes` without the line ends (`\r`, `\n`) at its end.
pub(crate) fn trim_line_end(bytes: &[u8]) -> &[u8] {
    let end = bytes
        .iter()
        .rposition(|byte| !matches!(byte, b'\r' | b'\n'))
        .map_or(0, |last| last + 1);
    &bytes[..end]
}

/// What the player knows when an input arrives.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Context {
    /// The program asked for.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// The folder it runs in.
    pub cwd: String,
    /// The environment now.
    pub env: BTreeMap<String, String>,
    /// The prompt on screen, if any.
    pub prompt: Option<String>,
}

/// A tape's command and folder, shared by its exchanges' keys.
type Scope = usize;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Exact {
    scope: Scope,
    input: Vec<u8>,
}

/// The fallback's key: the bucket ClaudeControl scans (program, folder)
/// with the command and input already normalised, so a miss costs one
/// more hash lookup instead of a scan of the bucket.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Fallback {
    scope: Scope,
    input: String,
}

/// Two exchanges of different tapes with the same key (prompt, input and
/// environment): the first wins unless the second's tape is the one
/// being played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    /// The exchange used.
    pub kept: Place,
    /// The exchange it hides.
    pub hidden: Place,
}

/// The lookup tables over a set of tapes: exchanges by command, folder
/// and input; the prompt each was recorded at is then compared with what
/// is on screen ([`prompt_fits`]).
#[derive(Debug, Default)]
pub struct TapeIndex {
    /// (program and arguments, folder) → scope of the exact keys.
    scopes: HashMap<(Vec<String>, String), Scope>,
    /// (program, folder, normalised program and arguments) → scope of the
    /// fallback's keys.
    loose_scopes: HashMap<(String, String, Vec<String>), Scope>,
    exact: HashMap<Exact, Vec<Place>>,
    fallback: HashMap<Fallback, Vec<Place>>,
    /// Exchanges hidden by an earlier tape's with the same key.
    pub duplicates: Vec<Duplicate>,
}

fn prompt_of(exchange: &Exchange) -> String {
    strip_ansi(exchange.pre.prompt.as_deref().unwrap_or(""))
}

fn command_of(program: &str, args: &[String]) -> Vec<String> {
    let mut command = Vec::with_capacity(args.len() + 1);
    command.push(program.to_owned());
    command.extend(args.iter().cloned());
    command
}

/// How well a recorded prompt fits the screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fit {
    /// It does not: another place in the program.
    No,
    /// No prompt was recorded (a tape's first send, before any expect):
    /// anywhere will do.
    Unknown,
    /// The screen ends with it, as the recorder's expect matched it.
    Suffix,
    /// The line on screen is the prompt itself.
    Whole,
}

/// Whether `recorded` (an exchange's `pre.prompt`: for ClaudeControl the
/// text its caller's expect matched, for `switchboard rec` the line on
/// screen) fits `shown`, the end of what the program showed, as its
/// recorder meant it. ANSI escapes, carriage returns and trailing
/// whitespace aside: a prompt that ends a line (`"\r\n"`, `"1\r\n"`)
/// fits when the screen is at the start of a line just after it; any
/// other fits when the screen ends with it.
pub fn prompt_fits(recorded: &str, shown: &str) -> Fit {
    let clean = |text: &str| strip_ansi(text).replace('\r', "");
    let recorded = clean(recorded);
    if recorded.is_empty() {
        return Fit::Unknown;
    }
    let shown = clean(shown);
    let line_start = shown.rfind('\n').map_or(0, |newline| newline + 1);
    let (before, line) = shown.split_at(line_start);
    let ends_line = recorded.trim_end_matches([' ', '\t']).ends_with('\n');
    if ends_line {
        if !line.trim().is_empty() {
            return Fit::No;
        }
        let wanted = recorded.trim_end();
        let had = before.trim_end();
        return if wanted.is_empty() {
            // A bare line ending: any start of a line, the first included.
            Fit::Suffix
        } else if let Some(rest) = had.strip_suffix(wanted) {
            if rest.is_empty() || rest.ends_with('\n') {
                Fit::Whole
            } else {
                Fit::Suffix
            }
        } else {
            Fit::No
        };
    }
    let wanted = recorded.trim_end();
    let had = shown.trim_end();
    if wanted.is_empty() {
        // Whitespace only: fits a blank line.
        return if line.trim().is_empty() {
            Fit::Suffix
        } else {
            Fit::No
        };
    }
    if line.trim_end() == wanted {
        Fit::Whole
    } else if had.ends_with(wanted) {
        Fit::Suffix
    } else {
        Fit::No
    }
}

impl TapeIndex {
    /// Indexes every exchange of `tapes`, in order.
    pub fn build(tapes: &[Tape]) -> Self {
        let mut index = Self::default();
        for (t, tape) in tapes.iter().enumerate() {
            let command = command_of(&tape.meta.program, &tape.meta.args);
            let loose = (
                tape.meta.program.clone(),
                tape.meta.cwd.clone(),
                command.iter().map(|part| normalise(part)).collect(),
            );
            let next = index.scopes.len();
            let scope = *index
                .scopes
                .entry((command, tape.meta.cwd.clone()))
                .or_insert(next);
            let next = index.loose_scopes.len();
            let loose_scope = *index.loose_scopes.entry(loose).or_insert(next);
            for (e, exchange) in tape.exchanges.iter().enumerate() {
                let input = input_bytes(exchange);
                let input = trim_line_end(&input);
                let loose_input = normalise(&String::from_utf8_lossy(input));
                let places = index
                    .exact
                    .entry(Exact {
                        scope,
                        input: input.to_vec(),
                    })
                    .or_default();
                let prompt = prompt_of(exchange);
                // Each exchange is met once, so it is reported at most once.
                if let Some(&kept) = places.iter().find(|(other, o)| {
                    *other != t
                        && tapes[*other].meta.env == tape.meta.env
                        && prompt_of(&tapes[*other].exchanges[*o]) == prompt
                }) {
                    index.duplicates.push(Duplicate {
                        kept,
                        hidden: (t, e),
                    });
                }
                places.push((t, e));
                index
                    .fallback
                    .entry(Fallback {
                        scope: loose_scope,
                        input: loose_input,
                    })
                    .or_default()
                    .push((t, e));
            }
        }
        index
    }

    /// The exchange recorded for `input` in `context` (its `prompt` the
    /// end of what is on screen), after `last` (the exchange played
    /// before, if any): an exact match first, then the normalised
    /// fallback. Among the exchanges whose prompt fits, the next one of
    /// `last`'s tape wins (a session played in its order: the same input
    /// twice gets each its own answer), then the best fit, then the
    /// first.
    pub fn lookup(
        &self,
        tapes: &[Tape],
        context: &Context,
        input: &[u8],
        last: Option<Place>,
    ) -> Option<Place> {
        let command = command_of(&context.program, &context.args);
        let input = trim_line_end(input);
        let exact = self
            .scopes
            .get(&(command.clone(), context.cwd.clone()))
            .and_then(|&scope| {
                self.exact.get(&Exact {
                    scope,
                    input: input.to_vec(),
                })
            });
        if let Some(found) = exact.and_then(|places| best(tapes, context, places, last)) {
            return Some(found);
        }
        let loose = (
            context.program.clone(),
            context.cwd.clone(),
            command.iter().map(|part| normalise(part)).collect(),
        );
        let scope = *self.loose_scopes.get(&loose)?;
        let places = self.fallback.get(&Fallback {
            scope,
            input: normalise(&String::from_utf8_lossy(input)),
        })?;
        best(tapes, context, places, last)
    }
}

/// The place among `places` (in tape order) to play in `context`.
fn best(tapes: &[Tape], context: &Context, places: &[Place], last: Option<Place>) -> Option<Place> {
    let shown = context.prompt.as_deref().unwrap_or("");
    let fitting = places.iter().copied().filter_map(|(t, e)| {
        let tape = &tapes[t];
        let env_fits = tape
            .meta
            .env
            .iter()
            .all(|(name, value)| context.env.get(name) == Some(value));
        let recorded = tape.exchanges[e].pre.prompt.as_deref().unwrap_or("");
        let fit = prompt_fits(recorded, shown);
        (env_fits && fit != Fit::No).then_some(((t, e), fit))
    });
    let mut chosen: Option<(Place, Fit)> = None;
    for (place, fit) in fitting {
        let next = last.is_some_and(|(t, e)| place.0 == t && place.1 > e);
        if next {
            // Places are in order: the first after `last` is the next one.
            return Some(place);
        }
        if chosen.is_none_or(|(_, best)| fit > best) {
            chosen = Some((place, fit));
        }
    }
    chosen.map(|(place, _)| place)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use super::*;
    use crate::tape::codec::decode;

    fn tape(env: &str, exchanges: &str) -> Tape {
        decode(&format!(
            "{{meta: {{program: 'db', args: ['--local'], env: {env}, cwd: '/w'}}, exchanges: [{exchanges}]}}"
        ))
        .unwrap()
    }

    fn line(prompt: &str, text: &str) -> String {
        format!("{{pre: {{prompt: '{prompt}'}}, input: {{type: 'line', dataText: '{text}'}}}}")
    }

    fn context(prompt: &str) -> Context {
        Context {
            program: "db".into(),
            args: vec!["--local".into()],
            cwd: "/w".into(),
            env: BTreeMap::from([
                ("LANG".into(), "C".into()),
                ("PATH".into(), "/other".into()),
            ]),
            prompt: Some(prompt.into()),
        }
    }

    #[test]
    fn exact_keys_ignore_ansi_in_prompts_and_line_ends() {
        let tapes = vec![tape(
            "{LANG: 'C'}",
            &[
                line("\\u001b[32mdb>\\u001b[0m ", "select 1\\n"),
                line("db> ", "quit\\r\\n"),
            ]
            .join(","),
        )];
        let index = TapeIndex::build(&tapes);
        assert_eq!(
            index.lookup(&tapes, &context("db> "), b"select 1\r\n", None),
            Some((0, 0))
        );
        assert_eq!(
            index.lookup(&tapes, &context("db> "), b"quit", None),
            Some((0, 1))
        );
        assert_eq!(
            index.lookup(&tapes, &context("> "), b"quit", None),
            None,
            "another prompt"
        );
    }

    #[test]
    fn only_the_recorded_variables_count() {
        let tapes = vec![tape("{LANG: 'C'}", &line("db> ", "select 1\\n"))];
        let index = TapeIndex::build(&tapes);
        assert!(
            index
                .lookup(&tapes, &context("db> "), b"select 1", None)
                .is_some(),
            "another PATH plays"
        );
        let mut french = context("db> ");
        french.env.insert("LANG".into(), "fr_FR".into());
        assert_eq!(index.lookup(&tapes, &french, b"select 1", None), None);
    }

    #[test]
    fn the_fallback_forgets_volatile_values() {
        let tapes = vec![tape(
            "{}",
            &line(
                "db> ",
                "show 2025-09-20T10:00:00 at 0xdeadbeef for 3f2a9c1d  now",
            ),
        )];
        let index = TapeIndex::build(&tapes);
        let later = b"show 2026-11-22 08:30:00 at 0x1234 for 9abc0de1 now";
        assert_eq!(
            index.lookup(&tapes, &context("db> "), later, None),
            Some((0, 0))
        );
        assert_eq!(
            index.lookup(&tapes, &context("db> "), b"show tables", None),
            None
        );
    }

    #[test]
    fn duplicates_are_reported_and_the_first_wins() {
        let tapes = vec![
            tape("{}", &line("db> ", "select 1\\n")),
            tape("{}", &line("db> ", "select 1\\n")),
            tape("{LANG: 'C'}", &line("db> ", "select 1\\n")),
        ];
        let index = TapeIndex::build(&tapes);
        assert_eq!(
            index.duplicates,
            [Duplicate {
                kept: (0, 0),
                hidden: (1, 0)
            }]
        );
        assert_eq!(
            index.lookup(&tapes, &context("db> "), b"select 1", None),
            Some((0, 0))
        );
    }

    #[test]
    fn prompts_fit_as_their_recorder_meant_them() {
        // ClaudeControl keeps what its caller's expect matched.
        assert_eq!(prompt_fits("sqlite> ", "\x1b[?2004hsqlite> "), Fit::Whole);
        assert_eq!(prompt_fits(">>> ", "2\r\n>>> "), Fit::Whole);
        assert_eq!(prompt_fits("> ", "2\r\n>>> "), Fit::Suffix);
        assert_eq!(prompt_fits(">>> ", "2\r\n... "), Fit::No);
        // A line ending: at the start of a line, escapes aside.
        assert_eq!(prompt_fits("\r\n", "\r\r\n2\r\n\x1b[?2004h"), Fit::Suffix);
        assert_eq!(prompt_fits("\r\n", "2\r\nabc"), Fit::No);
        assert_eq!(prompt_fits("\r\n", ""), Fit::Suffix, "the first line");
        assert_eq!(prompt_fits("1\r\n", "\r\r\n1\r\n\x1b[?2004h"), Fit::Whole);
        assert_eq!(prompt_fits("1\r\n", "\r\n21\r\n"), Fit::Suffix);
        assert_eq!(prompt_fits("1\r\n", "\r\n2\r\n"), Fit::No);
        // Trailing whitespace aside; nothing recorded fits anything.
        assert_eq!(prompt_fits("db>  ", "db>"), Fit::Whole);
        assert_eq!(prompt_fits("", "anything"), Fit::Unknown);
    }

    #[test]
    fn the_same_input_twice_plays_in_tape_order() {
        let tapes = vec![tape(
            "{}",
            &[
                line("db> ", "count\\n"),
                line("db> ", "insert\\n"),
                line("db> ", "count\\n"),
            ]
            .join(","),
        )];
        let index = TapeIndex::build(&tapes);
        assert!(index.duplicates.is_empty(), "a session may repeat itself");
        let at = context("db> ");
        assert_eq!(index.lookup(&tapes, &at, b"count", None), Some((0, 0)));
        assert_eq!(
            index.lookup(&tapes, &at, b"count", Some((0, 1))),
            Some((0, 2))
        );
        assert_eq!(
            index.lookup(&tapes, &at, b"count", Some((0, 2))),
            Some((0, 0)),
            "past the last one: the first again"
        );
    }
}
