//! Terminal tapes on disk, in ClaudeControl's layout: a tapes folder
//! (`tapes/` in the workspace unless given), `<program>/<name>.json5`,
//! every `**/*.json5` loaded in path order. A tape that does not read is
//! listed with its file, line:column and reason, never rewritten, and never
//! stops the others from loading. A tape is written as ClaudeControl writes
//! it: under an exclusive `flock` on `<tape>.json5.tmp` (what its
//! portalocker takes, retried every 0.25 s for up to 5 s), into that file,
//! then renamed over the tape.

use std::{
    fs::File,
    io::Write,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use serde::{Deserialize, Serialize};
use switchboard_model::tape::{Tape, codec};

use crate::{StoreError, Workspace};

/// The tapes folder inside a workspace.
pub const TAPES_DIR: &str = "tapes";

/// How long a write waits for another writer's lock.
pub const LOCK_WAIT: Duration = Duration::from_secs(5);

/// A tape that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TapeProblem {
    /// The file, relative to the tapes folder.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// Why.
    pub reason: String,
}

/// A tape read from disk.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedTape {
    /// The file, relative to the tapes folder, `/`-separated.
    pub path: String,
    /// What it holds.
    pub tape: Tape,
}

/// Every tape of a folder, and those that did not read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Loaded {
    /// The tapes, by path.
    pub tapes: Vec<LoadedTape>,
    /// The files that did not read, by path.
    pub problems: Vec<TapeProblem>,
}

/// A tapes folder.
#[derive(Debug, Clone)]
pub struct Tapes {
    root: PathBuf,
}

impl Tapes {
    /// `tapes/` in `workspace`.
    pub fn in_workspace(workspace: &Workspace) -> Self {
        Self::at(workspace.root().join(TAPES_DIR))
    }

    /// A folder given explicitly (`--tapes DIR`).
    pub fn at(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Every `**/*.json5` below the folder (symlinks not followed), in path
    /// order, each with its path relative to the folder; a missing folder
    /// has none.
    pub fn files(&self) -> Result<Vec<(String, PathBuf)>, StoreError> {
        let mut files = Vec::new();
        let mut pending = vec![self.root.clone()];
        while let Some(dir) = pending.pop() {
            let entries = match std::fs::read_dir(&dir) {
                Ok(entries) => entries,
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
                Err(error) => {
                    return Err(StoreError::Io {
                        action: "could not list",
                        path: dir,
                        source: error,
                    });
                }
            };
            for entry in entries.flatten() {
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let path = entry.path();
                if kind.is_dir() {
                    pending.push(path);
                } else if kind.is_file() && path.extension().is_some_and(|ext| ext == "json5") {
                    files.push(path);
                }
            }
        }
        files.sort();
        Ok(files
            .into_iter()
            .map(|file| (self.relative(&file), file))
            .collect())
    }

    /// Reads every tape of [`Tapes::files`]; those that do not read are
    /// listed as problems.
    pub fn load(&self) -> Result<Loaded, StoreError> {
        let mut loaded = Loaded::default();
        for (path, file) in self.files()? {
            let text = match std::fs::read(&file) {
                Ok(bytes) => match String::from_utf8(bytes) {
                    Ok(text) => text,
                    Err(error) => {
                        let (line, column) =
                            position(error.as_bytes(), error.utf8_error().valid_up_to());
                        loaded.problems.push(TapeProblem {
                            path,
                            line,
                            column,
                            reason: "the file is not UTF-8 text".to_owned(),
                        });
                        continue;
                    }
                },
                Err(error) => {
                    loaded.problems.push(TapeProblem {
                        path,
                        line: 1,
                        column: 1,
                        reason: format!("could not read it: {error}"),
                    });
                    continue;
                }
            };
            match codec::decode(&text) {
                Ok(tape) => loaded.tapes.push(LoadedTape { path, tape }),
                Err(error) => loaded.problems.push(TapeProblem {
                    path,
                    line: error.line,
                    column: error.column,
                    reason: error.reason,
                }),
            }
        }
        Ok(loaded)
    }

    /// The tape `id` — its path in the folder, `program/name`, with or
    /// without `.json5`. A tape that does not read is `CORRUPT_FILE` with
    /// its line:column.
    pub fn get(&self, id: &str) -> Result<Tape, StoreError> {
        let path = self.find(id)?;
        let text =
            std::fs::read_to_string(&path).map_err(StoreError::io("could not read", &path))?;
        codec::decode(&text).map_err(|error| StoreError::Corrupt {
            path,
            reason: error.to_string(),
        })
    }

    /// The file of tape `id` (see [`Tapes::get`]).
    pub fn find(&self, id: &str) -> Result<PathBuf, StoreError> {
        let name = if id.ends_with(".json5") {
            id.to_owned()
        } else {
            format!("{id}.json5")
        };
        self.files()?
            .into_iter()
            .find(|(relative, _)| *relative == name)
            .map(|(_, path)| path)
            .ok_or_else(|| StoreError::NotFound {
                what: "tape",
                id: id.to_owned(),
            })
    }

    /// Keeps `note` as exchange `exchange`'s `annotations.note` in tape
    /// `id` (an empty note removes it) and writes the tape back in
    /// ClaudeControl's form, under its lock. A hand-written tape loses its
    /// comments and layout, as when ClaudeControl rewrites it.
    pub fn annotate(&self, id: &str, exchange: usize, note: &str) -> Result<(), StoreError> {
        let path = self.find(id)?;
        // Read and written under the writers' lock: a tape rewritten
        // meanwhile by a recorder is not overwritten with its old self.
        let held = Held::take(&path)?;
        let mut tape = self.get(id)?;
        let count = tape.exchanges.len();
        let annotations = &mut tape
            .exchanges
            .get_mut(exchange)
            .ok_or_else(|| {
                StoreError::Invalid(format!(
                    "tape {id} has {count} exchanges, not {}",
                    exchange + 1
                ))
            })?
            .annotations;
        let note = note.trim();
        if note.is_empty() {
            annotations.remove("note");
        } else {
            annotations.insert("note".to_owned(), note.into());
        }
        held.replace(&tape)
    }

    /// Writes tape `id` as asciicast v3 beside it (`<name>.cast`, which
    /// the loader skips); returns that file.
    pub fn export_cast(&self, id: &str) -> Result<PathBuf, StoreError> {
        let tape = self.get(id)?;
        let path = self.find(id)?.with_extension("cast");
        let title = id.trim_end_matches(".json5");
        crate::atomic::write_atomic(
            &path,
            switchboard_model::tape::export::cast(&tape, title).as_bytes(),
        )?;
        Ok(path)
    }

    /// Where the tape `name` of `program` goes: `<program's base
    /// name>/<name>.json5`. Names that are not plain file names are
    /// refused.
    pub fn path_for(&self, program: &str, name: &str) -> Result<PathBuf, StoreError> {
        let base = Path::new(program)
            .file_name()
            .and_then(|base| base.to_str())
            .unwrap_or_default();
        for (what, part) in [("program", base), ("tape name", name)] {
            let plain = !part.is_empty()
                && !part.starts_with('.')
                && !part.contains(['/', '\\', '\0'])
                && part.len() <= 200;
            if !plain {
                return Err(StoreError::Invalid(format!(
                    "{what} {part:?} cannot name a tape file"
                )));
            }
        }
        Ok(self.root.join(base).join(format!("{name}.json5")))
    }

    /// Writes `tape` to `path` as ClaudeControl does (see the module).
    pub fn write(&self, path: &Path, tape: &Tape) -> Result<(), StoreError> {
        let held = Held::take(path)?;
        held.replace(tape)
    }

    fn relative(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .components()
            .map(|part| part.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/")
    }
}

/// The writers' lock on a tape: an exclusive `flock` on `<tape>.json5.tmp`,
/// the file the new text is written into before it is renamed over the
/// tape (what ClaudeControl's portalocker takes), retried every 0.25 s for
/// up to [`LOCK_WAIT`].
struct Held {
    file: File,
    temp: PathBuf,
    path: PathBuf,
}

impl Held {
    fn take(path: &Path) -> Result<Self, StoreError> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(StoreError::io("could not create", parent))?;
        }
        let mut temp_name = path.as_os_str().to_owned();
        temp_name.push(".tmp");
        let temp = PathBuf::from(temp_name);
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&temp)
            .map_err(StoreError::io("could not open", &temp))?;
        let started = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) if started.elapsed() < LOCK_WAIT => {
                    std::thread::sleep(Duration::from_millis(250));
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(StoreError::Invalid(format!(
                        "{} is locked by another writer for more than {} s",
                        temp.display(),
                        LOCK_WAIT.as_secs()
                    )));
                }
                Err(std::fs::TryLockError::Error(error)) => {
                    return Err(StoreError::Io {
                        action: "could not lock",
                        path: temp,
                        source: error,
                    });
                }
            }
        }
        Ok(Self {
            file,
            temp,
            path: path.to_owned(),
        })
    }

    /// Writes `tape` into the locked temp file and renames it over the tape.
    fn replace(mut self, tape: &Tape) -> Result<(), StoreError> {
        let text = codec::encode(tape).map_err(|source| StoreError::Encode {
            what: "tape",
            source,
        })?;
        self.file
            .set_len(0)
            .and_then(|()| self.file.write_all(text.as_bytes()))
            .and_then(|()| self.file.sync_all())
            .map_err(StoreError::io("could not write", &self.temp))?;
        std::fs::rename(&self.temp, &self.path)
            .map_err(StoreError::io("could not replace", &self.path))
    }
}

/// The 1-based line and column of byte `offset` in `bytes`.
fn position(bytes: &[u8], offset: usize) -> (usize, usize) {
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.iter().filter(|byte| **byte == b'\n').count() + 1;
    let column = before
        .iter()
        .rev()
        .take_while(|byte| **byte != b'\n')
        .count()
        + 1;
    (line, column)
}
