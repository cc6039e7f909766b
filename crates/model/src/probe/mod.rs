//! Finding out what an unknown interactive program is and whether it
//! behaves: ClaudeControl's investigation reports, black-box test reports,
//! fuzz findings and command chains, in its file shapes, and the pure
//! rules the drivers over program sessions apply — what counts as help,
//! which commands a help text lists, which of them read destructive, what
//! formats and errors output shows, the fuzz inputs a seed gives, and
//! which step of a chain runs.

pub mod chain;
pub mod fuzz;
#[cfg(feature = "patterns")]
pub mod reading;
pub mod report;
pub mod safety;
pub mod testing;
pub mod view;

pub use report::{CommandInfo, Interaction, InvestigationReport, Probe, ProgramState};

/// The longest text kept of one output in a report (ClaudeControl's
/// 500 characters).
pub const SAMPLE_CHARS: usize = 500;

/// At most [`SAMPLE_CHARS`] characters of `text`.
pub fn sample(text: &str) -> String {
    text.chars().take(SAMPLE_CHARS).collect()
}

/// The part of a report's file name taken from the program (the path
/// that is run, not the command line): its last path
/// component, with every character outside `A-Z a-z 0-9 . _ -` made `_`,
/// at most 64 characters, never empty nor starting with `.` — so any
/// program, `/usr/bin/python3` or `./my tool`, names a file that can be
/// written (ClaudeControl puts the raw string in, and fails on a `/`).
pub fn file_stem(program: &str) -> String {
    let base = program
        .trim()
        .rsplit('/')
        .find(|part| !part.is_empty())
        .unwrap_or_default();
    let base = if base.is_empty() {
        program.trim()
    } else {
        base
    };
    let mut stem: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    while stem.starts_with('.') {
        stem.remove(0);
    }
    if stem.is_empty() {
        stem.push_str("program");
    }
    stem
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn file_stems_are_always_file_names() {
        assert_eq!(file_stem("python3"), "python3");
        assert_eq!(file_stem("/usr/bin/python3"), "python3");
        assert_eq!(file_stem("./my tool/bin/app"), "app");
        assert_eq!(file_stem("/tmp/dir with space/my app"), "my_app");
        assert_eq!(file_stem("../.."), "program");
        assert_eq!(file_stem(""), "program");
        assert_eq!(file_stem("a$b\\c"), "a_b_c");
        assert_eq!(file_stem(&"x".repeat(300)).len(), 64);
    }
}
