//! Delia's `validate` checks for one playbook file, and the `--fix` that
//! goes with them (migrate v1 to v2, give id-less bullets an id).

use serde::{Deserialize, Serialize};

use super::playbook::{self, Loaded, MAX_CONTENT, MIN_CONTENT, Playbook, PlaybookError};

/// What a check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProblemKind {
    /// Not JSON, or JSON of another shape.
    Structure,
    /// A schema version this version cannot read.
    SchemaVersion,
    /// A v1 file (fixable: migrate).
    Legacy,
    /// A bullet without an id (fixable: one is made).
    MissingId,
    /// A bullet without content.
    MissingContent,
    /// Two bullets with one id.
    DuplicateId,
    /// Content outside 10–500 characters.
    ContentLength,
    /// No profiles or no memories.
    Missing,
}

/// One problem, where it is and whether `--fix` mends it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    /// The file, relative to the workspace.
    pub file: String,
    /// The bullet's id (or `#index` when it has none).
    pub bullet: Option<String>,
    /// What kind.
    pub kind: ProblemKind,
    /// In words.
    pub message: String,
    /// Whether `--fix` mends it.
    pub fixable: bool,
}

/// What `validate` found and did.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Report {
    /// Problems left (after fixing, with `--fix`).
    pub problems: Vec<Problem>,
    /// Files rewritten by `--fix`.
    pub fixed: Vec<String>,
    /// Playbook files checked.
    pub checked: usize,
}

/// Checks the playbook file at `file` (workspace-relative) with `text`;
/// returns the problems and, when the file could be read, the playbook.
pub fn check_playbook(file: &str, task_type: &str, text: &str) -> (Vec<Problem>, Option<Loaded>) {
    let problem = |bullet: Option<String>, kind, message: String, fixable| Problem {
        file: file.to_owned(),
        bullet,
        kind,
        message,
        fixable,
    };
    let loaded = match playbook::parse(task_type, text) {
        Ok(loaded) => loaded,
        Err(error) => {
            let kind = match error {
                PlaybookError::UnknownVersion(_) | PlaybookError::NoVersion => {
                    ProblemKind::SchemaVersion
                }
                PlaybookError::Json(_) | PlaybookError::Shape(_) => ProblemKind::Structure,
            };
            return (vec![problem(None, kind, error.to_string(), false)], None);
        }
    };
    let mut problems = Vec::new();
    if loaded.version == 1 {
        problems.push(problem(
            None,
            ProblemKind::Legacy,
            "schema v1 (a bare array); --fix migrates it to v2".to_owned(),
            true,
        ));
    }
    let mut seen = std::collections::HashSet::new();
    for (index, bullet) in loaded.playbook.bullets.iter().enumerate() {
        let name = bullet
            .id
            .clone()
            .unwrap_or_else(|| format!("#{}", index + 1));
        match &bullet.id {
            None => problems.push(problem(
                Some(name.clone()),
                ProblemKind::MissingId,
                format!("bullet #{} has no id; --fix gives it one", index + 1),
                true,
            )),
            Some(id) if !seen.insert(id.clone()) => problems.push(problem(
                Some(name.clone()),
                ProblemKind::DuplicateId,
                format!("id {id} is used by more than one bullet"),
                false,
            )),
            Some(_) => {}
        }
        match &bullet.content {
            None => problems.push(problem(
                Some(name),
                ProblemKind::MissingContent,
                "no content".to_owned(),
                false,
            )),
            Some(content) => {
                let length = content.trim().chars().count();
                if !(MIN_CONTENT..=MAX_CONTENT).contains(&length) {
                    problems.push(problem(
                        Some(name),
                        ProblemKind::ContentLength,
                        format!("content is {length} characters (10–500 expected)"),
                        false,
                    ));
                }
            }
        }
    }
    (problems, Some(loaded))
}

/// The fixed playbook, if `--fix` changes anything: v1 migrated, missing
/// ids made. `now` stamps `updated_at` (as Delia writes it) and seeds ids.
pub fn fix(loaded: &Loaded, now_iso: &str, now_millis: i64) -> Option<Playbook> {
    let mut playbook = loaded.playbook.clone();
    let mut changed = loaded.version != playbook::SCHEMA_VERSION;
    for (index, bullet) in playbook.bullets.iter_mut().enumerate() {
        if bullet.id.is_none() {
            let seed = format!("{}#{index}", bullet.text());
            bullet.id = Some(playbook::new_bullet_id(&seed, now_millis));
            changed = true;
        }
    }
    if changed {
        playbook.updated_at = now_iso.to_owned();
    }
    changed.then_some(playbook)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    fn kinds(problems: &[Problem]) -> Vec<ProblemKind> {
        problems.iter().map(|p| p.kind).collect()
    }

    #[test]
    fn each_check_reports_file_and_bullet() {
        let text = r#"[
            {"id": "strat-00000001", "content": "Use pathlib.Path over os.path"},
            {"id": "strat-00000001", "content": "Short"},
            {"content": "Run the tests before every commit"},
            {"id": "strat-00000003"}
        ]"#;
        let (problems, loaded) = check_playbook(".delia/playbooks/coding.json", "coding", text);
        assert!(loaded.is_some());
        assert_eq!(
            kinds(&problems),
            [
                ProblemKind::Legacy,
                ProblemKind::DuplicateId,
                ProblemKind::ContentLength,
                ProblemKind::MissingId,
                ProblemKind::MissingContent
            ]
        );
        assert_eq!(problems[1].bullet.as_deref(), Some("strat-00000001"));
        assert_eq!(problems[3].bullet.as_deref(), Some("#3"));
        assert!(
            problems
                .iter()
                .all(|p| p.file == ".delia/playbooks/coding.json")
        );

        let (broken, none) = check_playbook("f.json", "f", "{");
        assert_eq!(kinds(&broken), [ProblemKind::Structure]);
        assert!(none.is_none());
        let (future, _) = check_playbook("f.json", "f", r#"{"schema_version": 9}"#);
        assert_eq!(kinds(&future), [ProblemKind::SchemaVersion]);
        assert!(future[0].message.contains("9"));
    }

    #[test]
    fn fix_migrates_and_fills_ids_only_when_needed() {
        let (_, loaded) = check_playbook(
            "f.json",
            "testing",
            r#"[{"content": "Mock the clock in time-based tests"}]"#,
        );
        let fixed = fix(&loaded.unwrap(), "2026-11-22T00:00:00.000000", 1).unwrap();
        assert_eq!(fixed.schema_version, 2);
        assert_eq!(fixed.updated_at, "2026-11-22T00:00:00.000000");
        assert!(
            fixed.bullets[0]
                .id
                .as_deref()
                .unwrap()
                .starts_with("strat-")
        );
        let text = playbook::to_json(&fixed);
        let (after, reloaded) = check_playbook("f.json", "testing", &text);
        assert!(after.is_empty(), "{after:?}");
        assert_eq!(
            fix(&reloaded.unwrap(), "later", 2),
            None,
            "nothing left to fix"
        );
    }
}
