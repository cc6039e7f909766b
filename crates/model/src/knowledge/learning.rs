//! Learnings: markdown files, one per category, in `.naide/learnings/` (and
//! `.prompts/learnings/`, where newer Naide keeps them). Entries are the
//! `## ` sections, headed `## Title (YYYY-MM-DD)` or `## [ISO timestamp]
//! Title`; a file without such headings is one entry. Odd headings are
//! kept as entries and reported, never dropped.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::Timestamp;

/// Where learnings live, relative to the workspace, oldest layout first.
pub const LEARNING_DIRS: [&str; 2] = [".naide/learnings", ".prompts/learnings"];

/// One learning.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LearningEntry {
    /// The heading's title (the file's category when it has none).
    pub title: String,
    /// The heading's date or time, when it has one that parses.
    pub date: Option<Timestamp>,
    /// The text under the heading, trimmed.
    pub body: String,
    /// The 1-based line the entry starts on, to jump to it.
    pub line: usize,
}

/// A learnings file, parsed.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct LearningFile {
    /// The category: the file name without `.md`.
    pub category: String,
    /// Its entries, in file order.
    pub entries: Vec<LearningEntry>,
    /// What looked wrong, with the line, in words; the entries are kept.
    pub problems: Vec<String>,
}

/// A learning to append: the CLI's, MCP's, the window's and the model's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewLearning {
    /// The category (names the file).
    pub category: String,
    /// The entry's heading.
    pub title: String,
    /// The entry's text.
    pub body: String,
}

/// Why a learning is refused; nothing is written.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LearningError {
    /// The title is blank.
    #[error("a learning needs a title")]
    NoTitle,
    /// The body is blank.
    #[error("a learning needs a body")]
    NoBody,
}

impl NewLearning {
    /// Whether it can be appended (see [`check_entry`]).
    pub fn check(&self) -> Result<(), LearningError> {
        check_entry(&self.title, &self.body)
    }
}

/// Whether an entry can be appended: a title and a body that are not
/// blank.
pub fn check_entry(title: &str, body: &str) -> Result<(), LearningError> {
    if title.trim().is_empty() {
        Err(LearningError::NoTitle)
    } else if body.trim().is_empty() {
        Err(LearningError::NoBody)
    } else {
        Ok(())
    }
}

/// One learnings file as read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LearningsFile {
    /// Workspace-relative path.
    pub path: String,
    /// Its entries and problems.
    pub file: LearningFile,
}

/// Where an appended entry landed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Appended {
    /// Workspace-relative path.
    pub path: String,
    /// The entry's 1-based line.
    pub line: usize,
}

/// Whether `line` opens or closes a fenced code block.
fn is_fence(line: &str) -> bool {
    let trimmed = line.trim_start();
    trimmed.starts_with("```") || trimmed.starts_with("~~~")
}

/// Reads a `## ` heading into its title and date; a problem when a date
/// is there but does not parse.
fn read_heading(text: &str, line: usize) -> (String, Option<Timestamp>, Option<String>) {
    let text = text.trim();
    if let Some(rest) = text.strip_prefix('[')
        && let Some((stamp, title)) = rest.split_once(']')
    {
        let title = title.trim().trim_start_matches(['-', '–', ':']).trim();
        return match Timestamp::parse_lenient(stamp) {
            Some(date) => {
                let title = if title.is_empty() {
                    stamp.trim()
                } else {
                    title
                };
                (title.to_owned(), Some(date), None)
            }
            None => (
                text.to_owned(),
                None,
                Some(format!("line {line}: [{stamp}] is not a timestamp")),
            ),
        };
    }
    if let Some(open) = text.rfind(" (")
        && text.ends_with(')')
    {
        let inner = &text[open + 2..text.len() - 1];
        let looks_like_date = inner.len() >= 8
            && inner.chars().take(4).all(|c| c.is_ascii_digit())
            && inner.as_bytes().get(4) == Some(&b'-');
        if looks_like_date {
            return match Timestamp::parse_lenient(inner) {
                Some(date) => (text[..open].trim().to_owned(), Some(date), None),
                None => (
                    text.to_owned(),
                    None,
                    Some(format!("line {line}: ({inner}) is not a date")),
                ),
            };
        }
    }
    (text.to_owned(), None, None)
}

/// Parses the learnings file of `category` from its `text`.
pub fn parse(category: &str, text: &str) -> LearningFile {
    let mut file = LearningFile {
        category: category.to_owned(),
        ..LearningFile::default()
    };
    let mut file_title = None;
    let mut preamble = String::new();
    let mut current: Option<LearningEntry> = None;
    let mut in_fence = false;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if is_fence(line) {
            in_fence = !in_fence;
        }
        let heading = if in_fence {
            None
        } else {
            line.strip_prefix("## ")
        };
        if let Some(heading) = heading {
            if let Some(done) = current.take() {
                file.entries.push(done);
            }
            let (title, date, problem) = read_heading(heading, number);
            file.problems.extend(problem);
            current = Some(LearningEntry {
                title,
                date,
                body: String::new(),
                line: number,
            });
            continue;
        }
        match &mut current {
            Some(entry) => {
                entry.body.push_str(line);
                entry.body.push('\n');
            }
            None => {
                if file_title.is_none()
                    && preamble.trim().is_empty()
                    && let Some(title) = line.strip_prefix("# ")
                {
                    file_title = Some(title.trim().to_owned());
                } else {
                    preamble.push_str(line);
                    preamble.push('\n');
                }
            }
        }
    }
    if let Some(done) = current.take() {
        file.entries.push(done);
    }
    let preamble = preamble.trim();
    let title = file_title.unwrap_or_else(|| category.to_owned());
    if file.entries.is_empty() {
        if !preamble.is_empty() || title != category {
            file.entries.push(LearningEntry {
                title,
                date: None,
                body: preamble.to_owned(),
                line: 1,
            });
        }
    } else if !preamble.is_empty() {
        file.problems
            .push("text before the first `## ` heading is kept as its own entry".to_owned());
        file.entries.insert(
            0,
            LearningEntry {
                title,
                date: None,
                body: preamble.to_owned(),
                line: 1,
            },
        );
    }
    for entry in &mut file.entries {
        entry.body = entry.body.trim().to_owned();
        if entry.body.is_empty() {
            file.problems.push(format!(
                "line {}: \"{}\" has no text",
                entry.line, entry.title
            ));
        }
    }
    file
}

/// A category as a file name: lower case, letters, digits and dashes
/// (`Build & Tooling` → `build-tooling`); `general` when nothing is left.
pub fn category_file_stem(category: &str) -> String {
    let mut stem = String::new();
    for c in category.trim().to_lowercase().chars() {
        if c.is_alphanumeric() {
            stem.push(c);
        } else if !stem.ends_with('-') {
            stem.push('-');
        }
    }
    let stem = stem.trim_matches('-');
    if stem.is_empty() {
        "general".to_owned()
    } else {
        stem.to_owned()
    }
}

/// `existing` with an entry `## {title} ({date})` appended in Naide's
/// format, separated by one blank line.
pub fn append_entry(existing: &str, title: &str, date: Timestamp, body: &str) -> String {
    let separator = if existing.is_empty() || existing.ends_with("\n\n") {
        ""
    } else if existing.ends_with('\n') {
        "\n"
    } else {
        "\n\n"
    };
    format!("{existing}{separator}{}", entry_text(title, date, body))
}

/// One entry as written: heading, blank line, body.
pub fn entry_text(title: &str, date: Timestamp, body: &str) -> String {
    let title = title.trim().replace('\n', " ");
    format!("## {title} ({})\n\n{}\n", date.date(), body.trim())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    const NAIDE: &str = "# Build and tooling\n\n## Trunk needs the wasm target (2026-01-12)\n\n**What happened:** `trunk build` failed.\n**What to do next time:** `rustup target add wasm32-unknown-unknown`.\n\n## [2026-02-03T10:15:00Z] Cache the registry\n\nCI is 4 minutes faster.\n\n```md\n## not a heading inside a fence\n```\n";

    #[test]
    fn both_heading_forms_parse_with_dates_and_lines() {
        let file = parse("build-and-tooling", NAIDE);
        assert!(file.problems.is_empty(), "{:?}", file.problems);
        let titles: Vec<_> = file.entries.iter().map(|e| e.title.as_str()).collect();
        assert_eq!(
            titles,
            ["Trunk needs the wasm target", "Cache the registry"]
        );
        assert_eq!(file.entries[0].date.unwrap().date(), "2026-01-12");
        assert_eq!(file.entries[0].line, 3);
        assert_eq!(
            file.entries[1].date.unwrap().to_string(),
            "2026-02-03T10:15:00.000Z"
        );
        assert!(
            file.entries[1]
                .body
                .contains("## not a heading inside a fence")
        );
    }

    #[test]
    fn odd_files_are_kept_whole_and_reported() {
        let whole = parse("notes", "Always run `make test` before pushing.\n");
        assert_eq!(whole.entries.len(), 1);
        assert_eq!(whole.entries[0].title, "notes");
        assert!(whole.problems.is_empty());

        let odd = parse(
            "ui",
            "Intro text.\n## Dark mode (2026-13-45)\nUse variables.\n## [soon] Later\n\n## Undated\nStill a learning.\n",
        );
        let titles: Vec<_> = odd.entries.iter().map(|e| e.title.as_str()).collect();
        assert_eq!(
            titles,
            ["ui", "Dark mode (2026-13-45)", "[soon] Later", "Undated"],
            "nothing is dropped"
        );
        assert_eq!(odd.problems.len(), 4, "{:?}", odd.problems);
        assert!(
            odd.problems
                .iter()
                .any(|p| p.contains("(2026-13-45) is not a date"))
        );
        assert!(
            odd.problems
                .iter()
                .any(|p| p.contains("[soon] is not a timestamp"))
        );
        assert!(odd.problems.iter().any(|p| p.contains("has no text")));
        assert!(odd.problems.iter().any(|p| p.contains("before the first")));
        assert_eq!(parse("empty", "").entries.len(), 0);
    }

    #[test]
    fn appended_entries_parse_back() {
        let date = Timestamp::parse_lenient("2026-11-22").unwrap();
        let text = append_entry(
            NAIDE.trim_end(),
            "Pin tauri-driver",
            date,
            "Version 2.1.0.\n",
        );
        let file = parse("build-and-tooling", &text);
        let last = file.entries.last().unwrap();
        assert_eq!(
            (last.title.as_str(), last.body.as_str()),
            ("Pin tauri-driver", "Version 2.1.0.")
        );
        assert_eq!(last.date, Some(date));
        assert_eq!(category_file_stem(" Build & Tooling "), "build-tooling");
        assert_eq!(category_file_stem("../.."), "general");
    }
}
