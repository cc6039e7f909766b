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
