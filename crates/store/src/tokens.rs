//! The HTTP server's bearer tokens: `mcp-tokens.json` in the config folder
//! (never the workspace), mode 0600, holding each token's name, scopes and
//! SHA-256 only. A token is shown once, when it is made.

use std::path::{Path, PathBuf};

use switchboard_model::{
    Timestamp,
    token::{PREFIX, Scopes, TokenFile, TokenRecord, digest},
};

use crate::{StoreError, lock::DirLock, write_atomic_private};

/// The file's name in the config folder.
pub const FILE: &str = "mcp-tokens.json";

fn path(dir: &Path) -> PathBuf {
    dir.join(FILE)
}

/// The tokens in `dir` (none when there is no file).
pub fn load(dir: &Path) -> Result<TokenFile, StoreError> {
    let path = path(dir);
    // In the config folder, which may be linked anywhere.
    let anywhere = Path::new(crate::regular::ANYWHERE);
    match crate::regular::read_text_in(anywhere, &path, 1 << 20)? {
        Some(text) => serde_json::from_str(&text).map_err(|error| StoreError::Corrupt {
            path,
            reason: error.to_string(),
        }),
        None => Ok(TokenFile::default()),
    }
}

/// Changes the tokens in `dir` under its lock and writes them back, 0600.
fn change<T>(
    dir: &Path,
    edit: impl FnOnce(&mut TokenFile) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    let _lock = DirLock::acquire(dir)?;
    let mut file = load(dir)?;
    let done = edit(&mut file)?;
    let text = serde_json::to_string_pretty(&file).map_err(|source| StoreError::Encode {
        what: "tokens",
        source,
    })?;
    write_atomic_private(&path(dir), text.as_bytes())?;
    Ok(done)
}

/// Makes a token naming `name`, holding `scopes`, and returns it: `sbt_`
/// and 64 hex digits from the OS's random source. Only its digest is kept.
pub fn create(
    dir: &Path,
    name: &str,
    scopes: &Scopes,
    now: Timestamp,
) -> Result<String, StoreError> {
    let token = format!("{PREFIX}{}", random_hex(&path(dir), 32)?);
    change(dir, |file| {
        Ok(file.add(name, digest(&token), scopes, now)?)
    })?;
    Ok(token)
}

/// `bytes` random bytes from the OS, as lowercase hex: what a token, a
/// pairing code or a browser's cookie is made of (`for_file` names the
/// file it is for, should the OS refuse).
pub(crate) fn random_hex(for_file: &Path, bytes: usize) -> Result<String, StoreError> {
    let mut drawn = vec![0_u8; bytes];
    getrandom::fill(&mut drawn).map_err(|error| StoreError::Io {
        action: "could not draw random bytes for",
        path: for_file.to_owned(),
        source: std::io::Error::other(error.to_string()),
    })?;
    Ok(drawn.iter().map(|byte| format!("{byte:02x}")).collect())
}

/// Removes the token naming `name`; it stops working at once.
pub fn revoke(dir: &Path, name: &str) -> Result<TokenRecord, StoreError> {
    change(dir, |file| Ok(file.revoke(name)?))
}

/// The token `presented` is (its agent's name, its scopes), if it is a
/// token of `dir` now.
pub fn holder(dir: &Path, presented: &str) -> Result<Option<TokenRecord>, StoreError> {
    Ok(load(dir)?.holder(presented).cloned())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn a_token_works_until_revoked_and_the_file_is_private_and_holds_no_token() {
        let dir = tempfile::tempdir().unwrap();
        let plain = Scopes::granting(&[]);
        let name = |token: &str| holder(dir.path(), token).unwrap().map(|record| record.name);
        let token = create(dir.path(), "devbox", &plain, Timestamp::EPOCH).unwrap();
        assert!(
            token.starts_with("sbt_") && token.len() == 4 + 64,
            "{token}"
        );
        assert_eq!(name(&token).as_deref(), Some("devbox"));
        let other = create(dir.path(), "ci", &plain, Timestamp::EPOCH).unwrap();
        assert_ne!(token, other);
        let text = std::fs::read_to_string(dir.path().join(FILE)).unwrap();
        assert!(!text.contains(&token[4..]), "{text}");
        let mode = std::fs::metadata(dir.path().join(FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert!(matches!(
            create(dir.path(), "ci", &plain, Timestamp::EPOCH),
            Err(StoreError::Token(_))
        ));
        revoke(dir.path(), "devbox").unwrap();
        assert_eq!(name(&token), None);
        assert_eq!(name(&other).as_deref(), Some("ci"));
        let unknown = revoke(dir.path(), "devbox").unwrap_err();
        assert_eq!(unknown.code(), switchboard_model::ErrorCode::NotFound);
    }
}
