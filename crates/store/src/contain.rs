//! The one check every read that feeds a prompt, a tool result or the
//! search index goes through: a path in the workspace may be a symlink, but
//! only to somewhere inside the workspace. A repository holding
//! `.naide/learnings/x.md -> ~/.aws/credentials` must not send that file to
//! the model server.

use std::path::{Path, PathBuf};

use crate::StoreError;

/// Where `path` really is, when that is inside the folder `root`: the path
/// with every symlink on the way resolved. Refused with
/// [`StoreError::OutsideWorkspace`] when a symlink leads out of `root`, and
/// with [`StoreError::Io`] when `path` cannot be resolved (missing, a
/// dangling link, a loop).
pub fn inside(root: &Path, path: &Path) -> Result<PathBuf, StoreError> {
    let root = root
        .canonicalize()
        .map_err(StoreError::io("could not resolve", root))?;
    let real = path
        .canonicalize()
        .map_err(StoreError::io("could not resolve", path))?;
    if real.starts_with(&root) {
        Ok(real)
    } else {
        Err(StoreError::OutsideWorkspace {
            path: path.to_owned(),
            target: real,
        })
    }
}

/// Reads the text file `path` of the workspace at `root` through the
/// store's one reader (a regular file, bounded, never waited on),
/// refusing it with [`StoreError::OutsideWorkspace`] when a symlink leads
/// it out of the workspace.
pub fn read_inside(root: &Path, path: &Path) -> Result<String, StoreError> {
    match crate::regular::read_to_string_in(root, path, crate::regular::DATA_LIMIT) {
        Ok(text) => Ok(text),
        Err(error) if error.kind() == std::io::ErrorKind::PermissionDenied => {
            // Say where it leads, as `inside` does.
            inside(root, path)?;
            Err(StoreError::io("could not read", path)(error))
        }
        Err(error) => Err(StoreError::io("could not read", path)(error)),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use std::os::unix::fs::symlink;

    use switchboard_model::ErrorCode;

    use super::*;

    #[test]
    fn links_inside_are_followed_and_links_outside_refused() {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path().join("ws");
        let outside = temp.path().join("secret.txt");
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::write(&outside, "AKIA-SECRET").unwrap();
        std::fs::write(root.join("docs/real.md"), "real").unwrap();
        symlink(root.join("docs/real.md"), root.join("inner.md")).unwrap();
        symlink(&outside, root.join("docs/leak.md")).unwrap();
        symlink(temp.path(), root.join("up")).unwrap();

        assert_eq!(read_inside(&root, &root.join("inner.md")).unwrap(), "real");
        for leak in ["docs/leak.md", "up/secret.txt"] {
            let error = read_inside(&root, &root.join(leak)).unwrap_err();
            assert_eq!(error.code(), ErrorCode::OutsideWorkspace, "{leak}");
            assert!(
                error.to_string().contains("outside the workspace"),
                "{error}"
            );
        }
        // A workspace given through a symlink still contains its files.
        symlink(&root, temp.path().join("alias")).unwrap();
        let alias = temp.path().join("alias");
        assert_eq!(
            read_inside(&alias, &alias.join("docs/real.md")).unwrap(),
            "real"
        );
    }
}
