//! One chat turn: memory in, prompt assembled, the model streamed with a
//! bounded tool loop, the summary merged, the session saved.

use std::{path::Path, sync::Mutex};

use switchboard_model::{
    chat::{
        ChatMessage, Role,
        prompt::{PromptInputs, assemble},
        summary::{SummaryFilter, split_reply},
    },
    sidecar::{ChatRequest, ResponseBody},
};
use switchboard_store::{Workspace, chats, clock};
use tokio::sync::watch;

use crate::{
    allow::AllowList,
    audit::AuditLog,
    memory::{self, MemoryCache},
    model_client::{ApiMessage, ModelConfig, stream_chat},
    prompts,
    tools::{self, ToolContext, ToolEffect},
    writer::WorkspaceWriter,
};

/// Most model rounds in one turn (each round may call tools).
pub const MAX_TOOL_ROUNDS: usize = 8;
/// Token budget when `SWITCHBOARD_CONTEXT_TOKENS` is not set.
pub const DEFAULT_CONTEXT_TOKENS: usize = 8_000;

/// Building's extra globs from `SWITCHBOARD_BUILD_GLOBS` (comma-separated).
fn building_globs() -> Vec<String> {
    std::env::var("SWITCHBOARD_BUILD_GLOBS")
        .map(|globs| {
            globs
                .split(',')
                .map(str::trim)
                .filter(|g| !g.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn context_budget() -> usize {
    std::env::var("SWITCHBOARD_CONTEXT_TOKENS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_CONTEXT_TOKENS)
}

fn message(id: usize, role: Role, content: &str) -> ChatMessage {
    ChatMessage {
        id: format!("m{id}-{}", clock::now().unix_millis()),
        role,
        content: content.to_owned(),
        timestamp: clock::now(),
        extra: Default::default(),
    }
}

/// Runs `request` against the model in `config`, reporting through `emit`;
/// ends early when `stop` turns true. `memory` keeps long-term files
/// between turns. Errors are sentences for the chat.
pub async fn run_turn(
    request: &ChatRequest,
    config: &ModelConfig,
    memory: &Mutex<MemoryCache>,
    mut emit: impl FnMut(ResponseBody),
    stop: watch::Receiver<bool>,
) -> Result<(), String> {
    let root = Path::new(&request.workspace);
    let workspace = Workspace::open(root).map_err(|error| error.to_string())?;
    let now = clock::now();
    if request.new_session {
        let salt = (now.unix_millis() as u32) ^ std::process::id();
        chats::archive_active(&workspace, now, salt).map_err(|error| error.to_string())?;
    }
    let mut session = chats::active(&workspace)
        .map_err(|error| error.to_string())?
        .unwrap_or_else(|| chats::new_session(&workspace, request.mode, now));

    let allow =
        AllowList::for_mode(request.mode, &building_globs()).map_err(|error| error.to_string())?;
    let writer = WorkspaceWriter::open(root).map_err(|error| error.to_string())?;
    let audit = AuditLog::new(root);
    let (learnings, specs) = {
        let mut cache = memory
            .lock()
            .map_err(|_| "the memory cache is poisoned".to_owned())?;
        (
            cache.gather(root, &memory::LEARNING_DIRS, &request.message),
            cache.gather(root, &memory::SPEC_DIRS, &request.message),
        )
    };
    let base = prompts::base(root);
    let mode_prompt = prompts::for_mode(root, request.mode);
    let assembled = assemble(PromptInputs {
        base: &base,
        mode: &mode_prompt,
        learnings,
        specs,
        summary: session.summary.as_ref(),
        history: &session.messages,
        message: &request.message,
        budget: context_budget(),
    });
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
    let context = ToolContext {
        root,
        mode: request.mode,
        allow: &allow,
        writer: &writer,
        audit: &audit,
        now,
    };

    let mut reply = String::new();
    let mut stopped = false;
    let mut filter = SummaryFilter::default();
    for _ in 0..MAX_TOOL_ROUNDS {
        let mut stop_round = stop.clone();
        let completion = stream_chat(
            config,
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
        .await
        .map_err(|error| error.to_string())?;
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
        for call in &completion.tool_calls {
            let (result, effect) =
                tools::run(&context, &call.function.name, &call.function.arguments);
            match effect {
                ToolEffect::Wrote { path, bytes } => {
                    emit(ResponseBody::WriteApplied { path, bytes })
                }
                ToolEffect::Refused { path, reason } => {
                    emit(ResponseBody::WriteRefused { path, reason })
                }
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

    let rest = filter.finish();
    if !rest.is_empty() {
        emit(ResponseBody::Delta { text: rest });
    }
    let split = split_reply(&reply);
    let mut summary = session.summary.take().unwrap_or_default();
    let summary_change = match split.update {
        Some(update) => summary.merge(update, clock::now()),
        None => Default::default(),
    };
    let had_summary = summary != Default::default();
    session.summary = had_summary.then_some(summary);
    let next = session.messages.len();
    session
        .messages
        .push(message(next, Role::User, &request.message));
    session
        .messages
        .push(message(next + 1, Role::Assistant, &split.visible));
    session.mode = request.mode;
    session.updated_at = clock::now();
    chats::save_active(&workspace, &session).map_err(|error| error.to_string())?;
    emit(ResponseBody::ChatDone {
        session: session.id.clone(),
        reply: split.visible,
        stopped,
        summary_change,
        prompt: assembled.parts,
    });
    Ok(())
}
