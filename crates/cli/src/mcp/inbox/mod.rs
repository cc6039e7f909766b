//! The inbox's tools: `deliver`, `ask` (and its wait), `get_feedback`,
//! `get_annotations`, `list_deliveries`.

mod views;
pub(super) mod waiter;

use rmcp::{
    Json, Peer, RoleServer, handler::server::wrapper::Parameters, model::RequestMetaObject, tool,
    tool_router,
};
use switchboard_model::{
    Delivery, DeliveryMode, DeliveryStatus, NewDelivery, Timestamp, annotation::AnnotationKind,
    blocking::AwaitOutcome, feedback::elicitation, inbox::InboxFilter,
};
use switchboard_store::{clock, deliveries, feedback};
use tokio_util::sync::CancellationToken;
pub use views::*;
use waiter::Waiter;

use super::{Server, ToolError, progress::Bridge};

fn outcome_name(outcome: &AwaitOutcome) -> &'static str {
    match outcome {
        AwaitOutcome::Responded { .. } => "responded",
        AwaitOutcome::Declined { .. } => "declined",
        AwaitOutcome::Dismissed { .. } => "dismissed",
        AwaitOutcome::Timeout { .. } => "timeout",
        AwaitOutcome::Error { .. } => "error",
    }
}

/// `delivery`, when `caller` may read it (see [`Delivery::visible_to`]);
/// otherwise not found, as one that does not exist.
fn visible(delivery: Delivery, caller: Option<&str>) -> anyhow::Result<Delivery> {
    if delivery.visible_to(caller) {
        Ok(delivery)
    } else {
        Err(switchboard_store::StoreError::NotFound {
            what: "delivery",
            id: delivery.id,
        }
        .into())
    }
}

/// The deadline of a question asked without a timeout: never, written as
/// the last millisecond of 9999.
pub(super) fn never() -> Timestamp {
    Timestamp::from_unix_millis(253_402_300_799_999).unwrap_or_else(clock::now)
}

fn deadline(seconds: Option<u64>) -> Timestamp {
    seconds.map_or_else(never, crate::cmd::inbox::deadline)
}

#[tool_router(router = inbox_tools, vis = "pub(super)")]
impl Server {
    /// Publishes a result to the developer's inbox.
    #[tool(
        description = "Publish a result to the developer's Switchboard inbox: markdown or HTML, \
                       passive (for reading) or interactive (with a feedback form the developer \
                       answers later; read it with get_feedback). Returns the delivery id. To \
                       wait for an answer, use ask."
    )]
    pub async fn deliver(
        &self,
        Parameters(args): Parameters<DeliverArgs>,
    ) -> Result<Json<DeliverySummary>, ToolError> {
        let new = NewDelivery {
            mode: match args.mode {
                DeliverMode::Passive => DeliveryMode::Passive,
                DeliverMode::Interactive => DeliveryMode::Interactive,
            },
            title: args.title,
            content_type: args.markup.into(),
            body: args.content,
            feedback_schema: args.schema,
        };
        let extra = super::sent_by();
        let appended = self
            .blocking(move |workspace| {
                Ok(deliveries::append_marked(
                    workspace,
                    new,
                    extra,
                    clock::now(),
                )?)
            })
            .await?;
        Ok(Json(DeliverySummary::from(&appended.delivery)))
    }

    /// Lists deliveries.
    #[tool(
        description = "List the inbox's deliveries, newest first, optionally only one mode \
                       (passive, interactive, blocking) or status (delivered, awaiting_feedback, \
                       completed, timeout)."
    )]
    pub async fn list_deliveries(
        &self,
        Parameters(args): Parameters<ListArgs>,
    ) -> Result<Json<DeliveryList>, ToolError> {
        let mode = args
            .mode
            .as_deref()
            .map(|name| {
                DeliveryMode::parse(name).ok_or_else(|| {
                    ToolError::invalid(format!(
                        "unknown mode {name:?}; use passive, interactive or blocking"
                    ))
                })
            })
            .transpose()?;
        let status = args
            .status
            .as_deref()
            .map(|name| {
                DeliveryStatus::parse(name).ok_or_else(|| {
                    let known: Vec<_> = DeliveryStatus::ALL.iter().map(|s| s.as_str()).collect();
                    ToolError::invalid(format!(
                        "unknown status {name:?}; use one of {}",
                        known.join(", ")
                    ))
                })
            })
            .transpose()?;
        let listed = self
            .blocking(|workspace| Ok(deliveries::list(workspace)?))
            .await?;
        let filter = InboxFilter { mode, status };
        let caller = super::caller();
        let matching: Vec<&Delivery> = listed
            .deliveries
            .iter()
            .filter(|delivery| filter.matches(delivery) && delivery.visible_to(caller.as_deref()))
            .collect();
        Ok(Json(DeliveryList {
            total: matching.len(),
            deliveries: matching
                .into_iter()
                .take(args.limit.unwrap_or(50))
                .map(DeliverySummary::from)
                .collect(),
            warnings: listed.warnings,
        }))
    }

    /// A delivery's answers.
    #[tool(
        description = "Read the developer's answers to a delivery, and how its question ended \
                       (responded, declined, dismissed, timeout) once it has."
    )]
    pub async fn get_feedback(
        &self,
        Parameters(IdArgs { id }): Parameters<IdArgs>,
    ) -> Result<Json<Feedback>, ToolError> {
        let caller = super::caller();
        self.blocking(move |workspace| {
            let delivery = visible(deliveries::get(workspace, &id)?, caller.as_deref())?;
            let outcome = feedback::settled_outcome(workspace, &delivery)?;
            let responses = feedback::responses_for(workspace, &id)?
                .into_iter()
                .map(|record| FeedbackRecord {
                    id: record.id,
                    values: record.values,
                    created_at: record.created_at.to_string(),
                })
                .collect();
            Ok(Feedback {
                id: delivery.id,
                status: delivery.status.as_str().to_owned(),
                outcome: outcome
                    .as_ref()
                    .map(|outcome| outcome_name(outcome).to_owned()),
                responses,
            })
        })
        .await
        .map(Json)
    }

    /// A delivery's annotations.
    #[tool(
        description = "Read the developer's annotations on a delivery: each comment or \
                       highlight with its range (UTF-16 offsets into the body), the text it \
                       quotes as the window shows it, and the remark."
    )]
    pub async fn get_annotations(
        &self,
        Parameters(IdArgs { id }): Parameters<IdArgs>,
    ) -> Result<Json<Annotations>, ToolError> {
        let caller = super::caller();
        self.blocking(move |workspace| {
            let detail = deliveries::detail(workspace, &id)?;
            visible(detail.delivery.clone(), caller.as_deref())?;
            let annotations = detail
                .annotations
                .into_iter()
                .map(|annotation| {
                    let range = annotation.target.as_ref().and_then(|target| {
                        Some(Range {
                            start: target.start?,
                            end: target.end?,
                        })
                    });
                    AnnotationView {
                        quote: detail.quotes.get(&annotation.id).cloned(),
                        kind: match annotation.kind {
                            AnnotationKind::Comment => "comment",
                            AnnotationKind::Highlight => "highlight",
                        }
                        .to_owned(),
                        id: annotation.id,
                        range,
                        comment: annotation.content,
                        created_at: annotation.created_at.to_string(),
                    }
                })
                .collect();
            Ok(Annotations {
                id: detail.delivery.id,
                annotations,
            })
        })
        .await
        .map(Json)
    }

    /// Asks and waits.
    #[tool(
        description = "Ask the developer a blocking question with a feedback form and wait for \
                       the answer: it shows in Switchboard's alert bar with a notification. \
                       Returns responded (with the answer), declined, dismissed, or timeout \
                       only when a timeout was given. Progress notifications are sent while \
                       waiting. If the call is cancelled or times out, the question stays in \
                       the window: asking the same again (same title, content and form) waits \
                       on it again, or returns the answer given meanwhile."
    )]
    pub async fn ask(
        &self,
        Parameters(args): Parameters<AskArgs>,
        meta: RequestMetaObject,
        peer: Peer<RoleServer>,
        cancelled: CancellationToken,
    ) -> Result<Json<Answer>, ToolError> {
        let session = self.put_question(args).await?;
        tracing::info!(id = %session.delivery_id, "asked; waiting for the answer");
        let waiter = Waiter {
            server: self.clone(),
            session: session.id,
            heartbeat: self.heartbeat,
        };
        waiter
            .wait(&Bridge::new(&meta, &peer, &cancelled))
            .await
            .map(Json)
    }
}

impl Server {
    /// Puts `ask`'s question in the inbox with the session its asker waits
    /// on (the tool's wait, or a task's polls) — or rejoins the same
    /// question asked before (`feedback::ask_again`).
    pub(super) async fn put_question(
        &self,
        args: AskArgs,
    ) -> Result<switchboard_model::blocking::BlockingSession, ToolError> {
        let schema = match (args.schema, args.requested_schema) {
            (Some(schema), None) => schema,
            (None, Some(requested)) => {
                let form = elicitation::form(&requested)
                    .map_err(|error| ToolError::invalid(error.to_string()))?;
                serde_json::to_value(form).map_err(|error| {
                    ToolError::internal(format!("could not encode the form: {error}"))
                })?
            }
            _ => {
                return Err(ToolError::invalid(
                    "give exactly one of schema (visual-delivery's form) and requestedSchema (MCP elicitation's)",
                ));
            }
        };
        let new = NewDelivery {
            mode: DeliveryMode::Blocking,
            title: args.title,
            content_type: args.markup.into(),
            body: args.content,
            feedback_schema: Some(schema),
        };
        let timeout_at = deadline(args.timeout);
        let extra = super::sent_by();
        let (_, session) = self
            .blocking(move |workspace| {
                Ok(feedback::ask_again(
                    workspace,
                    new,
                    extra,
                    clock::now(),
                    timeout_at,
                )?)
            })
            .await?;
        Ok(session)
    }
}
