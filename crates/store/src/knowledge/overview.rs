//! Everything the Knowledge view shows, read at once: a part that cannot
//! be read becomes a warning, never a failure of the rest.

use switchboard_model::{Timestamp, ipc::KnowledgeOverview};

use super::{
    documents::{self, DocumentKind},
    learnings, playbooks, quarantine,
};
use crate::{StoreError, Workspace};

/// `result`'s value, or the default with the error noted in `warnings`.
fn or_note<T: Default>(result: Result<T, StoreError>, warnings: &mut Vec<String>) -> T {
    result.unwrap_or_else(|error| {
        warnings.push(error.to_string());
        T::default()
    })
}

/// The workspace's learnings, playbooks (with what validation finds in
/// them), Delia's documents and the quarantine, as of `now`.
pub fn overview(workspace: &Workspace, now: Timestamp) -> KnowledgeOverview {
    let mut warnings = Vec::new();
    let problems = playbooks::validate(workspace, None, false, now).map(|report| report.problems);
    let mut documents = |kind| {
        let listed = or_note(documents::list(workspace, kind), &mut warnings);
        warnings.extend(listed.refused);
        listed.documents
    };
    let (profiles, memories, specs) = (
        documents(DocumentKind::Profile),
        documents(DocumentKind::Memory),
        documents(DocumentKind::Spec),
    );
    KnowledgeOverview {
        learnings: or_note(learnings::list(workspace), &mut warnings),
        playbooks: or_note(playbooks::list(workspace), &mut warnings),
        profiles,
        memories,
        specs,
        quarantine: or_note(quarantine::list(workspace), &mut warnings),
        problems: or_note(problems, &mut warnings),
        warnings,
    }
}
