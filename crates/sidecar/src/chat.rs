//! One chat turn: memory in, prompt assembled, the model streamed with a
//! bounded tool loop, the summary merged, the session saved.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
};

use switchboard_model::{
    chat::{
        ChatMessage, ChatWrite, Role,
        prompt::{ContextFile, PartKind, PromptInputs, PromptPart, assemble},
        summary::{SummaryChange, SummaryFilter, split_reply},
    },
    settings::{ModelBackend, Settings},
    sidecar::{ChatRequest, ResponseBody, WriteEvent},
};
use switchboard_store::{Workspace, chats, clock, search::LazyIndex};
use tokio::sync::watch;

use crate::{
    SidecarError, agent,
    allow::AllowList,
    audit::AuditLog,
    memory::{self, MemoryCache},
    model_client::{ApiMessage, ModelConfig, stream_chat},
    prompts,
    proposals::Proposals,
    tools::{self, ToolContext, ToolEffect},
    writer::WorkspaceWriter,
};

/// Most model rounds in one turn (each round may call tools).
pub const MAX_TOOL_ROUNDS: usize = 8;

/// What lives as long as the sidecar process and every turn shares.
#[derive(Default)]
pub struct Shared {
    /// Long-term memory files, re-read only when they change.
    pub memory: Mutex<MemoryCache>,
    /// Writes held for approval.
    pub proposals: Mutex<Proposals>,
    /// The knowledge index of each workspace seen.
    pub indexes: Mutex<HashMap<PathBuf, LazyIndex>>,
    /// The backend found for the settings last seen.
    pub backends: agent::detect::Resolutions,
    /// Codex's model catalog, once asked.
    pub codex_models: agent::detect::CodexCatalog,
}

/// What long-term memory offers one prompt.
struct LongTerm {
    learnings: Vec<ContextFile>,
    specs: Vec<ContextFile>,
    /// Files not read or not indexed, for the inspector.
    refused: Vec<PromptPart>,
}

/// The learnings and specs for a prompt: entries and bullets ranked by the
/// knowledge index, spec files scored by it; Naide's keyword scan over the
/// files when the index is unavailable.
fn long_term(
    shared: &Shared,
    workspace: &Workspace,
    message: &str,
) -> Result<LongTerm, SidecarError> {
    let root = workspace.root();
    let mut cache = shared
        .memory
        .lock()
        .map_err(|_| SidecarError::Internal("the memory cache is poisoned".into()))?;
    let gathered = cache.gather(root, &memory::SPEC_DIRS, message);
    let mut refused: Vec<PromptPart> = gathered
        .refused
        .into_iter()
        .map(|reason| PromptPart::refused(PartKind::Spec, reason))
        .collect();
    let mut specs = gathered.files;
    let ranked = shared
        .indexes
        .lock()
        .map_err(|_| "the knowledge index is poisoned".to_owned())
        .and_then(|mut indexes| {
            let index = indexes
                .entry(root.to_owned())
                .or_default()
                .get(workspace)
                .map_err(|error| error.to_string())?;
            memory::relevant_knowledge(index, workspace, message, clock::now())
                .map_err(|error| error.to_string())
        });
    let learnings = match ranked {
        Ok(relevant) => {
            for spec in &mut specs {
                spec.relevance = relevant.spec_scores.get(&spec.path).copied().unwrap_or(0.0);
            }
            refused.extend(
                relevant
                    .warnings
                    .into_iter()
                    .map(|reason| PromptPart::refused(PartKind::Learning, reason)),
            );
            relevant.knowledge
        }
        Err(error) => {
            eprintln!("switchboard-sidecar: knowledge index unavailable ({error}); scanning files");
            let gathered = cache.gather(root, &memory::LEARNING_DIRS, message);
            refused.extend(
                gathered
                    .refused
                    .into_iter()
                    .map(|reason| PromptPart::refused(PartKind::Learning, reason)),
            );
            gathered.files
        }
    };
    Ok(LongTerm {
        learnings,
        specs,
        refused,
    })
}

fn message(id: usize, role: Role, content: &str) -> ChatMessage {
    ChatMessage {
        id: format!("m{id}-{}", clock::now().unix_millis()),
        role,
        content: content.to_owned(),
        timestamp: clock::now(),
        writes: Vec::new(),
        stopped: false,
        extra: Default::default(),
    }
}

/// How long a turn stopped before its save began waits for the save before
/// it reports; a save still waiting on another process's lock then goes on
/// in the background.
pub const SAVE_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// Runs `work`, which reads files or waits on locks, on the blocking pool,
/// so the request loop (and a `stop`) is never held up by it.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, SidecarError> + Send + 'static,
) -> Result<T, SidecarError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|error| SidecarError::Internal(format!("a sidecar task failed: {error}")))?
}

/// What a turn needs before it talks to the model.
struct Prepared {
    workspace: Workspace,
    session: switchboard_model::chat::ChatSession,
    allow: AllowList,
    assembled: switchboard_model::chat::prompt::AssembledPrompt,
    now: switchboard_model::Timestamp,
}

/// Opens the chat (new, resumed or active), the allow-list and memory, and
/// assembles the prompt.
fn prepare(
    request: &ChatRequest,
    settings: &Settings,
    shared: &Shared,
) -> Result<Prepared, SidecarError> {
    let root = Path::new(&request.workspace);
    let workspace = Workspace::open(root)?;
    let now = clock::now();
    let salt = chats::salt(now);
    if request.new_session {
        chats::archive_active(&workspace, now, salt)?;
    } else if let Some(id) = &request.session {
        chats::resume(&workspace, id, now, salt)?;
    }
    let session = chats::active(&workspace)?
        .unwrap_or_else(|| chats::new_session(&workspace, request.mode, now));
    let allow = AllowList::for_mode(request.mode, settings.build_globs())?;
    let long_term = long_term(shared, &workspace, &request.message)?;
    let base = prompts::base(root);
    let mode_prompt = prompts::for_mode(root, request.mode);
    let mut assembled = assemble(PromptInputs {
        base: &base.text,
        mode: &mode_prompt.text,
        learnings: long_term.learnings,
        specs: long_term.specs,
        summary: session.summary.as_ref(),
        history: &session.messages,
        message: &request.message,
        budget: settings.context_tokens(),
    });
    // Files refused on the way are shown in the inspector, never sent.
    let refused_prompts = [
        (PartKind::Base, base.refused),
        (PartKind::Mode, mode_prompt.refused),
    ]
    .into_iter()
    .filter_map(|(kind, reason)| reason.map(|reason| PromptPart::refused(kind, reason)));
    assembled
        .parts
        .extend(refused_prompts.chain(long_term.refused));
    Ok(Prepared {
        workspace,
        session,
        allow,
        assembled,
        now,
    })
}

/// Runs one round's tool calls; the text for the model and the effect of
/// each, in order.
fn run_tools(
    request: &ChatRequest,
    settings: &Settings,
    shared: &Shared,
    allow: &AllowList,
    now: switchboard_model::Timestamp,
    calls: &[crate::model_client::ToolCall],
) -> Result<Vec<(String, ToolEffect)>, SidecarError> {
    let root = Path::new(&request.workspace);
    let writer = WorkspaceWriter::open(root)?;
    let audit = AuditLog::new(root);
    let context = ToolContext {
        root,
        mode: request.mode,
        allow,
        writer: &writer,
        audit: &audit,
        now,
        build_globs: settings.build_globs(),
        proposals: (request.dry_run || settings.dry_run).then_some(&shared.proposals),
    };
    Ok(calls
        .iter()
        .map(|call| tools::run(&context, &call.function.name, &call.function.arguments))
        .collect())
}

/// The OpenAI-compatible backend's rounds: the model streamed, its tool
/// calls run here, up to [`MAX_TOOL_ROUNDS`]; the reply and whether `stop`
/// ended it.
#[allow(clippy::too_many_arguments)]
async fn openai_rounds(
    request: &ChatRequest,
    settings: &Settings,
    shared: &Arc<Shared>,
    allow: &AllowList,
    assembled: &switchboard_model::chat::prompt::AssembledPrompt,
    now: switchboard_model::Timestamp,
    filter: &mut SummaryFilter,
    emit: &mut impl FnMut(ResponseBody),
    stop: &watch::Receiver<bool>,
) -> Result<(String, bool), SidecarError> {
    let config = ModelConfig::from_settings(settings);
    let mut api_messages: Vec<ApiMessage> = assembled
        .messages()
        .into_iter()
        .map(|(role, content)| ApiMessage {
            role: role.to_owned(),
            content,
            tool_call_id: None,
            tool_calls: vec![],
        })
        .collect();
    let tool_definitions = tools::definitions(request.mode);

    let mut reply = String::new();
    let mut stopped = false;
    // The turn's text bound holds across its rounds.
    let mut round_config = config.clone();
    for _ in 0..MAX_TOOL_ROUNDS {
        let mut stop_round = stop.clone();
        let produced = reply.len()
            + api_messages
                .iter()
                .flat_map(|message| &message.tool_calls)
                .map(|call| call.function.arguments.len())
                .sum::<usize>();
        round_config.max_output_bytes = config.max_output_bytes.saturating_sub(produced);
        let completion = stream_chat(
            &round_config,
            &api_messages,
            &tool_definitions,
            |text| {
                let shown = filter.push(text);
                if !shown.is_empty() {
                    emit(ResponseBody::Delta { text: shown });
                }
            },
            async move {
                let _ = stop_round.wait_for(|stopped| *stopped).await;
            },
        )
        .await?;
        reply.push_str(&completion.content);
        if completion.stopped {
            stopped = true;
            break;
        }
        if completion.tool_calls.is_empty() {
            break;
        }
        api_messages.push(ApiMessage {
            role: "assistant".into(),
            content: completion.content.clone(),
            tool_call_id: None,
            tool_calls: completion.tool_calls.clone(),
        });
        let results = blocking({
            let (request, settings, shared) =
                (request.clone(), settings.clone(), Arc::clone(shared));
            let (allow, calls) = (allow.clone(), completion.tool_calls.clone());
            move || run_tools(&request, &settings, &shared, &allow, now, &calls)
        })
        .await?;
        for (call, (result, effect)) in completion.tool_calls.iter().zip(results) {
            match effect {
                ToolEffect::Write(event) => emit(ResponseBody::Write(event)),
                ToolEffect::None => {}
            }
            api_messages.push(ApiMessage {
                role: "tool".into(),
                content: result,
                tool_call_id: Some(call.id.clone()),
                tool_calls: vec![],
            });
        }
    }

    Ok((reply, stopped))
}

/// Runs `request` with `settings` (the model, budget, globs, dry run),
/// reporting through `emit`; ends early when `stop` turns true. File work
/// and lock waits run on the blocking pool, so `stop` is always read; a
/// stop while the save waits on a lock ends the turn at once and the save
/// completes when the lock is free. Errors carry the code the app acts on.
pub async fn run_turn(
    request: &ChatRequest,
    settings: &Settings,
    shared: &Arc<Shared>,
    mut emit: impl FnMut(ResponseBody),
    mut stop: watch::Receiver<bool>,
) -> Result<(), SidecarError> {
    let Prepared {
        workspace,
        session,
        allow,
        assembled,
        now,
    } = blocking({
        let (request, settings, shared) = (request.clone(), settings.clone(), Arc::clone(shared));
        move || prepare(&request, &settings, &shared)
    })
    .await?;
    let mut filter = SummaryFilter::default();
    // What the model does is reported, its writes also kept for its answer.
    let mut writes = Vec::new();
    let mut report = |body: ResponseBody| {
        if let ResponseBody::Write(event) = &body {
            writes.push(event.clone());
        }
        emit(body);
    };
    let backend = shared.backends.get(settings).await.backend;
    let (reply, mut stopped) = match backend {
        ModelBackend::ClaudeCode | ModelBackend::Codex => {
            let messages = assembled.messages();
            let system = messages
                .first()
                .map(|(_, text)| text.clone())
                .unwrap_or_default();
            let prompt = agent::conversation(messages.get(1..).unwrap_or_default());
            let definitions = tools::definitions(request.mode);
            let run_tool: agent::tool_server::RunTool = {
                let (request, settings, shared) =
                    (request.clone(), settings.clone(), Arc::clone(shared));
                let allow = allow.clone();
                Arc::new(move |name: &str, arguments: &str| {
                    let call = crate::model_client::ToolCall {
                        id: "agent".to_owned(),
                        kind: "function".to_owned(),
                        function: crate::model_client::FunctionCall {
                            name: name.to_owned(),
                            arguments: arguments.to_owned(),
                        },
                    };
                    match run_tools(&request, &settings, &shared, &allow, now, &[call]) {
                        Ok(mut results) => results
                            .pop()
                            .unwrap_or_else(|| ("error: no result".to_owned(), ToolEffect::None)),
                        Err(error) => (format!("error: {error}"), ToolEffect::None),
                    }
                })
            };
            let turn = agent::Turn {
                workspace: Path::new(&request.workspace),
                system: &system,
                prompt: &prompt,
                definitions: &definitions,
                run_tool,
                settings,
            };
            let heard = |heard: agent::Heard<'_>| match heard {
                agent::Heard::Text(text) => {
                    let shown = filter.push(text);
                    if !shown.is_empty() {
                        report(ResponseBody::Delta { text: shown });
                    }
                }
                agent::Heard::Write(event) => report(ResponseBody::Write(event)),
            };
            let ran = if backend == ModelBackend::Codex {
                agent::codex(turn, heard, stop.clone()).await?
            } else {
                agent::claude_code(turn, heard, stop.clone()).await?
            };
            (ran.text, ran.stopped)
        }
        ModelBackend::OpenaiCompatible => openai_rounds(
            request,
            settings,
            shared,
            &allow,
            &assembled,
            now,
            &mut filter,
            &mut report,
            &stop,
        )
        .await
        .map_err(|error| agent::detect::explained(error, settings))?,
    };

    let rest = filter.finish();
    if !rest.is_empty() {
        emit(ResponseBody::Delta { text: rest });
    }
    let split = split_reply(&reply);
    let visible = split.visible.clone();
    let session_id = session.id.clone();
    let message_text = request.message.clone();
    let mode = request.mode;
    let held = Arc::clone(shared);
    let mut save = tokio::task::spawn_blocking(move || {
        let mut summary_change = SummaryChange::default();
        let saved = chats::save_turn(&workspace, session, clock::now(), |session| {
            // The freshest summary (the developer may have edited it during
            // the turn) takes the update.
            let mut summary = session.summary.take().unwrap_or_default();
            if let Some(update) = split.update {
                summary_change = summary.merge(update, clock::now());
            }
            session.summary = (summary != Default::default()).then_some(summary);
            let next = session.messages.len();
            session
                .messages
                .push(message(next, Role::User, &message_text));
            let mut answer = message(next + 1, Role::Assistant, &visible);
            answer.stopped = stopped;
            // Under the chat's lock: a proposal settled before this finds
            // its fate here, one settled after finds this saved.
            answer.writes = writes
                .into_iter()
                .map(|event| {
                    let settled = match &event {
                        WriteEvent::Proposed { proposal, .. } => held
                            .proposals
                            .lock()
                            .ok()
                            .and_then(|held| held.outcome(proposal)),
                        _ => None,
                    };
                    ChatWrite { event, settled }
                })
                .collect();
            session.messages.push(answer);
            session.mode = mode;
            session.updated_at = clock::now();
        });
        saved.map(|saved| (saved, summary_change))
    });
    // A stop before the save began gives it a moment; a stop while it waits
    // (on another process's lock) ends the turn now.
    let already_stopped = *stop.borrow();
    let waited = tokio::select! {
        saved = &mut save => Some(saved),
        () = tokio::time::sleep(SAVE_GRACE), if already_stopped => None,
        _ = stop.wait_for(|stopped| *stopped), if !already_stopped => None,
    };
    let (session_id, summary_change) = match waited {
        Some(saved) => {
            let (saved, change) = saved.map_err(|error| {
                SidecarError::Internal(format!("a sidecar task failed: {error}"))
            })??;
            (saved.id, change)
        }
        None => {
            eprintln!(
                "switchboard-sidecar: stopped while the chat waits to be saved; it is saved when its folder's lock is free"
            );
            stopped = true;
            (session_id, SummaryChange::default())
        }
    };
    emit(ResponseBody::ChatDone {
        session: session_id,
        reply: split.visible,
        stopped,
        summary_change,
        prompt: assembled.parts,
    });
    Ok(())
}
