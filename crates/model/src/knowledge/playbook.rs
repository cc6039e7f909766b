//! Delia playbooks: `.delia/playbooks/<task_type>.json`. Schema v2 is an
//! object with `schema_version`, `task_type`, `updated_at` and `bullets`;
//! v1 is the bare bullet array, read as v2 and saved as v2. Fields this
//! version does not know are kept through every save.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use thiserror::Error;

/// The schema version written.
pub const SCHEMA_VERSION: u64 = 2;
/// Where playbooks live, relative to the workspace.
pub const PLAYBOOK_DIR: &str = ".delia/playbooks";
/// Where profiles live.
pub const PROFILE_DIR: &str = ".delia/profiles";
/// Where memories live.
pub const MEMORY_DIR: &str = ".delia/memories";
/// Shortest content Delia recommends, in characters.
pub const MIN_CONTENT: usize = 10;
/// Longest content Delia accepts, in characters.
pub const MAX_CONTENT: usize = 500;
/// Votes after which a low-utility bullet is a prune candidate.
pub const PRUNE_AFTER_VOTES: u32 = 5;
/// Utility below which a voted bullet is a prune candidate.
pub const PRUNE_BELOW: f64 = 0.3;

/// One piece of guidance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bullet {
    /// `strat-{8 hex}`; missing in a broken file (reported by validation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The guidance; missing in a broken file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// The section within the playbook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// Times marked helpful.
    #[serde(default)]
    pub helpful_count: u32,
    /// Times marked harmful.
    #[serde(default)]
    pub harmful_count: u32,
    /// When added (kept as written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// When last retrieved (kept as written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_used: Option<String>,
    /// The task that produced it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_task: Option<String>,
    /// seed, learned, manual, reflector or curator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// How useful a bullet has proven, by the seed's bands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Band {
    /// 0–0.3: a candidate for pruning.
    Low,
    /// 0.3–0.7.
    Moderate,
    /// 0.7–1: proven.
    High,
}

impl Bullet {
    /// `helpful / (helpful + harmful + 1)`, the seed's formula.
    pub fn utility(&self) -> f64 {
        f64::from(self.helpful_count)
            / (f64::from(self.helpful_count) + f64::from(self.harmful_count) + 1.0)
    }

    /// All votes cast.
    pub fn votes(&self) -> u32 {
        self.helpful_count.saturating_add(self.harmful_count)
    }

    /// The utility's band.
    pub fn band(&self) -> Band {
        band(self.utility())
    }

    /// The content, or nothing.
    pub fn text(&self) -> &str {
        self.content.as_deref().unwrap_or("")
    }
}

/// The band of `utility`.
pub fn band(utility: f64) -> Band {
    if utility < 0.3 {
        Band::Low
    } else if utility < 0.7 {
        Band::Moderate
    } else {
        Band::High
    }
}

/// A playbook (v2 form).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Playbook {
    /// Always [`SCHEMA_VERSION`] when written.
    pub schema_version: u64,
    /// The task type (coding, testing, …).
    pub task_type: String,
    /// Last change, as written (Delia writes Python's `isoformat()`).
    #[serde(default)]
    pub updated_at: String,
    /// The guidance.
    #[serde(default)]
    pub bullets: Vec<Bullet>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One playbook file as read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlaybookFile {
    /// Workspace-relative path.
    pub path: String,
    /// The task type (file stem).
    pub task_type: String,
    /// The playbook, when it parses.
    pub playbook: Option<Playbook>,
    /// The schema version it is stored in (1 or 2), when it parses.
    pub version: Option<u64>,
    /// Why it does not parse.
    pub error: Option<String>,
}

/// A playbook as read, with the version it was in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loaded {
    /// The playbook, in v2 form.
    pub playbook: Playbook,
    /// The schema version of the file (1 for a bare array).
    pub version: u64,
}

/// Why a playbook file cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PlaybookError {
    /// Not JSON.
    #[error("not valid JSON: {0}")]
    Json(String),
    /// JSON of another shape.
    #[error("not a playbook: {0}")]
    Shape(String),
    /// An object without `schema_version`.
    #[error("no schema_version (expected {SCHEMA_VERSION}, or a bare array for v1)")]
    NoVersion,
    /// A version this Switchboard does not know.
    #[error("schema_version {0} is not supported (this version reads 1 and 2)")]
    UnknownVersion(Value),
}

/// Reads the playbook file of task type `task_type` (its file stem).
pub fn parse(task_type: &str, text: &str) -> Result<Loaded, PlaybookError> {
    let value: Value =
        serde_json::from_str(text).map_err(|error| PlaybookError::Json(error.to_string()))?;
    match value {
        Value::Array(_) => {
            let bullets: Vec<Bullet> = serde_json::from_value(value)
                .map_err(|error| PlaybookError::Shape(error.to_string()))?;
            Ok(Loaded {
                playbook: Playbook {
                    schema_version: SCHEMA_VERSION,
                    task_type: task_type.to_owned(),
                    updated_at: String::new(),
                    bullets,
                    extra: Map::new(),
                },
                version: 1,
            })
        }
        Value::Object(ref object) => {
            let version = object
                .get("schema_version")
                .ok_or(PlaybookError::NoVersion)?;
            if version.as_u64() != Some(SCHEMA_VERSION) {
                return Err(PlaybookError::UnknownVersion(version.clone()));
            }
            let playbook: Playbook = serde_json::from_value(value)
                .map_err(|error| PlaybookError::Shape(error.to_string()))?;
            Ok(Loaded {
                playbook,
                version: SCHEMA_VERSION,
            })
        }
        other => Err(PlaybookError::Shape(format!(
            "expected an object or an array, found {}",
            match other {
                Value::Null => "null",
                Value::Bool(_) => "a boolean",
                Value::Number(_) => "a number",
                _ => "a string",
            }
        ))),
    }
}

/// The file text of `playbook`: v2, pretty-printed like Delia's.
pub fn to_json(playbook: &Playbook) -> String {
    let mut playbook = playbook.clone();
    playbook.schema_version = SCHEMA_VERSION;
    let mut text = serde_json::to_string_pretty(&playbook).unwrap_or_default();
    text.push('\n');
    text
}

/// Why a change to a playbook is refused; nothing is written.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BulletError {
    /// The task type cannot name a file.
    #[error("{0:?} is not a task type (letters, digits, - and _)")]
    TaskType(String),
    /// The content is too short or too long.
    #[error("a bullet is {MIN_CONTENT}–{MAX_CONTENT} characters; this one is {0}")]
    Length(usize),
    /// The playbook already says this.
    #[error("the playbook already has this bullet")]
    Duplicate,
    /// No bullet has the id.
    #[error("no bullet with id \"{task_type}/{id}\"")]
    Missing {
        /// The playbook's task type.
        task_type: String,
        /// The id asked for.
        id: String,
    },
}

/// `task_type` if it is one: letters, digits, `-` and `_` (it names a
/// file).
pub fn check_task_type(task_type: &str) -> Result<&str, BulletError> {
    let ok = !task_type.is_empty()
        && task_type
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        Ok(task_type)
    } else {
        Err(BulletError::TaskType(task_type.to_owned()))
    }
}

/// `content` trimmed, if it is [`MIN_CONTENT`]–[`MAX_CONTENT`] characters.
pub fn check_content(content: &str) -> Result<String, BulletError> {
    let content = content.trim();
    let length = content.chars().count();
    if (MIN_CONTENT..=MAX_CONTENT).contains(&length) {
        Ok(content.to_owned())
    } else {
        Err(BulletError::Length(length))
    }
}

impl Playbook {
    /// An empty playbook of `task_type`, as a first manual bullet creates.
    pub fn empty(task_type: &str) -> Self {
        Self {
            schema_version: SCHEMA_VERSION,
            task_type: task_type.to_owned(),
            updated_at: String::new(),
            bullets: Vec::new(),
            extra: Map::new(),
        }
    }

    fn bullet_mut(&mut self, id: &str) -> Result<&mut Bullet, BulletError> {
        let task_type = &self.task_type;
        self.bullets
            .iter_mut()
            .find(|bullet| bullet.id.as_deref() == Some(id))
            .ok_or_else(|| BulletError::Missing {
                task_type: task_type.clone(),
                id: id.to_owned(),
            })
    }

    /// Counts one helpful (or harmful) vote for bullet `id`; returns it.
    pub fn vote(&mut self, id: &str, helpful: bool) -> Result<Bullet, BulletError> {
        let bullet = self.bullet_mut(id)?;
        if helpful {
            bullet.helpful_count = bullet.helpful_count.saturating_add(1);
        } else {
            bullet.harmful_count = bullet.harmful_count.saturating_add(1);
        }
        Ok(bullet.clone())
    }

    /// Replaces bullet `id`'s content (checked by [`check_content`]).
    pub fn edit(&mut self, id: &str, content: &str) -> Result<Bullet, BulletError> {
        let content = check_content(content)?;
        let bullet = self.bullet_mut(id)?;
        bullet.content = Some(content);
        Ok(bullet.clone())
    }

    /// Adds a manual bullet at `now` under `section` (none when blank),
    /// unless the playbook already has it (case aside); returns it.
    pub fn add_manual(
        &mut self,
        section: Option<&str>,
        content: &str,
        now: crate::Timestamp,
    ) -> Result<Bullet, BulletError> {
        let content = check_content(content)?;
        if self
            .bullets
            .iter()
            .any(|bullet| bullet.text().trim().eq_ignore_ascii_case(&content))
        {
            return Err(BulletError::Duplicate);
        }
        let bullet = Bullet {
            id: Some(new_bullet_id(&content, now.unix_millis())),
            content: Some(content),
            section: section
                .map(str::trim)
                .filter(|section| !section.is_empty())
                .map(str::to_owned),
            helpful_count: 0,
            harmful_count: 0,
            created_at: Some(now.python_iso()),
            last_used: None,
            source_task: Some(self.task_type.clone()),
            source: Some("manual".into()),
            extra: Map::new(),
        };
        self.bullets.push(bullet.clone());
        Ok(bullet)
    }
}

/// A new bullet id for `content` added at `now_millis`: `strat-` and eight
/// hex digits of an FNV-1a hash (stable, no randomness needed).
pub fn new_bullet_id(content: &str, now_millis: i64) -> String {
    let mut hash: u32 = 0x811c_9dc5;
    for byte in content.bytes().chain(now_millis.to_le_bytes()) {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    format!("strat-{hash:08x}")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    const V2: &str = r#"{
  "schema_version": 2,
  "task_type": "coding",
  "updated_at": "2025-12-23T12:00:00.000000",
  "bullets": [
    {"id": "strat-1a2b3c4d", "content": "Use pathlib.Path over os.path", "section": "code_standards",
     "helpful_count": 5, "harmful_count": 0, "created_at": "2025-12-22T09:00:00.000000",
     "last_used": "2025-12-23T11:00:00.000000", "source_task": "coding", "source": "learned",
     "embedding_id": "c-17"}
  ],
  "owner": "delia"
}"#;

    #[test]
    fn v2_round_trips_with_unknown_fields() {
        let loaded = parse("coding", V2).unwrap();
        assert_eq!(loaded.version, 2);
        let bullet = &loaded.playbook.bullets[0];
        assert_eq!(bullet.utility(), 5.0 / 6.0);
        assert_eq!(bullet.band(), Band::High);
        let written: Value = serde_json::from_str(&to_json(&loaded.playbook)).unwrap();
        assert_eq!(written, serde_json::from_str::<Value>(V2).unwrap());
    }

    #[test]
    fn v1_arrays_read_as_v2_and_save_as_v2() {
        let v1 = r#"[{"id": "strat-00000001", "content": "Run clippy before committing", "helpful_count": 1}]"#;
        let loaded = parse("git", v1).unwrap();
        assert_eq!(loaded.version, 1);
        assert_eq!(loaded.playbook.task_type, "git");
        let saved: Value = serde_json::from_str(&to_json(&loaded.playbook)).unwrap();
        assert_eq!(saved["schema_version"], 2);
        assert_eq!(saved["bullets"][0]["helpful_count"], 1);
        assert_eq!(saved["bullets"][0].get("section"), None, "nothing invented");
    }

    #[test]
    fn bad_files_say_why() {
        assert!(matches!(parse("x", "{oops"), Err(PlaybookError::Json(_))));
        assert!(matches!(
            parse(
                "x",
                r#"{"schema_version": 3, "task_type": "x", "bullets": []}"#
            ),
            Err(PlaybookError::UnknownVersion(_))
        ));
        assert!(matches!(
            parse("x", r#"{"bullets": []}"#),
            Err(PlaybookError::NoVersion)
        ));
        let wrong = parse(
            "x",
            r#"[{"id": "a", "content": "b", "helpful_count": "five"}]"#,
        );
        assert!(matches!(wrong, Err(PlaybookError::Shape(m)) if m.contains("invalid type")));
        assert!(matches!(parse("x", "42"), Err(PlaybookError::Shape(_))));
    }

    #[test]
    fn utility_follows_the_seed() {
        let mut bullet: Bullet = serde_json::from_str(r#"{"id": "a", "content": "b"}"#).unwrap();
        assert_eq!((bullet.utility(), bullet.band()), (0.0, Band::Low));
        bullet.helpful_count = 1;
        assert_eq!(bullet.band(), Band::Moderate);
        assert_eq!(band(0.7), Band::High);
        assert_ne!(new_bullet_id("a", 1), new_bullet_id("a", 2));
        assert!(new_bullet_id("a", 1).starts_with("strat-"));
        assert_eq!(new_bullet_id("a", 1).len(), 14);
    }

    #[test]
    fn bullets_are_added_voted_and_edited_by_the_rules() {
        let now = crate::Timestamp::parse("2026-02-10T10:00:00.000Z").unwrap();
        let mut playbook = Playbook::empty("coding");
        assert_eq!(
            playbook.add_manual(None, "short", now),
            Err(BulletError::Length(5))
        );
        let added = playbook
            .add_manual(Some("  "), "  Run the tests before a commit.  ", now)
            .unwrap();
        assert_eq!(added.text(), "Run the tests before a commit.");
        assert_eq!(added.section, None);
        assert_eq!(added.source.as_deref(), Some("manual"));
        assert_eq!(
            playbook.add_manual(None, "RUN THE TESTS BEFORE A COMMIT.", now),
            Err(BulletError::Duplicate)
        );
        let id = added.id.unwrap();
        assert_eq!(playbook.vote(&id, true).unwrap().helpful_count, 1);
        assert_eq!(playbook.vote(&id, false).unwrap().harmful_count, 1);
        assert_eq!(
            playbook
                .vote("strat-00000000", true)
                .unwrap_err()
                .to_string(),
            "no bullet with id \"coding/strat-00000000\""
        );
        let long = "x".repeat(MAX_CONTENT + 1);
        assert_eq!(playbook.edit(&id, &long), Err(BulletError::Length(501)));
        assert_eq!(
            playbook.edit(&id, "Run every test first.").unwrap().text(),
            "Run every test first."
        );
        assert_eq!(
            check_task_type("a/b"),
            Err(BulletError::TaskType("a/b".into()))
        );
        assert_eq!(check_task_type("code-review_2"), Ok("code-review_2"));
    }
}
