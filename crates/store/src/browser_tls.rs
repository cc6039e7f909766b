//! The certificate `switchboard serve --tls-self-signed` made for this
//! machine: `browser-tls/cert.pem` and `key.pem` in the config folder
//! (never the workspace), the folder 0700 and both files 0600, written
//! atomically under the folder's lock. What a certificate holds and
//! whether it still serves is the caller's to judge (the CLI's openssl);
//! here it is read, kept or replaced whole.

use std::{
    os::unix::fs::DirBuilderExt as _,
    path::{Path, PathBuf},
};

use crate::{StoreError, lock::DirLock, write_atomic_private};

/// The folder's name in the config folder.
pub const FOLDER: &str = "browser-tls";

/// The certificate's file name in [`FOLDER`].
pub const CERT: &str = "cert.pem";

/// The private key's file name in [`FOLDER`].
pub const KEY: &str = "key.pem";

/// The largest PEM file read: a certificate or key is a few KiB.
const MAX_PEM_BYTES: u64 = 256 * 1024;

/// A certificate and its private key, as PEM text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsPair {
    /// The certificate (PEM).
    pub cert: String,
    /// Its private key (PEM).
    pub key: String,
}

/// The folder the made certificate lives in.
pub fn folder(config_dir: &Path) -> PathBuf {
    config_dir.join(FOLDER)
}

/// The made certificate's file (to trust it elsewhere, or to show).
pub fn cert_path(config_dir: &Path) -> PathBuf {
    folder(config_dir).join(CERT)
}

/// Keeps or replaces the made certificate: `decide` is given the pair kept
/// now (none when either file is missing) and returns the pair to serve
/// with — the one given, kept as it is, or a new one, written in its
/// place. Two servers starting at once agree: the second decides on what
/// the first wrote.
pub fn keep_or_replace<E: From<StoreError>>(
    config_dir: &Path,
    decide: impl FnOnce(Option<TlsPair>) -> Result<TlsPair, E>,
) -> Result<TlsPair, E> {
    let folder = folder(config_dir);
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&folder)
        .map_err(StoreError::io("could not create", &folder))?;
    let lock = DirLock::acquire(&folder)?;
    let kept = match (read(&lock.file(CERT))?, read(&lock.file(KEY))?) {
        (Some(cert), Some(key)) => Some(TlsPair { cert, key }),
        _ => None,
    };
    let decided = decide(kept.clone())?;
    if kept.as_ref() != Some(&decided) {
        // The key first: a crash between the two leaves a pair that does
        // not match, which the next start replaces.
        write_atomic_private(&lock.file(KEY), decided.key.as_bytes())?;
        write_atomic_private(&lock.file(CERT), decided.cert.as_bytes())?;
    }
    Ok(decided)
}

/// A developer's PEM file (`--tls-cert`, `--tls-key`) whole: refused with
/// `InvalidInput` when it is no regular file (a FIFO is never waited on, a
/// device never read without end) and `FileTooLarge` past 256 KiB.
pub fn read_given(path: &Path) -> std::io::Result<Vec<u8>> {
    let named = Path::new(crate::regular::ANYWHERE);
    crate::regular::read_in(named, path, MAX_PEM_BYTES, crate::regular::LastLink::Follow)
}

/// The text of `path`, none when it is missing.
fn read(path: &Path) -> Result<Option<String>, StoreError> {
    let folder = path.parent().unwrap_or(Path::new(crate::regular::ANYWHERE));
    match crate::regular::read_to_string_in(folder, path, MAX_PEM_BYTES) {
        Ok(text) => Ok(Some(text)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(StoreError::io("could not read", path)(error)),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use std::os::unix::fs::PermissionsExt as _;

    use super::*;

    fn pair(n: u8) -> TlsPair {
        TlsPair {
            cert: format!("cert {n}"),
            key: format!("key {n}"),
        }
    }

    #[test]
    fn a_pair_is_made_once_kept_then_replaced_privately() {
        let dir = tempfile::tempdir().unwrap();
        let made = keep_or_replace::<StoreError>(dir.path(), |kept| {
            assert_eq!(kept, None);
            Ok(pair(1))
        })
        .unwrap();
        assert_eq!(made, pair(1));
        let kept = keep_or_replace::<StoreError>(dir.path(), |kept| {
            assert_eq!(kept, Some(pair(1)));
            Ok(kept.unwrap())
        })
        .unwrap();
        assert_eq!(kept, pair(1));
        let replaced = keep_or_replace::<StoreError>(dir.path(), |_| Ok(pair(2))).unwrap();
        assert_eq!(replaced, pair(2));
        let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&folder(dir.path())), 0o700);
        assert_eq!(mode(&folder(dir.path()).join(KEY)), 0o600);
        assert_eq!(mode(&cert_path(dir.path())), 0o600);
        assert_eq!(
            std::fs::read_to_string(cert_path(dir.path())).unwrap(),
            "cert 2"
        );
    }
}
