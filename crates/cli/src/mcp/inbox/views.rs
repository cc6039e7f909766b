//! What the inbox's tools take and give: their arguments and results, as
//! their schemas show them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use switchboard_model::{
    ContentType, Delivery, blocking::AwaitOutcome, feedback::elicitation::Action,
};

use crate::mcp::ToolError;

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
    pub(in crate::mcp) fn of(outcome: AwaitOutcome) -> Result<Self, ToolError> {
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
