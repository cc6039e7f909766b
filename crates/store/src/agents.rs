//! Agents' sessions as files the store owns: one
//! `.switchboard/agents/<key>.json` per agent session seen through a hook
//! or MCP, changed under the folder's lock and written atomically, so the
//! CLI, MCP and the window agree; the questions their permission requests
//! become; and the read-only tail of their transcripts.

use std::{
    io::{Read, Seek, SeekFrom},
    path::{Path, PathBuf},
};

use serde_json::Map;
use switchboard_model::{
    Delivery, Timestamp,
    agent::{
        AgentKind, AgentRecord, AgentRow, AgentState,
        hook::{HookEvent, HookInput, Verdict},
        permission::{DIFF_LIMIT, PermissionRequest, REQUEST_FIELD},
        transcript::{self, TranscriptMessage},
    },
    blocking::{AwaitOutcome, BlockingSession},
    process::{Liveness, ProcessMark},
};

use crate::{
    StoreError, Workspace, feedback, json_file,
    lock::DirLock,
    process::{ProcStat, liveness},
    walk,
};

/// The agents folder, relative to the workspace.
pub const AGENTS_DIR: &str = ".switchboard/agents";

/// How long a gone agent is still listed: a day.
pub const GONE_KEPT_MS: i64 = 24 * 60 * 60 * 1000;

/// How many of its last messages a row carries.
pub const LAST_MESSAGES: usize = 6;

/// The agents folder of `workspace`.
pub fn agents_dir(workspace: &Workspace) -> PathBuf {
    workspace.root().join(AGENTS_DIR)
}

/// Changes the record of `agent`'s session `session_id` under the
/// folder's lock: `change` gets the record (`None` when there is none,
/// or it does not parse) and leaves what is to be stored. Returns it.
pub fn update(
    workspace: &Workspace,
    agent: AgentKind,
    session_id: &str,
    change: impl FnOnce(Option<AgentRecord>) -> AgentRecord,
) -> Result<AgentRecord, StoreError> {
    let dir = agents_dir(workspace);
    let lock = DirLock::acquire(&dir)?;
    let path = lock.file(&format!("{}.json", AgentRecord::key(agent, session_id)));
    let stored = match json_file::read::<AgentRecord>(&path, "agent", session_id) {
        Ok(record) => Some(record),
        Err(StoreError::NotFound { .. }) => None,
        Err(error) => {
            tracing::warn!(%error, "an unreadable agent record is replaced");
            None
        }
    };
    let record = change(stored);
    json_file::write(&path, &record, "agent")?;
    Ok(record)
}

/// Records what a hook call says: the session appears (named, with its
/// folder, transcript and process) or moves to the state its event means.
pub fn observe(
    workspace: &Workspace,
    input: &HookInput,
    process: Option<ProcessMark>,
    now: Timestamp,
) -> Result<AgentRecord, StoreError> {
    let state = input.event.state();
    update(workspace, input.agent, &input.session_id, |stored| {
        let mut record = stored.unwrap_or_else(|| {
            AgentRecord::new(
                input.agent,
                &input.session_id,
                input.agent.label(),
                &input.cwd,
                state.unwrap_or(AgentState::Working),
                now,
            )
        });
        if let Some(state) = state {
            record.enter(state, now);
        }
        record.seen_at = now;
        if let HookEvent::Notification { message, .. } = &input.event
            && record.state.waits()
            && !message.is_empty()
        {
            record.reason = Some(message.clone());
        }
        if input.transcript_path.is_some() {
            record.transcript_path.clone_from(&input.transcript_path);
        }
        if process.is_some() {
            record.process = process;
        }
        record
    })
}

/// Every agent session recorded in `workspace`, as the view shows them at
/// `now` (ordered, each with its last messages), leaving out those gone
/// for more than [`GONE_KEPT_MS`]. Unreadable records are skipped.
pub fn list(workspace: &Workspace, now: Timestamp) -> Result<Vec<AgentRow>, StoreError> {
    let mut rows = states(workspace, now)?;
    for row in &mut rows {
        row.last_messages = last_messages(&row.record);
    }
    Ok(rows)
}

/// The last messages of `record`'s transcript, if it keeps one.
pub fn last_messages(record: &AgentRecord) -> Vec<TranscriptMessage> {
    record
        .transcript_path
        .as_deref()
        .map(|path| transcript_tail(Path::new(path), LAST_MESSAGES))
        .unwrap_or_default()
}

/// [`list`] without the transcripts (no row's `last_messages`): what
/// each agent does, for a caller that reads few transcripts or none.
pub fn states(workspace: &Workspace, now: Timestamp) -> Result<Vec<AgentRow>, StoreError> {
    let mut rows = Vec::new();
    for path in walk::files_in(&agents_dir(workspace), "json")? {
        let record: AgentRecord = match json_file::read(&path, "agent", "") {
            Ok(record) => record,
            Err(error) => {
                tracing::warn!(%error, "an agent record was skipped");
                continue;
            }
        };
        let shown = record.shown_state(now, record.process.map_or(Liveness::Unknown, liveness));
        if shown == AgentState::Gone
            && now.unix_millis() - record.seen_at.unix_millis() > GONE_KEPT_MS
        {
            continue;
        }
        rows.push(AgentRow {
            record,
            shown,
            last_messages: Vec::new(),
        });
    }
    switchboard_model::agent::arrange(&mut rows);
    Ok(rows)
}

/// Removes the records of agents gone for more than [`GONE_KEPT_MS`].
pub fn sweep(workspace: &Workspace, now: Timestamp) -> Result<usize, StoreError> {
    let dir = agents_dir(workspace);
    let _lock = DirLock::acquire(&dir)?;
    let mut removed = 0;
    for path in walk::files_in(&dir, "json")? {
        let Ok(record) = json_file::read::<AgentRecord>(&path, "agent", "") else {
            continue;
        };
        let shown = record.shown_state(now, record.process.map_or(Liveness::Unknown, liveness));
        if shown == AgentState::Gone
            && now.unix_millis() - record.seen_at.unix_millis() > GONE_KEPT_MS
            && std::fs::remove_file(&path).is_ok()
        {
            removed += 1;
        }
    }
    Ok(removed)
}

/// The last `count` messages of the transcript at `path`, read from its
/// end (a transcript of any length costs the same), never written. A
/// path that is not a `.jsonl` file gives none.
pub fn transcript_tail(path: &Path, count: usize) -> Vec<TranscriptMessage> {
    const FIRST: u64 = 256 * 1024;
    const SECOND: u64 = 4 * 1024 * 1024;
    if path
        .extension()
        .is_none_or(|extension| extension != "jsonl")
    {
        return Vec::new();
    }
    let Ok(mut file) = std::fs::File::open(path) else {
        return Vec::new();
    };
    let Ok(length) = file.metadata().map(|meta| meta.len()) else {
        return Vec::new();
    };
    let mut messages = Vec::new();
    for window in [FIRST, SECOND] {
        let start = length.saturating_sub(window);
        let mut bytes = Vec::new();
        if file.seek(SeekFrom::Start(start)).is_err() || file.read_to_end(&mut bytes).is_err() {
            return messages;
        }
        let text = String::from_utf8_lossy(&bytes);
        // A window that starts mid-file starts mid-line: that line is cut.
        let whole = if start == 0 {
            &text[..]
        } else {
            text.split_once('\n').map_or("", |(_, rest)| rest)
        };
        messages = transcript::last_messages(whole.lines(), count);
        if messages.len() >= count || start == 0 {
            break;
        }
    }
    messages
}

/// Puts `request` in the inbox as a blocking question (with its mark, and
/// an edit shown as a diff against its file now) that waits until
/// `timeout_at`, and notes on its agent that it waits on it.
pub fn ask_permission(
    workspace: &Workspace,
    request: &PermissionRequest,
    now: Timestamp,
    timeout_at: Timestamp,
) -> Result<(Delivery, BlockingSession), StoreError> {
    let on_disk = request
        .target_file()
        .and_then(|file| read_small_text(Path::new(file)));
    let mut extra = Map::new();
    let mark = serde_json::to_value(request.mark()).map_err(|source| StoreError::Encode {
        what: "permission request",
        source,
    })?;
    extra.insert(REQUEST_FIELD.to_owned(), mark);
    let (appended, session) = feedback::ask_marked(
        workspace,
        request.question(on_disk.as_deref()),
        extra,
        now,
        timeout_at,
    )?;
    let delivery_id = appended.delivery.id.clone();
    update(workspace, request.agent, &request.session_id, |stored| {
        let mut record = stored.unwrap_or_else(|| {
            AgentRecord::new(
                request.agent,
                &request.session_id,
                &request.name,
                &request.cwd,
                AgentState::NeedsPermission,
                now,
            )
        });
        record.enter(AgentState::NeedsPermission, now);
        record.waiting_on = Some(delivery_id);
        record
    })?;
    Ok((appended.delivery, session))
}

/// Ends a permission request's question once its wait is over, however
/// it ended (`outcome`; `None` when the caller gave up): what the answer
/// decides; a question that decided nothing leaves the inbox — unless an
/// answer raced in, which then decides —; and the agent works on (decided
/// here) or waits at its own prompt, on no question. The one ending of
/// every edge that asks (the hook, MCP `approve`).
pub fn settle_permission(
    workspace: &Workspace,
    request: &PermissionRequest,
    session_id: &str,
    outcome: Option<&AwaitOutcome>,
    now: Timestamp,
) -> Result<Verdict, StoreError> {
    let mut verdict = outcome.map_or(Verdict::FallThrough, |outcome| request.verdict(outcome));
    if verdict == Verdict::FallThrough {
        verdict = request.verdict(&feedback::retract(workspace, session_id, now)?);
    }
    let decided = verdict != Verdict::FallThrough;
    update(workspace, request.agent, &request.session_id, |stored| {
        let mut record = stored.unwrap_or_else(|| {
            AgentRecord::new(
                request.agent,
                &request.session_id,
                &request.name,
                &request.cwd,
                AgentState::Working,
                now,
            )
        });
        if decided {
            record.enter(AgentState::Working, now);
        } else {
            record.waiting_on = None;
            record.seen_at = now;
        }
        record
    })?;
    Ok(verdict)
}

/// A file's text for a diff: a regular UTF-8 file of at most
/// [`DIFF_LIMIT`] bytes, else `None`.
fn read_small_text(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > DIFF_LIMIT as u64 {
        return None;
    }
    String::from_utf8(std::fs::read(path).ok()?).ok()
}

/// The process that ran this one, looking past a shell in between (an
/// agent runs its hook command through `sh -c`): the agent itself.
pub fn calling_agent() -> Option<ProcessMark> {
    let mut pid = std::os::unix::process::parent_id();
    for _ in 0..2 {
        let stat = ProcStat::read(pid)?;
        if !matches!(
            stat.name.as_str(),
            "sh" | "bash" | "dash" | "zsh" | "fish" | "ash"
        ) {
            return Some(ProcessMark {
                pid,
                start: stat.start,
            });
        }
        pid = stat.parent;
    }
    ProcStat::read(pid).map(|stat| ProcessMark {
        pid,
        start: stat.start,
    })
}

/// The permission request a hook call carries, if it is one.
pub fn permission_request(input: &HookInput) -> Option<PermissionRequest> {
    let HookEvent::PermissionRequest {
        tool_name,
        tool_input,
    } = &input.event
    else {
        return None;
    };
    Some(PermissionRequest {
        agent: input.agent,
        name: input.agent.label().to_owned(),
        session_id: input.session_id.clone(),
        cwd: input.cwd.clone(),
        tool_name: tool_name.clone(),
        tool_input: tool_input.clone(),
        has_terminal: true,
    })
}
