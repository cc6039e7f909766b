//! Files the store opens where an agent or another process may have put
//! something else: a FIFO (opening it would wait for a writer, forever), a
//! device (`/dev/zero` reads without end), a directory. Each is opened
//! without blocking, checked to be a regular file on the handle it opened
//! (no race between a check and the open), and read with a bound.

use std::{
    fs::{File, OpenOptions},
    io::{self, Read},
    os::unix::fs::OpenOptionsExt,
    path::Path,
};

/// The most a data file of the store's is read to: far over any real
/// inbox or record, short of what a file made to exhaust memory holds.
pub(crate) const DATA_LIMIT: u64 = 1 << 30;

/// Opens `path` with `options`, never waiting: `O_NONBLOCK`, so a FIFO
/// opens at once (or fails), and refused with `InvalidInput` unless what
/// was opened is a regular file. On a regular file `O_NONBLOCK` changes
/// nothing.
pub(crate) fn open(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    let file = options.custom_flags(nix::libc::O_NONBLOCK).open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a regular file", path.display()),
        ));
    }
    Ok(file)
}

/// Opens the regular file `path` for reading (see [`open`]).
pub(crate) fn open_read(path: &Path) -> io::Result<File> {
    open(path, OpenOptions::new().read(true))
}

/// Reads the regular file `path` whole, refused with `FileTooLarge` when
/// it holds more than `limit` bytes (the file is never read past it).
pub(crate) fn read(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let file = open_read(path)?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("{} holds more than {limit} bytes", path.display()),
        ));
    }
    Ok(bytes)
}

/// [`read`] as UTF-8 text (`InvalidData` when it is not).
pub(crate) fn read_to_string(path: &Path, limit: u64) -> io::Result<String> {
    String::from_utf8(read(path, limit)?)
        .map_err(|error| io::Error::new(io::ErrorKind::InvalidData, error))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.

    use super::*;

    #[test]
    fn a_fifo_a_device_and_a_folder_are_refused_at_once_and_a_file_is_read_within_its_bound() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        // Without O_NONBLOCK this open would wait for a writer forever.
        for path in [fifo.as_path(), Path::new("/dev/zero"), dir.path()] {
            let error = read(path, 1024).unwrap_err();
            assert_eq!(error.kind(), io::ErrorKind::InvalidInput, "{path:?}");
        }
        let writing = open(&fifo, OpenOptions::new().write(true).create(true));
        assert!(writing.is_err(), "a FIFO is not opened for writing either");
        let file = dir.path().join("data.json");
        std::fs::write(&file, "0123456789").unwrap();
        assert_eq!(read(&file, 10).unwrap(), b"0123456789");
        assert_eq!(
            read(&file, 9).unwrap_err().kind(),
            io::ErrorKind::FileTooLarge
        );
        assert_eq!(read_to_string(&file, 64).unwrap(), "0123456789");
    }
}
