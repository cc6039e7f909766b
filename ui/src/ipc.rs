//! The only module that binds Tauri's JavaScript API: one typed async
//! function per shell command, with request and response types from
//! `switchboard-model`.

use serde::{Serialize, de::DeserializeOwned};
use switchboard_model::{
    ErrorCode, ErrorPayload,
    agent::launch::{Launch, LaunchRequest, LaunchRow, WorktreeChanges},
    annotation::{Annotation, NewAnnotation},
    blocking::Reply,
    chat::{ChatHistory, ChatSession, ConversationSummary},
    ipc::{
        self, ActiveChat, BulletAddRequest, BulletEditRequest, BulletRef, CMD_ADD_ANNOTATION,
        CMD_BULLET_ADD, CMD_BULLET_EDIT, CMD_BULLET_VOTE, CMD_CHAT_HISTORY, CMD_CHAT_NEW,
        CMD_CHAT_RESUME, CMD_CHAT_SEND, CMD_CHAT_SESSIONS, CMD_CHAT_SET_SUMMARY,
        CMD_CHAT_SETTLE_WRITE, CMD_CHAT_STOP, CMD_CHAT_TRASH, CMD_CODEX_HOOKS_TRUST,
        CMD_GET_DELIVERY, CMD_GET_SETTINGS, CMD_GET_THEME, CMD_KNOWLEDGE, CMD_KNOWLEDGE_SEARCH,
        CMD_LEARN, CMD_LIST_AGENTS, CMD_LIST_DELIVERIES, CMD_LIST_MODELS, CMD_MARK_OPENED,
        CMD_QUARANTINE, CMD_RENDER_MARKDOWN, CMD_REPLY, CMD_SAVE_SETTINGS, CMD_SIDECAR_HEALTH,
        CMD_UI_PHASE, CMD_UI_READY, CMD_WORKSPACE_INFO, ChatSendRequest, ChatSessionRequest,
        ChatStopRequest, DeliveryDetail, DeliveryList, DeliveryRequest, KnowledgeOverview,
        NewLearning, QuarantineRequest, RenderRequest, ReplyRequest, SaveSettingsRequest,
        SettleWriteRequest, SidecarHealth, StartPhase, SummaryEditRequest, UiPhaseRequest,
        VoteRequest, WorkspaceInfo,
    },
    knowledge::{
        Quarantined,
        learning::Appended,
        playbook::Bullet,
        search::{SearchQuery, SearchResults},
    },
    settings::{Settings, SettingsView},
    sidecar::ResponseBody,
    team::{Task, TeamBoard, TeamConfig, TeamEntry},
    theme::ThemeVariables,
};
use wasm_bindgen::{JsValue, prelude::*};

use switchboard_model::export::{DeliveryExportRequest, ExportFormat, ExportedText};
use switchboard_model::ipc::CMD_EXPORT_DELIVERY;
use switchboard_model::ipc::{
    CMD_SESSION_CONTROL, CMD_SESSION_END, CMD_SESSION_OUTPUT, CMD_SESSION_REPLAY, CMD_SESSION_TYPE,
    CMD_SESSIONS,
};
use switchboard_model::ipc::{
    CMD_TAPE, CMD_TAPE_EXPORT_CAST, CMD_TAPE_NOTE, CMD_TAPES, CMD_TAPES_SEARCH,
};
use switchboard_model::ipc::{
    CMD_TASK_ADVANCE, CMD_TASK_CLAIM, CMD_TASK_CREATE, CMD_TASK_DEPS, CMD_TEAM_BOARD,
    CMD_TEAM_CREATE, CMD_TEAM_SEND, CMD_TEAMS, TaskAdvanceRequest, TaskClaimRequest,
    TaskCreateRequest, TaskDepsRequest, TeamCreateRequest, TeamRequest, TeamSendRequest,
};
use switchboard_model::program::ProgramSession;
use switchboard_model::program::view::{
    SessionControlRequest, SessionOutput, SessionOutputRequest, SessionRequest, SessionTypeRequest,
};
use switchboard_model::tape::view::{
    TapeHit, TapeList, TapeNoteRequest, TapeRequest, TapeSearchRequest, TapeView,
};

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = ["window", "__TAURI__", "core"], js_name = invoke)]
    async fn tauri_invoke(command: &str, args: JsValue) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["window", "__TAURI__", "core"], js_name = invoke)]
    async fn tauri_invoke_with_options(
        command: &str,
        args: JsValue,
        options: JsValue,
    ) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["window", "__TAURI__", "event"], js_name = listen)]
    async fn tauri_listen(
        event: &str,
        handler: &Closure<dyn FnMut(JsValue)>,
    ) -> Result<JsValue, JsValue>;
}

/// Whether the page runs in a browser (`switchboard serve`'s shim set
/// `window.__SWITCHBOARD_BROWSER__`) rather than the window: what needs the
/// window (a save dialog) is not offered there.
pub fn in_browser() -> bool {
    web_sys::window()
        .and_then(|window| {
            js_sys::Reflect::get(&window, &JsValue::from_str("__SWITCHBOARD_BROWSER__")).ok()
        })
        .is_some_and(|flag| flag.is_truthy())
}

/// Calls `command` with no arguments and decodes its answer.
async fn call<T: DeserializeOwned>(command: &str) -> Result<T, ErrorPayload> {
    decode(command, tauri_invoke(command, JsValue::UNDEFINED).await)
}

/// Calls `command` with `request` as its one `request` argument.
async fn call_with<R: Serialize, T: DeserializeOwned>(
    command: &str,
    request: &R,
) -> Result<T, ErrorPayload> {
    #[derive(Serialize)]
    struct Arguments<'a, R> {
        request: &'a R,
    }
    let arguments = Arguments { request }
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|error| {
            ErrorPayload::new(
                ErrorCode::Internal,
                format!("could not encode {command}: {error}"),
            )
        })?;
    decode(command, tauri_invoke(command, arguments).await)
}

fn decode<T: DeserializeOwned>(
    command: &str,
    answer: Result<JsValue, JsValue>,
) -> Result<T, ErrorPayload> {
    let answer = answer.map_err(decode_error)?;
    serde_wasm_bindgen::from_value(answer).map_err(|error| {
        ErrorPayload::new(
            ErrorCode::Internal,
            format!("unexpected answer to {command}: {error}"),
        )
    })
}

/// Turns a rejected invoke into the shell's `{code, message}`, or wraps
/// whatever else was thrown: a JavaScript error by its message alone (a
/// person reads it; the stack goes to the console).
fn decode_error(thrown: JsValue) -> ErrorPayload {
    serde_wasm_bindgen::from_value(thrown.clone()).unwrap_or_else(|_| {
        if let Some(error) = thrown.dyn_ref::<js_sys::Error>() {
            leptos::logging::error!("{thrown:?}");
            return ErrorPayload::new(
                ErrorCode::Unavailable,
                format!("Switchboard could not be asked: {}", error.message()),
            );
        }
        let message = thrown
            .as_string()
            .unwrap_or_else(|| "Switchboard gave an answer this page cannot read".to_owned());
        ErrorPayload::new(ErrorCode::Internal, message)
    })
}

/// A delivery as a document to save.
pub async fn export_delivery(id: &str, format: ExportFormat) -> Result<ExportedText, ErrorPayload> {
    let request = DeliveryExportRequest {
        id: id.to_owned(),
        format,
    };
    call_with(CMD_EXPORT_DELIVERY, &request).await
}

/// Asks the user where to save a file of `format`, proposing `file_name`
/// (the dialog plugin's `save`); `None` when they cancel. The file picked
/// becomes the one the fs plugin may write.
pub async fn save_dialog(
    file_name: &str,
    format: ExportFormat,
) -> Result<Option<String>, ErrorPayload> {
    let arguments = serde_json::json!({
        "options": {
            "title": format!("Save as {}", format.label()),
            "defaultPath": file_name,
            "filters": [{"name": format.label(), "extensions": [format.extension()]}],
        }
    });
    let arguments = arguments
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|error| ErrorPayload::new(ErrorCode::Internal, error.to_string()))?;
    decode(
        "plugin:dialog|save",
        tauri_invoke("plugin:dialog|save", arguments).await,
    )
}

/// Writes `text` to `path` through the fs plugin, which allows only a file
/// the save dialog handed out.
pub async fn write_text_file(path: &str, text: &str) -> Result<(), ErrorPayload> {
    let body = js_sys::Uint8Array::from(text.as_bytes());
    let headers = js_sys::Object::new();
    let encoded = String::from(js_sys::encode_uri_component(path));
    js_sys::Reflect::set(&headers, &"path".into(), &encoded.into())
        .map_err(|_| ErrorPayload::new(ErrorCode::Internal, "could not build the request"))?;
    let options = js_sys::Object::new();
    js_sys::Reflect::set(&options, &"headers".into(), &headers)
        .map_err(|_| ErrorPayload::new(ErrorCode::Internal, "could not build the request"))?;
    tauri_invoke_with_options("plugin:fs|write_text_file", body.into(), options.into())
        .await
        .map(|_| ())
        .map_err(|thrown| {
            let reason = decode_error(thrown).message;
            ErrorPayload::new(ErrorCode::Io, format!("could not write {path}: {reason}"))
        })
}

/// The open workspace.
pub async fn workspace_info() -> Result<WorkspaceInfo, ErrorPayload> {
    call(CMD_WORKSPACE_INFO).await
}

/// What this paired browser may do (a browser's page only: the window
/// never asks).
pub async fn browser_info() -> Result<switchboard_model::browser::BrowserInfo, ErrorPayload> {
    call(switchboard_model::browser::BROWSER_INFO).await
}

/// The inbox, newest first.
pub async fn list_deliveries() -> Result<DeliveryList, ErrorPayload> {
    call(CMD_LIST_DELIVERIES).await
}

/// The inbox the page read before the wasm ran (`ui/index.html`'s boot
/// script, as `window.__switchboardBoot`), taken once by the inbox's first
/// read.
pub enum EarlyInbox {
    /// The answer had come when it was taken: the inbox shows it as it
    /// mounts.
    Answered(Result<DeliveryList, ErrorPayload>),
    /// Still on its way.
    Pending(js_sys::Promise),
}

impl EarlyInbox {
    /// The page's read of the inbox, the first time it is asked for;
    /// `None` after that, or when the page made none.
    pub fn take() -> Option<Self> {
        let boot = js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("__switchboardBoot"))
            .ok()
            .filter(|boot| boot.is_object())?;
        let field = |name: &str| {
            js_sys::Reflect::get(&boot, &JsValue::from_str(name))
                .ok()
                .filter(|value| !value.is_undefined())
        };
        let answer = field("inboxAnswer");
        let pending = field("inbox");
        // Taken: later reads ask the shell.
        let _ = js_sys::Reflect::delete_property(
            boot.unchecked_ref::<js_sys::Object>(),
            &JsValue::from_str("inbox"),
        );
        if let Some(answer) = answer {
            let settled = match js_sys::Reflect::get(&answer, &JsValue::from_str("ok")) {
                Ok(value) if !value.is_undefined() => Ok(value),
                _ => Err(js_sys::Reflect::get(&answer, &JsValue::from_str("error"))
                    .unwrap_or(JsValue::UNDEFINED)),
            };
            return pending.map(|_| Self::Answered(decode(CMD_LIST_DELIVERIES, settled)));
        }
        pending
            .and_then(|promise| promise.dyn_into::<js_sys::Promise>().ok())
            .map(Self::Pending)
    }

    /// The inbox, once the page's read of it is answered.
    pub async fn answer(self) -> Result<DeliveryList, ErrorPayload> {
        match self {
            Self::Answered(answer) => answer,
            Self::Pending(promise) => decode(
                CMD_LIST_DELIVERIES,
                wasm_bindgen_futures::JsFuture::from(promise).await,
            ),
        }
    }
}

/// One delivery with its rendered body; in `workspace` when it is one of
/// "All workspaces", else in the window's own.
pub async fn get_delivery(
    id: &str,
    workspace: Option<String>,
) -> Result<DeliveryDetail, ErrorPayload> {
    let request = DeliveryRequest {
        id: id.to_owned(),
        workspace,
    };
    call_with(CMD_GET_DELIVERY, &request).await
}

/// Notes that the developer opened question `id` (in `workspace`, as
/// [`get_delivery`]).
pub async fn mark_opened(id: &str, workspace: Option<String>) -> Result<bool, ErrorPayload> {
    let request = DeliveryRequest {
        id: id.to_owned(),
        workspace,
    };
    call_with(CMD_MARK_OPENED, &request).await
}

/// A one-time link pairing a browser with the window's server of the
/// inbox, with its QR code.
pub async fn pair_browser() -> Result<ipc::PairingLink, ErrorPayload> {
    call(ipc::CMD_PAIR_BROWSER).await
}

/// What waits in every running workspace on this machine, this one first.
pub async fn everywhere()
-> Result<Vec<switchboard_model::registry::WorkspaceAttention>, ErrorPayload> {
    call(ipc::CMD_EVERYWHERE).await
}

/// Opens (or brings forward) the window of running workspace `workspace`.
pub async fn open_workspace(workspace: &str) -> Result<(), ErrorPayload> {
    let request = ipc::WorkspaceRequest {
        workspace: workspace.to_owned(),
    };
    call_with::<_, Option<()>>(ipc::CMD_OPEN_WORKSPACE, &request)
        .await
        .map(|_| ())
}

/// The agents seen through hooks and MCP, waiting ones first.
pub async fn list_agents() -> Result<Vec<switchboard_model::agent::AgentRow>, ErrorPayload> {
    call(CMD_LIST_AGENTS).await
}

/// Whether Codex runs the hooks Switchboard installed here (`None`: none).
pub async fn codex_hooks_trust()
-> Result<Option<switchboard_model::agent::codex_hooks::CodexHooksTrust>, ErrorPayload> {
    call(CMD_CODEX_HOOKS_TRUST).await
}

/// The agents started here, newest first.
pub async fn launches() -> Result<Vec<LaunchRow>, ErrorPayload> {
    call(ipc::CMD_LAUNCHES).await
}

/// Starts an agent.
pub async fn launch_start(request: &LaunchRequest) -> Result<Launch, ErrorPayload> {
    call_with(ipc::CMD_LAUNCH_START, request).await
}

/// What a started agent changed in its worktree.
pub async fn launch_diff(name: &str) -> Result<WorktreeChanges, ErrorPayload> {
    let request = ipc::LaunchName {
        name: name.to_owned(),
    };
    call_with(ipc::CMD_LAUNCH_DIFF, &request).await
}

/// Merges a started agent's work (`commit`: its uncommitted work first).
pub async fn launch_merge(name: &str, commit: bool) -> Result<Launch, ErrorPayload> {
    let request = ipc::LaunchMerge {
        name: name.to_owned(),
        commit,
    };
    call_with(ipc::CMD_LAUNCH_MERGE, &request).await
}

/// Discards a started agent's work (`confirmed`: even unmerged work).
pub async fn launch_discard(name: &str, confirmed: bool) -> Result<Launch, ErrorPayload> {
    let request = ipc::LaunchDiscard {
        name: name.to_owned(),
        confirmed,
    };
    call_with(ipc::CMD_LAUNCH_DISCARD, &request).await
}

/// Types a follow-up into a started agent's prompt.
pub async fn launch_send(name: &str, text: &str) -> Result<Launch, ErrorPayload> {
    let request = ipc::LaunchSend {
        name: name.to_owned(),
        text: text.to_owned(),
    };
    call_with(ipc::CMD_LAUNCH_SEND, &request).await
}

/// Ends a started agent's program.
pub async fn launch_stop(name: &str) -> Result<Launch, ErrorPayload> {
    let request = ipc::LaunchName {
        name: name.to_owned(),
    };
    call_with(ipc::CMD_LAUNCH_STOP, &request).await
}

/// Answers, declines or dismisses a delivery, as the page showed it
/// (`seen`, [`switchboard_model::receipt::shown`]); the question as
/// answered, when it was read back.
pub async fn reply(
    id: &str,
    reply: Reply,
    workspace: Option<String>,
    seen: String,
) -> Result<Option<DeliveryDetail>, ErrorPayload> {
    let request = ReplyRequest {
        id: id.to_owned(),
        reply,
        workspace,
        seen: Some(seen),
    };
    call_with(CMD_REPLY, &request).await
}

/// Stores a comment or highlight.
pub async fn add_annotation(annotation: &NewAnnotation) -> Result<Annotation, ErrorPayload> {
    call_with(CMD_ADD_ANNOTATION, annotation).await
}

/// The workspace theme's CSS variables.
pub async fn get_theme() -> Result<ThemeVariables, ErrorPayload> {
    call(CMD_GET_THEME).await
}

/// Tells the shell start-up reached `phase` now (for `make bench`'s phase
/// table); the time is taken when this is called, not when it is awaited.
pub fn ui_phase(phase: StartPhase) -> impl std::future::Future<Output = Result<(), ErrorPayload>> {
    let request = UiPhaseRequest {
        phase,
        at_ms: Some(js_sys::Date::now()),
    };
    async move {
        call_with::<_, Option<()>>(CMD_UI_PHASE, &request)
            .await
            .map(|_| ())
    }
}

/// Tells the shell the first frame is painted.
pub async fn ui_ready() -> Result<(), ErrorPayload> {
    call::<Option<()>>(CMD_UI_READY).await.map(|_| ())
}

/// Starts a chat turn; returns its id.
pub async fn chat_send(request: &ChatSendRequest) -> Result<u64, ErrorPayload> {
    call_with(CMD_CHAT_SEND, request).await
}

/// Stops a chat turn.
pub async fn chat_stop(chat: u64) -> Result<(), ErrorPayload> {
    call_with::<_, Option<()>>(CMD_CHAT_STOP, &ChatStopRequest { chat })
        .await
        .map(|_| ())
}

/// The active chat, if any, and the window's last turn.
pub async fn chat_history() -> Result<ActiveChat, ErrorPayload> {
    call(CMD_CHAT_HISTORY).await
}

/// Whether the sidecar runs.
pub async fn sidecar_health() -> Result<SidecarHealth, ErrorPayload> {
    call(CMD_SIDECAR_HEALTH).await
}

/// Every chat outside the trash.
pub async fn chat_sessions() -> Result<ChatHistory, ErrorPayload> {
    call(CMD_CHAT_SESSIONS).await
}

/// Archives the active chat so the next message starts a new one.
pub async fn chat_new() -> Result<(), ErrorPayload> {
    call::<Option<()>>(CMD_CHAT_NEW).await.map(|_| ())
}

/// Makes chat `id` the active one.
pub async fn chat_resume(id: &str) -> Result<ChatSession, ErrorPayload> {
    call_with(CMD_CHAT_RESUME, &ChatSessionRequest { id: id.to_owned() }).await
}

/// Moves chat `id` to the trash.
pub async fn chat_trash(id: &str) -> Result<(), ErrorPayload> {
    call_with::<_, Option<()>>(CMD_CHAT_TRASH, &ChatSessionRequest { id: id.to_owned() })
        .await
        .map(|_| ())
}

/// Replaces the summary of chat `session` (the active one).
pub async fn chat_set_summary(
    session: &str,
    summary: Option<ConversationSummary>,
) -> Result<ChatSession, ErrorPayload> {
    let request = SummaryEditRequest {
        session: session.to_owned(),
        summary,
    };
    call_with(CMD_CHAT_SET_SUMMARY, &request).await
}

/// Applies (or drops) a proposed write.
pub async fn chat_settle_write(proposal: &str, apply: bool) -> Result<ResponseBody, ErrorPayload> {
    let request = SettleWriteRequest {
        proposal: proposal.to_owned(),
        apply,
    };
    call_with(CMD_CHAT_SETTLE_WRITE, &request).await
}

/// The models the chat's backend offers, and which backend it is.
pub async fn list_models() -> Result<switchboard_model::ipc::ModelList, ErrorPayload> {
    call(CMD_LIST_MODELS).await
}

/// Markdown as sanitized HTML.
pub async fn render_markdown(markdown: &str) -> Result<String, ErrorPayload> {
    let request = RenderRequest {
        markdown: markdown.to_owned(),
    };
    call_with(CMD_RENDER_MARKDOWN, &request).await
}

/// The settings view's data.
pub async fn get_settings() -> Result<SettingsView, ErrorPayload> {
    call(CMD_GET_SETTINGS).await
}

/// Stores new settings.
pub async fn save_settings(settings: Settings) -> Result<SettingsView, ErrorPayload> {
    call_with(CMD_SAVE_SETTINGS, &SaveSettingsRequest { settings }).await
}

/// Everything the Knowledge view shows.
pub async fn knowledge() -> Result<KnowledgeOverview, ErrorPayload> {
    call(CMD_KNOWLEDGE).await
}

/// Searches knowledge.
pub async fn knowledge_search(query: &SearchQuery) -> Result<SearchResults, ErrorPayload> {
    call_with(CMD_KNOWLEDGE_SEARCH, query).await
}

/// Appends a learning.
pub async fn learn(learning: &NewLearning) -> Result<Appended, ErrorPayload> {
    call_with(CMD_LEARN, learning).await
}

/// Votes on a bullet.
pub async fn bullet_vote(bullet: BulletRef, helpful: bool) -> Result<Bullet, ErrorPayload> {
    call_with(CMD_BULLET_VOTE, &VoteRequest { bullet, helpful }).await
}

/// Changes a bullet's content.
pub async fn bullet_edit(bullet: BulletRef, content: String) -> Result<Bullet, ErrorPayload> {
    call_with(CMD_BULLET_EDIT, &BulletEditRequest { bullet, content }).await
}

/// Adds a bullet.
pub async fn bullet_add(request: &BulletAddRequest) -> Result<Bullet, ErrorPayload> {
    call_with(CMD_BULLET_ADD, request).await
}

/// Quarantines or releases a bullet.
pub async fn quarantine(request: &QuarantineRequest) -> Result<Vec<Quarantined>, ErrorPayload> {
    call_with(CMD_QUARANTINE, request).await
}

/// The workspace's program sessions now (changes come as events).
pub async fn sessions() -> Result<Vec<ProgramSession>, ErrorPayload> {
    call(CMD_SESSIONS).await
}

/// An ended session's log, as a tape to play back.
pub async fn session_replay(session: &str) -> Result<TapeView, ErrorPayload> {
    call_with(
        CMD_SESSION_REPLAY,
        &SessionRequest {
            session: session.to_owned(),
        },
    )
    .await
}

/// A session's output since `since` (all that is kept with `None`); with
/// `wait_ms`, once something new came (or that long passed); at most the
/// newest `tail` bytes.
pub async fn session_output(
    session: &str,
    since: Option<u64>,
    wait_ms: Option<u64>,
    tail: Option<u64>,
) -> Result<SessionOutput, ErrorPayload> {
    call_with(
        CMD_SESSION_OUTPUT,
        &SessionOutputRequest {
            session: session.to_owned(),
            since,
            wait_ms,
            tail,
        },
    )
    .await
}

/// The developer types into a session.
pub async fn session_type(request: &SessionTypeRequest) -> Result<(), ErrorPayload> {
    call_with(CMD_SESSION_TYPE, request).await
}

/// Takes a session over (`take`) or hands it back.
pub async fn session_control(session: &str, take: bool) -> Result<(), ErrorPayload> {
    call_with(
        CMD_SESSION_CONTROL,
        &SessionControlRequest {
            session: session.to_owned(),
            take,
        },
    )
    .await
}

/// Ends a session.
pub async fn session_end(session: &str) -> Result<(), ErrorPayload> {
    call_with(
        CMD_SESSION_END,
        &SessionRequest {
            session: session.to_owned(),
        },
    )
    .await
}

/// Calls `handler` with the payload of every `event`, for the life of the
/// page; only [`crate::events`] listens, once per event.
pub async fn listen<T: DeserializeOwned + 'static>(
    event: &str,
    handler: impl Fn(T) + 'static,
) -> Result<(), ErrorPayload> {
    #[derive(serde::Deserialize)]
    struct Event<T> {
        payload: T,
    }
    let name = event.to_owned();
    let closure = Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
        match serde_wasm_bindgen::from_value::<Event<T>>(event) {
            Ok(event) => handler(event.payload),
            Err(error) => leptos::logging::warn!("unreadable {name} event: {error}"),
        }
    });
    tauri_listen(event, &closure).await.map_err(decode_error)?;
    // One listener per event for the page's life (see `events`).
    closure.forget();
    Ok(())
}

/// The tapes folder.
pub async fn tapes() -> Result<TapeList, ErrorPayload> {
    call(CMD_TAPES).await
}

/// One tape, laid out for the player.
pub async fn tape(id: &str) -> Result<TapeView, ErrorPayload> {
    call_with(CMD_TAPE, &TapeRequest { id: id.to_owned() }).await
}

/// The exchanges holding `query`, across all tapes.
pub async fn tapes_search(query: &str) -> Result<Vec<TapeHit>, ErrorPayload> {
    call_with(
        CMD_TAPES_SEARCH,
        &TapeSearchRequest {
            query: query.to_owned(),
        },
    )
    .await
}

/// Keeps `note` on exchange `exchange` of tape `id`.
pub async fn tape_note(id: &str, exchange: usize, note: &str) -> Result<(), ErrorPayload> {
    call_with::<_, Option<()>>(
        CMD_TAPE_NOTE,
        &TapeNoteRequest {
            id: id.to_owned(),
            exchange,
            note: note.to_owned(),
        },
    )
    .await
    .map(|_| ())
}

/// Writes tape `id` as asciicast v3 beside it; the file's path.
pub async fn tape_export_cast(id: &str) -> Result<String, ErrorPayload> {
    call_with(CMD_TAPE_EXPORT_CAST, &TapeRequest { id: id.to_owned() }).await
}

/// The workspace's teams, opencode-teams' then Claude Code's.
pub async fn teams() -> Result<Vec<TeamEntry>, ErrorPayload> {
    call(CMD_TEAMS).await
}

/// One team's board.
pub async fn team_board(team: &TeamEntry) -> Result<TeamBoard, ErrorPayload> {
    call_with(
        CMD_TEAM_BOARD,
        &TeamRequest {
            team: team.name.clone(),
            source: team.source,
        },
    )
    .await
}

/// Creates a task.
pub async fn task_create(request: &TaskCreateRequest) -> Result<Task, ErrorPayload> {
    call_with(CMD_TASK_CREATE, request).await
}

/// Claims a task for a member.
pub async fn task_claim(request: &TaskClaimRequest) -> Result<Task, ErrorPayload> {
    call_with(CMD_TASK_CLAIM, request).await
}

/// Moves a task forward.
pub async fn task_advance(request: &TaskAdvanceRequest) -> Result<Task, ErrorPayload> {
    call_with(CMD_TASK_ADVANCE, request).await
}

/// Edits a task's dependencies.
pub async fn task_deps(request: &TaskDepsRequest) -> Result<Task, ErrorPayload> {
    call_with(CMD_TASK_DEPS, request).await
}

/// Creates a team.
pub async fn team_create(request: &TeamCreateRequest) -> Result<TeamConfig, ErrorPayload> {
    call_with(CMD_TEAM_CREATE, request).await
}

/// Sends or broadcasts a message.
pub async fn team_send(request: &TeamSendRequest) -> Result<(), ErrorPayload> {
    call_with(CMD_TEAM_SEND, request).await
}

/// The investigations, test and fuzz reports written for this workspace.
pub async fn probe_reports() -> Result<switchboard_model::probe::view::ReportList, ErrorPayload> {
    call(switchboard_model::ipc::CMD_PROBE_REPORTS).await
}

/// One report, whole.
pub async fn probe_report(
    path: &str,
) -> Result<switchboard_model::probe::view::ReportView, ErrorPayload> {
    call_with(
        switchboard_model::ipc::CMD_PROBE_REPORT,
        &switchboard_model::probe::view::ReportRequest {
            path: path.to_owned(),
        },
    )
    .await
}
