//! Browsers paired with `switchboard serve` ([`switchboard_model::browser`]):
//! `browser-sessions.json` in the config folder (never the workspace),
//! mode 0600, holding digests only. A code or a cookie is shown once, when
//! it is made.

use std::path::{Path, PathBuf};

use switchboard_model::{
    Timestamp,
    browser::{BrowserFile, BrowserSession, Pairing},
    token::digest,
};

use crate::{StoreError, lock::DirLock, tokens::random_hex, write_atomic_private};

/// The file's name in the config folder.
pub const FILE: &str = "browser-sessions.json";

fn path(dir: &Path) -> PathBuf {
    dir.join(FILE)
}

/// The pairings and sessions in `dir` (none when there is no file).
pub fn load(dir: &Path) -> Result<BrowserFile, StoreError> {
    let path = path(dir);
    match crate::regular::read_to_string(&path, 1 << 20) {
        Ok(text) => serde_json::from_str(&text).map_err(|error| StoreError::Corrupt {
            path,
            reason: error.to_string(),
        }),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(BrowserFile::default()),
        Err(error) => Err(StoreError::io("could not read", &path)(error)),
    }
}

fn change<T>(
    dir: &Path,
    edit: impl FnOnce(&mut BrowserFile) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    std::fs::create_dir_all(dir).map_err(StoreError::io("could not create", dir))?;
    let _lock = DirLock::acquire(dir)?;
    let mut file = load(dir)?;
    let done = edit(&mut file)?;
    let text = serde_json::to_string_pretty(&file).map_err(|source| StoreError::Encode {
        what: "browser sessions",
        source,
    })?;
    write_atomic_private(&path(dir), text.as_bytes())?;
    Ok(done)
}

/// Makes a one-time pairing code (32 hex digits) and returns it; only its
/// digest is kept.
pub fn new_pairing(dir: &Path, now: Timestamp) -> Result<String, StoreError> {
    let code = random_hex(&path(dir), 16)?;
    change(dir, |file| {
        file.forget_expired(now);
        file.pairings.push(Pairing {
            sha256: digest(&code),
            created_at: now,
        });
        Ok(())
    })?;
    Ok(code)
}

/// Pairs a browser with `code` (used up): returns its session and its
/// cookie (64 hex digits), whose digest only is kept.
pub fn pair(
    dir: &Path,
    code: &str,
    label: &str,
    now: Timestamp,
) -> Result<(BrowserSession, String), StoreError> {
    let cookie = random_hex(&path(dir), 32)?;
    let id = format!("b{}", random_hex(&path(dir), 4)?);
    let session = change(dir, |file| Ok(file.pair(code, &cookie, id, label, now)?))?;
    Ok((session, cookie))
}

/// Removes session `id`; its cookie stops working at once.
pub fn revoke(dir: &Path, id: &str) -> Result<BrowserSession, StoreError> {
    change(dir, |file| Ok(file.revoke(id)?))
}
