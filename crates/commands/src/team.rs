//! The Team view's commands: each a few lines over the store's `team`
//! module, on the workspace's opencode-teams folder (`Teams::locate`);
//! Claude Code's teams are only read.

use switchboard_model::{
    ipc::{
        TaskAdvanceRequest, TaskClaimRequest, TaskCreateRequest, TaskDepsRequest,
        TeamCreateRequest, TeamRequest, TeamSendRequest,
    },
    team::{DEFAULT_LEADER, Task, TeamBoard, TeamConfig, TeamEntry, TeamError, TeamSource},
};
use switchboard_store::{
    StoreError, Workspace, clock,
    team::{self, ClaudeTeams, NewTask, Teams},
};

/// The teams with a folder: opencode-teams' by name, then Claude Code's
/// working in the workspace.
pub fn teams(own: &Workspace, claude: Option<&ClaudeTeams>) -> Result<Vec<TeamEntry>, StoreError> {
    team::all_teams(own, claude)
}

/// One team's board: opencode-teams' in the workspace, or a Claude Code
/// team working in it (one [`teams`] lists, never another's).
pub fn team_board(
    own: &Workspace,
    claude: Option<&ClaudeTeams>,
    request: &TeamRequest,
) -> Result<TeamBoard, StoreError> {
    if request.source == TeamSource::ClaudeCode
        && !teams(own, claude)?
            .iter()
            .any(|entry| entry.source == request.source && entry.name == request.team)
    {
        return Err(TeamError::TeamMissing(request.team.clone()).into());
    }
    team::board_of(own, claude, request.source, &request.team)
}

/// Creates an opencode-teams team in the folder the plugin uses here,
/// its leader as given or the plugin's own default.
pub fn team_create(own: &Workspace, request: &TeamCreateRequest) -> Result<TeamConfig, StoreError> {
    let leader = request
        .leader
        .as_deref()
        .map(str::trim)
        .filter(|leader| !leader.is_empty())
        .unwrap_or(DEFAULT_LEADER);
    let name = if leader == DEFAULT_LEADER {
        "Leader"
    } else {
        leader
    };
    Teams::locate(own).create_team(request.name.trim(), (leader, name), clock::now())
}

/// Creates a task.
pub fn task_create(own: &Workspace, request: TaskCreateRequest) -> Result<Task, StoreError> {
    let new = NewTask {
        title: request.title,
        description: request.description,
        priority: request.priority,
        dependencies: request.dependencies,
    };
    team::create_task(&Teams::locate(own), &request.team, new, clock::now())
}

/// Claims a task for a member.
pub fn task_claim(own: &Workspace, request: &TaskClaimRequest) -> Result<Task, StoreError> {
    team::claim_task(
        &Teams::locate(own),
        &request.team,
        &request.id,
        &request.agent,
        clock::now(),
    )
}

/// Moves a task forward; completion cascades.
pub fn task_advance(own: &Workspace, request: &TaskAdvanceRequest) -> Result<Task, StoreError> {
    team::advance_task(
        &Teams::locate(own),
        &request.team,
        &request.id,
        request.status,
        clock::now(),
    )
    .map(|(task, _)| task)
}

/// Edits a task's dependencies.
pub fn task_deps(own: &Workspace, request: &TaskDepsRequest) -> Result<Task, StoreError> {
    team::edit_dependencies(
        &Teams::locate(own),
        &request.team,
        &request.id,
        &request.add,
        &request.remove,
        clock::now(),
    )
}

/// Sends a message, or broadcasts it.
pub fn team_send(own: &Workspace, request: &TeamSendRequest) -> Result<(), StoreError> {
    let teams = Teams::locate(own);
    let now = clock::now();
    match &request.to {
        Some(to) => team::send_message(
            &teams,
            &request.team,
            &request.from,
            to,
            request.kind,
            &request.text,
            now,
        )
        .map(drop),
        None => {
            team::send_broadcast(&teams, &request.team, &request.from, &request.text, now).map(drop)
        }
    }
}
