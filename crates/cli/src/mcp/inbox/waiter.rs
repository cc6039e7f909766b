//! One `ask` waiting for its answer: the store's `ReplyWait` on the
//! blocking pool, its heartbeat turned into progress notifications, a
//! cancelled call turned into a withdrawn question.

use std::time::Duration;

use rmcp::{
    Peer, RoleServer,
    model::{ProgressNotificationParam, ProgressToken},
};
use switchboard_store::{clock, feedback};
use tokio_util::sync::CancellationToken;

use super::views::Answer;
use crate::mcp::{Server, ToolError};

/// One `ask` waiting for its answer.
pub(super) struct Waiter {
    pub(super) server: Server,
    pub(super) session: String,
    pub(super) progress: Option<ProgressToken>,
    pub(super) peer: Peer<RoleServer>,
    pub(super) heartbeat: Duration,
}

impl Waiter {
    /// Waits, through the store's one wait, until the session is answered,
    /// declined, dismissed or runs out, sending a progress notification
    /// each heartbeat; a cancelled call withdraws the question.
    pub(super) async fn wait(self, cancelled: CancellationToken) -> Result<Answer, ToolError> {
        let wait = feedback::ReplyWait::new().heartbeat(self.heartbeat);
        let canceller = wait.canceller();
        let (beats, mut beaten) = tokio::sync::mpsc::unbounded_channel();
        let workspace = self.server.workspace();
        let session = self.session.clone();
        let mut waiting = tokio::task::spawn_blocking(move || {
            wait.run(&workspace, &session, clock::now, |waited| {
                let _ = beats.send(waited);
            })
        });
        let mut cancelling = false;
        let ended = loop {
            tokio::select! {
                joined = &mut waiting => break joined,
                Some(waited) = beaten.recv() => self.beat(waited.as_secs_f64()).await,
                () = cancelled.cancelled(), if !cancelling => {
                    cancelling = true;
                    canceller.cancel();
                }
            }
        };
        let ended = ended
            .map_err(|error| ToolError::internal(format!("the wait failed: {error}")))?
            .map_err(|error| ToolError(error.into()))?;
        match ended {
            feedback::Waited::Settled(outcome) => Answer::of(outcome),
            feedback::Waited::Withdrawn(outcome) => {
                tracing::info!(session = %self.session, ?outcome, "the client cancelled; question withdrawn");
                Err(ToolError::invalid(
                    "the call was cancelled; the question is withdrawn",
                ))
            }
        }
    }

    /// Tells the client the call is alive: seconds waited so far.
    async fn beat(&self, waited: f64) {
        let Some(token) = &self.progress else {
            return;
        };
        let notification = ProgressNotificationParam::new(token.clone(), waited)
            .with_message("waiting for the developer's answer");
        if let Err(error) = self.peer.notify_progress(notification).await {
            tracing::debug!(%error, "progress notification not sent");
        }
    }
}
