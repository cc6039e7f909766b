//! Tool calls that outlive their caller (MCP tasks): which calls become a
//! task, and the record of one — the call, how far it got, how it ended —
//! with the only ways it may change: a working task steps on and ends
//! once; an ended task never changes again.
//!
//! An `ask` is a task too, but its record is the blocking session the
//! inbox keeps; this module is for the other long calls, whose work runs
//! in a process of its own (the task's *worker*) so that it goes on when
//! the client and the server that took the call are gone.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use thiserror::Error;

use crate::{Timestamp, process::ProcessMark};

/// What every task id of a tool call run by a worker starts with.
pub const RUN_PREFIX: &str = "run-";

/// The tools whose calls always become a task for a client that takes
/// tasks: they start programs and can run for minutes.
pub const LONG_TOOLS: [&str; 4] = ["investigate", "test_program", "fuzz", "run_chain"];

/// The tools whose calls become a task when they may wait longer than
/// [`LONG_WAIT_SECS`].
pub const WAIT_TOOLS: [&str; 2] = ["session_expect", "session_wait"];

/// A wait longer than this many seconds becomes a task.
pub const LONG_WAIT_SECS: f64 = 5.0;

/// Whether a call of `tool` with `arguments` becomes a task for a client
/// that takes tasks; a wait without a `timeout` waits `default_wait_secs`.
pub fn runs_long(tool: &str, arguments: &Map<String, Value>, default_wait_secs: f64) -> bool {
    if LONG_TOOLS.contains(&tool) {
        return true;
    }
    if !WAIT_TOOLS.contains(&tool) {
        return false;
    }
    let timeout = arguments
        .get("timeout")
        .and_then(Value::as_f64)
        .unwrap_or(default_wait_secs);
    timeout > LONG_WAIT_SECS
}

/// The task id of the stored task `id` (an entity id `t_…`).
pub fn task_id(id: &str) -> String {
    format!("{RUN_PREFIX}{id}")
}

/// The stored task a task id names, if it names one.
pub fn stored_id(task_id: &str) -> Option<&str> {
    task_id
        .strip_prefix(RUN_PREFIX)
        .filter(|id| id.parse::<crate::EntityId>().is_ok())
}

/// Where a task is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskState {
    /// Its worker runs the call.
    Working,
    /// The call ended with a result (a tool error is a result too).
    Completed,
    /// The call could not end with a result (its worker died, the call was
    /// refused before it ran).
    Failed,
    /// Cancelled by a client's `tasks/cancel`.
    Cancelled,
}

impl TaskState {
    /// The word the protocol uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    /// Whether the task has ended (it never changes again).
    pub fn is_final(self) -> bool {
        self != Self::Working
    }
}

/// Why a task cannot change as asked.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TaskError {
    /// It already ended.
    #[error("task {id} already ended ({})", state.as_str())]
    Ended {
        /// The task.
        id: String,
        /// How it ended.
        state: TaskState,
    },
}

/// One tool call run as a task, as `tasks/<id>.json` of the workspace's
/// records keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolTask {
    /// Its entity id (`t_…`); the client knows it as [`task_id`] of it.
    pub id: String,
    /// The tool called.
    pub tool: String,
    /// The call's arguments, as the client sent them.
    #[serde(default)]
    pub arguments: Map<String, Value>,
    /// Where it is.
    pub state: TaskState,
    /// What it is doing, or how it ended, in words.
    #[serde(default)]
    pub message: String,
    /// How far it got (steps done, seconds waited), when it said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<f64>,
    /// Of how much, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// Completed: the tool's result (`CallToolResult`); failed: the
    /// JSON-RPC error (`code`, `message`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Map<String, Value>>,
    /// When it was made.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
    /// The process running the call, once it started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker: Option<ProcessMark>,
    /// The agent whose token made the call (HTTP), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sent_by: Option<String>,
    /// Fields written by newer versions that this one does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ToolTask {
    /// A call of `tool` with `arguments`, taken at `now`, not yet running.
    pub fn new(id: String, tool: &str, arguments: Map<String, Value>, now: Timestamp) -> Self {
        Self {
            id,
            tool: tool.to_owned(),
            arguments,
            state: TaskState::Working,
            message: format!("{tool}: starting"),
            progress: None,
            total: None,
            outcome: None,
            created_at: now,
            updated_at: now,
            worker: None,
            sent_by: None,
            extra: Map::new(),
        }
    }

    fn working(&self) -> Result<(), TaskError> {
        if self.state.is_final() {
            return Err(TaskError::Ended {
                id: self.id.clone(),
                state: self.state,
            });
        }
        Ok(())
    }

    /// Its worker started: `worker` runs the call.
    pub fn start(&mut self, worker: ProcessMark, now: Timestamp) -> Result<(), TaskError> {
        self.working()?;
        self.worker = Some(worker);
        self.message = format!("{}: running", self.tool);
        self.updated_at = now;
        Ok(())
    }

    /// A step of the work: how far, of how much, doing what.
    pub fn step(
        &mut self,
        progress: f64,
        total: Option<f64>,
        message: &str,
        now: Timestamp,
    ) -> Result<(), TaskError> {
        self.working()?;
        self.progress = Some(progress);
        self.total = total;
        self.message = format!("{}: {message}", self.tool);
        self.updated_at = now;
        Ok(())
    }

    /// The call ended with `result` (a `CallToolResult`; `isError` set
    /// when the tool failed).
    pub fn complete(
        &mut self,
        result: Map<String, Value>,
        now: Timestamp,
    ) -> Result<(), TaskError> {
        self.working()?;
        let failed = result.get("isError").and_then(Value::as_bool) == Some(true);
        self.state = TaskState::Completed;
        self.message = if failed {
            format!("{}: ended with an error", self.tool)
        } else {
            format!("{}: done", self.tool)
        };
        self.outcome = Some(result);
        self.updated_at = now;
        Ok(())
    }

    /// The call could not end with a result: `code` (JSON-RPC) and why.
    pub fn fail(&mut self, code: i32, why: &str, now: Timestamp) -> Result<(), TaskError> {
        self.working()?;
        self.state = TaskState::Failed;
        self.message = format!("{}: {why}", self.tool);
        let mut error = Map::new();
        error.insert("code".to_owned(), code.into());
        error.insert("message".to_owned(), why.into());
        self.outcome = Some(error);
        self.updated_at = now;
        Ok(())
    }

    /// A client cancelled it; what its worker ran is ended.
    pub fn cancel(&mut self, now: Timestamp) -> Result<(), TaskError> {
        self.working()?;
        self.state = TaskState::Cancelled;
        self.message = format!("{}: cancelled", self.tool);
        self.updated_at = now;
        Ok(())
    }

    /// Whether `caller` made it: the agent whose token made the call, or
    /// `None` for a local client (no token). A task is only ever shown to,
    /// or cancelled by, the caller that made it.
    pub fn belongs_to(&self, caller: Option<&str>) -> bool {
        self.sent_by.as_deref() == caller
    }

    /// The result of a completed task, if it completed.
    pub fn result(&self) -> Option<&Map<String, Value>> {
        (self.state == TaskState::Completed)
            .then_some(self.outcome.as_ref())
            .flatten()
    }

    /// The error of a failed task, if it failed.
    pub fn error(&self) -> Option<&Map<String, Value>> {
        (self.state == TaskState::Failed)
            .then_some(self.outcome.as_ref())
            .flatten()
    }
}

/// The JSON-RPC code of a task whose worker ended before the call did.
pub const WORKER_LOST: i32 = -32603;

/// What a task whose worker ended without a word failed of.
pub const WORKER_LOST_MESSAGE: &str = "the process running the call ended before the call did";

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use serde_json::json;

    use super::*;

    fn at(seconds: i64) -> Timestamp {
        Timestamp::from_unix_millis(seconds * 1000).unwrap()
    }

    fn args(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn long_tools_and_long_waits_become_tasks_and_the_rest_do_not() {
        let none = Map::new();
        for tool in LONG_TOOLS {
            assert!(runs_long(tool, &none, 30.0), "{tool}");
        }
        assert!(runs_long("session_expect", &none, 30.0), "the default wait");
        assert!(runs_long(
            "session_wait",
            &args(json!({"timeout": 60})),
            30.0
        ));
        assert!(!runs_long(
            "session_expect",
            &args(json!({"timeout": 2})),
            30.0
        ));
        assert!(!runs_long(
            "session_wait",
            &args(json!({"timeout": 5})),
            30.0
        ));
        assert!(!runs_long("session_read", &none, 30.0));
        assert!(!runs_long("deliver", &none, 30.0));
    }

    #[test]
    fn task_ids_name_a_stored_task_and_nothing_else() {
        assert_eq!(task_id("t_1764196000_001"), "run-t_1764196000_001");
        assert_eq!(stored_id("run-t_1764196000_001"), Some("t_1764196000_001"));
        for foreign in ["ask-s_1_001", "run-", "run-../x", "run-t_1_x", "t_1_001"] {
            assert_eq!(stored_id(foreign), None, "{foreign}");
        }
    }

    #[test]
    fn a_task_steps_on_ends_once_and_then_never_changes() {
        let mut task = ToolTask::new("t_1_001".into(), "fuzz", Map::new(), at(0));
        task.start(ProcessMark { pid: 7, start: 9 }, at(1)).unwrap();
        task.step(3.0, Some(12.0), "input 3 of 12", at(2)).unwrap();
        assert_eq!(task.message, "fuzz: input 3 of 12");
        assert_eq!((task.progress, task.total), (Some(3.0), Some(12.0)));
        let result = args(json!({"content": [], "isError": false}));
        task.complete(result.clone(), at(3)).unwrap();
        assert_eq!(task.state, TaskState::Completed);
        assert_eq!(task.result(), Some(&result));
        assert_eq!(task.error(), None);
        let ended = TaskError::Ended {
            id: "t_1_001".into(),
            state: TaskState::Completed,
        };
        assert_eq!(task.cancel(at(4)), Err(ended.clone()));
        assert_eq!(task.step(4.0, None, "late", at(4)), Err(ended.clone()));
        assert_eq!(task.fail(WORKER_LOST, "lost", at(4)), Err(ended));
        assert_eq!(task.updated_at, at(3), "an ended task never changes");
    }

    #[test]
    fn a_tool_error_completes_the_task_and_a_lost_worker_fails_it() {
        let mut errored = ToolTask::new("t_1_001".into(), "run_chain", Map::new(), at(0));
        errored
            .complete(args(json!({"content": [], "isError": true})), at(1))
            .unwrap();
        assert_eq!(errored.state, TaskState::Completed);
        assert_eq!(errored.message, "run_chain: ended with an error");

        let mut lost = ToolTask::new("t_1_002".into(), "fuzz", Map::new(), at(0));
        lost.fail(WORKER_LOST, WORKER_LOST_MESSAGE, at(1)).unwrap();
        assert_eq!(lost.state, TaskState::Failed);
        assert_eq!(lost.error().unwrap()["code"], WORKER_LOST);
        assert_eq!(lost.result(), None);
    }

    #[test]
    fn a_record_from_a_newer_version_keeps_what_it_does_not_know() {
        let text = r#"{"id":"t_1_001","tool":"fuzz","state":"working",
            "created_at":"2026-11-26T00:00:00.000Z","updated_at":"2026-11-26T00:00:00.000Z",
            "priority":"high"}"#;
        let task: ToolTask = serde_json::from_str(text).unwrap();
        assert_eq!(task.extra["priority"], "high");
        let written = serde_json::to_value(&task).unwrap();
        assert_eq!(written["priority"], "high");
    }
}
