//! What a knowledge search asks and answers: one index over learnings,
//! playbook bullets, profiles, memories and spec files.

use serde::{Deserialize, Serialize};

use crate::Timestamp;

/// What kind of knowledge a hit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HitKind {
    /// An entry of a learnings file.
    Learning,
    /// A playbook bullet.
    Bullet,
    /// A Delia profile.
    Profile,
    /// A Delia memory.
    Memory,
    /// A spec or plan file (`.prompts/plan/**`, `.prompts/features/**`).
    Spec,
}

impl HitKind {
    /// Every kind.
    pub const ALL: [HitKind; 5] = [
        Self::Learning,
        Self::Bullet,
        Self::Profile,
        Self::Memory,
        Self::Spec,
    ];

    /// The name stored in the index and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Learning => "learning",
            Self::Bullet => "bullet",
            Self::Profile => "profile",
            Self::Memory => "memory",
            Self::Spec => "spec",
        }
    }

    /// The kind named `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == name)
    }
}

/// A search.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchQuery {
    /// The words (tantivy's query syntax is accepted; mistakes in it are
    /// read leniently).
    pub text: String,
    /// Only these kinds; all when empty.
    #[serde(default)]
    pub kinds: Vec<HitKind>,
    /// At most this many hits.
    pub limit: usize,
    /// Return each hit's whole stored text (for prompts), not only a
    /// snippet.
    #[serde(default)]
    pub with_text: bool,
}

impl SearchQuery {
    /// A search of every kind for `text`, at most `limit` hits, snippets only.
    pub fn new(text: impl Into<String>, limit: usize) -> Self {
        Self {
            text: text.into(),
            kinds: Vec::new(),
            limit,
            with_text: false,
        }
    }
}

/// One hit, best first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchHit {
    /// What it is.
    pub kind: HitKind,
    /// The file, workspace-relative.
    pub path: String,
    /// The 1-based line it starts on (0 for bullets and whole files).
    pub line: usize,
    /// Its title (entry heading, bullet section, file name).
    pub title: String,
    /// The playbook's task type, for bullets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_type: Option<String>,
    /// The bullet's id, for bullets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bullet_id: Option<String>,
    /// A piece of the text around the match.
    pub snippet: String,
    /// Byte ranges of `snippet` that matched, to highlight.
    pub highlights: Vec<(usize, usize)>,
    /// Text relevance (BM25).
    pub relevance: f64,
    /// The ranking score: relevance × utility^0.5 × recency^0.3.
    pub score: f64,
    /// Helpful votes (bullets).
    pub helpful: u32,
    /// Harmful votes (bullets).
    pub harmful: u32,
    /// When it was written or last used, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<Timestamp>,
    /// The whole text, when the query asked for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

impl SearchHit {
    /// The snippet cut into runs, each marked when it matched, for showing
    /// highlights as text (never as HTML). Ranges that overlap, run past
    /// the end or split a character are skipped.
    pub fn snippet_runs(&self) -> Vec<(&str, bool)> {
        let text = self.snippet.as_str();
        let mut runs = Vec::new();
        let mut at = 0;
        for &(start, end) in &self.highlights {
            let fits = at <= start
                && start < end
                && end <= text.len()
                && text.is_char_boundary(start)
                && text.is_char_boundary(end);
            if !fits {
                continue;
            }
            if at < start {
                runs.push((&text[at..start], false));
            }
            runs.push((&text[start..end], true));
            at = end;
        }
        if at < text.len() {
            runs.push((&text[at..], false));
        }
        runs
    }
}

/// Hits and what to know about them.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SearchResults {
    /// Best first.
    pub hits: Vec<SearchHit>,
    /// Files that could not be indexed, and similar notes, in words.
    pub warnings: Vec<String>,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    fn hit(snippet: &str, highlights: Vec<(usize, usize)>) -> SearchHit {
        SearchHit {
            kind: HitKind::Learning,
            path: "p".into(),
            line: 1,
            title: "t".into(),
            task_type: None,
            bullet_id: None,
            snippet: snippet.into(),
            highlights,
            relevance: 1.0,
            score: 1.0,
            helpful: 0,
            harmful: 0,
            date: None,
            text: None,
        }
    }

    #[test]
    fn snippets_split_into_marked_runs_and_bad_ranges_are_skipped() {
        let found = hit("wait for inotify events", vec![(9, 16)]);
        assert_eq!(
            found.snippet_runs(),
            [("wait for ", false), ("inotify", true), (" events", false)]
        );
        let odd = hit("café au lait", vec![(0, 4), (9, 99), (5, 4)]);
        assert_eq!(
            odd.snippet_runs(),
            [("café au lait", false)],
            "a split é, an overrun, a reversed range"
        );
        let overlap = hit("abcdef", vec![(0, 3), (2, 4)]);
        assert_eq!(overlap.snippet_runs(), [("abc", true), ("def", false)]);
        assert!(hit("", vec![]).snippet_runs().is_empty());
    }
}
