//! The inbox's tools: `deliver`, `ask` (and its wait), `get_feedback`,
//! `get_annotations`, `list_deliveries`.

use std::time::Duration;

use rmcp::{
    Json, Peer, RoleServer,
    handler::server::wrapper::Parameters,
    model::{ProgressNotificationParam, ProgressToken, RequestMetaObject},
    tool, tool_router,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use switchboard_model::{
    ContentType, Delivery, DeliveryMode, DeliveryStatus, NewDelivery, Timestamp,
    annotation::AnnotationKind,
    feedback::elicitation::{self, Action},
    inbox::InboxFilter,
    session::AwaitOutcome,
};
use switchboard_store::{clock, deliveries, feedback};
use tokio_util::sync::CancellationToken;

use super::{Server, ToolError};

/// The body's markup.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Markup {
    /// CommonMark with GitHub extensions.
    #[default]
    Markdown,
    /// HTML, shown sandboxed without script.
    Html,
}

impl From<Markup> for ContentType {
    fn from(markup: Markup) -> Self {
        match markup {
            Markup::Markdown => ContentType::Markdown,
            Markup::Html => ContentType::Html,
        }
    }
}

/// How a delivered result expects an answer (`ask` is the blocking way).
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DeliverMode {
    /// For reading; no answer expected.
    #[default]
    Passive,
    /// With a feedback form; the agent reads the answer later.
    Interactive,
}

/// `deliver`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeliverArgs {
    /// One-line title shown in the inbox.
    pub title: String,
    /// The body.
    pub content: String,
    /// The body's markup.
    #[serde(default, rename = "type")]
    pub markup: Markup,
    /// `passive` (default) or `interactive` (needs `schema`).
    #[serde(default)]
    pub mode: DeliverMode,
    /// The feedback form (visual-delivery's schema: `confirm`, `select`,
    /// `form` or `rating`), for an interactive delivery.
    #[serde(default)]
    #[schemars(with = "Option<Map<String, Value>>")]
    pub schema: Option<Value>,
}

/// A delivery as the tools list it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DeliverySummary {
    /// `d_{unix}_{seq}`.
    pub id: String,
    /// Its title.
    pub title: String,
    /// `passive`, `interactive` or `blocking`.
    pub mode: String,
    /// `delivered`, `awaiting_feedback`, `completed` or `timeout`.
    pub status: String,
    /// When it was published (RFC 3339).
    pub created_at: String,
    /// When it was answered or closed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<String>,
}

impl From<&Delivery> for DeliverySummary {
    fn from(delivery: &Delivery) -> Self {
        Self {
            id: delivery.id.clone(),
            title: delivery.title.clone(),
            mode: delivery.mode.as_str().to_owned(),
            status: delivery.status.as_str().to_owned(),
            created_at: delivery.created_at.to_string(),
            completed_at: delivery.completed_at.map(|at| at.to_string()),
        }
    }
}

/// Names one delivery.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IdArgs {
    /// The delivery id (`d_…`).
    pub id: String,
}

/// `list_deliveries`' arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    /// Only this mode: `passive`, `interactive` or `blocking`.
    #[serde(default)]
    pub mode: Option<String>,
    /// Only this status: `delivered`, `awaiting_feedback`, `completed` or
    /// `timeout`.
    #[serde(default)]
    pub status: Option<String>,
    /// At most this many, newest first (default 50).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// `list_deliveries`' result.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DeliveryList {
    /// The deliveries, newest first.
    pub deliveries: Vec<DeliverySummary>,
    /// How many matched before `limit`.
    pub total: usize,
    /// Problems met reading the inbox (a file another tool left broken).
    pub warnings: Vec<String>,
}

/// One answer given in the window.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FeedbackRecord {
    /// `f_{unix}_{seq}`.
    pub id: String,
    /// The answer: a form's field map, else `{"value": …}`.
    #[schemars(with = "Map<String, Value>")]
    pub values: Value,
    /// When it was given.
    pub created_at: String,
}

/// `get_feedback`'s result.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Feedback {
    /// The delivery.
    pub id: String,
    /// Its status now.
    pub status: String,
    /// How the question ended (`responded`, `declined`, `dismissed`,
    /// `timeout`), or none while it is open or for a passive delivery.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    /// The answers, oldest first (the first one counts).
    pub responses: Vec<FeedbackRecord>,
}

/// An annotated range: UTF-16 offsets into the body.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Range {
    /// First offset (inclusive).
    pub start: u64,
    /// Last offset (exclusive).
    pub end: u64,
}

/// One annotation, as an agent uses it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AnnotationView {
    /// `a_{unix}_{seq}`.
    pub id: String,
    /// `comment` or `highlight`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The range in the body; none for a general comment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range: Option<Range>,
    /// The text the range covers, as the window shows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
    /// The developer's remark (empty for a bare highlight).
    pub comment: String,
    /// When it was made.
    pub created_at: String,
}

/// `get_annotations`' result.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Annotations {
    /// The delivery.
    pub id: String,
    /// Its annotations, oldest first.
    pub annotations: Vec<AnnotationView>,
}

/// `ask`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskArgs {
    /// One-line question shown in the inbox and the alert bar.
    pub title: String,
    /// The body: context for the question.
    pub content: String,
    /// The body's markup.
    #[serde(default, rename = "type")]
    pub markup: Markup,
    /// The feedback form in visual-delivery's shape (`confirm`, `select`,
    /// `form`, `rating`); give this or `requestedSchema`.
    #[serde(default)]
    #[schemars(with = "Option<Map<String, Value>>")]
    pub schema: Option<Value>,
    /// The form as an MCP elicitation `requestedSchema` (a flat object of
    /// string, number, integer, boolean and enum properties); the answer
    /// comes back as elicitation `content` too.
    #[serde(default, rename = "requestedSchema")]
    #[schemars(with = "Option<Map<String, Value>>")]
    pub requested_schema: Option<Value>,
    /// Seconds to wait; without it the call waits until the developer
    /// answers, declines or dismisses (there is no silent default).
    #[serde(default)]
    pub timeout: Option<u64>,
}

/// How a question ended.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Answer {
    /// The question's delivery id.
    pub id: String,
    /// `responded`, `declined`, `dismissed` or `timeout`.
    pub status: String,
    /// The answer, when `responded`: a form's field map, else
    /// `{"value": …}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Map<String, Value>>")]
    pub response: Option<Value>,
    /// Elicitation's action: `accept`, `decline` or `cancel` (none after a
    /// timeout).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// Elicitation's content, when accepted: the field map of the form
    /// (`{"value": …}` for a visual-delivery form that is not a `form`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Map<String, Value>>")]
    pub content: Option<Value>,
}

impl Answer {
    fn of(outcome: AwaitOutcome) -> Result<Self, ToolError> {
        let (id, status, response, action) = match outcome {
            AwaitOutcome::Responded {
                delivery_id,
                response,
            } => (
                delivery_id,
                "responded",
                Some(response),
                Some(Action::Accept),
            ),
            AwaitOutcome::Declined { delivery_id } => {
                (delivery_id, "declined", None, Some(Action::Decline))
            }
            AwaitOutcome::Dismissed { delivery_id } => {
                (delivery_id, "dismissed", None, Some(Action::Cancel))
            }
            AwaitOutcome::Timeout { delivery_id } => (delivery_id, "timeout", None, None),
            AwaitOutcome::Error { message } => return Err(ToolError::internal(message)),
        };
        Ok(Self {
            id,
            status: status.to_owned(),
            content: response.clone(),
            response,
            action: action.map(|action| action.as_str().to_owned()),
        })
    }
}

fn outcome_name(outcome: &AwaitOutcome) -> &'static str {
    match outcome {
        AwaitOutcome::Responded { .. } => "responded",
        AwaitOutcome::Declined { .. } => "declined",
        AwaitOutcome::Dismissed { .. } => "dismissed",
        AwaitOutcome::Timeout { .. } => "timeout",
        AwaitOutcome::Error { .. } => "error",
    }
}

/// The deadline of a question asked without a timeout: never, written as
/// the last millisecond of 9999.
fn never() -> Timestamp {
    Timestamp::from_unix_millis(253_402_300_799_999).unwrap_or_else(clock::now)
}

fn deadline(seconds: Option<u64>) -> Timestamp {
    seconds.map_or_else(never, crate::commands::deadline)
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
        let appended = self
            .blocking(move |workspace| Ok(deliveries::append(workspace, new, clock::now())?))
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
        let matching: Vec<&Delivery> = listed
            .deliveries
            .iter()
            .filter(|delivery| filter.matches(delivery))
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
        self.blocking(move |workspace| {
            let delivery = deliveries::get(workspace, &id)?;
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
        self.blocking(move |workspace| {
            let detail = deliveries::detail(workspace, &id)?;
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
                       waiting; cancelling the call withdraws the question in the window."
    )]
    pub async fn ask(
        &self,
        Parameters(args): Parameters<AskArgs>,
        meta: RequestMetaObject,
        peer: Peer<RoleServer>,
        cancelled: CancellationToken,
    ) -> Result<Json<Answer>, ToolError> {
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
                    "give exactly one of schema (visual-delivery's form) and requestedSchema                      (MCP elicitation's)",
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
        let (appended, session) = self
            .blocking(move |workspace| Ok(feedback::ask(workspace, new, clock::now(), timeout_at)?))
            .await?;
        tracing::info!(id = %appended.delivery.id, "asked; waiting for the answer");
        let waiter = Waiter {
            server: self.clone(),
            session: session.id,
            progress: meta.get_progress_token(),
            peer,
            heartbeat: self.heartbeat,
        };
        waiter.wait(cancelled).await.map(Json)
    }
}

/// One `ask` waiting for its answer.
struct Waiter {
    server: Server,
    session: String,
    progress: Option<ProgressToken>,
    peer: Peer<RoleServer>,
    heartbeat: Duration,
}

impl Waiter {
    /// Waits, through the store's one wait, until the session is answered,
    /// declined, dismissed or runs out, sending a progress notification
    /// each heartbeat; a cancelled call withdraws the question.
    async fn wait(self, cancelled: CancellationToken) -> Result<Answer, ToolError> {
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
