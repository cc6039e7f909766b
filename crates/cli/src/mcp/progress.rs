//! The one bridge from a long tool call to MCP: each step the call reports
//! becomes a progress notification (when the client asked for them with a
//! progress token) or, for a call run as a task, the task's stored status;
//! and a cancelled call ends — dropped, which stops what
//! it ran (a wait on the session host, a program a driver started), or
//! told to withdraw and awaited (an `ask`, whose question the store
//! withdraws). Either way the client hears `CANCELLED`.

use rmcp::{
    Peer, RoleServer,
    model::{ProgressNotificationParam, RequestMetaObject},
};
use switchboard_model::{ErrorCode, ErrorPayload};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::{ToolError, tasks::TaskRecorder};

/// One step of a long call, as the client hears it.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// How far it is (seconds waited, or steps done).
    pub progress: f64,
    /// Of how much, when known.
    pub total: Option<f64>,
    /// What it is doing.
    pub message: String,
}

/// Where a long call reports its steps (cheap to clone, never blocks).
#[derive(Debug, Clone)]
pub struct Reporter(mpsc::UnboundedSender<Step>);

impl Reporter {
    /// Reports `step` (dropped when the call's bridge is gone).
    pub fn step(&self, step: Step) {
        let _ = self.0.send(step);
    }

    /// A reporter of numbered steps (`1`, `2`, … with the text as the
    /// message), as drivers report what they do.
    pub fn counting(self) -> impl FnMut(&str) + Send {
        let mut count = 0_u32;
        move |message: &str| {
            count += 1;
            self.step(Step {
                progress: f64::from(count),
                total: None,
                message: message.to_owned(),
            });
        }
    }
}

/// The reports of one call, read by [`Bridge::run`].
pub struct Steps(mpsc::UnboundedReceiver<Step>);

/// A reporter for a call, and the end its bridge reads.
pub fn channel() -> (Reporter, Steps) {
    let (sender, receiver) = mpsc::unbounded_channel();
    (Reporter(sender), Steps(receiver))
}

/// A cancelled call, as the client hears it.
pub fn cancelled(what_happened: &str) -> ToolError {
    ToolError(ErrorPayload::new(
        ErrorCode::Cancelled,
        format!("the call was cancelled; {what_happened}"),
    ))
}

/// Who hears a long call's steps.
enum Hearer<'a> {
    /// The client that made the call, through progress notifications (when
    /// it sent a progress token).
    Client {
        meta: &'a RequestMetaObject,
        peer: &'a Peer<RoleServer>,
    },
    /// The stored task the call runs for: its progress and status message.
    Task(&'a TaskRecorder),
}

/// One tool call's link to whoever follows it — the client that made it,
/// or the task it runs for — and the call's cancellation.
pub struct Bridge<'a> {
    hearer: Hearer<'a>,
    cancelled: &'a CancellationToken,
}

impl<'a> Bridge<'a> {
    /// The bridge of the call `meta`, `peer` and `cancelled` belong to.
    pub fn new(
        meta: &'a RequestMetaObject,
        peer: &'a Peer<RoleServer>,
        cancelled: &'a CancellationToken,
    ) -> Self {
        Self {
            hearer: Hearer::Client { meta, peer },
            cancelled,
        }
    }

    /// The bridge of a call a task's worker runs: its steps go to the
    /// task's record.
    pub fn task(recorder: &'a TaskRecorder, cancelled: &'a CancellationToken) -> Self {
        Self {
            hearer: Hearer::Task(recorder),
            cancelled,
        }
    }

    /// Runs `call` to its end, its steps sent as progress notifications;
    /// a cancelled call is dropped there (`stopped` says what that
    /// stopped) and answered with `CANCELLED`.
    pub async fn run<T>(
        &self,
        call: impl Future<Output = T>,
        steps: Steps,
        stopped: &str,
    ) -> Result<T, ToolError> {
        let mut call = std::pin::pin!(call);
        let mut steps = steps.0;
        loop {
            tokio::select! {
                done = &mut call => return Ok(done),
                Some(step) = steps.recv() => self.notify(step).await,
                () = self.cancelled.cancelled() => return Err(cancelled(stopped)),
            }
        }
    }

    /// Runs `call` to its end, its steps sent as progress notifications; a
    /// cancelled call is told so once (`withdraw`) and awaited: it ends
    /// itself (an `ask` withdraws its question first).
    pub async fn run_withdrawing<T>(
        &self,
        call: impl Future<Output = T>,
        steps: Steps,
        withdraw: impl FnOnce(),
    ) -> T {
        let mut call = std::pin::pin!(call);
        let mut steps = steps.0;
        let mut withdraw = Some(withdraw);
        loop {
            tokio::select! {
                done = &mut call => return done,
                Some(step) = steps.recv() => self.notify(step).await,
                () = self.cancelled.cancelled(), if withdraw.is_some() => {
                    if let Some(withdraw) = withdraw.take() {
                        withdraw();
                    }
                }
            }
        }
    }

    async fn notify(&self, step: Step) {
        let (meta, peer) = match self.hearer {
            Hearer::Client { meta, peer } => (meta, peer),
            Hearer::Task(recorder) => return recorder.record(step),
        };
        let Some(token) = meta.get_progress_token() else {
            return;
        };
        let mut notification =
            ProgressNotificationParam::new(token, step.progress).with_message(step.message);
        if let Some(total) = step.total {
            notification = notification.with_total(total);
        }
        if let Err(error) = peer.notify_progress(notification).await {
            tracing::debug!(%error, "progress notification not sent");
        }
    }
}
