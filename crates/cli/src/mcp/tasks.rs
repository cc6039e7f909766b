//! MCP tasks (the `io.modelcontextprotocol/tasks` extension): for a client
//! that declares the extension, an `ask` and every call that can run long
//! (`investigate`, `test_program`, `fuzz`, `run_chain`, a wait longer than
//! a few seconds: `model::task::runs_long`) return a task at once, and the
//! work outlives the call.
//!
//! An `ask`'s task id names the blocking session the store keeps
//! (`ask-<session>`); only `tasks/cancel` or the developer ends the
//! question, never the client going away. Any other call is recorded as a
//! task (`run-<id>`, `store::tasks`) and run by a *worker*: this binary
//! again (`switchboard mcp run-task ID`), in a process group of its own,
//! which writes the call's steps and its result into the record. Either
//! way `tasks/get` and `tasks/cancel` work from any `switchboard mcp`
//! process — stdio or HTTP, after a restart, days later; cancelling a run
//! stops its worker (SIGTERM), which ends the program it ran.
//!
//! A task belongs to the caller that made it — the agent whose token made
//! the call, or local clients (no token) — and to any other caller it
//! answers as a task that does not exist. The worker a record names is
//! signalled only once `/proc` proves it is this program's `run-task` of
//! that task in this workspace (a record is a file anyone who can write
//! the workspace can write).

use std::{
    ffi::OsString,
    os::unix::process::CommandExt,
    path::Path,
    process::{Command, Stdio},
    sync::Arc,
    time::Duration,
};

use anyhow::Context;
use rmcp::{
    ErrorData,
    handler::server::tool::IntoCallToolResult,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams,
        CreateTaskResult, DetailedTask, GetTaskParams, GetTaskResult, JsonObject, Task,
        TaskPayload, TaskStatus,
    },
};
use serde::de::DeserializeOwned;
use switchboard_model::{
    blocking::{AwaitOutcome, BlockingSession},
    process::ProcessMark,
    task::{self, TaskState, ToolTask},
};
use switchboard_store::{Workspace, clock, deliveries, feedback, process, tasks};
use tokio_util::sync::CancellationToken;

use super::{
    Server, ToolError,
    inbox::Answer,
    probe::{ChainArgs, FuzzArgs, InvestigateArgs},
    progress::{Bridge, Step},
    session::{ExpectArgs, WaitArgs},
};

/// What every task id of an `ask` starts with.
const ASK: &str = "ask-";

/// How often a client is told to poll a question, in ms.
const POLL_MS: u64 = 1_000;

/// How often a client is told to poll a running call, in ms.
const RUN_POLL_MS: u64 = 250;

/// The least time between two steps a worker writes into its task.
const STEP_EVERY: Duration = Duration::from_millis(200);

/// Why a task id names nothing.
fn unknown(task_id: &str) -> ErrorData {
    ErrorData::invalid_params(format!("no task {task_id:?} here"), None)
}

fn session_of(task_id: &str) -> Result<&str, ErrorData> {
    task_id
        .strip_prefix(ASK)
        .filter(|session| !session.is_empty())
        .ok_or_else(|| unknown(task_id))
}

/// The task a session is, as the client sees it now; `opened` says the
/// developer has opened the question in the window.
fn task_of(session: &BlockingSession, opened: bool) -> DetailedTask {
    let updated = session.responded_at.unwrap_or(session.created_at);
    let task = Task::new(
        format!("{ASK}{}", session.id),
        TaskStatus::Working,
        session.created_at.to_string(),
        updated.to_string(),
    )
    .with_poll_interval_ms(POLL_MS);
    let Some(outcome) = AwaitOutcome::of_session(session) else {
        let message = if opened {
            "opened in the window; waiting for the developer's answer"
        } else {
            "waiting for the developer's answer"
        };
        return DetailedTask::new(task.with_status_message(message), TaskPayload::Working);
    };
    if session.extra.contains_key("withdrawn_at") {
        return DetailedTask::new(
            task.with_status_message("withdrawn"),
            TaskPayload::Cancelled,
        );
    }
    let message = match &outcome {
        AwaitOutcome::Responded { .. } => "answered",
        AwaitOutcome::Declined { .. } => "declined",
        AwaitOutcome::Dismissed { .. } => "dismissed",
        AwaitOutcome::Timeout { .. } => "timed out",
        AwaitOutcome::Error { .. } => "failed",
    };
    let result = Answer::of(outcome)
        .ok()
        .and_then(|answer| serde_json::to_value(answer).ok())
        .map(CallToolResult::structured)
        .and_then(|result| serde_json::to_value(result).ok())
        .and_then(|value| value.as_object().cloned())
        .unwrap_or_default();
    DetailedTask::new(
        task.with_status_message(message),
        TaskPayload::Completed { result },
    )
}

/// Blocking session `session` and its question, when `caller` asked it
/// (the agent whose token asked, `None` for a local client); otherwise
/// not found, as if there were no such session.
fn asked_by(
    workspace: &Workspace,
    session: &str,
    caller: Option<&str>,
) -> anyhow::Result<(BlockingSession, switchboard_model::delivery::Delivery)> {
    let stored = feedback::session(workspace, session)?;
    let question = deliveries::get(workspace, &stored.delivery_id)?;
    if question.sent_by() != caller {
        return Err(switchboard_store::StoreError::NotFound {
            what: "task",
            id: format!("{ASK}{session}"),
        }
        .into());
    }
    Ok((stored, question))
}

impl Server {
    /// `ask` as a task, when the client declared the tasks extension: the
    /// question is put in the inbox and its task returned at once.
    pub(super) async fn ask_as_task(
        &self,
        request: &CallToolRequestParams,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = serde_json::Value::Object(request.arguments.clone().unwrap_or_default());
        let args = serde_json::from_value(arguments)
            .map_err(|error| ErrorData::invalid_params(format!("ask: {error}"), None))?;
        // A refused question is a tool error, as from the plain call.
        let session = match self.put_question(args).await {
            Ok(session) => session,
            Err(error) => return error.into_call_tool_result(),
        };
        tracing::info!(id = %session.delivery_id, task = %session.id, "asked as a task");
        Ok(CallToolResponse::Task(CreateTaskResult::new(
            task_of(&session, false).task,
        )))
    }

    /// `tasks/get`: where the task is, and its result once there is one.
    pub(super) async fn get_any_task(
        &self,
        params: GetTaskParams,
    ) -> Result<GetTaskResult, ErrorData> {
        match task::stored_id(&params.task_id) {
            Some(id) => self.get_run_task(id.to_owned(), &params.task_id).await,
            None => self.get_ask_task(params).await,
        }
    }

    /// `tasks/cancel`: the question withdrawn, or the run stopped.
    pub(super) async fn cancel_any_task(&self, params: CancelTaskParams) -> Result<(), ErrorData> {
        match task::stored_id(&params.task_id) {
            Some(id) => self.cancel_run_task(id.to_owned(), &params.task_id).await,
            None => self.cancel_ask_task(params).await,
        }
    }

    /// `tasks/get` of an `ask`: the question's state, and its answer once
    /// there is one.
    async fn get_ask_task(&self, params: GetTaskParams) -> Result<GetTaskResult, ErrorData> {
        let session = session_of(&params.task_id)?.to_owned();
        let task_id = params.task_id.clone();
        let caller = super::caller();
        let (stored, opened) = self
            .blocking(move |workspace| {
                let (stored, question) = asked_by(workspace, &session, caller.as_deref())?;
                Ok((stored, question.opened_at().is_some()))
            })
            .await
            .map_err(|_| unknown(&task_id))?;
        Ok(GetTaskResult::new(task_of(&stored, opened)))
    }

    /// `tasks/cancel`: the question is withdrawn (the window shows so; an
    /// answer given later is still kept).
    async fn cancel_ask_task(&self, params: CancelTaskParams) -> Result<(), ErrorData> {
        let session = session_of(&params.task_id)?.to_owned();
        let task_id = params.task_id.clone();
        let caller = super::caller();
        self.blocking(move |workspace| {
            asked_by(workspace, &session, caller.as_deref())?;
            Ok(feedback::withdraw_session(
                workspace,
                &session,
                clock::now(),
            )?)
        })
        .await
        .map_err(|_| unknown(&task_id))?;
        Ok(())
    }
}

/// A long call's arguments, parsed for its tool (as the tool's own router
/// parses them).
enum Call {
    Investigate(InvestigateArgs),
    Test(FuzzArgs),
    Fuzz(FuzzArgs),
    Chain(ChainArgs),
    Expect(ExpectArgs),
    Wait(WaitArgs),
}

fn parsed<T: DeserializeOwned>(arguments: &JsonObject) -> Result<T, String> {
    serde_json::from_value(serde_json::Value::Object(arguments.clone()))
        .map_err(|error| error.to_string())
}

impl Call {
    /// The call of `tool` with `arguments`, or why they do not fit it.
    fn parse(tool: &str, arguments: &JsonObject) -> Result<Self, String> {
        Ok(match tool {
            "investigate" => Self::Investigate(parsed(arguments)?),
            "test_program" => Self::Test(parsed(arguments)?),
            "fuzz" => Self::Fuzz(parsed(arguments)?),
            "run_chain" => Self::Chain(parsed(arguments)?),
            "session_expect" => Self::Expect(parsed(arguments)?),
            "session_wait" => Self::Wait(parsed(arguments)?),
            other => return Err(format!("{other} does not run as a task")),
        })
    }

    /// Runs the call on `server` to its end, through `bridge`.
    async fn run(self, server: &Server, bridge: Bridge<'_>) -> CallToolResult {
        let response = match self {
            Self::Investigate(args) => server
                .investigating(args, bridge)
                .await
                .into_call_tool_result(),
            Self::Test(args) => server.testing(args, bridge).await.into_call_tool_result(),
            Self::Fuzz(args) => server.fuzzing(args, bridge).await.into_call_tool_result(),
            Self::Chain(args) => server
                .running_chain(args, bridge)
                .await
                .into_call_tool_result(),
            Self::Expect(args) => server.expecting(args, bridge).await.into_call_tool_result(),
            Self::Wait(args) => server
                .waiting_for(args, bridge)
                .await
                .into_call_tool_result(),
        };
        match response {
            Ok(CallToolResponse::Complete(result)) => result,
            Ok(other) => tool_error(&format!("an unexpected answer: {other:?}")),
            Err(error) => tool_error(&error.message),
        }
    }
}

/// A tool error result saying `message`.
fn tool_error(message: &str) -> CallToolResult {
    match ToolError::internal(message.to_owned()).into_call_tool_result() {
        Ok(CallToolResponse::Complete(result)) => result,
        _ => CallToolResult::error(Vec::new()),
    }
}

/// A `CallToolResult` as the object a task keeps.
fn as_object(result: &CallToolResult) -> JsonObject {
    serde_json::to_value(result)
        .ok()
        .and_then(|value| value.as_object().cloned())
        .unwrap_or_default()
}

/// A stored task as the client sees it.
fn run_task_of(stored: &ToolTask) -> DetailedTask {
    let status = match stored.state {
        TaskState::Working => TaskStatus::Working,
        TaskState::Completed => TaskStatus::Completed,
        TaskState::Failed => TaskStatus::Failed,
        TaskState::Cancelled => TaskStatus::Cancelled,
    };
    let task = Task::new(
        task::task_id(&stored.id),
        status,
        stored.created_at.to_string(),
        stored.updated_at.to_string(),
    )
    .with_poll_interval_ms(RUN_POLL_MS)
    .with_status_message(stored.message.clone());
    let payload = match stored.state {
        TaskState::Working => TaskPayload::Working,
        TaskState::Completed => TaskPayload::Completed {
            result: stored.result().cloned().unwrap_or_default(),
        },
        TaskState::Failed => TaskPayload::Failed {
            error: stored.error().cloned().unwrap_or_default(),
        },
        TaskState::Cancelled => TaskPayload::Cancelled,
    };
    DetailedTask::new(task, payload)
}

impl Server {
    /// A long call as a task: its arguments checked as the tool checks
    /// them, the task recorded and its worker started; the task is
    /// returned at once.
    pub(super) async fn run_as_task(
        &self,
        request: &CallToolRequestParams,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.clone().unwrap_or_default();
        if let Err(why) = Call::parse(&request.name, &arguments) {
            return ToolError::invalid(format!("{}: {why}", request.name)).into_call_tool_result();
        }
        let tool = request.name.to_string();
        let sent_by = super::caller();
        let started = self
            .blocking(move |workspace| {
                let stored = tasks::create(workspace, &tool, arguments, sent_by, clock::now())?;
                start_worker(workspace, &stored.id)?;
                Ok(stored)
            })
            .await;
        match started {
            Ok(stored) => {
                tracing::info!(task = %stored.id, tool = %stored.tool, "running as a task");
                Ok(CallToolResponse::Task(CreateTaskResult::new(
                    run_task_of(&stored).task,
                )))
            }
            Err(error) => error.into_call_tool_result(),
        }
    }

    async fn get_run_task(&self, id: String, task_id: &str) -> Result<GetTaskResult, ErrorData> {
        let caller = super::caller();
        let stored = self
            .blocking(move |workspace| Ok(tasks::get(workspace, &id, clock::now())?))
            .await
            .ok()
            .filter(|stored| stored.belongs_to(caller.as_deref()))
            .ok_or_else(|| unknown(task_id))?;
        Ok(GetTaskResult::new(run_task_of(&stored)))
    }

    async fn cancel_run_task(&self, id: String, task_id: &str) -> Result<(), ErrorData> {
        let caller = super::caller();
        let cancelled = self
            .blocking(move |workspace| {
                let (task, worker) =
                    tasks::cancel(workspace, &id, caller.as_deref(), clock::now())?;
                if let Some(worker) = worker {
                    stop(workspace, &task.id, worker);
                }
                Ok(task)
            })
            .await;
        match cancelled {
            Ok(_) => Ok(()),
            Err(ToolError(payload))
                if payload.code == switchboard_model::ErrorCode::InvalidRequest =>
            {
                Err(ErrorData::invalid_params(payload.message, None))
            }
            Err(_) => Err(unknown(task_id)),
        }
    }
}

/// Asks `worker`, which task `id`'s record names, to stop (it ends what
/// it ran, then exits) — only when it is proven to be this program's
/// worker of that task in `workspace`; a record naming any other process
/// signals nothing.
fn stop(workspace: &Workspace, id: &str, worker: ProcessMark) {
    let this = std::env::current_exe().ok();
    let expected = worker_arguments(workspace.root(), id);
    let stopped = process::terminate_if(worker, |identity| {
        this.as_deref()
            .is_some_and(|this| same_program(&identity.executable, this))
            && identity.arguments.get(1..) == Some(expected.as_slice())
    });
    match stopped {
        Ok(process::Termination::Signalled | process::Termination::Ended) => {}
        Ok(process::Termination::NotIt) => tracing::warn!(
            task = id,
            pid = worker.pid,
            "the task's record names a process that is not its worker; it was not signalled"
        ),
        Err(error) => tracing::warn!(%error, task = id, "the task's worker could not be stopped"),
    }
}

/// Whether `running` (a process's `/proc/<pid>/exe`) is the program at
/// `this`, also when either file was replaced since it started (a
/// rebuilt or upgraded binary: the link then ends ` (deleted)`).
fn same_program(running: &Path, this: &Path) -> bool {
    let plain = |path: &Path| {
        let text = path.as_os_str().as_encoded_bytes();
        text.strip_suffix(b" (deleted)").unwrap_or(text).to_vec()
    };
    plain(running) == plain(this)
}

/// A worker's arguments after its program's name: `-C ROOT mcp run-task
/// ID`, as it is started and as it is recognised.
fn worker_arguments(root: &Path, id: &str) -> Vec<OsString> {
    let mut arguments = vec![OsString::from("-C"), root.as_os_str().to_owned()];
    arguments.extend(["mcp", "run-task", id].map(OsString::from));
    arguments
}

/// Starts the worker of task `id`: this binary again, in a process group
/// of its own (a client ending the server's group leaves it running),
/// its errors in the task's log; the task records it at once.
fn start_worker(workspace: &Workspace, id: &str) -> anyhow::Result<()> {
    let exe = std::env::current_exe().context("could not find this program to run the task")?;
    let log = tasks::open_log(workspace, id)?;
    let mut child = Command::new(exe)
        .args(worker_arguments(workspace.root(), id))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .process_group(0)
        .spawn()
        .context("could not start the task's worker")?;
    if let Some(worker) = process::mark(child.id()) {
        // A worker that already ended its task leaves it as it ended.
        let _ = tasks::update(workspace, id, |task| task.start(worker, clock::now()));
    }
    // Reaped here, so a long-lived server leaves no zombie behind.
    std::thread::spawn(move || child.wait());
    Ok(())
}

/// Where a worker writes its call's steps: the task's record, the latest
/// step at most once per [`STEP_EVERY`] (steps in between are passed
/// over, never the last one), written by a task of its own.
pub struct TaskRecorder {
    latest: tokio::sync::watch::Sender<Option<Step>>,
}

impl TaskRecorder {
    /// A recorder for task `id`, and its writer (ended by dropping the
    /// recorder, or aborted).
    fn start(workspace: Arc<Workspace>, id: String) -> (Self, tokio::task::JoinHandle<()>) {
        let (latest, mut steps) = tokio::sync::watch::channel(None::<Step>);
        let writer = tokio::spawn(async move {
            while steps.changed().await.is_ok() {
                let Some(step) = steps.borrow_and_update().clone() else {
                    continue;
                };
                let workspace = Arc::clone(&workspace);
                let id = id.clone();
                let wrote = tokio::task::spawn_blocking(move || {
                    tasks::update(&workspace, &id, |task| {
                        task.step(step.progress, step.total, &step.message, clock::now())
                    })
                })
                .await;
                if let Ok(Err(error)) = wrote {
                    tracing::debug!(%error, "a step was not recorded");
                }
                tokio::time::sleep(STEP_EVERY).await;
            }
        });
        (Self { latest }, writer)
    }

    /// Records `step` in the task (soon, unless a later step comes first).
    pub fn record(&self, step: Step) {
        self.latest.send_replace(Some(step));
    }
}

/// `switchboard mcp run-task ID`: runs task `id`'s call to its end and
/// records how it ended; SIGTERM (a `tasks/cancel`) cancels the call,
/// and the worker exits once what it ran is ended.
pub fn run_worker(workspace: Workspace, id: &str) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("could not start the task's runtime")?;
    runtime.block_on(async {
        let workspace = Arc::new(workspace);
        let stored = tasks::get(&workspace, id, clock::now())?;
        if stored.state.is_final() {
            return Ok(());
        }
        let ended = match Call::parse(&stored.tool, &stored.arguments) {
            Ok(call) => {
                let server = Server::new((*workspace).clone(), false, Duration::from_secs(10));
                let cancelled = CancellationToken::new();
                let mut terminate =
                    tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                        .context("could not listen for SIGTERM")?;
                let on_terminate = cancelled.clone();
                tokio::spawn(async move {
                    terminate.recv().await;
                    on_terminate.cancel();
                });
                let (recorder, writer) = TaskRecorder::start(Arc::clone(&workspace), id.to_owned());
                let result = call.run(&server, Bridge::task(&recorder, &cancelled)).await;
                // The end says the last word.
                writer.abort();
                // A cancelled call's programs are ended before this exits.
                switchboard_probe::settle().await;
                result
            }
            Err(why) => tool_error(&why),
        };
        let result = as_object(&ended);
        match tasks::update(&workspace, id, |task| task.complete(result, clock::now())) {
            // Cancelled meanwhile: it stays cancelled.
            Ok(_) | Err(switchboard_store::StoreError::Task(_)) => Ok(()),
            Err(error) => Err(error.into()),
        }
    })
}
