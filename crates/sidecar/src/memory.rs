//! Long-term memory: the repository's spec and feature files and its
//! learnings, scored for relevance to the message. The knowledge index
//! ranks them (relevance × utility^0.5 × recency^0.3, see
//! [`relevant_knowledge`]); when it cannot, Naide's learnings search is the
//! fallback — a keyword in the file name counts 3, each occurrence in the
//! text 1.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    time::SystemTime,
};

use switchboard_model::{
    Timestamp,
    chat::prompt::ContextFile,
    knowledge::search::{HitKind, SearchHit, SearchQuery},
};
use switchboard_store::{
    StoreError, Workspace, contain, knowledge::quarantine, search::SearchIndex,
};

/// Largest file read into memory, in bytes; larger ones are skipped.
const MAX_FILE_BYTES: u64 = 256 * 1024;

pub use switchboard_model::knowledge::{document::SPEC_DIRS, learning::LEARNING_DIRS};

/// Lower-cased words of three letters or more, the search keywords.
pub fn keywords(message: &str) -> Vec<String> {
    let mut words: Vec<String> = message
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| word.chars().count() >= 3)
        .map(str::to_lowercase)
        .collect();
    words.sort();
    words.dedup();
    words
}

/// Naide's score of a file for `keywords`.
pub fn relevance(path: &str, text: &str, keywords: &[String]) -> f64 {
    let name = path.to_lowercase();
    let text = text.to_lowercase();
    keywords
        .iter()
        .map(|word| {
            let in_name = if name.contains(word.as_str()) { 3 } else { 0 };
            in_name + text.matches(word.as_str()).count()
        })
        .sum::<usize>() as f64
}

/// Most learnings entries and playbook bullets offered to one prompt.
pub const MAX_KNOWLEDGE: usize = 12;

/// What the index offers a prompt: the best learnings entries and bullets,
/// and a score for each spec file it matched.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Relevant {
    /// Learnings entries and bullets, best first.
    pub knowledge: Vec<ContextFile>,
    /// Spec file path → the index's score.
    pub spec_scores: HashMap<String, f64>,
    /// Files the index could not read or parse (a symlink out of the
    /// workspace among them), in words.
    pub warnings: Vec<String>,
}

/// Memory files read for a prompt, and the ones refused.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Gathered {
    /// By path.
    pub files: Vec<ContextFile>,
    /// Files not read because a symlink leads them out of the workspace,
    /// in words.
    pub refused: Vec<String>,
}

fn knowledge_file(hit: SearchHit) -> ContextFile {
    let body = hit.text.unwrap_or(hit.snippet);
    let (path, text) = match hit.kind {
        HitKind::Bullet => (
            format!(
                "{}#{}",
                hit.path,
                hit.bullet_id.as_deref().unwrap_or_default()
            ),
            format!(
                "[{}] {body} (helpful {}, harmful {})",
                hit.title, hit.helpful, hit.harmful
            ),
        ),
        _ => (
            format!("{}:{}", hit.path, hit.line),
            format!("## {}\n\n{body}", hit.title),
        ),
    };
    ContextFile {
        path,
        text,
        relevance: hit.score,
    }
}

/// Asks the knowledge index (brought up to date first) for what is
/// relevant to `message`; quarantined bullets are left out.
pub fn relevant_knowledge(
    index: &mut SearchIndex,
    workspace: &Workspace,
    message: &str,
    now: Timestamp,
) -> Result<Relevant, StoreError> {
    let warnings = index.sync(workspace)?.warnings;
    let quarantined = quarantine::list(workspace).unwrap_or_default();
    let knowledge = index
        .search(
            &SearchQuery {
                kinds: vec![HitKind::Learning, HitKind::Bullet],
                with_text: true,
                ..SearchQuery::new(message, MAX_KNOWLEDGE + quarantined.len())
            },
            now,
        )?
        .hits
        .into_iter()
        .filter(|hit| {
            !quarantined.iter().any(|q| {
                hit.bullet_id.as_deref() == Some(q.id.as_str())
                    && hit.task_type.as_deref() == Some(q.task_type.as_str())
            })
        })
        .take(MAX_KNOWLEDGE)
        .map(knowledge_file)
        .collect();
    let spec_scores = index
        .search(
            &SearchQuery {
                kinds: vec![HitKind::Spec],
                ..SearchQuery::new(message, 200)
            },
            now,
        )?
        .hits
        .into_iter()
        .map(|hit| (hit.path, hit.score))
        .collect();
    Ok(Relevant {
        knowledge,
        spec_scores,
        warnings,
    })
}

/// Markdown files under `dirs` of `workspace`, scored against `message`,
/// read afresh. Nothing outside the workspace is read.
pub fn gather(workspace: &Path, dirs: &[&str], message: &str) -> Gathered {
    MemoryCache::default().gather(workspace, dirs, message)
}

/// A file as last read, with what identifies its version.
#[derive(Debug, Clone)]
struct Cached {
    modified: Option<SystemTime>,
    len: u64,
    text: String,
}

/// Long-term memory files kept between messages: each message only lists
/// the folders and re-reads files whose size or modification time changed.
#[derive(Debug, Default)]
pub struct MemoryCache {
    files: HashMap<PathBuf, Cached>,
}

impl MemoryCache {
    /// Like [`gather`], reading only files that changed since last time.
    /// Files over 256 KiB are skipped; symlinks below each folder are not
    /// followed, and a folder a symlink leads out of the workspace is
    /// refused and named.
    pub fn gather(&mut self, workspace: &Path, dirs: &[&str], message: &str) -> Gathered {
        let words = keywords(message);
        let mut gathered = Gathered::default();
        // The listing follows no symlinked file or folder below each
        // folder, so only the folder itself (or one above it) can lead out
        // of the workspace: each is checked once, not each file.
        let mut paths = Vec::new();
        for dir in dirs {
            let dir = workspace.join(dir);
            match contain::inside(workspace, &dir) {
                Ok(_) => paths.extend(switchboard_store::knowledge::markdown_under(&dir)),
                Err(refused @ StoreError::OutsideWorkspace { .. }) => {
                    gathered.refused.push(refused.to_string());
                }
                // Missing: nothing to read.
                Err(_) => {}
            }
        }
        for path in paths {
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
                continue;
            }
            let (modified, len) = (meta.modified().ok(), meta.len());
            let fresh = self
                .files
                .get(&path)
                .is_some_and(|c| c.modified == modified && c.len == len);
            if !fresh {
                let Ok(text) = contain::read_inside(workspace, &path) else {
                    continue;
                };
                self.files.insert(
                    path.clone(),
                    Cached {
                        modified,
                        len,
                        text,
                    },
                );
            }
            let Some(cached) = self.files.get(&path) else {
                continue;
            };
            let relative = path
                .strip_prefix(workspace)
                .unwrap_or(&path)
                .to_string_lossy()
                .into_owned();
            let relevance = relevance(&relative, &cached.text, &words);
            gathered.files.push(ContextFile {
                path: relative,
                text: cached.text.clone(),
                relevance,
            });
        }
        gathered.files.sort_by(|a, b| a.path.cmp(&b.path));
        gathered
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn the_cache_rereads_only_changed_files() {
        let dir = tempfile::tempdir().unwrap();
        let learnings = dir.path().join(".naide/learnings");
        std::fs::create_dir_all(&learnings).unwrap();
        std::fs::write(learnings.join("auth.md"), "tokens expire").unwrap();
        let mut cache = MemoryCache::default();
        let first = cache.gather(dir.path(), &LEARNING_DIRS, "tokens").files;
        assert_eq!(first[0].text, "tokens expire");
        std::fs::write(
            learnings.join("auth.md"),
            "tokens expire hourly, tokens rotate",
        )
        .unwrap();
        std::fs::write(learnings.join("build.md"), "cargo").unwrap();
        let second = cache.gather(dir.path(), &LEARNING_DIRS, "tokens").files;
        assert_eq!(second.len(), 2, "new files are found");
        assert_eq!(
            second[0].text, "tokens expire hourly, tokens rotate",
            "changed files are re-read"
        );
        assert_eq!(second[0].relevance, 2.0, "scored on the new text");
        std::fs::remove_file(learnings.join("build.md")).unwrap();
        assert_eq!(
            cache.gather(dir.path(), &LEARNING_DIRS, "x").files.len(),
            1,
            "deleted files drop out"
        );
    }

    #[test]
    fn names_count_three_and_each_occurrence_one() {
        let words = keywords("How should AUTH tokens expire? auth!");
        assert_eq!(words, ["auth", "expire", "how", "should", "tokens"]);
        assert_eq!(
            relevance(
                ".prompts/plan/auth.md",
                "Auth uses tokens. Tokens expire.",
                &words
            ),
            3.0 + 1.0 + 2.0 + 1.0
        );
        assert_eq!(relevance("other.md", "nothing here", &words), 0.0);
    }
}
