//! The one way a file is read where an agent, a cloned repository or
//! another process may have put something else in its place: a FIFO
//! (opening it would wait for a writer, forever), a device (`/dev/zero`
//! reads without end), a folder, or a symbolic link out of the folder it
//! belongs in (`theme.json -> ~/.ssh/id_ed25519`).
//!
//! Every read names the folder the file must stay in (`within`: the
//! workspace, a worktree, the config or runtime folder). The path is
//! resolved beneath it — on Linux by `openat2` with `RESOLVE_BENEATH`,
//! through cap-std — so a link may lead anywhere inside it and nowhere
//! outside; the file is opened without blocking, checked to be a regular
//! file on the handle it opened (no race between a check and the open),
//! and read with a bound. Nothing in the project opens a file for reading
//! another way (`clippy.toml`'s `disallowed-methods`).

#![allow(clippy::disallowed_methods)] // The one place that may open files.

use std::{
    fs::File,
    io::{self, Read},
    path::{Component, Path, PathBuf},
};

use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt, OpenOptionsSyncExt};
use cap_std::{ambient_authority, fs::Dir};

/// The most a data file of the store's is read to: far over any real
/// inbox or record, short of what a file made to exhaust memory holds.
pub const DATA_LIMIT: u64 = 1 << 30;

/// The folder of a file read wherever it is: one the developer named (a
/// certificate given on the command line) or keeps (the config folder,
/// which a dotfiles manager may link elsewhere), or one git or an agent's
/// own tool points at by design (a worktree's `commondir`, a transcript).
/// Every such read is marked by using it.
pub const ANYWHERE: &str = "/";

/// Whether a link as the path's last part is followed (staying within).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LastLink {
    /// Followed, if it leads somewhere within.
    Follow,
    /// Refused: the file itself must be no link (a review shows what git
    /// would store, never what a link of the agent's points at).
    Refuse,
}

/// `path` relative to `within` (it may be given either way), refused with
/// `PermissionDenied` when it climbs out (`..`) or is absolute elsewhere.
fn beneath(within: &Path, path: &Path) -> io::Result<PathBuf> {
    let relative = if path.is_absolute() {
        path.strip_prefix(within)
            .map_err(|_| outside(within, path))?
            .to_path_buf()
    } else {
        path.to_path_buf()
    };
    if relative
        .components()
        .any(|part| !matches!(part, Component::Normal(_) | Component::CurDir))
    {
        return Err(outside(within, path));
    }
    Ok(relative)
}

fn outside(within: &Path, path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!(
            "{} leads outside {}: it is not read",
            path.display(),
            within.display()
        ),
    )
}

/// Opens `path`, which must stay inside the folder `within`, with
/// `options`, never waiting: a FIFO opens at once (or fails), and what was
/// opened is refused with `InvalidInput` unless it is a regular file.
pub fn open_in(
    within: &Path,
    path: &Path,
    options: &mut cap_std::fs::OpenOptions,
    last: LastLink,
) -> io::Result<File> {
    let relative = beneath(within, path)?;
    let dir = Dir::open_ambient_dir(within, ambient_authority())?;
    options.nonblock(true).follow(match last {
        LastLink::Follow => FollowSymlinks::Yes,
        LastLink::Refuse => FollowSymlinks::No,
    });
    let opened = match dir.open_with(&relative, options) {
        // A link written as an absolute path is refused beneath a folder
        // even when it leads inside: where it leads, resolved, is opened
        // beneath the folder again (so a link swapped in meanwhile is
        // refused all the same).
        Err(error)
            if error.kind() == io::ErrorKind::PermissionDenied && last == LastLink::Follow =>
        {
            match resolved_inside(within, path) {
                Some(real) => dir.open_with(&real, options),
                None => Err(error),
            }
        }
        other => other,
    };
    let file = opened
        .map_err(|error| match error.kind() {
            // cap-std's words for a way out ("a path led outside of the
            // filesystem") do not say which folder.
            io::ErrorKind::PermissionDenied => outside(within, path),
            _ => io::Error::new(error.kind(), format!("{}: {error}", path.display())),
        })?
        .into_std();
    regular_only(file, path)
}

/// `file` (opened as `path`), refused with `InvalidInput` unless it is a
/// regular file.
fn regular_only(file: File, path: &Path) -> io::Result<File> {
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a regular file", path.display()),
        ));
    }
    Ok(file)
}

/// Opens `path` inside `within` for reading as [`open_in`] does, with no
/// link anywhere on the way (a folder swapped for a link meanwhile is
/// refused, not followed) and no other name for the file (a hard link to
/// a secret reads as the secret): for a path already resolved, judged by
/// its names, and then read.
pub fn open_unlinked_in(within: &Path, path: &Path) -> io::Result<File> {
    let relative = beneath(within, path)?;
    let mut dir = Dir::open_ambient_dir(within, ambient_authority())?;
    let mut names: Vec<&std::ffi::OsStr> = relative
        .components()
        .filter_map(|part| match part {
            Component::Normal(name) => Some(name),
            _ => None,
        })
        .collect();
    let Some(last) = names.pop() else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a file", path.display()),
        ));
    };
    for name in names {
        dir = cap_fs_ext::DirExt::open_dir_nofollow(&dir, name).map_err(|error| {
            io::Error::new(error.kind(), format!("{}: {error}", path.display()))
        })?;
    }
    let mut options = reading();
    options.nonblock(true).follow(FollowSymlinks::No);
    let file = dir
        .open_with(last, &options)
        .map_err(|error| io::Error::new(error.kind(), format!("{}: {error}", path.display())))?
        .into_std();
    let file = regular_only(file, path)?;
    #[cfg(unix)]
    if std::os::unix::fs::MetadataExt::nlink(&file.metadata()?) > 1 {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} has other names (hard links): it is not read",
                path.display()
            ),
        ));
    }
    Ok(file)
}

/// Where `path` leads, relative to `within`, when every link on the way
/// resolves inside it.
fn resolved_inside(within: &Path, path: &Path) -> Option<PathBuf> {
    let within = within.canonicalize().ok()?;
    let real = within.join(path).canonicalize().ok()?;
    real.strip_prefix(&within).ok().map(Path::to_path_buf)
}

/// Options that read (for [`open_in`]).
pub fn reading() -> cap_std::fs::OpenOptions {
    let mut options = cap_std::fs::OpenOptions::new();
    options.read(true);
    options
}

/// Opens the regular file `path` inside `within` for reading (see
/// [`open_in`]).
pub fn open_read_in(within: &Path, path: &Path) -> io::Result<File> {
    open_in(within, path, &mut reading(), LastLink::Follow)
}

/// Reads the regular file `path` inside `within` whole, refused with
/// `FileTooLarge` when it holds more than `limit` bytes (the file is never
/// read past it).
pub fn read_in(within: &Path, path: &Path, limit: u64, last: LastLink) -> io::Result<Vec<u8>> {
    let file = open_in(within, path, &mut reading(), last)?;
    // One that says it holds more is refused unread: a sparse file holds
    // gigabytes of nothing at no cost to whoever made it.
    if file.metadata()?.len() > limit {
        return Err(too_large(path, limit));
    }
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(path, limit));
    }
    Ok(bytes)
}

fn too_large(path: &Path, limit: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!("{} holds more than {limit} bytes", path.display()),
    )
}

/// [`read_in`] as UTF-8 text (`InvalidData` when it is not).
pub fn read_to_string_in(within: &Path, path: &Path, limit: u64) -> io::Result<String> {
    String::from_utf8(read_in(within, path, limit, LastLink::Follow)?)
        .map_err(|error| io::Error::new(io::ErrorKind::InvalidData, error))
}

/// [`read_to_string_in`] for a file that may be missing (`None`), its
/// failures as the store's (`StoreError::Io`, "could not read").
pub fn read_text_in(
    within: &Path,
    path: &Path,
    limit: u64,
) -> Result<Option<String>, crate::StoreError> {
    match read_to_string_in(within, path, limit) {
        Ok(text) => Ok(Some(text)),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(crate::StoreError::Io {
            action: "could not read",
            path: path.to_owned(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.

    use std::os::unix::fs::symlink;

    use super::*;

    #[test]
    fn a_fifo_a_device_a_folder_and_a_way_out_are_refused_at_once_and_a_file_is_read_within_its_bound()
     {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path().join("ws");
        std::fs::create_dir_all(root.join("docs")).unwrap();
        let fifo = root.join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        symlink(&fifo, root.join("theme.json")).unwrap();
        symlink("/dev/zero", root.join("zero.json")).unwrap();
        std::fs::write(temp.path().join("secret"), "AKIA-SECRET").unwrap();
        symlink(temp.path().join("secret"), root.join("leak.md")).unwrap();
        symlink(temp.path(), root.join("up")).unwrap();
        // Without O_NONBLOCK the FIFO's open would wait for a writer
        // forever; without the bound /dev/zero would fill memory.
        for (path, kind) in [
            (fifo.clone(), io::ErrorKind::InvalidInput),
            (root.join("theme.json"), io::ErrorKind::InvalidInput),
            (root.join("docs"), io::ErrorKind::InvalidInput),
            (root.join("leak.md"), io::ErrorKind::PermissionDenied),
            (root.join("up/secret"), io::ErrorKind::PermissionDenied),
            (
                root.join("docs/../../secret"),
                io::ErrorKind::PermissionDenied,
            ),
            (temp.path().join("secret"), io::ErrorKind::PermissionDenied),
        ] {
            let error = read_in(&root, &path, 1024, LastLink::Follow).unwrap_err();
            assert_eq!(error.kind(), kind, "{path:?}: {error}");
        }
        let zero = read_in(&root, &root.join("zero.json"), 1024, LastLink::Follow).unwrap_err();
        assert_ne!(
            zero.kind(),
            io::ErrorKind::FileTooLarge,
            "never read: {zero}"
        );

        let file = root.join("docs/data.json");
        std::fs::write(&file, "0123456789").unwrap();
        assert_eq!(
            read_in(&root, &file, 10, LastLink::Follow).unwrap(),
            b"0123456789"
        );
        assert_eq!(
            read_in(&root, Path::new("docs/data.json"), 9, LastLink::Follow)
                .unwrap_err()
                .kind(),
            io::ErrorKind::FileTooLarge
        );
        // A link that stays inside is followed, unless the file itself
        // must be no link.
        symlink(&file, root.join("inner.json")).unwrap();
        let inner = root.join("inner.json");
        assert_eq!(read_to_string_in(&root, &inner, 64).unwrap(), "0123456789");
        assert!(read_in(&root, &inner, 64, LastLink::Refuse).is_err());
        let mut writing = cap_std::fs::OpenOptions::new();
        writing.write(true).create(true);
        assert!(
            open_in(&root, &fifo, &mut writing, LastLink::Follow).is_err(),
            "a FIFO is not opened for writing either"
        );
    }
}
