//! A workspace folder and where each kind of data lives inside it.

use std::path::{Path, PathBuf};

use crate::StoreError;

/// The folder visual-delivery compatible data lives in, relative to the root.
const VISUAL_DELIVERY_DIR: &str = ".visual-delivery";

/// An opened workspace: an existing folder, held by its absolute path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    root: PathBuf,
}

impl Workspace {
    /// Opens the folder at `path`, which must exist. Nothing is created: a
    /// workspace without Switchboard data is simply empty.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let root = path
            .canonicalize()
            .map_err(|source| StoreError::Workspace {
                path: path.to_owned(),
                source,
            })?;
        if !root.is_dir() {
            return Err(StoreError::Workspace {
                path: path.to_owned(),
                source: std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a folder"),
            });
        }
        Ok(Self { root })
    }

    /// Opens the workspace `path` belongs to: when `path` is inside a
    /// linked git worktree (one an agent works in, or one made by hand),
    /// the repository's main working tree — git's common directory says
    /// which — else `path` itself.
    pub fn belonging(path: &Path) -> Result<Self, StoreError> {
        let opened = Self::open(path)?;
        match main_worktree_of(opened.root()) {
            Some(main) => Ok(Self::open(&main).unwrap_or(opened)),
            None => Ok(opened),
        }
    }

    /// The workspace folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The workspace folder's own name.
    pub fn name(&self) -> String {
        self.root
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.root.display().to_string())
    }

    /// `.visual-delivery/`.
    pub fn visual_delivery_dir(&self) -> PathBuf {
        self.root.join(VISUAL_DELIVERY_DIR)
    }

    /// `.visual-delivery/custom/`, home of `theme.json`.
    pub fn custom_dir(&self) -> PathBuf {
        self.visual_delivery_dir().join("custom")
    }

    /// `.visual-delivery/data/`, home of the four inbox files.
    pub fn inbox_data_dir(&self) -> PathBuf {
        self.visual_delivery_dir().join("data")
    }
}

/// The most a `.git` file or a `commondir` file is read.
const GIT_LINK_LIMIT: u64 = 4096;

/// The main working tree of the repository whose linked worktree holds
/// `dir`: the nearest `.git` at or above `dir` is a file naming a git
/// folder whose `commondir` leads to the main `.git` folder.
fn main_worktree_of(dir: &Path) -> Option<PathBuf> {
    for folder in dir.ancestors() {
        let dot_git = folder.join(".git");
        let Ok(metadata) = std::fs::symlink_metadata(&dot_git) else {
            continue;
        };
        if !metadata.is_file() {
            // A main working tree, or something that is not git's.
            return None;
        }
        let link = crate::regular::read_to_string(&dot_git, GIT_LINK_LIMIT).ok()?;
        let git_dir = folder.join(link.strip_prefix("gitdir:")?.trim());
        let common =
            crate::regular::read_to_string(&git_dir.join("commondir"), GIT_LINK_LIMIT).ok()?;
        let common = git_dir.join(common.trim()).canonicalize().ok()?;
        if common.file_name()? != ".git" {
            // A bare repository has no main working tree.
            return None;
        }
        let main = common.parent()?.to_path_buf();
        return (main.join(".git") == common && main.is_dir()).then_some(main);
    }
    None
}
