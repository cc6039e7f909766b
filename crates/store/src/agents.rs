//! Agents' sessions as files the store owns: one
//! `.switchboard/agents/<key>.json` per agent session seen through a hook
//! or MCP, changed under the folder's lock and written atomically, so the
//! CLI, MCP and the window agree; the questions their permission requests
//! become; and the read-only tail of their transcripts.

use std::{
    io::{Read, Seek, SeekFrom},
    os::{fd::AsRawFd, unix::fs::PermissionsExt},
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use serde_json::{Map, Value};
use switchboard_model::{
    Delivery, Timestamp,
    agent::{
        AgentKind, AgentRecord, AgentRow, AgentState,
        hook::{HookEvent, HookInput, Verdict},
        permission::{DIFF_LIMIT, OnDisk, PermissionRequest, REQUEST_FIELD},
        transcript::{self, TranscriptMessage},
    },
    blocking::{AwaitOutcome, BlockingSession},
    process::{Liveness, ProcessMark},
};

use crate::{
    StoreError, Workspace, feedback, json_file,
    lock::DirLock,
    own_folders,
    process::{ProcStat, liveness},
    regular, walk,
};

/// The agents folder, relative to the workspace.
pub const AGENTS_DIR: &str = ".switchboard/agents";

/// How long a gone agent is still listed: a day.
pub const GONE_KEPT_MS: i64 = 24 * 60 * 60 * 1000;

/// How many of its last messages a row carries.
pub const LAST_MESSAGES: usize = 6;

/// The most an agent record holds: a few names, paths and a sentence. Past
/// it a record is refused unread — anything working in the workspace can
/// put one there, and every list of the agents (the window's, a paired
/// browser's) reads them all.
pub const RECORD_LIMIT: u64 = 1 << 20;

/// The agent record at `path`, read within `within`.
fn read_record(within: &Path, path: &Path, id: &str) -> Result<AgentRecord, StoreError> {
    json_file::read_bounded(within, path, "agent", id, RECORD_LIMIT)
}

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
    let lock = DirLock::acquire_within(workspace.root(), &dir)?;
    let path = lock.file(&format!("{}.json", AgentRecord::key(agent, session_id)));
    let stored = match read_record(lock.within(), &path, session_id) {
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

/// Who an agent record is of, as the edge that hears from the agent
/// knows it.
#[derive(Debug, Clone, Copy)]
pub struct Heard<'a> {
    /// Which agent.
    pub agent: AgentKind,
    /// Its session's id.
    pub session_id: &'a str,
    /// The name a new record shows.
    pub name: &'a str,
    /// The folder a new record shows.
    pub cwd: &'a str,
}

/// Creates or updates the record of `who` under the folder's lock: an
/// agent heard from for the first time is recorded (named, in its folder,
/// working since `now`), then `change` is made to the record. The one way
/// every edge records an agent (hooks, MCP clients, agents over HTTP).
pub fn heard(
    workspace: &Workspace,
    who: &Heard<'_>,
    now: Timestamp,
    change: impl FnOnce(&mut AgentRecord),
) -> Result<AgentRecord, StoreError> {
    update(workspace, who.agent, who.session_id, |stored| {
        let mut record = stored.unwrap_or_else(|| {
            AgentRecord::new(
                who.agent,
                who.session_id,
                who.name,
                who.cwd,
                AgentState::Working,
                now,
            )
        });
        change(&mut record);
        record
    })
}

/// Who asks `request`.
fn asker(request: &PermissionRequest) -> Heard<'_> {
    Heard {
        agent: request.agent,
        session_id: &request.session_id,
        name: &request.name,
        cwd: &request.cwd,
    }
}

/// Records what a hook call says: the session appears (named, with its
/// folder, transcript and process) or moves to the state its event means.
pub fn observe(
    workspace: &Workspace,
    input: &HookInput,
    process: Option<ProcessMark>,
    now: Timestamp,
) -> Result<AgentRecord, StoreError> {
    record_seen(workspace, input, true, process, now)
}

/// [`observe`] for a permission request about to be asked in the inbox:
/// the session is seen, but stays in its state until the question is put
/// ([`ask_permission`] moves it, with the question, in one change) — so
/// nothing reads it as waiting at its own prompt meanwhile, which would
/// announce the same request twice.
pub fn observe_before_asking(
    workspace: &Workspace,
    input: &HookInput,
    process: Option<ProcessMark>,
    now: Timestamp,
) -> Result<AgentRecord, StoreError> {
    record_seen(workspace, input, false, process, now)
}

/// Records `input`'s session as seen at `now`, moved (`moves`) to the
/// state its event means for it ([`HookEvent::state_after`]).
fn record_seen(
    workspace: &Workspace,
    input: &HookInput,
    moves: bool,
    process: Option<ProcessMark>,
    now: Timestamp,
) -> Result<AgentRecord, StoreError> {
    let who = Heard {
        agent: input.agent,
        session_id: &input.session_id,
        name: input.agent.label(),
        cwd: &input.cwd,
    };
    heard(workspace, &who, now, |record| {
        if moves && let Some(state) = input.event.state_after(record.state) {
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
        if input.launch.is_some() {
            record.launch.clone_from(&input.launch);
        }
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
        let record: AgentRecord = match read_record(workspace.root(), &path, "") {
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
    let _lock = DirLock::acquire_within(workspace.root(), &dir)?;
    let mut removed = 0;
    for path in walk::files_in(&dir, "json")? {
        let Ok(record) = read_record(workspace.root(), &path, "") else {
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
/// path that is not a `.jsonl` regular file gives none: a FIFO or a device
/// named by a hook is neither waited on nor read without end.
pub fn transcript_tail(path: &Path, count: usize) -> Vec<TranscriptMessage> {
    const FIRST: u64 = 256 * 1024;
    const SECOND: u64 = 4 * 1024 * 1024;
    if path
        .extension()
        .is_none_or(|extension| extension != "jsonl")
    {
        return Vec::new();
    }
    // Where the agent's own tool keeps it, which its hook names.
    let Ok(mut file) = regular::open_read_in(Path::new(regular::ANYWHERE), path) else {
        return Vec::new();
    };
    let Ok(length) = file.metadata().map(|meta| meta.len()) else {
        return Vec::new();
    };
    let mut messages = Vec::new();
    for window in [FIRST, SECOND] {
        let start = length.saturating_sub(window);
        let mut bytes = Vec::new();
        if file.seek(SeekFrom::Start(start)).is_err()
            || (&mut file).take(window).read_to_end(&mut bytes).is_err()
        {
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

/// How long a question's diff may take to work out before it is finished
/// coarsely (the agent waits on its hook meanwhile).
const DIFF_TIME: Duration = Duration::from_millis(500);

/// Puts `request` in the inbox as a blocking question (with its mark, and
/// an edit shown as a diff against its file now — only a regular file
/// inside the workspace is read for it, see [`on_disk`]) that waits until
/// `timeout_at`, with the caller's `marks` (`sent_by`), and notes on its
/// agent that it waits on it. The inbox's
/// data folder is made private to its owner first (0700): a question
/// holds what the developer needs to decide, which may be private.
pub fn ask_permission(
    workspace: &Workspace,
    request: &PermissionRequest,
    marks: Map<String, Value>,
    now: Timestamp,
    timeout_at: Timestamp,
) -> Result<(Delivery, BlockingSession), StoreError> {
    let on_disk = match request.target_file() {
        None => OnDisk::Missing,
        Some(_) if request.remote => OnDisk::Withheld(
            "Asked from another machine: its paths are there, so no file here is shown".to_owned(),
        ),
        Some(file) => on_disk(workspace, &request.cwd, file),
    };
    let question = request.question(&on_disk, Some(Instant::now() + DIFF_TIME));
    make_private(&workspace.inbox_data_dir())?;
    let mut extra = marks;
    let mark = serde_json::to_value(request.mark()).map_err(|source| StoreError::Encode {
        what: "permission request",
        source,
    })?;
    extra.insert(REQUEST_FIELD.to_owned(), mark);
    let (appended, session) = feedback::ask_marked(workspace, question, extra, now, timeout_at)?;
    let delivery_id = appended.delivery.id.clone();
    heard(workspace, &asker(request), now, |record| {
        record.enter(AgentState::NeedsPermission, now);
        record.waiting_on = Some(delivery_id);
    })?;
    Ok((appended.delivery, session))
}

/// Ends a permission request's question (`asked`, as [`ask_permission`]
/// put it) once its wait is over, however it ended (`outcome`; `None` when
/// the caller gave up): what the answer decides; a question that decided nothing leaves the inbox — unless an
/// answer raced in, which then decides —; and the agent works on (decided
/// here) or waits at its own prompt, on no question. An answer decides
/// only as its receipt outside the workspace says ([`crate::receipts`]),
/// given to the question as it was asked: one that only the inbox's files
/// hold, or one given to text rewritten there, decides nothing. The one ending of
/// every edge that asks (the hook, MCP `approve`).
pub fn settle_permission(
    workspace: &Workspace,
    request: &PermissionRequest,
    asked: &Delivery,
    session_id: &str,
    outcome: Option<&AwaitOutcome>,
    now: Timestamp,
) -> Result<Verdict, StoreError> {
    // An answer counts only as its receipt outside the workspace says: the
    // inbox's files are anyone's who works here to write.
    let acted = |outcome: &AwaitOutcome| {
        crate::receipts::vouched_outcome(workspace, session_id, asked, outcome.clone())
            .map_or(Verdict::FallThrough, |outcome| request.verdict(&outcome))
    };
    let mut verdict = outcome.map_or(Verdict::FallThrough, acted);
    if verdict == Verdict::FallThrough {
        verdict = acted(&feedback::retract(workspace, session_id, now)?);
    }
    let decided = verdict != Verdict::FallThrough;
    heard(workspace, &asker(request), now, |record| {
        if decided {
            record.enter(AgentState::Working, now);
        } else {
            record.waiting_on = None;
            record.seen_at = now;
        }
    })?;
    Ok(verdict)
}

/// What `file` (absolute, or relative to the agent's `cwd`) holds now,
/// for a question's diff: read only when it is a regular file inside
/// `workspace` — after every symlink, checked on the handle that reads it,
/// never under `/proc`, `/dev` or `/sys` —, of at most [`DIFF_LIMIT`]
/// bytes of UTF-8; otherwise why not, and nothing of it is read. A file
/// that is not there is [`OnDisk::Missing`].
pub fn on_disk(workspace: &Workspace, cwd: &str, file: &str) -> OnDisk {
    let path = Path::new(cwd).join(file);
    let withheld = |why: &str| OnDisk::Withheld(why.to_owned());
    let Ok(root) = workspace.root().canonicalize() else {
        return withheld("The workspace could not be resolved, so the file's text is not shown");
    };
    if std::fs::symlink_metadata(&path)
        .is_err_and(|error| error.kind() == std::io::ErrorKind::NotFound)
    {
        // A new file: nothing to read, but say where it would be made.
        let made_inside = path
            .ancestors()
            .find_map(|folder| folder.canonicalize().ok())
            .is_some_and(|folder| within(&root, &folder));
        return if made_inside {
            OnDisk::Missing
        } else {
            withheld("A new file outside the workspace")
        };
    }
    let outside = "The file is outside the workspace, so its text is not shown";
    let Ok(real) = path.canonicalize() else {
        // A link that leads nowhere: nothing to read.
        return OnDisk::Missing;
    };
    if !within(&root, &real) {
        return withheld(outside);
    }
    let file = match regular::open_read_in(&root, &real) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::InvalidInput => {
            return withheld("The file is not a regular file, so nothing of it is shown");
        }
        Err(_) => return withheld("The file could not be read"),
    };
    // Where the handle really is: a folder on the way swapped for a link
    // since the path was resolved is caught here.
    let opened = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd()));
    if !opened.is_ok_and(|opened| within(&root, &opened)) {
        return withheld(outside);
    }
    let mut bytes = Vec::new();
    if file
        .take(DIFF_LIMIT as u64 + 1)
        .read_to_end(&mut bytes)
        .is_err()
    {
        return withheld("The file could not be read");
    }
    if bytes.len() > DIFF_LIMIT {
        return withheld(&format!(
            "The file is over {} KiB, too large to show as a diff",
            DIFF_LIMIT / 1024
        ));
    }
    String::from_utf8(bytes).map_or_else(
        |_| withheld("The file is not UTF-8 text, so it is not shown as a diff"),
        OnDisk::Text,
    )
}

/// Whether `real` (a resolved path) is inside `root` (resolved) and not
/// in one of the kernel's own file systems.
fn within(root: &Path, real: &Path) -> bool {
    real.starts_with(root)
        && !["/proc", "/dev", "/sys"]
            .iter()
            .any(|kernel| real.starts_with(kernel))
}

/// Makes `dir` (made first if missing) readable by its owner only;
/// refused when it is a link (its target, wherever that is, would be
/// changed, and what is put there would be wherever the link leads).
fn make_private(dir: &Path) -> Result<(), StoreError> {
    own_folders::create_dir_all(dir)?;
    let meta = std::fs::symlink_metadata(dir).map_err(StoreError::io("could not inspect", dir))?;
    if meta.is_symlink() {
        return Err(StoreError::OutsideWorkspace {
            path: dir.to_owned(),
            target: std::fs::read_link(dir).unwrap_or_default(),
        });
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
        .map_err(StoreError::io("could not make private", dir))
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
        suggested,
    } = &input.event
    else {
        return None;
    };
    Some(PermissionRequest {
        agent: input.agent,
        name: switchboard_model::agent::named(input.launch.as_deref(), input.agent.label()),
        launch: input.launch.clone(),
        session_id: input.session_id.clone(),
        cwd: input.cwd.clone(),
        tool_name: tool_name.clone(),
        tool_input: tool_input.clone(),
        suggested: suggested.clone(),
        remote: false,
        has_terminal: true,
    })
}
