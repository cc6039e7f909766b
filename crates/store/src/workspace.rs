//! A workspace folder, where each kind of data lives inside it, and the
//! folder outside it where Switchboard keeps its own records of it.

use std::path::{Path, PathBuf};

use crate::StoreError;

/// The folder of the config folder that holds each workspace's records.
const RECORDS_DIR: &str = "workspaces";

/// How many hex digits of the SHA-256 of a workspace's path name its
/// records' folder.
const RECORDS_KEY_LEN: usize = 24;

/// The folder visual-delivery compatible data lives in, relative to the root.
const VISUAL_DELIVERY_DIR: &str = ".visual-delivery";

/// An opened workspace: an existing folder, held by its absolute path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    root: PathBuf,
    /// Where its records live, when set here rather than found in the
    /// config folder (tests).
    records: Option<PathBuf>,
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
        Ok(Self {
            root,
            records: None,
        })
    }

    /// The same workspace with its records kept in `dir` instead of the
    /// config folder's (a test's own folder).
    #[must_use]
    pub fn with_records_dir(mut self, dir: PathBuf) -> Self {
        self.records = Some(dir);
        self
    }

    /// Where Switchboard keeps its own records of this workspace — the
    /// agents it started, the tool calls it runs as tasks: outside the
    /// workspace, which anyone who works in it (an agent, a cloned
    /// repository) can write, in the config folder's
    /// `workspaces/<key>/` (the key a digest of the workspace's path),
    /// which only its user can. The folder is made when first written.
    pub fn records_dir(&self) -> Result<PathBuf, StoreError> {
        if let Some(dir) = &self.records {
            return Ok(dir.clone());
        }
        let config = crate::settings::config_dir().ok_or(StoreError::NoConfigDir)?;
        Ok(self.records_dir_in(&config))
    }

    /// The workspace's records folder in the config folder `config` (see
    /// [`Workspace::records_dir`]).
    pub fn records_dir_in(&self, config: &Path) -> PathBuf {
        let digest = switchboard_model::token::digest(&self.root.to_string_lossy());
        config
            .join(RECORDS_DIR)
            .join(&digest[..RECORDS_KEY_LEN.min(digest.len())])
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

    /// The folder `kind` of [`Workspace::records_dir`] (`launches`,
    /// `tasks`), made private (0700, with every folder it makes on the way)
    /// when `make` and it is missing.
    pub(crate) fn records_folder(&self, kind: &str, make: bool) -> Result<PathBuf, StoreError> {
        use std::os::unix::fs::DirBuilderExt;

        let dir = self.records_dir()?.join(kind);
        if make {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(&dir)
                .map_err(StoreError::io("could not make", &dir))?;
        }
        Ok(dir)
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
        let link = crate::regular::read_to_string_in(folder, &dot_git, GIT_LINK_LIMIT).ok()?;
        let git_dir = folder.join(link.strip_prefix("gitdir:")?.trim());
        let common =
            // Where git's own pointer leads.
            crate::regular::read_to_string_in(
                Path::new(crate::regular::ANYWHERE),
                &git_dir.join("commondir"),
                GIT_LINK_LIMIT,
            )
            .ok()?;
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
