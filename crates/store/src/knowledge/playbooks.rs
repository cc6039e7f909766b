//! Delia's playbooks: listed, validated (and migrated with `--fix`), and
//! changed one bullet at a time (vote, edit, add) under the folder's lock.
//! A file that does not parse, or is of an unknown schema version, is
//! reported and never rewritten.

use std::path::{Path, PathBuf};

pub use switchboard_model::knowledge::{playbook::PlaybookFile, validate::Report};
use switchboard_model::{
    Timestamp,
    knowledge::{
        playbook::{self, Bullet, Loaded, MEMORY_DIR, PLAYBOOK_DIR, PROFILE_DIR, Playbook},
        validate::{self, Problem, ProblemKind},
    },
};

use super::{Read, files_in, read, relative};
use crate::{StoreError, Workspace, lock::DirLock, write_atomic};

fn dir(workspace: &Workspace) -> PathBuf {
    workspace.root().join(PLAYBOOK_DIR)
}

fn task_type_of(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Every playbook file, by name; unreadable ones (also symlinks out of the
/// workspace) with their error.
pub fn list(workspace: &Workspace) -> Result<Vec<PlaybookFile>, StoreError> {
    files_in(&dir(workspace), "json")?
        .into_iter()
        .map(|path| {
            let task_type = task_type_of(&path);
            let parsed = match read(workspace, &path)? {
                Read::Text(text) => playbook::parse(&task_type, &text).map_err(|e| e.to_string()),
                Read::Refused(reason) => Err(reason),
            };
            Ok(PlaybookFile {
                path: relative(workspace, &path),
                task_type,
                version: parsed.as_ref().ok().map(|loaded| loaded.version),
                error: parsed.as_ref().err().cloned(),
                playbook: parsed.ok().map(|loaded| loaded.playbook),
            })
        })
        .collect()
}

/// Reads playbook `task_type` under the lock, lets `change` edit it, and
/// saves it as v2 with a fresh `updated_at`. `create` allows a missing file.
fn update<T>(
    workspace: &Workspace,
    task_type: &str,
    now: Timestamp,
    create: bool,
    change: impl FnOnce(&mut Playbook) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    let task_type = playbook::check_task_type(task_type)?;
    let dir = dir(workspace);
    let _lock = DirLock::acquire(&dir)?;
    let path = dir.join(format!("{task_type}.json"));
    let read =
        crate::regular::read_to_string_in(workspace.root(), &path, crate::regular::DATA_LIMIT);
    let mut loaded = match read {
        Ok(text) => {
            playbook::parse(task_type, &text)
                .map_err(|error| StoreError::Corrupt {
                    path: path.clone(),
                    reason: error.to_string(),
                })?
                .playbook
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound && create => {
            Playbook::empty(task_type)
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(StoreError::NotFound {
                what: "playbook",
                id: task_type.to_owned(),
            });
        }
        Err(error) => return Err(StoreError::io("could not read", &path)(error)),
    };
    let outcome = change(&mut loaded)?;
    loaded.updated_at = now.python_iso();
    write_atomic(&path, playbook::to_json(&loaded).as_bytes())?;
    Ok(outcome)
}

/// Counts one helpful (or harmful) vote for bullet `id`; returns the bullet.
pub fn vote(
    workspace: &Workspace,
    task_type: &str,
    id: &str,
    helpful: bool,
    now: Timestamp,
) -> Result<Bullet, StoreError> {
    update(workspace, task_type, now, false, |playbook| {
        Ok(playbook.vote(id, helpful)?)
    })
}

/// Replaces bullet `id`'s content (10–500 characters).
pub fn edit(
    workspace: &Workspace,
    task_type: &str,
    id: &str,
    content: &str,
    now: Timestamp,
) -> Result<Bullet, StoreError> {
    playbook::check_content(content)?;
    update(workspace, task_type, now, false, |playbook| {
        Ok(playbook.edit(id, content)?)
    })
}

/// Adds a manual bullet to `task_type` (creating the playbook); returns it.
pub fn add(
    workspace: &Workspace,
    task_type: &str,
    section: Option<&str>,
    content: &str,
    now: Timestamp,
) -> Result<Bullet, StoreError> {
    playbook::check_content(content)?;
    update(workspace, task_type, now, true, |playbook| {
        Ok(playbook.add_manual(section, content, now)?)
    })
}

/// Delia's checks over the playbooks of `workspace` (or the one file
/// `only`), plus "profiles and memories exist" when the workspace has a
/// `.delia/` folder; with `fix`, migrates v1
/// files and gives id-less bullets an id, then reports what is left.
pub fn validate(
    workspace: &Workspace,
    only: Option<&Path>,
    fix: bool,
    now: Timestamp,
) -> Result<Report, StoreError> {
    let dir = dir(workspace);
    // A fix rewrites files: they are listed under the lock, as they are
    // while it holds.
    let _lock = if fix {
        Some(DirLock::acquire(&dir)?)
    } else {
        None
    };
    let files = match only {
        Some(path) => vec![path.to_owned()],
        None => files_in(&dir, "json")?,
    };
    let mut report = Report {
        checked: files.len(),
        ..Report::default()
    };
    for path in files {
        let name = relative(workspace, &path);
        let text = match read(workspace, &path)? {
            Read::Text(text) => text,
            Read::Refused(reason) => {
                report.problems.push(Problem {
                    file: name,
                    bullet: None,
                    kind: ProblemKind::Structure,
                    message: reason,
                    fixable: false,
                });
                continue;
            }
        };
        let task_type = task_type_of(&path);
        let (mut problems, loaded) = validate::check_playbook(&name, &task_type, &text);
        if fix
            && let Some(fixed) = loaded.as_ref().and_then(|loaded: &Loaded| {
                validate::fix(loaded, &now.python_iso(), now.unix_millis())
            })
        {
            let text = playbook::to_json(&fixed);
            write_atomic(&path, text.as_bytes())?;
            report.fixed.push(name.clone());
            problems = validate::check_playbook(&name, &task_type, &text).0;
        }
        report.problems.extend(problems);
    }
    // A workspace without `.delia/` does not use Delia: nothing is missing.
    if only.is_none() && workspace.root().join(".delia").is_dir() {
        for (folder, what) in [(PROFILE_DIR, "profiles"), (MEMORY_DIR, "memories")] {
            if files_in(&workspace.root().join(folder), "md")?.is_empty() {
                report.problems.push(Problem {
                    file: folder.to_owned(),
                    bullet: None,
                    kind: ProblemKind::Missing,
                    message: format!("no {what} (*.md) in {folder}/"),
                    fixable: false,
                });
            }
        }
    }
    Ok(report)
}
