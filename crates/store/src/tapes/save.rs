//! Saving a recording into the tapes folder, as ClaudeControl's record
//! modes say ([`RecordMode`]): the folder is read, each exchange already on
//! tape is kept (`new`) or replaced where it is (`overwrite`) — each tape
//! changed through [`Tapes::update`], so under its writers' lock and on
//! what the tape holds then — and the rest goes to a new tape, written
//! under its own lock and never over a tape another recorder wrote there
//! meanwhile. Nothing recorded is dropped: an exchange that can no longer
//! be placed in the tape it was found in goes to the new tape.

use std::{
    collections::{BTreeMap, BTreeSet},
    fmt,
    path::{Path, PathBuf},
};

use switchboard_model::tape::{
    Exchange, Pty, Tape,
    index::{Context, Place, TapeIndex, input_bytes},
    record::{RecordMode, Recording, tape_of},
};

use super::{Held, Tapes};
use crate::{StoreError, clock};

/// Where a recording goes and what it is of.
#[derive(Debug, Clone)]
pub struct RecordTarget {
    /// The new tape's file ([`Tapes::path_for`]).
    pub path: PathBuf,
    /// What is done with exchanges already on tape.
    pub mode: RecordMode,
    /// The program, its arguments, folder and environment (`prompt` unset):
    /// what exchanges are looked up under.
    pub context: Context,
    /// The terminal's size.
    pub pty: Option<Pty>,
}

/// What saving a recording did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Saved {
    /// The new tape and how many exchanges it holds, if one was written.
    pub written: Option<(PathBuf, usize)>,
    /// Tapes whose exchanges were replaced, with how many.
    pub replaced: Vec<(String, usize)>,
    /// Exchanges already on tape, kept (`new` mode).
    pub known: usize,
    /// Tapes whose exchanges could not be replaced, with why: those
    /// exchanges went to the new tape instead.
    pub unplaced: Vec<(String, String)>,
    /// Nothing was recorded: the mode is `disabled`.
    pub disabled: bool,
}

impl fmt::Display for Saved {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.disabled {
            return formatter.write_str("nothing recorded (--record disabled)");
        }
        let mut said = Vec::new();
        if let Some((path, count)) = &self.written {
            said.push(format!(
                "recorded {count} new exchange{} to {}",
                if *count == 1 { "" } else { "s" },
                path.display()
            ));
        }
        for (path, count) in &self.replaced {
            said.push(format!("replaced {count} in {path}"));
        }
        for (path, reason) in &self.unplaced {
            said.push(format!(
                "could not replace in {path} ({reason}): recorded to the new tape instead"
            ));
        }
        if self.known > 0 {
            said.push(format!("{} already on tape (kept)", self.known));
        }
        if said.is_empty() {
            said.push("nothing to record".to_owned());
        }
        formatter.write_str(&said.join("; "))
    }
}

impl Tapes {
    /// Saves `recording` as `target` says (see the module).
    pub fn save_recording(
        &self,
        target: &RecordTarget,
        recording: Recording,
    ) -> Result<Saved, StoreError> {
        let mut saved = Saved::default();
        if target.mode == RecordMode::Disabled {
            saved.disabled = true;
            return Ok(saved);
        }
        let own = self.relative(&target.path);
        // A tape of the same name is replaced whole in overwrite mode: it
        // does not count as already recorded.
        let (paths, tapes): (Vec<String>, Vec<Tape>) = self
            .load()?
            .tapes
            .into_iter()
            .filter(|entry| target.mode != RecordMode::Overwrite || entry.path != own)
            .map(|entry| (entry.path, entry.tape))
            .unzip();
        let index = TapeIndex::build(&tapes);
        let mut lookup = target.context.clone();
        let mut fresh = BTreeMap::new();
        let mut replacing = BTreeMap::<usize, Vec<(usize, Exchange)>>::new();
        let mut last = None;
        for (n, exchange) in recording.exchanges.into_iter().enumerate() {
            lookup.prompt = exchange.pre.prompt.clone();
            let found = index.lookup(&tapes, &lookup, &input_bytes(&exchange), last);
            last = found.or(last);
            match found {
                None => {
                    fresh.insert(n, exchange);
                }
                Some(_) if target.mode == RecordMode::New => saved.known += 1,
                Some((t, _)) => replacing.entry(t).or_default().push((n, exchange)),
            }
        }
        for (t, exchanges) in replacing {
            let mut placed = BTreeSet::new();
            let updated = self.update(&self.root.join(&paths[t]), |tape| {
                placed = place(tape, &target.context, &exchanges);
                Ok(!placed.is_empty())
            });
            if let Err(error) = updated {
                placed.clear();
                saved.unplaced.push((paths[t].clone(), error.to_string()));
            }
            if !placed.is_empty() {
                saved.replaced.push((paths[t].clone(), placed.len()));
            }
            fresh.extend(exchanges.into_iter().filter(|(n, _)| !placed.contains(n)));
        }
        let has_banner = tapes.iter().any(|tape| {
            tape.meta.program == target.context.program
                && tape.meta.args == target.context.args
                && !tape.meta.banner().is_empty()
        });
        let banner = recording
            .banner
            .filter(|_| !has_banner || target.mode == RecordMode::Overwrite);
        if fresh.is_empty() && banner.is_none() {
            return Ok(saved);
        }
        let tape = tape_of(
            &target.context,
            target.pty,
            clock::now().to_string(),
            format!("switchboard {}", env!("CARGO_PKG_VERSION")),
            banner,
            recording.redacted,
            fresh.into_values().collect(),
        );
        let count = tape.exchanges.len();
        let path = self.write_new(&target.path, target.mode, &tape)?;
        saved.written = Some((path, count));
        Ok(saved)
    }

    /// Writes the new tape at `path`; in `new` mode a tape written there
    /// meanwhile is kept and the recording goes to `<name>-2.json5` (or the
    /// next free number). Returns the file written.
    fn write_new(&self, path: &Path, mode: RecordMode, tape: &Tape) -> Result<PathBuf, StoreError> {
        let stem = path
            .file_stem()
            .map(|stem| stem.to_string_lossy().into_owned())
            .unwrap_or_default();
        for n in 1..=100 {
            let candidate = if n == 1 {
                path.to_owned()
            } else {
                path.with_file_name(format!("{stem}-{n}.json5"))
            };
            if mode == RecordMode::New && candidate.exists() {
                continue;
            }
            let held = Held::take(&candidate)?;
            // Written meanwhile: checked again under the lock.
            if mode == RecordMode::New && candidate.exists() {
                continue;
            }
            held.replace(tape)?;
            return Ok(candidate);
        }
        Err(StoreError::NamesTaken {
            path: path.to_owned(),
        })
    }
}

/// Puts each of `exchanges` (numbered in their recording) in place of the
/// exchange `tape` holds for it now; returns the numbers placed.
fn place(tape: &mut Tape, context: &Context, exchanges: &[(usize, Exchange)]) -> BTreeSet<usize> {
    let mut lookup = context.clone();
    let mut found: Vec<(usize, usize, &Exchange)> = Vec::new();
    {
        let tapes = std::slice::from_ref(&*tape);
        let index = TapeIndex::build(tapes);
        let mut last: Option<Place> = None;
        for (n, exchange) in exchanges {
            lookup.prompt = exchange.pre.prompt.clone();
            if let Some(place) = index.lookup(tapes, &lookup, &input_bytes(exchange), last) {
                found.push((*n, place.1, exchange));
                last = Some(place);
            }
        }
    }
    found
        .into_iter()
        .map(|(n, e, exchange)| {
            tape.exchanges[e] = exchange.clone();
            n
        })
        .collect()
}
