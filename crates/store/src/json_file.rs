//! One JSON document per file, as ClaudeControl's folders hold them
//! (program configurations, reports) and the workspace's chains: read with
//! a clear error for a missing or unreadable file, written indented as
//! Python's `json.dumps(indent=2)` writes them (non-ASCII text kept as
//! UTF-8 where it escapes it as `\uXXXX`; its `json.loads` reads both),
//! atomically, the folder made first.

use std::path::Path;

use serde::{Serialize, de::DeserializeOwned};

use crate::{StoreError, regular, write_atomic};

/// The document at `path`, read within the folder `within`: `NotFound` (a
/// `what` named `id`) when there is none, `Corrupt` when it does not parse
/// as `T`.
pub(crate) fn read<T: DeserializeOwned>(
    within: &Path,
    path: &Path,
    what: &'static str,
    id: &str,
) -> Result<T, StoreError> {
    read_bounded(within, path, what, id, regular::DATA_LIMIT)
}

/// [`read`], of a kind that holds `limit` bytes at most (a larger file is
/// refused unread).
pub(crate) fn read_bounded<T: DeserializeOwned>(
    within: &Path,
    path: &Path,
    what: &'static str,
    id: &str,
    limit: u64,
) -> Result<T, StoreError> {
    let text = match regular::read_to_string_in(within, path, limit) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(StoreError::NotFound {
                what,
                id: id.to_owned(),
            });
        }
        Err(source) => {
            return Err(StoreError::Io {
                action: "could not read",
                path: path.to_owned(),
                source,
            });
        }
    };
    serde_json::from_str(&text).map_err(|error| StoreError::Corrupt {
        path: path.to_owned(),
        reason: error.to_string(),
    })
}

/// Writes `value` (`what`, for an error) at `path`, indented, replacing
/// what was there; its folder is made when missing.
pub(crate) fn write(
    path: &Path,
    value: &impl Serialize,
    what: &'static str,
) -> Result<(), StoreError> {
    if let Some(dir) = path.parent() {
        crate::own_folders::create_dir_all(dir)?;
    }
    let text = serde_json::to_string_pretty(value)
        .map_err(|source| StoreError::Encode { what, source })?;
    write_atomic(path, text.as_bytes())
}

/// [`write`], the file readable by its owner only.
pub(crate) fn write_private(
    path: &Path,
    value: &impl Serialize,
    what: &'static str,
) -> Result<(), StoreError> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|source| StoreError::Encode { what, source })?;
    crate::write_atomic_private(path, text.as_bytes())
}
