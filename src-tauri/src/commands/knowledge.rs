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
    clock,
    knowledge::{learnings, playbooks, quarantine},
};
use tauri::State;

use super::on_workspace;
use crate::state::AppState;

/// Everything the view shows; a part that cannot be read becomes a warning.
#[tauri::command]
pub async fn knowledge(state: State<'_, AppState>) -> Result<KnowledgeOverview, ErrorPayload> {
    on_workspace(&state, |workspace| {
        Ok(switchboard_store::knowledge::overview(
            workspace,
            clock::now(),
        ))
    })
    .await
}

/// Searches knowledge, bringing the index up to date first.
#[tauri::command]
pub async fn knowledge_search(
    state: State<'_, AppState>,
    request: SearchQuery,
) -> Result<SearchResults, ErrorPayload> {
    let search = state.search.clone();
    on_workspace(&state, move |workspace| {
        search.with(workspace, |index| {
            index.sync_and_search(workspace, &request, clock::now())
        })
    })
    .await
}

/// Appends a learning.
#[tauri::command]
pub async fn learn(
    state: State<'_, AppState>,
    request: NewLearning,
) -> Result<Appended, ErrorPayload> {
    on_workspace(&state, move |workspace| {
        learnings::append(
            workspace,
            &request.category,
            &request.title,
            &request.body,
            clock::now(),
        )
    })
    .await
}

/// Counts a vote.
#[tauri::command]
pub async fn bullet_vote(
    state: State<'_, AppState>,
    request: VoteRequest,
) -> Result<Bullet, ErrorPayload> {
    on_workspace(&state, move |workspace| {
        playbooks::vote(
            workspace,
            &request.bullet.task_type,
            &request.bullet.id,
            request.helpful,
            clock::now(),
        )
    })
    .await
}

/// Changes a bullet's content.
#[tauri::command]
pub async fn bullet_edit(
    state: State<'_, AppState>,
    request: BulletEditRequest,
) -> Result<Bullet, ErrorPayload> {
    on_workspace(&state, move |workspace| {
        playbooks::edit(
            workspace,
            &request.bullet.task_type,
            &request.bullet.id,
            &request.content,
            clock::now(),
        )
    })
    .await
}

/// Adds a bullet.
#[tauri::command]
pub async fn bullet_add(
    state: State<'_, AppState>,
    request: BulletAddRequest,
) -> Result<Bullet, ErrorPayload> {
    on_workspace(&state, move |workspace| {
        playbooks::add(
            workspace,
            &request.task_type,
            request.section.as_deref(),
            &request.content,
            clock::now(),
        )
    })
    .await
}

/// Quarantines or releases a bullet.
#[tauri::command]
pub async fn quarantine(
    state: State<'_, AppState>,
    request: QuarantineRequest,
) -> Result<Vec<Quarantined>, ErrorPayload> {
    on_workspace(&state, move |workspace| {
        quarantine::set(
            workspace,
            &request.bullet.task_type,
            &request.bullet.id,
            request.on,
            &request.reason,
            clock::now(),
        )
    })
    .await
}
