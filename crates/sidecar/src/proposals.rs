//! Writes held for approval (the dry-run setting): the allow-list has
//! already passed them, nothing is on disk yet, and the developer applies
//! or drops each one. They live as long as the sidecar process; applying
//! goes through the allow-list, the capability writer and the audit log
//! again, so a proposal cannot become a way around them.

use std::{collections::HashMap, path::PathBuf};

use switchboard_model::{
    Timestamp,
    chat::ChatMode,
    sidecar::{ProposalOutcome, ResponseBody},
};

use crate::{
    NewLearning, SidecarError,
    allow::AllowList,
    apply_learning, apply_write,
    audit::{AuditEntry, AuditLog, Decision},
    writer::WorkspaceWriter,
};

/// What a proposal would change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The whole new content of the file.
    Write(Vec<u8>),
    /// One learnings entry, appended to the file as it is when applied.
    Learning(NewLearning),
}

impl Change {
    /// The bytes the audit log records for it.
    pub fn audited(&self, now: Timestamp) -> Vec<u8> {
        match self {
            Change::Write(content) => content.clone(),
            Change::Learning(learning) => switchboard_model::knowledge::learning::entry_text(
                &learning.title,
                now,
                &learning.body,
            )
            .into_bytes(),
        }
    }
}

/// Characters of a proposal's content shown before approval.
pub const PREVIEW_CHARS: usize = 4_000;

/// One write waiting for the developer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proposal {
    /// The workspace folder.
    pub root: PathBuf,
    /// The mode of the turn that proposed it.
    pub mode: ChatMode,
    /// Building's globs in force then.
    pub build_globs: Vec<String>,
    /// The path as the model gave it (for a learning: the file it goes to).
    pub path: String,
    /// What it would change.
    pub change: Change,
}

/// The proposals of one sidecar process.
#[derive(Debug, Default)]
pub struct Proposals {
    /// Set at the first proposal: this process's mark, so ids kept in a
    /// chat file never name a later process's proposal.
    prefix: String,
    next: u64,
    held: HashMap<String, Proposal>,
    /// What became of the settled ones, for a turn saved after its
    /// proposal was settled.
    settled: HashMap<String, ProposalOutcome>,
}

impl Proposals {
    /// Holds `proposal`, proposed at `now` (the turn's time, read by the
    /// caller); returns its id (`p` + this process's mark + a count). The
    /// mark is the first proposal's time and the process id.
    pub fn hold(&mut self, proposal: Proposal, now: Timestamp) -> String {
        if self.prefix.is_empty() {
            self.prefix = format!("p{:x}{:x}-", now.unix_millis(), std::process::id());
        }
        self.next += 1;
        let id = format!("{}{}", self.prefix, self.next);
        self.held.insert(id.clone(), proposal);
        id
    }

    /// Remembers that proposal `id` was settled as `outcome`.
    pub fn remember(&mut self, id: &str, outcome: ProposalOutcome) {
        self.settled.insert(id.to_owned(), outcome);
    }

    /// What became of proposal `id`, once settled.
    pub fn outcome(&self, id: &str) -> Option<ProposalOutcome> {
        self.settled.get(id).cloned()
    }

    /// Takes proposal `id` out, to be settled with [`settle`] without
    /// holding the list (applying it may wait for a folder's lock).
    pub fn take(&mut self, id: &str) -> Result<Proposal, SidecarError> {
        self.held
            .remove(id)
            .ok_or_else(|| SidecarError::NoProposal(id.to_owned()))
    }
}

/// Applies or drops `proposal` (held as `id`): the event for the chat.
/// `settled` hears the outcome before the chat file records it (so a turn
/// saved meanwhile finds it one way or the other). Blocking file work, a
/// lock wait among it.
pub fn settle(
    id: &str,
    proposal: Proposal,
    apply: bool,
    now: Timestamp,
    settled: impl FnOnce(&ProposalOutcome),
) -> ResponseBody {
    let audit = AuditLog::new(&proposal.root);
    let outcome = if apply {
        let applied = AllowList::for_mode(proposal.mode, &proposal.build_globs)
            .map_err(|error| error.to_string())
            .and_then(|allow| match &proposal.change {
                Change::Write(content) => {
                    let writer =
                        WorkspaceWriter::open(&proposal.root).map_err(|error| error.to_string())?;
                    apply_write(
                        &allow,
                        &writer,
                        &audit,
                        proposal.mode,
                        &proposal.path,
                        content,
                        now,
                    )
                    .map_err(|not_written| not_written.reason)
                }
                Change::Learning(learning) => {
                    let workspace = switchboard_store::Workspace::open(&proposal.root)
                        .map_err(|error| error.to_string())?;
                    apply_learning(&allow, &audit, &workspace, proposal.mode, learning, now)
                        .map_err(|not_written| not_written.reason)
                }
            });
        match applied {
            Ok(written) => ProposalOutcome::Applied {
                bytes: written.bytes,
            },
            Err(reason) => ProposalOutcome::Refused { reason },
        }
    } else {
        audit.record_or_warn(&AuditEntry::of(
            now,
            proposal.mode,
            &proposal.path,
            &proposal.change.audited(now),
            Decision::Discarded,
            None,
        ));
        ProposalOutcome::Discarded
    };
    settled(&outcome);
    // The chat shows the fate when it is opened again (a turn still
    // running finds it when it is saved, through `Proposals::outcome`).
    let recorded = switchboard_store::Workspace::open(&proposal.root)
        .and_then(|workspace| switchboard_store::chats::settle_write(&workspace, id, &outcome));
    if let Err(error) = recorded {
        eprintln!("switchboard-sidecar: the chat could not record what became of {id}: {error}");
    }
    ResponseBody::ProposalSettled {
        proposal: id.to_owned(),
        path: proposal.path,
        outcome,
    }
}

/// The start of `text` shown for approval.
pub fn preview(text: &str) -> String {
    match text.char_indices().nth(PREVIEW_CHARS) {
        Some((cut, _)) => format!("{}\n…", &text[..cut]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    fn proposal() -> Proposal {
        Proposal {
            root: PathBuf::from("/w"),
            mode: ChatMode::Building,
            build_globs: Vec::new(),
            path: "a.md".to_owned(),
            change: Change::Write(b"x".to_vec()),
        }
    }

    #[test]
    fn ids_are_marked_with_the_first_proposals_time_given_by_the_caller() {
        let mut held = Proposals::default();
        let at = Timestamp::from_unix_millis(0xabc_def).unwrap();
        let later = Timestamp::from_unix_millis(0xfff_fff).unwrap();
        let mark = format!("pabcdef{:x}-", std::process::id());
        assert_eq!(held.hold(proposal(), at), format!("{mark}1"));
        assert_eq!(held.hold(proposal(), later), format!("{mark}2"));
    }
}
