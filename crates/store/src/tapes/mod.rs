//! Terminal tapes on disk, in ClaudeControl's layout: a tapes folder
//! (`tapes/` in the workspace unless given), `<program>/<name>.json5`,
//! every `**/*.json5` loaded in path order. A tape that does not read is
//! listed with its file, line:column and reason, never rewritten, and never
//! stops the others from loading. A tape is written as ClaudeControl writes
//! it: under an exclusive `flock` on `<tape>.json5.tmp` (what its
//! portalocker takes, retried every 0.25 s for up to 5 s), into that file,
//! then renamed over the tape.

mod held;
mod save;

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use serde::{Deserialize, Serialize};
use switchboard_model::tape::{Tape, codec};

pub use save::{RecordTarget, Saved};

use crate::{StoreError, Workspace};
use held::Held;

/// The tapes folder inside a workspace.
pub const TAPES_DIR: &str = switchboard_model::tape::view::TAPES_DIR;

/// How long a write waits for another writer's lock.
pub const LOCK_WAIT: Duration = Duration::from_secs(5);

/// The most a tape is read to: far over a recorded session's, short of
/// what a file made to exhaust memory holds (a larger one is a problem,
/// never read).
pub const TAPE_LIMIT: u64 = 64 << 20;

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

/// What [`Tapes::redact`] found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Redacted {
    /// Each tape holding secrets (its path), with how many reads or inputs
    /// were (or would be) masked.
    pub holding: Vec<(String, usize)>,
    /// The tapes that did not read, left as they are.
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
        let files = crate::walk::files_under(&self.root, "json5", crate::walk::Unlistable::Fail)?;
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
            let text = match crate::regular::read_in(
                &self.root,
                &file,
                TAPE_LIMIT,
                crate::regular::LastLink::Follow,
            ) {
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
        let text = crate::regular::read_to_string_in(&self.root, &path, TAPE_LIMIT)
            .map_err(StoreError::io("could not read", &path))?;
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
        self.update(&path, |tape| {
            let count = tape.exchanges.len();
            let annotations = &mut tape
                .exchanges
                .get_mut(exchange)
                .ok_or_else(|| StoreError::NoExchange {
                    tape: id.to_owned(),
                    count,
                    asked: exchange + 1,
                })?
                .annotations;
            let note = note.trim();
            if note.is_empty() {
                annotations.remove("note");
            } else {
                annotations.insert("note".to_owned(), note.into());
            }
            Ok(true)
        })?;
        Ok(())
    }

    /// Every change to a tape on disk: reads the tape at `path` under the
    /// writers' lock (so a recording written meanwhile is not overwritten
    /// with an old copy), lets `change` edit it, and writes it back in
    /// ClaudeControl's form when `change` says it changed anything.
    /// Returns what `change` said.
    pub fn update(
        &self,
        path: &Path,
        change: impl FnOnce(&mut Tape) -> Result<bool, StoreError>,
    ) -> Result<bool, StoreError> {
        let held = Held::take(path)?;
        let text = crate::regular::read_to_string_in(&self.root, path, TAPE_LIMIT)
            .map_err(StoreError::io("could not read", path))?;
        let mut tape = codec::decode(&text).map_err(|error| StoreError::Corrupt {
            path: path.to_owned(),
            reason: error.to_string(),
        })?;
        let changed = change(&mut tape)?;
        if changed {
            held.replace(&tape)?;
        }
        Ok(changed)
    }

    /// Masks secrets in every tape of the folder (ClaudeControl's patterns,
    /// see [`switchboard_model::tape::redact`]); with `inplace`, each tape
    /// holding some is rewritten through [`Tapes::update`].
    pub fn redact(&self, inplace: bool) -> Result<Redacted, StoreError> {
        let loaded = self.load()?;
        let mut holding = Vec::new();
        for mut entry in loaded.tapes {
            let masked = if inplace {
                let mut masked = 0;
                self.update(&self.root.join(&entry.path), |tape| {
                    masked = switchboard_model::tape::redact::redact_tape(tape);
                    Ok(masked > 0)
                })?;
                masked
            } else {
                switchboard_model::tape::redact::redact_tape(&mut entry.tape)
            };
            if masked > 0 {
                holding.push((entry.path, masked));
            }
        }
        Ok(Redacted {
            holding,
            problems: loaded.problems,
        })
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
            crate::team::check_file_id(what, part)?;
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
