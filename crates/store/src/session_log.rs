//! A program session's log in the workspace: `.switchboard/sessions/<id>.cast`
//! (asciicast v3, lines from `model::program::cast`), private to the user
//! (0600), appended to as the session goes — the one kind of workspace file
//! written by appending — and rotated at a size cap: the full file becomes
//! `<id>.<n>.cast` and a new one starts with the header.

use std::{
    fs::{File, OpenOptions},
    io::Write,
    os::unix::fs::OpenOptionsExt,
    path::{Path, PathBuf},
};

use switchboard_model::{
    program::{
        ExitStatus,
        cast::{Log, LogHeader, exit_of_last_line},
    },
    tape::{
        Pty, Tape,
        index::Context,
        record::{RecordMode, tape_of},
    },
};

use crate::{
    StoreError,
    tapes::{RecordTarget, Saved, Tapes},
};

/// The folder of session logs in a workspace.
pub fn dir(workspace_root: &Path) -> PathBuf {
    workspace_root.join(".switchboard").join("sessions")
}

/// One session's log, open for appending.
#[derive(Debug)]
pub struct SessionLog {
    path: PathBuf,
    file: File,
    header: String,
    written: u64,
    cap: u64,
    rotations: u32,
}

fn open_new(path: &Path) -> Result<File, StoreError> {
    #[allow(
        clippy::disallowed_methods,
        reason = "a new log made to append to (create_new follows no link); nothing is read"
    )]
    let made = OpenOptions::new()
        .create_new(true)
        .append(true)
        .mode(0o600)
        .open(path);
    made.map_err(|source| StoreError::Io {
        action: "could not create",
        path: path.to_owned(),
        source,
    })
}

impl SessionLog {
    /// Starts the log of session `id` (an id, never a path: the caller's
    /// model checks it) with its `header` line; rotated past `cap` bytes.
    pub fn create(
        workspace_root: &Path,
        id: &str,
        header: String,
        cap: u64,
    ) -> Result<Self, StoreError> {
        let dir = dir(workspace_root);
        crate::own_folders::create_dir_all(&dir)?;
        let path = dir.join(format!("{id}.cast"));
        let file = open_new(&path)?;
        let mut log = Self {
            path,
            file,
            header,
            written: 0,
            cap: cap.max(4096),
            rotations: 0,
        };
        let header = log.header.clone();
        log.write_line(&header)?;
        Ok(log)
    }

    /// The log's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write_line(&mut self, line: &str) -> Result<(), StoreError> {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        self.file
            .write_all(&bytes)
            .map_err(|source| StoreError::Io {
                action: "could not append to",
                path: self.path.clone(),
                source,
            })?;
        self.written += bytes.len() as u64;
        Ok(())
    }

    /// Appends one event line, rotating first when the file is full.
    pub fn append(&mut self, line: &str) -> Result<(), StoreError> {
        if self.written + line.len() as u64 + 1 > self.cap {
            self.rotate()?;
        }
        self.write_line(line)
    }

    fn rotate(&mut self) -> Result<(), StoreError> {
        self.rotations += 1;
        let stem = self
            .path
            .file_stem()
            .map(|stem| stem.to_string_lossy().into_owned())
            .unwrap_or_default();
        let stem = stem.split('.').next().unwrap_or_default().to_owned();
        let full = self
            .path
            .with_file_name(format!("{stem}.{}.cast", self.rotations));
        std::fs::rename(&self.path, &full).map_err(|source| StoreError::Io {
            action: "could not rotate",
            path: self.path.clone(),
            source,
        })?;
        self.file = open_new(&self.path)?;
        self.written = 0;
        let header = self.header.clone();
        self.write_line(&header)
    }
}

/// A session log found in a workspace.
#[derive(Debug, Clone, PartialEq)]
pub struct Logged {
    /// The session's id (the file's name).
    pub id: String,
    /// Its header.
    pub header: LogHeader,
    /// How the program ended, when its last event says so.
    pub exit: Option<ExitStatus>,
    /// When the log was last written.
    pub modified: Option<std::time::SystemTime>,
}

/// How much of a log's end is read for its last event.
const TAIL: u64 = 1024;

/// The longest header line read.
const MAX_HEADER: u64 = 1 << 20;

/// The last line of `file` (its last [`TAIL`] bytes).
fn last_line(file: &mut File) -> Option<String> {
    use std::io::{Read, Seek, SeekFrom};
    let len = file.metadata().ok()?.len();
    file.seek(SeekFrom::Start(len.saturating_sub(TAIL))).ok()?;
    let mut tail = Vec::new();
    file.read_to_end(&mut tail).ok()?;
    let text = String::from_utf8_lossy(&tail);
    text.lines()
        .rev()
        .find(|line| !line.trim().is_empty())
        .map(str::to_owned)
}

/// The session logs of a workspace, oldest first; a file whose header does
/// not read is passed over (it is listed by none, removed by none).
pub fn list(workspace_root: &Path) -> Result<Vec<Logged>, StoreError> {
    let dir = dir(workspace_root);
    let mut logs = Vec::new();
    for path in crate::walk::files_in(&dir, "cast")? {
        let Some(id) = path
            .file_stem()
            .and_then(|stem| stem.to_str())
            .filter(|id| switchboard_model::program::is_session_id(id))
        else {
            continue;
        };
        let Ok(mut file) = crate::regular::open_read_in(workspace_root, &path) else {
            continue;
        };
        // The header is one line of a few fields: a file with no line
        // end for long is not a log.
        let mut first = String::new();
        let mut header = std::io::Read::take(std::io::BufReader::new(&file), MAX_HEADER);
        if std::io::BufRead::read_line(&mut header, &mut first).is_err() {
            continue;
        }
        if let Ok(header) = serde_json::from_str::<LogHeader>(&first) {
            logs.push(Logged {
                id: id.to_owned(),
                header,
                exit: last_line(&mut file).as_deref().and_then(exit_of_last_line),
                modified: file.metadata().and_then(|meta| meta.modified()).ok(),
            });
        }
    }
    logs.sort_by_key(|logged| (logged.header.timestamp, logged.id.clone()));
    Ok(logs)
}

/// The ended sessions of the workspace at `workspace_root` that only their
/// logs remember (not in `live`), newest first, at most `most`, as `list`
/// shows an ended session (`lost` when its log has no exit: its host was
/// killed).
pub fn ended_sessions(
    workspace_root: &Path,
    live: &std::collections::BTreeSet<String>,
    most: usize,
) -> Result<Vec<switchboard_model::program::ProgramSession>, StoreError> {
    let workspace = workspace_root.display().to_string();
    Ok(list(workspace_root)?
        .iter()
        .rev()
        .filter(|logged| !live.contains(&logged.id))
        .filter_map(|logged| {
            let last = logged
                .modified
                .and_then(|at| at.duration_since(std::time::UNIX_EPOCH).ok())
                .and_then(|since| i64::try_from(since.as_millis()).ok())
                .and_then(switchboard_model::Timestamp::from_unix_millis)
                .unwrap_or_else(crate::clock::now);
            logged.header.ended_session(&workspace, logged.exit, last)
        })
        .take(most)
        .collect())
}

/// The id of the session `session` names in the workspace's logs: an id
/// with a log, or the name of the latest session logged under it.
pub fn find(workspace_root: &Path, session: &str) -> Result<String, StoreError> {
    let logs = list(workspace_root)?;
    logs.iter()
        .rev()
        .find(|logged| {
            logged.id == session
                || logged
                    .header
                    .session
                    .as_ref()
                    .and_then(|logged| logged.name.as_deref())
                    == Some(session)
        })
        .map(|logged| logged.id.clone())
        .ok_or_else(|| StoreError::NotFound {
            what: "session log",
            id: session.to_owned(),
        })
}

/// Removes the log of session `id` (its rotated parts too): for a session
/// that was never anybody's (a start rolled back). An id that is not one,
/// or a log that is not there, removes nothing.
pub fn remove(workspace_root: &Path, id: &str) -> Result<(), StoreError> {
    if !switchboard_model::program::is_session_id(id) {
        return Ok(());
    }
    let dir = dir(workspace_root);
    let parts = (1..)
        .map(|n| dir.join(format!("{id}.{n}.cast")))
        .take_while(|part| part.exists())
        .chain(std::iter::once(dir.join(format!("{id}.cast"))));
    for part in parts {
        match std::fs::remove_file(&part) {
            Ok(()) => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => {
                return Err(StoreError::Io {
                    action: "could not remove",
                    path: part,
                    source,
                });
            }
        }
    }
    Ok(())
}

/// The whole log of session `id` (an id, see [`find`]): its rotated parts
/// oldest first, then the current file, parsed.
pub fn read(workspace_root: &Path, id: &str) -> Result<Log, StoreError> {
    if !switchboard_model::program::is_session_id(id) {
        return Err(StoreError::NotFound {
            what: "session log",
            id: id.to_owned(),
        });
    }
    let dir = dir(workspace_root);
    let mut text = String::new();
    let mut parts: Vec<PathBuf> = (1..)
        .map(|n| dir.join(format!("{id}.{n}.cast")))
        .take_while(|part| part.exists())
        .collect();
    parts.push(dir.join(format!("{id}.cast")));
    // Each part a regular file (a FIFO or a device put in its place is
    // refused, never waited on or read without end), all of them within
    // the store's bound.
    let mut left = crate::regular::DATA_LIMIT;
    for part in &parts {
        match crate::regular::read_in(workspace_root, part, left, crate::regular::LastLink::Follow)
        {
            Ok(bytes) => {
                left = left.saturating_sub(bytes.len() as u64);
                text.push_str(&String::from_utf8_lossy(&bytes));
                text.push('\n');
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Err(StoreError::NotFound {
                    what: "session log",
                    id: id.to_owned(),
                });
            }
            Err(source) => {
                return Err(StoreError::Io {
                    action: "could not read",
                    path: part.clone(),
                    source,
                });
            }
        }
    }
    let current = parts.pop().unwrap_or_default();
    Log::parse(&text).map_err(|error| StoreError::Corrupt {
        path: current,
        reason: error.to_string(),
    })
}

/// Session `id`'s log as a tape (see [`record_tape`]), to be played, not
/// saved.
pub fn as_tape(workspace_root: &Path, id: &str) -> Result<Tape, StoreError> {
    let log = read(workspace_root, id)?;
    let (context, pty) = recorded(id, &log)?;
    let recording = log.recording();
    Ok(tape_of(
        &context,
        Some(pty),
        crate::clock::now().to_string(),
        format!("switchboard {}", env!("CARGO_PKG_VERSION")),
        recording.banner,
        recording.redacted,
        recording.exchanges,
    ))
}

/// What a log says it was recorded from: the program's lookup context and
/// the terminal's size.
fn recorded(id: &str, log: &Log) -> Result<(Context, Pty), StoreError> {
    let logged = log
        .header
        .session
        .clone()
        .ok_or_else(|| StoreError::ForeignLog {
            session: id.to_owned(),
        })?;
    Ok((
        Context {
            program: logged.program,
            args: logged.args,
            cwd: logged.cwd,
            ..Context::default()
        },
        Pty {
            rows: log.header.term.rows,
            cols: log.header.term.cols,
        },
    ))
}

/// Records session `session`'s log (see [`find`]) as a ClaudeControl tape
/// in `tapes`, named `name` (default: the session's name, else its id),
/// by the recorder `rec` uses and [`Tapes::save_recording`].
pub fn record_tape(
    workspace_root: &Path,
    session: &str,
    tapes: &Tapes,
    name: Option<&str>,
    mode: RecordMode,
) -> Result<Saved, StoreError> {
    let id = find(workspace_root, session)?;
    let log = read(workspace_root, &id)?;
    let (context, pty) = recorded(&id, &log)?;
    let name = name
        .map(str::to_owned)
        .or_else(|| {
            log.header
                .session
                .as_ref()
                .and_then(|logged| logged.name.clone())
        })
        .unwrap_or_else(|| id.clone());
    let target = RecordTarget {
        path: tapes.path_for(&context.program, &name)?,
        mode,
        context,
        pty: Some(pty),
    };
    tapes.save_recording(&target, log.recording())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn a_log_is_private_appended_and_rotated_at_its_cap() {
        let temp = tempfile::tempdir().unwrap();
        let mut log = SessionLog::create(
            temp.path(),
            "ps-0123456789ab",
            "{\"version\":3}".into(),
            4096,
        )
        .unwrap();
        let path = log.path().to_owned();
        assert_eq!(
            path,
            temp.path()
                .join(".switchboard/sessions/ps-0123456789ab.cast")
        );
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let event = format!("[0.1,\"o\",\"{}\"]", "x".repeat(100));
        for _ in 0..60 {
            log.append(&event).unwrap();
        }
        let rotated = temp
            .path()
            .join(".switchboard/sessions/ps-0123456789ab.1.cast");
        let full = std::fs::read_to_string(&rotated).unwrap();
        assert!(full.len() <= 4096 && full.starts_with("{\"version\":3}\n"));
        let current = std::fs::read_to_string(&path).unwrap();
        assert!(
            current.starts_with("{\"version\":3}\n"),
            "a new file starts with the header"
        );
        let events = full.lines().count() + current.lines().count() - 2;
        assert_eq!(events, 60, "no event lost across the rotation");
        // A second log of the same id is refused, not appended to.
        assert!(SessionLog::create(temp.path(), "ps-0123456789ab", String::new(), 4096).is_err());
    }
}
