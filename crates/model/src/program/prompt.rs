//! Prompts: what a program shows when it waits for input. A session learns
//! its program's prompts from the line on screen each time input is sent,
//! and knows it is at a prompt when the output ends in one of them.

use serde::{Deserialize, Serialize};

/// The longest line taken for a prompt.
pub const MAX_PROMPT_LEN: usize = 120;
/// How many distinct prompts a session remembers.
pub const MAX_PROMPTS: usize = 16;

/// The characters prompts end with (ClaudeControl's pattern library).
const ENDINGS: [char; 13] = [
    '>', '#', '$', ':', ']', ')', '»', '→', '➜', '▶', '❯', '%', '?',
];

/// The last line of `text` as a person sees it at the cursor: after the
/// last line feed or carriage return, without ANSI escape sequences.
pub fn last_line(text: &str) -> String {
    let line = text.rsplit(['\n', '\r']).next().unwrap_or_default();
    strip_escapes(line)
}

/// `text` without escape sequences (CSI, OSC and two-byte ones) and
/// without other control characters.
pub fn strip_escapes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            if !c.is_control() || c == '\t' {
                out.push(c);
            }
            continue;
        }
        match chars.next() {
            Some('[') => {
                // Parameters and intermediates, then one final byte.
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                // Until BEL or ST (ESC \).
                while let Some(c) = chars.next() {
                    if c == '\x07' {
                        break;
                    }
                    if c == '\x1b' {
                        chars.next_if_eq(&'\\');
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether a line looks like a prompt when none has been learnt: short,
/// not blank, ending (trailing spaces aside) in a prompt character.
pub fn looks_like_prompt(line: &str) -> bool {
    let trimmed = line.trim_end();
    !trimmed.is_empty() && trimmed.chars().count() <= MAX_PROMPT_LEN && trimmed.ends_with(ENDINGS)
}

/// The prompts a session has seen its program show before input.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prompts {
    /// Distinct prompts, trailing whitespace trimmed, oldest first.
    pub seen: Vec<String>,
}

impl Prompts {
    /// Notes the line that was on screen when input was sent (nothing when
    /// it is blank or too long to be a prompt).
    pub fn learn(&mut self, line: &str) {
        let trimmed = line.trim_end();
        if trimmed.trim_start().is_empty() || trimmed.chars().count() > MAX_PROMPT_LEN {
            return;
        }
        if let Some(at) = self.seen.iter().position(|known| known == trimmed) {
            let known = self.seen.remove(at);
            self.seen.push(known);
            return;
        }
        if self.seen.len() == MAX_PROMPTS {
            self.seen.remove(0);
        }
        self.seen.push(trimmed.to_owned());
    }

    /// Whether the line at the cursor is a prompt: one learnt, or, before
    /// any was learnt, one that looks like a prompt.
    pub fn at_prompt(&self, line: &str) -> bool {
        let trimmed = line.trim_end();
        if self.seen.is_empty() {
            looks_like_prompt(trimmed)
        } else {
            !trimmed.is_empty() && self.seen.iter().any(|known| known == trimmed)
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn the_last_line_is_what_the_cursor_sits_after() {
        assert_eq!(last_line("banner\r\n>>> "), ">>> ");
        assert_eq!(last_line("x\r\n\x1b[1;32mdb=#\x1b[0m "), "db=# ");
        assert_eq!(last_line("\x1b]0;title\x07$ "), "$ ");
        assert_eq!(last_line("done\r\n"), "");
    }

    #[test]
    fn learnt_prompts_win_over_the_guess() {
        let mut prompts = Prompts::default();
        assert!(prompts.at_prompt(">>> "));
        assert!(!prompts.at_prompt("loading"));
        prompts.learn("calc ");
        prompts.learn("   ");
        assert_eq!(prompts.seen, ["calc"]);
        assert!(prompts.at_prompt("calc "));
        assert!(!prompts.at_prompt(">>> "));
        for n in 0..MAX_PROMPTS + 3 {
            prompts.learn(&format!("p{n}>"));
        }
        assert_eq!(prompts.seen.len(), MAX_PROMPTS);
        assert!(!prompts.at_prompt("calc"));
    }
}
