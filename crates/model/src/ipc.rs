//! The contract between the desktop shell and the UI: command names, their
//! request and response types, and the events the shell pushes.
//!
//! Both sides import these, so a renamed field breaks the build, not the app.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{
    Delivery,
    annotation::Annotation,
    blocking::{FeedbackResponse, Reply},
    chat::{ChatMode, ConversationSummary},
    knowledge::{
        Quarantined, document::Document, learning::LearningsFile, playbook::PlaybookFile,
        validate::Problem,
    },
    settings::Settings,
};

/// Command: describe the open workspace. Request: none.
pub const CMD_WORKSPACE_INFO: &str = "workspace_info";
/// Command: list deliveries newest first. Request: none.
pub const CMD_LIST_DELIVERIES: &str = "list_deliveries";
/// Command: one delivery with its rendered body. Request: [`DeliveryRequest`].
pub const CMD_GET_DELIVERY: &str = "get_delivery";
/// Command: the developer opened a question (its asker hears of it).
pub const CMD_MARK_OPENED: &str = "mark_opened";
/// Command: answer, decline or dismiss a delivery. Request: [`ReplyRequest`];
/// response: the question as answered ([`DeliveryDetail`]), when read back.
pub const CMD_REPLY: &str = "reply";
/// Command: the agents seen through hooks and MCP, as the Agents view shows them.
pub const CMD_LIST_AGENTS: &str = "list_agents";
/// Command: what waits in every running workspace on this machine ("All
/// workspaces"). Response: `Vec<`[`WorkspaceAttention`](crate::registry::WorkspaceAttention)`>`.
pub const CMD_EVERYWHERE: &str = "everywhere";
/// Command: a one-time link pairing a browser with the window's server of
/// the inbox. Response: [`PairingLink`].
pub const CMD_PAIR_BROWSER: &str = "pair_browser";
/// Command: opens (or brings forward) the window of a running workspace.
/// Request: [`WorkspaceRequest`].
pub const CMD_OPEN_WORKSPACE: &str = "open_workspace";
/// Command: whether Codex runs the hooks Switchboard installed in the
/// workspace. Response: `Option<`[`CodexHooksTrust`](crate::agent::codex_hooks::CodexHooksTrust)`>`.
pub const CMD_CODEX_HOOKS_TRUST: &str = "codex_hooks_trust";
/// Command: the agents started here
/// (`Vec<`[`LaunchRow`](crate::agent::launch::LaunchRow)`>`), newest first.
pub const CMD_LAUNCHES: &str = "launches";
/// Command: start an agent. Request:
/// [`LaunchRequest`](crate::agent::launch::LaunchRequest); answers its
/// [`Launch`](crate::agent::launch::Launch).
pub const CMD_LAUNCH_START: &str = "launch_start";
/// Command: what a started agent changed. Request: [`LaunchName`];
/// answers [`WorktreeChanges`](crate::agent::launch::WorktreeChanges).
pub const CMD_LAUNCH_DIFF: &str = "launch_diff";
/// Command: merge a started agent's work. Request: [`LaunchMerge`];
/// answers its [`Launch`](crate::agent::launch::Launch).
pub const CMD_LAUNCH_MERGE: &str = "launch_merge";
/// Command: discard a started agent's work. Request: [`LaunchDiscard`];
/// answers its [`Launch`](crate::agent::launch::Launch).
pub const CMD_LAUNCH_DISCARD: &str = "launch_discard";
/// Command: type a follow-up into a started agent's prompt. Request:
/// [`LaunchSend`].
pub const CMD_LAUNCH_SEND: &str = "launch_send";
/// Command: end a started agent's program. Request: [`LaunchName`].
pub const CMD_LAUNCH_STOP: &str = "launch_stop";
/// Command: annotate a delivery. Request: [`NewAnnotation`](crate::annotation::NewAnnotation).
pub const CMD_ADD_ANNOTATION: &str = "add_annotation";
/// Command: the theme's CSS variables. Request: none.
pub const CMD_GET_THEME: &str = "get_theme";
/// Command: start a chat turn. Request: [`ChatSendRequest`]; answers the chat id.
pub const CMD_CHAT_SEND: &str = "chat_send";
/// Command: stop a chat turn. Request: [`ChatStopRequest`].
pub const CMD_CHAT_STOP: &str = "chat_stop";
/// Command: the active chat session, if any, and the window's last turn.
/// Request: none; answers an [`ActiveChat`].
pub const CMD_CHAT_HISTORY: &str = "chat_history";
/// Command: every chat outside the trash. Request: none; answers a
/// [`ChatHistory`](crate::chat::ChatHistory).
pub const CMD_CHAT_SESSIONS: &str = "chat_sessions";
/// Command: archive the active chat so the next message starts a new one.
/// Request: none.
pub const CMD_CHAT_NEW: &str = "chat_new";
/// Command: make an archived chat the active one. Request: [`ChatSessionRequest`].
pub const CMD_CHAT_RESUME: &str = "chat_resume";
/// Command: move a chat to the trash. Request: [`ChatSessionRequest`].
pub const CMD_CHAT_TRASH: &str = "chat_trash";
/// Command: replace the active chat's summary (edits and pins). Request:
/// [`SummaryEditRequest`].
pub const CMD_CHAT_SET_SUMMARY: &str = "chat_set_summary";
/// Command: apply or drop a write held for approval. Request:
/// [`SettleWriteRequest`]; answers the [`crate::sidecar::ResponseBody`].
pub const CMD_CHAT_SETTLE_WRITE: &str = "chat_settle_write";
/// Command: the models the chat's backend offers, and which backend that
/// is. Request: none; answers a [`ModelList`].
pub const CMD_LIST_MODELS: &str = "list_models";

/// The models the chat's backend offers, and the backend and why.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ModelList {
    /// Model names, as the backend takes them.
    pub models: Vec<String>,
    /// The backend in use and why, when the sidecar said.
    #[serde(default)]
    pub backend: Option<crate::settings::ResolvedBackend>,
}

/// One choice of the model picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelOption {
    /// The model stored when it is chosen (empty: none, the agent's own
    /// default).
    pub value: String,
    /// What the picker shows.
    pub label: String,
    /// Whether it is the one in effect.
    pub selected: bool,
}

impl ModelList {
    /// The picker's choices with `current` (the model in effect) selected:
    /// the backend's models, and before them `current` when it is not one
    /// of them — or, on an agent backend (which runs its own default for
    /// another backend's model), the agent's default in its place.
    pub fn options(&self, current: &str) -> Vec<ModelOption> {
        let option = |value: &str, label: String| ModelOption {
            selected: value == current,
            value: value.to_owned(),
            label,
        };
        let mut options: Vec<ModelOption> = self
            .models
            .iter()
            .map(|model| option(model, model.clone()))
            .collect();
        if !self.models.iter().any(|model| model == current) {
            let agent = self
                .backend
                .as_ref()
                .map(|resolved| resolved.backend)
                .filter(|backend| *backend != crate::settings::ModelBackend::OpenaiCompatible);
            let first = match agent {
                Some(agent) => ModelOption {
                    value: String::new(),
                    label: format!("{}'s default", agent.short_label()),
                    selected: true,
                },
                None => option(current, current.to_owned()),
            };
            options.insert(0, first);
        }
        options
    }
}
/// Command: the settings view's data. Request: none; answers a
/// [`SettingsView`](crate::settings::SettingsView).
pub const CMD_GET_SETTINGS: &str = "get_settings";
/// Command: save the settings. Request: [`SaveSettingsRequest`].
pub const CMD_SAVE_SETTINGS: &str = "save_settings";
/// Command: markdown as sanitized HTML (chat messages). Request:
/// [`RenderRequest`].
pub const CMD_RENDER_MARKDOWN: &str = "render_markdown";
/// Command: every learnings file, playbook, profile, memory, the
/// quarantine and the validation problems. Request: none; answers a
/// [`KnowledgeOverview`].
pub const CMD_KNOWLEDGE: &str = "knowledge";
/// Command: search knowledge. Request: a
/// [`SearchQuery`](crate::knowledge::search::SearchQuery).
pub const CMD_KNOWLEDGE_SEARCH: &str = "knowledge_search";
/// Command: append a learning. Request: [`NewLearning`].
pub const CMD_LEARN: &str = "learn";
/// Command: vote on a bullet. Request: [`VoteRequest`].
pub const CMD_BULLET_VOTE: &str = "bullet_vote";
/// Command: change a bullet's content. Request: [`BulletEditRequest`].
pub const CMD_BULLET_EDIT: &str = "bullet_edit";
/// Command: add a bullet. Request: [`BulletAddRequest`].
pub const CMD_BULLET_ADD: &str = "bullet_add";
/// Command: quarantine or release a bullet. Request: [`QuarantineRequest`].
pub const CMD_QUARANTINE: &str = "quarantine";
/// Command: the sidecar's health. Request: none.
pub const CMD_SIDECAR_HEALTH: &str = "sidecar_health";
/// Event carrying a [`ChatEvent`] (chat events; the response's `id` is the chat).
pub const EVENT_SIDECAR: &str = "sidecar";
/// Event carrying a [`SidecarHealth`] whenever the sidecar starts or stops.
pub const EVENT_SIDECAR_HEALTH: &str = "sidecar-health";
/// Command: the UI has painted its first frame (used for start-up timing).
pub const CMD_UI_READY: &str = "ui_ready";
/// Command: the UI has reached a start-up phase. Request: [`UiPhaseRequest`].
pub const CMD_UI_PHASE: &str = "ui_phase";

/// A step of start-up, from the process's start to the first paint, as
/// the shell times them for `make bench`'s phase table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StartPhase {
    /// The window and its webview exist (the shell's setup runs).
    WebviewCreated,
    /// The shell's setup is done (the watcher, the sidecar's start, the
    /// sessions followed): until then the page waits for its files.
    ShellReady,
    /// The page's document has loaded.
    PageLoaded,
    /// The window's frame (sidebar, views, workspace), drawn by the page
    /// itself before the wasm runs, is on screen.
    FramePainted,
    /// The UI's wasm is compiled and its `main` runs.
    WasmStarted,
    /// The first data (the inbox) has arrived.
    FirstData,
}

impl StartPhase {
    /// Every phase, in the order they happen.
    pub const ALL: [Self; 6] = [
        Self::WebviewCreated,
        Self::ShellReady,
        Self::PageLoaded,
        Self::FramePainted,
        Self::WasmStarted,
        Self::FirstData,
    ];

    /// Its name in the start-up line: `webview_created`, ….
    pub fn as_str(self) -> &'static str {
        match self {
            Self::WebviewCreated => "webview_created",
            Self::ShellReady => "shell_ready",
            Self::PageLoaded => "page_loaded",
            Self::FramePainted => "frame_painted",
            Self::WasmStarted => "wasm_started",
            Self::FirstData => "first_data",
        }
    }
}

/// [`CMD_UI_PHASE`]'s request.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct UiPhaseRequest {
    /// The phase reached.
    pub phase: StartPhase,
    /// When, by the page's clock (ms since the Unix epoch): the moment
    /// itself, not when its word reached the shell.
    #[serde(default)]
    pub at_ms: Option<f64>,
}

/// Command: the teams of the workspace, opencode-teams' and Claude Code's,
/// as [`TeamEntry`](crate::team::TeamEntry)s. Request: none.
pub const CMD_TEAMS: &str = "teams";
/// Command: one team's board. Request: [`TeamRequest`]; answers a
/// [`TeamBoard`](crate::team::TeamBoard).
pub const CMD_TEAM_BOARD: &str = "team_board";
/// Command: create an opencode-teams team. Request: [`TeamCreateRequest`];
/// answers its [`TeamConfig`](crate::team::TeamConfig).
pub const CMD_TEAM_CREATE: &str = "team_create";
/// Command: create a task. Request: [`TaskCreateRequest`]; answers the task.
pub const CMD_TASK_CREATE: &str = "task_create";
/// Command: claim a task for a member. Request: [`TaskClaimRequest`].
pub const CMD_TASK_CLAIM: &str = "task_claim";
/// Command: move a task forward (completion cascades). Request:
/// [`TaskAdvanceRequest`].
pub const CMD_TASK_ADVANCE: &str = "task_advance";
/// Command: edit a task's dependencies. Request: [`TaskDepsRequest`].
pub const CMD_TASK_DEPS: &str = "task_deps";
/// Command: send or broadcast a message. Request: [`TeamSendRequest`].
pub const CMD_TEAM_SEND: &str = "team_send";

/// Command: the tapes folder as a [`TapeList`](crate::tape::view::TapeList).
/// Request: none.
pub const CMD_TAPES: &str = "tapes";
/// Command: one tape laid out for the player. Request:
/// [`TapeRequest`](crate::tape::view::TapeRequest); answers a
/// [`TapeView`](crate::tape::view::TapeView).
pub const CMD_TAPE: &str = "tape";
/// Command: exchanges holding a text, across all tapes. Request:
/// [`TapeSearchRequest`](crate::tape::view::TapeSearchRequest); answers
/// [`TapeHit`](crate::tape::view::TapeHit)s.
pub const CMD_TAPES_SEARCH: &str = "tapes_search";
/// Command: keep a note on an exchange. Request:
/// [`TapeNoteRequest`](crate::tape::view::TapeNoteRequest).
pub const CMD_TAPE_NOTE: &str = "tape_note";
/// Command: write a tape as asciicast v3 beside it. Request:
/// [`TapeRequest`](crate::tape::view::TapeRequest); answers the file's path.
pub const CMD_TAPE_EXPORT_CAST: &str = "tape_export_cast";
/// Command: a delivery as a document to save. Request:
/// [`DeliveryExportRequest`](crate::export::DeliveryExportRequest); answers
/// an [`ExportedText`](crate::export::ExportedText).
pub const CMD_EXPORT_DELIVERY: &str = "export_delivery";
/// Command: the workspace's program sessions now (live ones, then ended
/// ones from their logs); the shell emits [`EVENT_SESSIONS`] after each
/// change. Request: none; answers `Vec<`[`ProgramSession`](crate::program::ProgramSession)`>`.
pub const CMD_SESSIONS: &str = "sessions";
/// Command: a session's log cut into a tape, to play it back. Request:
/// [`SessionRequest`](crate::program::view::SessionRequest); answers a
/// [`TapeView`](crate::tape::view::TapeView).
pub const CMD_SESSION_REPLAY: &str = "session_replay";
/// Command: a session's output since a cursor. Request:
/// [`SessionOutputRequest`](crate::program::view::SessionOutputRequest);
/// answers a [`SessionOutput`](crate::program::view::SessionOutput).
pub const CMD_SESSION_OUTPUT: &str = "session_output";
/// Command: the developer types into a session. Request:
/// [`SessionTypeRequest`](crate::program::view::SessionTypeRequest).
pub const CMD_SESSION_TYPE: &str = "session_type";
/// Command: take a session over or hand it back. Request:
/// [`SessionControlRequest`](crate::program::view::SessionControlRequest).
pub const CMD_SESSION_CONTROL: &str = "session_control";
/// Command: end a session. Request:
/// [`SessionRequest`](crate::program::view::SessionRequest).
pub const CMD_SESSION_END: &str = "session_end";
/// Command: the investigations, test and fuzz reports written for this
/// workspace. Request: none; answers a
/// [`ReportList`](crate::probe::view::ReportList). The shell emits
/// [`StoreChange::ProbeReports`] when a report is written.
pub const CMD_PROBE_REPORTS: &str = "probe_reports";
/// Command: one report whole. Request:
/// [`ReportRequest`](crate::probe::view::ReportRequest); answers a
/// [`ReportView`](crate::probe::view::ReportView).
pub const CMD_PROBE_REPORT: &str = "probe_report";
/// Event carrying the workspace's program sessions
/// (`Vec<`[`ProgramSession`](crate::program::ProgramSession)`>`) after a change;
/// the shell follows them for the window's whole life.
pub const EVENT_SESSIONS: &str = "sessions";

/// Every command the shell registers, for the test that ties each name
/// here to a registered handler.
pub const COMMANDS: [&str; 64] = [
    CMD_LAUNCHES,
    CMD_LAUNCH_START,
    CMD_LAUNCH_DIFF,
    CMD_LAUNCH_MERGE,
    CMD_LAUNCH_DISCARD,
    CMD_LAUNCH_SEND,
    CMD_LAUNCH_STOP,
    CMD_PROBE_REPORTS,
    CMD_PROBE_REPORT,
    CMD_SESSIONS,
    CMD_SESSION_REPLAY,
    CMD_SESSION_OUTPUT,
    CMD_SESSION_TYPE,
    CMD_SESSION_CONTROL,
    CMD_SESSION_END,
    CMD_EXPORT_DELIVERY,
    CMD_TAPES,
    CMD_TAPE,
    CMD_TAPES_SEARCH,
    CMD_TAPE_NOTE,
    CMD_TAPE_EXPORT_CAST,
    CMD_TEAMS,
    CMD_TEAM_BOARD,
    CMD_TEAM_CREATE,
    CMD_TASK_CREATE,
    CMD_TASK_CLAIM,
    CMD_TASK_ADVANCE,
    CMD_TASK_DEPS,
    CMD_TEAM_SEND,
    CMD_WORKSPACE_INFO,
    CMD_LIST_DELIVERIES,
    CMD_GET_DELIVERY,
    CMD_MARK_OPENED,
    CMD_REPLY,
    CMD_LIST_AGENTS,
    CMD_EVERYWHERE,
    CMD_OPEN_WORKSPACE,
    CMD_PAIR_BROWSER,
    CMD_CODEX_HOOKS_TRUST,
    CMD_ADD_ANNOTATION,
    CMD_GET_THEME,
    CMD_CHAT_SEND,
    CMD_CHAT_STOP,
    CMD_CHAT_HISTORY,
    CMD_CHAT_SESSIONS,
    CMD_CHAT_NEW,
    CMD_CHAT_RESUME,
    CMD_CHAT_TRASH,
    CMD_CHAT_SET_SUMMARY,
    CMD_CHAT_SETTLE_WRITE,
    CMD_LIST_MODELS,
    CMD_GET_SETTINGS,
    CMD_SAVE_SETTINGS,
    CMD_RENDER_MARKDOWN,
    CMD_KNOWLEDGE,
    CMD_KNOWLEDGE_SEARCH,
    CMD_LEARN,
    CMD_BULLET_VOTE,
    CMD_BULLET_EDIT,
    CMD_BULLET_ADD,
    CMD_QUARANTINE,
    CMD_SIDECAR_HEALTH,
    CMD_UI_READY,
    CMD_UI_PHASE,
];

/// Event carrying a [`StoreChange`] whenever workspace data changes on disk.
pub const EVENT_STORE_CHANGED: &str = "store-changed";

/// Event (no payload) whenever what waits in another running workspace
/// may have changed: read [`CMD_EVERYWHERE`] again.
pub const EVENT_EVERYWHERE: &str = "everywhere-changed";

/// A one-time link pairing a browser with the window's server of the
/// inbox, and its QR code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairingLink {
    /// The link: open it once, within 10 minutes.
    pub link: String,
    /// The QR code's modules, row by row: `#` dark, ` ` light.
    pub qr: Vec<String>,
    /// How a phone reaches the link when it is this machine's loopback
    /// ([`crate::browser::reach_hint`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reach: Option<String>,
    /// What the paired browser will reach
    /// ([`crate::browser::REACHES_EVERY_WORKSPACE`]).
    #[serde(default)]
    pub scope: String,
}

/// Names a workspace of "All workspaces".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkspaceRequest {
    /// Its folder, as [`crate::registry::WorkspaceAttention::workspace`].
    pub workspace: String,
}

/// The open workspace, as the sidebar shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkspaceInfo {
    /// Absolute path of the workspace folder.
    pub path: String,
    /// The folder's own name, for the title.
    pub name: String,
}

/// The title of a window or a browser's tab on workspace `name` with
/// `waiting` things waiting on the developer: the workspace first, so two
/// windows read apart, and the count while there is one.
pub fn window_title(name: &str, waiting: usize) -> String {
    let name = if name.is_empty() { "Switchboard" } else { name };
    match waiting {
        0 => format!("{name} — Switchboard"),
        count => format!("{name} ({count} waiting) — Switchboard"),
    }
}

/// The inbox as the UI receives it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeliveryList {
    /// Deliveries, newest first.
    pub deliveries: Vec<Delivery>,
    /// Problems met while reading (e.g. a record that did not parse), in
    /// words for the developer; the readable records are still listed.
    pub warnings: Vec<String>,
}

/// Which workspace data changed on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StoreChange {
    /// `.visual-delivery/data/deliveries.json`.
    Deliveries,
    /// `.visual-delivery/data/annotations.json`.
    Annotations,
    /// `.visual-delivery/data/feedback-responses.json`.
    FeedbackResponses,
    /// `.visual-delivery/data/sessions.json`.
    Sessions,
    /// `.visual-delivery/custom/theme.json`.
    Theme,
    /// A learnings file, playbook, profile, memory or spec file.
    Knowledge,
    /// A team's config, inbox or task file (`.opencode/opencode-teams/`,
    /// or Claude Code's `teams/` and `tasks/`).
    Team,
    /// A tape in the workspace's `tapes/` folder, at any depth.
    Tapes,
    /// An investigation, test or fuzz report in ClaudeControl's folders.
    ProbeReports,
    /// An agent session's record in `.switchboard/agents/`, or a started
    /// agent's in the workspace's records.
    Agents,
}

/// Names a started agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchName {
    /// Its name.
    pub name: String,
}

/// Merges a started agent's work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchMerge {
    /// Its name.
    pub name: String,
    /// Commit its uncommitted changes first.
    #[serde(default)]
    pub commit: bool,
}

/// Discards a started agent's work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchDiscard {
    /// Its name.
    pub name: String,
    /// Even work not merged (the developer confirmed it).
    #[serde(default)]
    pub confirmed: bool,
}

/// A follow-up for a started agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchSend {
    /// Its name.
    pub name: String,
    /// What to type (submitted with Enter).
    pub text: String,
}

/// Names one team.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamRequest {
    /// The team.
    pub team: String,
    /// Whose team it is.
    #[serde(default)]
    pub source: crate::team::TeamSource,
}

/// A team to create (as opencode-teams' spawn-team does).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamCreateRequest {
    /// Its name: letters, digits, '-' and '_'.
    pub name: String,
    /// Its leader's agent id (default: the plugin's `leader`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leader: Option<String>,
}

/// A task to create.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskCreateRequest {
    /// The team.
    pub team: String,
    /// What to do.
    pub title: String,
    /// Details.
    pub description: Option<String>,
    /// How urgent.
    pub priority: crate::team::Priority,
    /// Tasks that must be completed first.
    pub dependencies: Vec<String>,
}

/// A claim of a task for a member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskClaimRequest {
    /// The team.
    pub team: String,
    /// The task.
    pub id: String,
    /// The member taking it.
    pub agent: String,
}

/// A task moved forward.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskAdvanceRequest {
    /// The team.
    pub team: String,
    /// The task.
    pub id: String,
    /// Its new status.
    pub status: crate::team::TaskStatus,
}

/// Dependencies added to and removed from a task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskDepsRequest {
    /// The team.
    pub team: String,
    /// The task.
    pub id: String,
    /// Dependencies to add.
    pub add: Vec<String>,
    /// Dependencies to remove.
    pub remove: Vec<String>,
}

/// A message from the window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamSendRequest {
    /// The team.
    pub team: String,
    /// The sender's name.
    pub from: String,
    /// The recipient; `None` broadcasts to every member but the sender.
    pub to: Option<String>,
    /// What it is about (a broadcast is always plain).
    pub kind: crate::team::MessageType,
    /// The text.
    pub text: String,
}

/// Names one delivery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeliveryRequest {
    /// The delivery id.
    pub id: String,
    /// The workspace it is in, when not the window's own: one of "All
    /// workspaces" (anything else is refused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
}

/// A reply to one delivery.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplyRequest {
    /// The delivery id.
    pub id: String,
    /// The answer, or a decline or dismissal.
    pub reply: Reply,
    /// The workspace it is in, when not the window's own (see
    /// [`DeliveryRequest::workspace`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// What the page showed of the question when it was answered
    /// ([`crate::receipt::shown`]): a question that says something else
    /// now is not answered (`CONFLICT`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seen: Option<String>,
}

/// One delivery as the delivery view shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeliveryDetail {
    /// The record.
    pub delivery: Delivery,
    /// The body as sanitized HTML, text runs in source-offset spans and
    /// annotated ranges marked: rendered markdown, or the cleaned HTML body
    /// (shown in a sandboxed frame).
    pub body_html: String,
    /// Its annotations, oldest first.
    pub annotations: Vec<Annotation>,
    /// For each annotation with a range, the text the range covers as
    /// shown, markup between the words left out.
    #[serde(default)]
    pub quotes: BTreeMap<String, String>,
    /// Its feedback records, oldest first.
    pub feedback: Vec<FeedbackResponse>,
    /// Problems met reading annotations or feedback (e.g. a file another
    /// tool left unparsable); the delivery itself is still shown.
    #[serde(default)]
    pub warnings: Vec<String>,
}

/// Starts a chat turn in the window's workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatSendRequest {
    /// The mode.
    pub mode: ChatMode,
    /// The message.
    pub message: String,
    /// Start a fresh chat.
    #[serde(default)]
    pub new_session: bool,
}

/// Stops a chat turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatStopRequest {
    /// The chat id `chat_send` returned.
    pub chat: u64,
}

/// A sidecar response as the shell forwards it, numbered so a view that
/// opened meanwhile folds each in once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatEvent {
    /// Counts the events forwarded in this window, from 1.
    pub seq: u64,
    /// The response.
    pub response: crate::sidecar::SidecarResponse,
}

/// What the Chat view opens on: the stored chat, and the turn the window
/// started last as of event [`ChatEvent::seq`] `seq` (it may be under way,
/// or not saved because it failed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActiveChat {
    /// The active chat, if there is one.
    pub session: Option<crate::chat::ChatSession>,
    /// The window's last turn, if the chat has not changed since.
    pub last_turn: Option<crate::chat::transcript::LastTurn>,
    /// The last event forwarded when this was read.
    pub seq: u64,
}

/// Whether the sidecar runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SidecarHealth {
    /// Running now.
    pub running: bool,
    /// Restarts after a crash so far.
    pub restarts: u32,
    /// What went wrong, if it is down.
    pub message: Option<String>,
}

/// Names one chat session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatSessionRequest {
    /// The session id.
    pub id: String,
}

/// A new summary for the active chat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SummaryEditRequest {
    /// The chat the window shows; the edit is refused if another chat has
    /// become active meanwhile.
    pub session: String,
    /// The whole summary as edited.
    pub summary: Option<ConversationSummary>,
}

/// Apply or drop one proposed write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SettleWriteRequest {
    /// The proposal's id.
    pub proposal: String,
    /// Apply (`true`) or drop.
    pub apply: bool,
}

/// New settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SaveSettingsRequest {
    /// The settings to store.
    pub settings: Settings,
}

/// Markdown to render.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RenderRequest {
    /// The markdown.
    pub markdown: String,
}

/// Everything the Knowledge view shows.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct KnowledgeOverview {
    /// Learnings files of both layouts.
    pub learnings: Vec<LearningsFile>,
    /// Playbooks, readable or not.
    pub playbooks: Vec<PlaybookFile>,
    /// Delia profiles.
    pub profiles: Vec<Document>,
    /// Delia memories.
    pub memories: Vec<Document>,
    /// Spec and plan files.
    #[serde(default)]
    pub specs: Vec<Document>,
    /// Quarantined bullets.
    pub quarantine: Vec<Quarantined>,
    /// What `switchboard validate` would report.
    pub problems: Vec<Problem>,
    /// Anything else that could not be read, in words.
    pub warnings: Vec<String>,
}

/// A learning to append (the command's request).
pub use crate::knowledge::learning::NewLearning;

/// Names one bullet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BulletRef {
    /// Its playbook's task type.
    pub task_type: String,
    /// Its id.
    pub id: String,
}

/// A vote on a bullet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VoteRequest {
    /// The bullet.
    pub bullet: BulletRef,
    /// Helpful (`true`) or harmful.
    pub helpful: bool,
}

/// New content for a bullet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BulletEditRequest {
    /// The bullet.
    pub bullet: BulletRef,
    /// 10–500 characters.
    pub content: String,
}

/// A new bullet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BulletAddRequest {
    /// The playbook (created if missing).
    pub task_type: String,
    /// Its section, if any.
    pub section: Option<String>,
    /// 10–500 characters.
    pub content: String,
}

/// Quarantine or release a bullet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuarantineRequest {
    /// The bullet.
    pub bullet: BulletRef,
    /// Quarantine (`true`) or release.
    pub on: bool,
    /// Why.
    #[serde(default)]
    pub reason: String,
}

#[cfg(test)]
mod title {
    #[test]
    fn two_windows_read_apart_by_their_workspace_and_show_what_waits() {
        assert_eq!(super::window_title("api", 0), "api — Switchboard");
        assert_eq!(
            super::window_title("web", 2),
            "web (2 waiting) — Switchboard"
        );
        assert_ne!(super::window_title("api", 1), super::window_title("web", 1));
    }
}

#[cfg(test)]
mod command_list {
    #[test]
    fn every_command_constant_is_in_the_list() {
        let source = include_str!("ipc.rs");
        let declared: Vec<&str> = source
            .lines()
            .filter_map(|line| line.strip_prefix("pub const CMD_"))
            .filter_map(|rest| rest.split('"').nth(1))
            .collect();
        let mut listed = super::COMMANDS.to_vec();
        let mut declared_sorted = declared.clone();
        listed.sort_unstable();
        declared_sorted.sort_unstable();
        assert_eq!(
            declared_sorted, listed,
            "COMMANDS lists every CMD_ constant once"
        );
    }
}

#[cfg(test)]
mod model_options {
    use super::*;
    use crate::settings::{ModelBackend, ResolvedBackend};

    fn list(backend: ModelBackend) -> ModelList {
        ModelList {
            models: vec!["sonnet".into(), "opus".into()],
            backend: Some(ResolvedBackend {
                backend,
                reason: String::new(),
            }),
        }
    }

    fn shown(options: Vec<ModelOption>) -> Vec<(String, String, bool)> {
        options
            .into_iter()
            .map(|option| (option.value, option.label, option.selected))
            .collect()
    }

    #[test]
    fn the_picker_offers_the_backends_models_and_an_agents_own_default() {
        assert_eq!(
            shown(list(ModelBackend::ClaudeCode).options("opus")),
            [
                ("sonnet".into(), "sonnet".into(), false),
                ("opus".into(), "opus".into(), true)
            ]
        );
        assert_eq!(
            shown(list(ModelBackend::ClaudeCode).options("llama3.2"))[0],
            (String::new(), "Claude Code's default".into(), true),
            "another backend's model is not offered to an agent"
        );
        assert_eq!(
            shown(list(ModelBackend::OpenaiCompatible).options("llama3.2"))[0],
            ("llama3.2".into(), "llama3.2".into(), true),
            "a server's model not listed stays chosen"
        );
    }
}
