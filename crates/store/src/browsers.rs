//! Browsers paired with `switchboard serve` ([`switchboard_model::browser`]):
//! `browser-sessions.json` in the config folder (never the workspace),
//! mode 0600, holding digests only. A code, a cookie or a page key is shown
//! once, when it is made.

use std::path::{Path, PathBuf};

use switchboard_model::{
    Timestamp,
    browser::{BrowserFile, BrowserSession, Pairing, Secrets},
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
    // In the config folder, which may be linked anywhere.
    let anywhere = Path::new(crate::regular::ANYWHERE);
    match crate::regular::read_to_string_in(anywhere, &path, 1 << 20) {
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
/// secrets, the cookie and the page key (64 hex digits each), whose
/// digests only are kept.
pub fn pair(
    dir: &Path,
    code: &str,
    label: &str,
    now: Timestamp,
) -> Result<(BrowserSession, Secrets), StoreError> {
    let secrets = Secrets {
        cookie: random_hex(&path(dir), 32)?,
        page_key: random_hex(&path(dir), 32)?,
    };
    let id = format!("b{}", random_hex(&path(dir), 4)?);
    let session = change(dir, |file| Ok(file.pair(code, &secrets, id, label, now)?))?;
    Ok((session, secrets))
}

/// Records that paired browser `id` reached a server at `now`, once a
/// minute at most ([`BrowserFile::saw`]): whether the file changed.
pub fn seen(dir: &Path, id: &str, now: Timestamp) -> Result<bool, StoreError> {
    let _lock = DirLock::acquire(dir)?;
    let mut file = load(dir)?;
    if !file.saw(id, now) {
        return Ok(false);
    }
    let text = serde_json::to_string_pretty(&file).map_err(|source| StoreError::Encode {
        what: "browser sessions",
        source,
    })?;
    write_atomic_private(&path(dir), text.as_bytes())?;
    Ok(true)
}

/// Removes session `id`; its cookie stops working at once.
pub fn revoke(dir: &Path, id: &str) -> Result<BrowserSession, StoreError> {
    change(dir, |file| Ok(file.revoke(id)?))
}

/// The browser sessions as a server checks them at every request and
/// event: the file is read again only when it changed. Another process
/// pairing or revoking a browser replaces it (a rename), which changes
/// its inode; a tool writing it in place changes its status-change time,
/// which no tool sets back (unlike the modification time, which `cp -p`
/// or `touch -d` do). Either way a revocation holds at the next check.
#[derive(Debug)]
pub struct Current {
    dir: PathBuf,
    kept: std::sync::Mutex<Option<(Stamp, std::sync::Arc<BrowserFile>)>>,
}

/// What tells one version of the file from another, the file a symlink
/// names included (it is what is read): its device and inode, size, and
/// modification and status-change times to the nanosecond (none when
/// there is no file).
type Stamp = Option<(u64, u64, u64, i64, i64, i64, i64)>;

impl Current {
    /// The sessions kept in `dir`.
    pub fn new(dir: PathBuf) -> Self {
        Self {
            dir,
            kept: std::sync::Mutex::new(None),
        }
    }

    /// The file as it is now.
    pub fn file(&self) -> Result<std::sync::Arc<BrowserFile>, StoreError> {
        use std::os::unix::fs::MetadataExt as _;
        let path = path(&self.dir);
        let stamp: Stamp = match std::fs::metadata(&path) {
            Ok(meta) => Some((
                meta.dev(),
                meta.ino(),
                meta.size(),
                meta.mtime(),
                meta.mtime_nsec(),
                meta.ctime(),
                meta.ctime_nsec(),
            )),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
            Err(error) => return Err(StoreError::io("could not read", &path)(error)),
        };
        let mut kept = self
            .kept
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((seen, file)) = kept.as_ref()
            && *seen == stamp
        {
            return Ok(std::sync::Arc::clone(file));
        }
        let file = std::sync::Arc::new(load(&self.dir)?);
        *kept = Some((stamp, std::sync::Arc::clone(&file)));
        Ok(file)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use super::*;

    #[test]
    fn the_current_sessions_are_read_again_once_another_process_changed_them() {
        let dir = tempfile::tempdir().unwrap();
        let current = Current::new(dir.path().to_owned());
        assert!(current.file().unwrap().sessions.is_empty());
        let code = new_pairing(dir.path(), crate::clock::now()).unwrap();
        let (session, secrets) = pair(dir.path(), &code, "phone", crate::clock::now()).unwrap();
        let cookie = secrets.cookie;
        let file = current.file().unwrap();
        assert!(file.holder(&cookie).is_some());
        assert!(
            file.admit(&cookie, Some(&secrets.page_key)).is_ok(),
            "paired with its page key"
        );
        assert!(
            std::sync::Arc::ptr_eq(&file, &current.file().unwrap()),
            "unchanged, it is not read again"
        );
        revoke(dir.path(), &session.id).unwrap();
        assert!(current.file().unwrap().holder(&cookie).is_none());
    }

    #[test]
    fn a_sessions_file_kept_behind_a_symlink_is_read_again_when_what_it_names_changed() {
        let dir = tempfile::tempdir().unwrap();
        let kept = dir.path().join("kept");
        let config = dir.path().join("config");
        std::fs::create_dir_all(&config).unwrap();
        let code = new_pairing(&kept, crate::clock::now()).unwrap();
        let cookie = pair(&kept, &code, "phone", crate::clock::now())
            .unwrap()
            .1
            .cookie;
        std::os::unix::fs::symlink(path(&kept), path(&config)).unwrap();
        let current = Current::new(config);
        assert!(current.file().unwrap().holder(&cookie).is_some());
        // Revoked where the file lives (replaced there, the symlink left).
        let id = load(&kept).unwrap().sessions[0].id.clone();
        revoke(&kept, &id).unwrap();
        assert!(current.file().unwrap().holder(&cookie).is_none());
    }
}
