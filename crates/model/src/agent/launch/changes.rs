//! What a started agent changed in its worktree: its commits and each
//! file's diff, as a review shows them.

use serde::{Deserialize, Serialize};

/// What a started agent changed in its worktree since its base.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorktreeChanges {
    /// Its branch.
    pub branch: String,
    /// What it merges into.
    pub base: String,
    /// Its commits since the base, newest first.
    pub commits: Vec<CommitLine>,
    /// Each file changed (committed or not), by path.
    pub files: Vec<ChangedFile>,
    /// How many files have changes not yet committed (new files included).
    pub uncommitted: usize,
    /// Some diffs were left out to stay within [`CHANGES_LIMIT`].
    #[serde(default)]
    pub truncated: bool,
}

/// The most diff text [`WorktreeChanges`] carries: 1 MiB.
pub const CHANGES_LIMIT: usize = 1024 * 1024;

/// One commit, as a list shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommitLine {
    /// Its id, in full.
    pub id: String,
    /// Its first line.
    pub subject: String,
}

/// How a file changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileChange {
    /// New (committed or not).
    Added,
    /// Removed.
    Deleted,
    /// Changed.
    Modified,
}

impl FileChange {
    /// The letter `git status` shows.
    pub fn letter(self) -> char {
        match self {
            Self::Added => 'A',
            Self::Deleted => 'D',
            Self::Modified => 'M',
        }
    }
}

/// One changed file: counts and its unified diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangedFile {
    /// Its path, relative to the worktree.
    pub path: String,
    /// How.
    pub change: FileChange,
    /// Lines added (`None`: binary).
    pub added: Option<u64>,
    /// Lines removed (`None`: binary).
    pub removed: Option<u64>,
    /// Its unified diff (empty when binary or left out).
    pub diff: String,
    /// A new file whose path holds a file in the developer's checkout of
    /// the base that git does not track (an ignored `.env`, an untracked
    /// note): merging would replace it, so a merge is refused until it is
    /// moved away.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub replaces_untracked: bool,
}

/// What a review says of a new file that would replace one of the
/// developer's that git does not track.
pub const REPLACES_UNTRACKED: &str = "Your checkout has a file of this name that git does not track \
     (ignored or untracked): merging would replace it, so a merge is refused until you move it away.";

impl ChangedFile {
    /// Its diff as Markdown, rendered as permission questions render
    /// diffs: a fenced `diff` block (its fence longer than any run of
    /// backticks inside), or why there is none; a warning first when it
    /// would replace a file of the developer's that git does not track.
    pub fn diff_markdown(&self) -> String {
        let diff = self.diff_block();
        if self.replaces_untracked {
            format!("**{REPLACES_UNTRACKED}**\n\n{diff}")
        } else {
            diff
        }
    }

    fn diff_block(&self) -> String {
        if self.diff.is_empty() {
            return if self.added.is_none() {
                "_A binary file: no diff shown._".to_owned()
            } else {
                "_Left out: the review holds 1 MiB of diffs at most._".to_owned()
            };
        }
        let longest = self
            .diff
            .split(|c| c != '`')
            .map(str::len)
            .max()
            .unwrap_or(0);
        let fence = "`".repeat(longest.max(2) + 1);
        format!("{fence}diff\n{}\n{fence}", self.diff.trim_end())
    }

    /// Its counts as a list shows them: `+12 −3` (`binary`).
    pub fn counts(&self) -> String {
        match (self.added, self.removed) {
            (Some(added), Some(removed)) => format!("+{added} −{removed}"),
            _ => "binary".to_owned(),
        }
    }
}

/// The unified diff of a new file (`/dev/null` → `b/PATH`), as git shows
/// one.
pub fn new_file_diff(path: &str, text: &str) -> String {
    similar::TextDiff::from_lines("", text)
        .unified_diff()
        .context_radius(3)
        .header("/dev/null", &format!("b/{path}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn a_diff_is_fenced_past_any_backticks_it_holds() {
        let file = ChangedFile {
            path: "README.md".into(),
            change: FileChange::Modified,
            added: Some(1),
            removed: Some(0),
            diff: "@@ -1 +1,2 @@\n+```rust\n".into(),
            replaces_untracked: false,
        };
        let markdown = file.diff_markdown();
        assert!(
            markdown.starts_with("````diff\n") && markdown.ends_with("\n````"),
            "{markdown}"
        );
        assert_eq!(file.counts(), "+1 −0");
        let binary = ChangedFile {
            added: None,
            removed: None,
            diff: String::new(),
            ..file
        };
        assert!(binary.diff_markdown().contains("binary"));
        assert_eq!(binary.counts(), "binary");
        let env = ChangedFile {
            replaces_untracked: true,
            ..binary
        };
        assert!(
            env.diff_markdown()
                .starts_with("**Your checkout has a file of this name")
        );
    }

    #[test]
    fn a_new_file_diff_adds_every_line() {
        let diff = new_file_diff("src/a.rs", "one\ntwo\n");
        assert!(
            diff.starts_with("--- /dev/null\n+++ b/src/a.rs\n@@ -0,0 +1,2 @@\n+one\n+two"),
            "{diff}"
        );
    }
}
