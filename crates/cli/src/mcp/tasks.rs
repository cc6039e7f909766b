//! MCP tasks (the `io.modelcontextprotocol/tasks` extension): an `ask`
//! from a client that declares the extension returns a task at once, and
//! the question outlives the call. The task's id names the blocking
//! session the store keeps (`ask-<session>`), so `tasks/get` and
//! `tasks/cancel` work from any `switchboard mcp` process — stdio or
//! HTTP, after a restart, days later — and only `tasks/cancel` or the
//! developer ends the question, never the client going away.

use rmcp::{
    ErrorData,
    handler::server::tool::IntoCallToolResult,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams,
        CreateTaskResult, DetailedTask, GetTaskParams, GetTaskResult, Task, TaskPayload,
        TaskStatus,
    },
};
use switchboard_model::blocking::{AwaitOutcome, BlockingSession};
use switchboard_store::{clock, deliveries, feedback};

use super::{Server, inbox::Answer};

/// What every task id of an `ask` starts with.
const ASK: &str = "ask-";

/// How often a client is told to poll, in ms.
const POLL_MS: u64 = 1_000;

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

    /// `tasks/get`: the question's state, and its answer once there is one.
    pub(super) async fn get_ask_task(
        &self,
        params: GetTaskParams,
    ) -> Result<GetTaskResult, ErrorData> {
        let session = session_of(&params.task_id)?.to_owned();
        let task_id = params.task_id.clone();
        let (stored, opened) = self
            .blocking(move |workspace| {
                let stored = feedback::session(workspace, &session)?;
                let opened = deliveries::get(workspace, &stored.delivery_id)
                    .map(|delivery| delivery.opened_at().is_some())
                    .unwrap_or(false);
                Ok((stored, opened))
            })
            .await
            .map_err(|_| unknown(&task_id))?;
        Ok(GetTaskResult::new(task_of(&stored, opened)))
    }

    /// `tasks/cancel`: the question is withdrawn (the window shows so; an
    /// answer given later is still kept).
    pub(super) async fn cancel_ask_task(&self, params: CancelTaskParams) -> Result<(), ErrorData> {
        let session = session_of(&params.task_id)?.to_owned();
        let task_id = params.task_id.clone();
        self.blocking(move |workspace| {
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
