//! Learnings files: listed from `.naide/learnings/` and
//! `.prompts/learnings/`, parsed into entries, appended to in Naide's format.

use std::path::PathBuf;

pub use switchboard_model::knowledge::learning::{Appended, LearningsFile};
use switchboard_model::{
    Timestamp,
    knowledge::learning::{self, LEARNING_DIRS},
};

use super::{Read, files_in, read, relative};
use crate::{StoreError, Workspace, contain, lock::DirLock, write_atomic};

/// Every learnings file of both layouts, `.naide` first, by name. A file
/// that is a symlink out of the workspace is listed with that problem and
/// no entries.
pub fn list(workspace: &Workspace) -> Result<Vec<LearningsFile>, StoreError> {
    let mut files = Vec::new();
    for dir in LEARNING_DIRS {
        for path in files_in(&workspace.root().join(dir), "md")? {
            let category = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let file = match read(workspace, &path)? {
                Read::Text(text) => learning::parse(&category, &text),
                Read::Refused(reason) => learning::LearningFile {
                    category,
                    entries: Vec::new(),
                    problems: vec![reason],
                },
            };
            files.push(LearningsFile {
                path: relative(workspace, &path),
                file,
            });
        }
    }
    Ok(files)
}

/// The text of the learnings file at workspace-relative `path` (one that
/// [`list`] lists), read inside the workspace: any other path is
/// `NOT_FOUND`, a symlink out of the workspace `OUTSIDE_WORKSPACE`.
pub fn text(workspace: &Workspace, path: &str) -> Result<String, StoreError> {
    let listed = LEARNING_DIRS.iter().any(|dir| {
        path.strip_prefix(dir)
            .and_then(|rest| rest.strip_prefix('/'))
            .is_some_and(|name| {
                name.ends_with(".md") && !name.contains('/') && !name.starts_with('.')
            })
    });
    let full = workspace.root().join(path);
    if !listed || !full.is_file() {
        return Err(StoreError::NotFound {
            what: "learnings file",
            id: path.to_owned(),
        });
    }
    contain::read_inside(workspace.root(), &full)
}

/// The workspace-relative file a new entry of `category` goes to (see
/// [`append`]).
pub fn target_path(workspace: &Workspace, category: &str) -> String {
    relative(workspace, &target(workspace, category))
}

/// Where a new entry of `category` goes: the category's existing file in
/// either layout, else `.prompts/learnings/` when only that layout exists,
/// else `.naide/learnings/`.
fn target(workspace: &Workspace, category: &str) -> PathBuf {
    let name = format!("{}.md", learning::category_file_stem(category));
    let [naide, prompts] = LEARNING_DIRS.map(|dir| workspace.root().join(dir));
    if prompts.join(&name).is_file() || (prompts.is_dir() && !naide.is_dir()) {
        prompts.join(name)
    } else {
        naide.join(name)
    }
}

/// Appends an entry `## {title} ({date})` with `body` to `category`'s file,
/// creating it if needed, under the folder's lock. A file that is not
/// UTF-8 text, cannot be read, or is reached through a symlink out of the
/// workspace is refused and left as it is.
pub fn append(
    workspace: &Workspace,
    category: &str,
    title: &str,
    body: &str,
    now: Timestamp,
) -> Result<Appended, StoreError> {
    learning::check_entry(title, body)?;
    let path = target(workspace, category);
    let dir = path.parent().map(PathBuf::from).unwrap_or_default();
    if dir.exists() {
        contain::inside(workspace.root(), &dir)?;
    }
    let _lock = DirLock::acquire(&dir)?;
    let existing = match std::fs::symlink_metadata(&path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
        _ => match contain::read_inside(workspace.root(), &path) {
            Ok(text) => text,
            Err(StoreError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::InvalidData =>
            {
                return Err(StoreError::NotText {
                    path: relative(workspace, &path).into(),
                });
            }
            Err(error) => return Err(error),
        },
    };
    let text = learning::append_entry(&existing, title, now, body);
    write_atomic(&path, text.as_bytes())?;
    let line = text[..text.len() - learning::entry_text(title, now, body).len()]
        .lines()
        .count()
        + 1;
    Ok(Appended {
        path: relative(workspace, &path),
        line,
    })
}
