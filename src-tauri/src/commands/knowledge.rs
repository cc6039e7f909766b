//! Commands of the Knowledge view: each a few lines over the store's
//! knowledge modules and its search index.

use switchboard_model::{
    ErrorPayload,
    ipc::{
        BulletAddRequest, BulletEditRequest, KnowledgeOverview, NewLearning, QuarantineRequest,
        VoteRequest,
    },
    knowledge::{
        Quarantined,
        learning::Appended,
        playbook::Bullet,
        search::{SearchQuery, SearchResults},
    },
};
use switchboard_store::{
    StoreError, clock,
    knowledge::{
        documents::{self, DocumentKind},
        learnings, playbooks, quarantine,
    },
    search::SearchIndex,
};
use tauri::State;

use crate::state::AppState;

/// `result`'s value, or the default with the error noted in `warnings`.
fn or_note<T: Default>(result: Result<T, StoreError>, warnings: &mut Vec<String>) -> T {
    result.unwrap_or_else(|error| {
        warnings.push(error.to_string());
        T::default()
    })
}

/// Everything the view shows; a part that cannot be read becomes a warning.
#[tauri::command]
pub async fn knowledge(state: State<'_, AppState>) -> Result<KnowledgeOverview, ErrorPayload> {
    let workspace = &state.workspace;
    let mut warnings = Vec::new();
    let problems =
        playbooks::validate(workspace, None, false, clock::now()).map(|report| report.problems);
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
    Ok(KnowledgeOverview {
        learnings: or_note(learnings::list(workspace), &mut warnings),
        playbooks: or_note(playbooks::list(workspace), &mut warnings),
        profiles,
        memories,
        specs,
        quarantine: or_note(quarantine::list(workspace), &mut warnings),
        problems: or_note(problems, &mut warnings),
        warnings,
    })
}

/// Searches knowledge, bringing the index up to date first.
#[tauri::command]
pub async fn knowledge_search(
    state: State<'_, AppState>,
    request: SearchQuery,
) -> Result<SearchResults, ErrorPayload> {
    let mut slot = state.search.lock().map_err(|_| {
        ErrorPayload::new(
            switchboard_model::ErrorCode::Internal,
            "the search index is poisoned",
        )
    })?;
    let index = match slot.as_mut() {
        Some(index) => index,
        None => slot.insert(SearchIndex::open(&state.workspace)?),
    };
    Ok(index.sync_and_search(&state.workspace, &request, clock::now())?)
}

/// Appends a learning.
#[tauri::command]
pub async fn learn(
    state: State<'_, AppState>,
    request: NewLearning,
) -> Result<Appended, ErrorPayload> {
    Ok(learnings::append(
        &state.workspace,
        &request.category,
        &request.title,
        &request.body,
        clock::now(),
    )?)
}

/// Counts a vote.
#[tauri::command]
pub async fn bullet_vote(
    state: State<'_, AppState>,
    request: VoteRequest,
) -> Result<Bullet, ErrorPayload> {
    Ok(playbooks::vote(
        &state.workspace,
        &request.bullet.task_type,
        &request.bullet.id,
        request.helpful,
        clock::now(),
    )?)
}

/// Changes a bullet's content.
#[tauri::command]
pub async fn bullet_edit(
    state: State<'_, AppState>,
    request: BulletEditRequest,
) -> Result<Bullet, ErrorPayload> {
    Ok(playbooks::edit(
        &state.workspace,
        &request.bullet.task_type,
        &request.bullet.id,
        &request.content,
        clock::now(),
    )?)
}

/// Adds a bullet.
#[tauri::command]
pub async fn bullet_add(
    state: State<'_, AppState>,
    request: BulletAddRequest,
) -> Result<Bullet, ErrorPayload> {
    Ok(playbooks::add(
        &state.workspace,
        &request.task_type,
        request.section.as_deref(),
        &request.content,
        clock::now(),
    )?)
}

/// Quarantines or releases a bullet.
#[tauri::command]
pub async fn quarantine(
    state: State<'_, AppState>,
    request: QuarantineRequest,
) -> Result<Vec<Quarantined>, ErrorPayload> {
    Ok(quarantine::set(
        &state.workspace,
        &request.bullet.task_type,
        &request.bullet.id,
        request.on,
        &request.reason,
        clock::now(),
    )?)
}
