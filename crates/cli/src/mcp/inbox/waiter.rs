//! One `ask` waiting for its answer: the store's `ReplyWait` on the
//! blocking pool, its heartbeat a progress step through the one bridge; a
//! cancelled call leaves the question in the window, its answer kept for
//! the same question asked again.

use std::time::Duration;

use switchboard_store::{clock, feedback};

use super::views::Answer;
use crate::mcp::{
    Server, ToolError,
    progress::{self, Bridge, Step},
};

/// One `ask` waiting for its answer.
pub(in crate::mcp) struct Waiter {
    pub(in crate::mcp) server: Server,
    pub(in crate::mcp) session: String,
    pub(in crate::mcp) heartbeat: Duration,
}

impl Waiter {
    /// Waits, through the store's one wait, until the session is answered,
    /// declined, dismissed or runs out, a progress step each heartbeat; a
    /// cancelled call leaves the question.
    pub(super) async fn wait(self, bridge: &Bridge<'_>) -> Result<Answer, ToolError> {
        Answer::of(self.outcome(bridge).await?)
    }

    /// [`Waiter::wait`], giving how the question settled.
    pub(in crate::mcp) async fn outcome(
        self,
        bridge: &Bridge<'_>,
    ) -> Result<switchboard_model::blocking::AwaitOutcome, ToolError> {
        let wait = feedback::ReplyWait::new().heartbeat(self.heartbeat);
        let canceller = wait.canceller();
        let (reporter, steps) = progress::channel();
        let workspace = self.server.workspace();
        let session = self.session.clone();
        let waiting = tokio::task::spawn_blocking(move || {
            wait.run(&workspace, &session, clock::now, |waited| {
                reporter.step(Step {
                    progress: waited.as_secs_f64(),
                    total: None,
                    message: "waiting for the developer's answer".to_owned(),
                });
            })
        });
        let ended = bridge
            .run_withdrawing(waiting, steps, move || canceller.cancel())
            .await
            .map_err(|error| ToolError::internal(format!("the wait failed: {error}")))?
            .map_err(|error| ToolError(error.into()))?;
        match ended {
            feedback::Waited::Settled(outcome) => Ok(outcome),
            feedback::Waited::Left(outcome) => {
                tracing::info!(session = %self.session, ?outcome, "the client cancelled; the question stays");
                Err(progress::cancelled(
                    "the question stays in the window; ask the same again to wait on it or get its answer",
                ))
            }
        }
    }
}
