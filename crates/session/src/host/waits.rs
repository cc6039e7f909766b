//! The host's waits, each over one session's change channel (never a poll):
//! expect (the first of several patterns after the expect cursor) and wait
//! (a prompt after the last input, quiet, the program's end).

use std::{sync::Arc, time::Duration};

use regex::bytes::{Regex, RegexBuilder};
use switchboard_model::program::prompt;
use tokio::time::Instant;

use super::hosted::{Core, HostedSession};
use crate::protocol::{ExpectOutcome, Pattern, WaitFor, WaitOutcome};

/// How long a program must be quiet after a line that only looks like a
/// prompt (none learnt yet) before it counts as one.
const GUESS_SETTLE: Duration = Duration::from_millis(60);

/// How much output a timeout shows.
const TAIL_BYTES: usize = 2_000;

/// A pattern made ready to search.
#[derive(Debug)]
pub enum Compiled {
    /// A regular expression or exact text, and the pattern as given.
    Search(Regex, String),
    /// The end of the output.
    Eof,
}

/// A terminal's lines end in CR LF: `^` and `$` match at each line's
/// start and end (before the CR), as people mean them.
fn regex(text: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(text).multi_line(true).crlf(true).build()
}

/// Compiles the patterns; the message names the one that is not valid.
pub fn compile(patterns: &[Pattern]) -> Result<Vec<Compiled>, String> {
    patterns
        .iter()
        .map(|pattern| match pattern {
            Pattern::Regex(text) => regex(text)
                .map(|compiled| Compiled::Search(compiled, text.clone()))
                .map_err(|error| format!("pattern {text:?} is not a regular expression: {error}")),
            Pattern::Exact(text) => regex(&regex::escape(text))
                .map(|compiled| Compiled::Search(compiled, text.clone()))
                .map_err(|error| format!("pattern {text:?}: {error}")),
            Pattern::Eof => Ok(Compiled::Eof),
        })
        .collect()
}

/// How far back each search reaches into output already searched without a
/// match, for a match that straddles two reads.
const OVERLAP: u64 = 16 * 1024;

/// Waits for the first pattern to match after the expect cursor, and
/// moves the cursor past the match. Each search covers what came since the
/// last (and [`OVERLAP`] before it), so a flood is searched once, not again
/// at every read.
pub async fn expect(
    session: Arc<HostedSession>,
    patterns: Vec<Compiled>,
    timeout: Duration,
) -> ExpectOutcome {
    let deadline = Instant::now() + timeout;
    let mut changes = session.subscribe();
    let mut scanned = None;
    loop {
        changes.borrow_and_update();
        if let Some(outcome) = try_expect(&mut session.core(), &patterns, &mut scanned) {
            return outcome;
        }
        match tokio::time::timeout_at(deadline, changes.changed()).await {
            Ok(Ok(())) => {}
            Ok(Err(_)) | Err(_) => {
                let core = session.core();
                if let Some(outcome) = try_expect_final(&core, &patterns) {
                    return outcome;
                }
                return ExpectOutcome::Timeout {
                    tail: core.buffer.tail(TAIL_BYTES),
                    cursor: core.expect_cursor,
                };
            }
        }
    }
}

fn try_expect_final(core: &Core, patterns: &[Compiled]) -> Option<ExpectOutcome> {
    // Nothing new can come: the outcome as it stands.
    (core.eof)
        .then(|| ExpectOutcome::Eof {
            before: String::from_utf8_lossy(&core.buffer.searchable(core.expect_cursor).text)
                .into_owned(),
            exit: core.info.exit,
        })
        .filter(|_| {
            !patterns
                .iter()
                .any(|pattern| matches!(pattern, Compiled::Eof))
        })
}

/// One search; `scanned` is where the last one that found nothing ended.
fn try_expect(
    core: &mut Core,
    patterns: &[Compiled],
    scanned: &mut Option<u64>,
) -> Option<ExpectOutcome> {
    let cursor = core.expect_cursor.max(core.buffer.start());
    // The window starts a byte early, so `^` and `\b` see what precedes it.
    let window = scanned
        .map(|end| end.saturating_sub(OVERLAP).max(cursor))
        .unwrap_or(cursor);
    let lead = u64::from(window > cursor);
    let haystack = core.buffer.searchable(window - lead);
    let skip = usize::from(window > cursor && !haystack.text.is_empty());
    let best = patterns
        .iter()
        .enumerate()
        .filter_map(|(index, pattern)| match pattern {
            Compiled::Search(regex, _) => regex
                .find_at(&haystack.text, skip)
                .map(|found| (found.start(), index, found.end())),
            Compiled::Eof => None,
        })
        .min();
    if let Some((start, index, end)) = best {
        // The window is the end of the text from the cursor: what came
        // before the match is the rest of that text.
        let text = core.buffer.searchable(cursor).text;
        let before_end = text.len() - (haystack.text.len() - start);
        let after = haystack.offset_after(end).unwrap_or(window);
        core.expect_cursor = after;
        *scanned = None;
        if let Compiled::Search(_, given) = &patterns[index] {
            core.matched(given);
        }
        return Some(ExpectOutcome::Matched {
            index,
            before: String::from_utf8_lossy(&text[..before_end]).into_owned(),
            matched: String::from_utf8_lossy(&haystack.text[start..end]).into_owned(),
            cursor: after,
        });
    }
    *scanned = Some(core.buffer.end());
    if !core.eof {
        return None;
    }
    let before = String::from_utf8_lossy(&core.buffer.searchable(cursor).text).into_owned();
    match patterns
        .iter()
        .position(|pattern| matches!(pattern, Compiled::Eof))
    {
        Some(index) => {
            core.expect_cursor = core.buffer.end();
            Some(ExpectOutcome::Matched {
                index,
                before,
                matched: String::new(),
                cursor: core.expect_cursor,
            })
        }
        None => Some(ExpectOutcome::Eof {
            before,
            exit: core.info.exit,
        }),
    }
}

/// Waits until output past `cursor` came, the output ended or `timeout`
/// passed (a reader following a session without polling).
pub async fn output_after(session: Arc<HostedSession>, cursor: u64, timeout: Duration) {
    let deadline = Instant::now() + timeout;
    let mut changes = session.subscribe();
    loop {
        changes.borrow_and_update();
        {
            let core = session.core();
            if core.buffer.end() > cursor || core.eof || core.ended() {
                return;
            }
        }
        match tokio::time::timeout_at(deadline, changes.changed()).await {
            Ok(Ok(())) => {}
            Ok(Err(_)) | Err(_) => return,
        }
    }
}

/// Waits for a prompt, quiet or the end.
pub async fn wait(session: Arc<HostedSession>, until: WaitFor, timeout: Duration) -> WaitOutcome {
    let deadline = Instant::now() + timeout;
    let mut changes = session.subscribe();
    loop {
        changes.borrow_and_update();
        let next_check = {
            let core = session.core();
            match check(&core, until) {
                Check::Done(outcome) => return outcome,
                Check::Changes => None,
                Check::At(at) => Some(at),
            }
        };
        let wake = next_check.map_or(deadline, |at| at.min(deadline));
        let changed = tokio::time::timeout_at(wake, changes.changed()).await;
        if Instant::now() >= deadline && !matches!(changed, Ok(Ok(()))) {
            let core = session.core();
            if let Check::Done(outcome) = check(&core, until) {
                return outcome;
            }
            return WaitOutcome::Timeout {
                tail: core.buffer.tail(TAIL_BYTES),
                cursor: core.buffer.end(),
            };
        }
        if let Ok(Err(_)) = changed {
            // The session is gone: nothing will change; wait out the time.
            tokio::time::sleep_until(deadline).await;
        }
    }
}

enum Check {
    Done(WaitOutcome),
    /// Wait for the next change.
    Changes,
    /// Check again at this time (or at a change).
    At(Instant),
}

/// What the program printed since the last input, echo left out (and the
/// line end its echo left).
fn since_input(core: &Core) -> String {
    let text = core.buffer.searchable(core.last_input_at).text;
    let text = String::from_utf8_lossy(&text);
    text.strip_prefix("\r\n").unwrap_or(&text).to_owned()
}

/// How long an ended program's last output is waited for.
const DRAIN_AFTER_END: Duration = Duration::from_millis(500);

fn check(core: &Core, until: WaitFor) -> Check {
    let ends_wait = matches!(until, WaitFor::Exit | WaitFor::Prompt | WaitFor::Answer(_));
    if until == WaitFor::Exit || (core.ended() && ends_wait) {
        // Its last output is read (and its log closed with its exit) at
        // the end of its terminal, which follows the program's end: an
        // exit waits for it, a moment at most (a process the program left
        // behind may hold the terminal open).
        if let Some(ended) = core.ended_at
            && !core.eof
            && ended.elapsed() < DRAIN_AFTER_END
        {
            return Check::At(Instant::from_std(ended + DRAIN_AFTER_END));
        }
        return match (core.ended(), core.info.exit) {
            (true, exit) => Check::Done(WaitOutcome::Exit {
                exit: exit.unwrap_or(switchboard_model::program::ExitStatus {
                    code: None,
                    signal: None,
                }),
                output: since_input(core),
            }),
            (false, _) => Check::Changes,
        };
    }
    match until {
        WaitFor::Answer(quiet_ms) => {
            let text = since_input(core);
            let line = prompt::last_line(&text);
            let learnt = !line.trim().is_empty()
                && core
                    .prompts
                    .seen
                    .iter()
                    .any(|known| known == line.trim_end());
            // Quiet since the input too: an answer not begun is not quiet.
            let quiet_at = Instant::from_std(core.last_activity) + Duration::from_millis(quiet_ms);
            let settled = Instant::from_std(core.last_output) + GUESS_SETTLE;
            let now = Instant::now();
            // A line that looks like a prompt counts once it settled, or
            // once the quiet asked for passed (the program is done).
            let at_prompt = !text.is_empty()
                && (learnt || (prompt::looks_like_prompt(&line) && now >= settled.min(quiet_at)));
            if at_prompt {
                let output = text.rfind(['\n', '\r']).map_or("", |at| &text[..=at]);
                return Check::Done(WaitOutcome::Prompt {
                    prompt: line.trim_end().to_owned(),
                    output: output.to_owned(),
                    cursor: core.buffer.end(),
                    wants_secret: core.info.wants_secret,
                });
            }
            if now >= quiet_at {
                let answered = core.last_output.saturating_duration_since(core.last_input);
                return Check::Done(WaitOutcome::Quiet {
                    cursor: core.buffer.end(),
                    output: text,
                    answered_us: u64::try_from(answered.as_micros()).unwrap_or(u64::MAX),
                });
            }
            if prompt::looks_like_prompt(&line) {
                Check::At(settled.min(quiet_at))
            } else {
                Check::At(quiet_at)
            }
        }
        WaitFor::Prompt => {
            // The line at the cursor first (cheap), the whole output since
            // the input only at a prompt.
            let tail = core.buffer.tail(prompt::MAX_PROMPT_LEN * 4);
            if !core.prompts.at_prompt(&prompt::last_line(&tail)) {
                return Check::Changes;
            }
            let text = core.buffer.searchable(core.last_input_at).text;
            let text = String::from_utf8_lossy(&text);
            let line = prompt::last_line(&text);
            if !text.is_empty() && core.prompts.at_prompt(&line) {
                // A guessed prompt may be half drawn (`>` of `>>> `): it
                // counts once the program has been quiet a moment.
                if core.prompts.seen.is_empty() {
                    let settled = Instant::from_std(core.last_output) + GUESS_SETTLE;
                    if Instant::now() < settled {
                        return Check::At(settled);
                    }
                }
                // (Without the line end the echo of the input left.)
                let output = text.rfind(['\n', '\r']).map_or("", |at| &text[..=at]);
                let output = output.strip_prefix("\r\n").unwrap_or(output).to_owned();
                Check::Done(WaitOutcome::Prompt {
                    prompt: line.trim_end().to_owned(),
                    output,
                    cursor: core.buffer.end(),
                    wants_secret: core.info.wants_secret,
                })
            } else {
                Check::Changes
            }
        }
        WaitFor::Quiet(ms) => {
            let quiet_at = Instant::from_std(core.last_output) + Duration::from_millis(ms);
            if Instant::now() >= quiet_at {
                let answered = core.last_output.saturating_duration_since(core.last_input);
                Check::Done(WaitOutcome::Quiet {
                    cursor: core.buffer.end(),
                    output: since_input(core),
                    answered_us: u64::try_from(answered.as_micros()).unwrap_or(u64::MAX),
                })
            } else {
                Check::At(quiet_at)
            }
        }
        WaitFor::Exit => Check::Changes,
    }
}
