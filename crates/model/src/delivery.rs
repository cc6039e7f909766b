//! Deliveries: what an agent publishes to the developer's inbox.
//!
//! Field names, enum spellings and the status rules follow the visual-delivery
//! data model (`deliveries.json`). Fields this version does not know are kept
//! in `extra` and written back unchanged, so newer tools' data survives us.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{EntityId, Timestamp};

/// How the agent expects the developer to respond.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryMode {
    /// Published for reading; no answer expected.
    Passive,
    /// Asks for feedback; the agent does not wait.
    Interactive,
    /// Asks for feedback while the agent waits for it.
    Blocking,
}

impl DeliveryMode {
    /// The spelling used in files and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Passive => "passive",
            Self::Interactive => "interactive",
            Self::Blocking => "blocking",
        }
    }
}

/// Where a delivery is in its lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryStatus {
    /// Published, no feedback expected (terminal for passive deliveries).
    Delivered,
    /// A feedback schema is present and no answer has come yet.
    AwaitingFeedback,
    /// Answered, or closed by hand.
    Completed,
    /// A blocking question whose wait ran out without an answer.
    Timeout,
}

impl DeliveryStatus {
    /// The status a new delivery starts in: anything with a feedback schema
    /// awaits feedback, everything else is simply delivered.
    pub fn initial(has_feedback_schema: bool) -> Self {
        if has_feedback_schema {
            Self::AwaitingFeedback
        } else {
            Self::Delivered
        }
    }

    /// The spelling used in files and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Delivered => "delivered",
            Self::AwaitingFeedback => "awaiting_feedback",
            Self::Completed => "completed",
            Self::Timeout => "timeout",
        }
    }
}

/// The markup language of a delivery body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContentType {
    /// CommonMark with GitHub extensions.
    Markdown,
    /// An HTML fragment or page, shown sandboxed.
    Html,
}

/// A delivery's body and its markup language.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Content {
    /// Markdown or HTML.
    #[serde(rename = "type")]
    pub kind: ContentType,
    /// The text itself.
    pub body: String,
    /// Fields written by other tools that this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One record of `deliveries.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Delivery {
    /// `d_{unix}_{seq}`; kept as text so foreign ids still load.
    pub id: String,
    /// How the agent expects an answer.
    pub mode: DeliveryMode,
    /// Lifecycle state.
    pub status: DeliveryStatus,
    /// One-line title shown in the inbox.
    pub title: String,
    /// The body.
    pub content: Content,
    /// The feedback form, `null` for passive deliveries.
    #[serde(default)]
    pub feedback_schema: Option<Value>,
    /// When the delivery was published.
    pub created_at: Timestamp,
    /// When it was answered or closed.
    #[serde(default)]
    pub completed_at: Option<Timestamp>,
    /// Fields written by other tools that this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What an agent asks to publish; the store adds id, status and times.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewDelivery {
    /// How the agent expects an answer.
    pub mode: DeliveryMode,
    /// One-line title.
    pub title: String,
    /// Markup language of `body`.
    pub content_type: ContentType,
    /// The text to show.
    pub body: String,
    /// The feedback form, if any.
    pub feedback_schema: Option<Value>,
}

impl Delivery {
    /// Builds the stored record for `new` under `id`, created at `now`.
    pub fn create(new: NewDelivery, id: EntityId, now: Timestamp) -> Self {
        let status = DeliveryStatus::initial(new.feedback_schema.is_some());
        Self {
            id: id.to_string(),
            mode: new.mode,
            status,
            title: new.title,
            content: Content {
                kind: new.content_type,
                body: new.body,
                extra: Map::new(),
            },
            feedback_schema: new.feedback_schema,
            created_at: now,
            completed_at: None,
            extra: Map::new(),
        }
    }
}

/// Orders deliveries newest first; equal times fall back to the id, whose
/// sequence number keeps the order of creation within a second.
pub fn sort_newest_first(deliveries: &mut [Delivery]) {
    deliveries.sort_by(|a, b| {
        b.created_at.cmp(&a.created_at).then_with(|| {
            let parsed = |id: &str| id.parse::<EntityId>().map(|id| id.seq).ok();
            parsed(&b.id)
                .cmp(&parsed(&a.id))
                .then_with(|| b.id.cmp(&a.id))
        })
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::IdKind;

    const SEED_RECORD: &str = r##"{
        "id": "d_1738850400_003",
        "mode": "blocking",
        "status": "completed",
        "title": "Choose Deploy Target",
        "content": { "type": "markdown", "body": "Build is ready." },
        "feedback_schema": { "type": "select", "options": ["staging", "production"], "multiple": false },
        "created_at": "2026-02-06T14:10:00.000Z",
        "completed_at": "2026-02-06T14:10:45.000Z"
    }"##;

    #[test]
    fn reads_the_seed_record_and_writes_it_back_identically() {
        let delivery: Delivery = serde_json::from_str(SEED_RECORD).unwrap();
        assert_eq!(delivery.mode, DeliveryMode::Blocking);
        assert_eq!(delivery.status, DeliveryStatus::Completed);
        assert_eq!(delivery.content.kind, ContentType::Markdown);
        let written: Value = serde_json::to_value(&delivery).unwrap();
        let original: Value = serde_json::from_str(SEED_RECORD).unwrap();
        assert_eq!(
            written, original,
            "a round trip must not change a seed record"
        );
    }

    #[test]
    fn keeps_fields_it_does_not_know() {
        let mut record: Value = serde_json::from_str(SEED_RECORD).unwrap();
        record["agent"] = Value::from("codex");
        record["content"]["lang"] = Value::from("en");
        let delivery: Delivery = serde_json::from_value(record.clone()).unwrap();
        assert_eq!(serde_json::to_value(&delivery).unwrap(), record);
    }

    #[test]
    fn missing_optional_fields_read_as_null() {
        let record = r#"{"id":"d_1_001","mode":"passive","status":"delivered","title":"t",
            "content":{"type":"html","body":"<p>x</p>"},"created_at":"2026-02-06T14:10:00Z"}"#;
        let delivery: Delivery = serde_json::from_str(record).unwrap();
        assert_eq!(delivery.feedback_schema, None);
        assert_eq!(delivery.completed_at, None);
    }

    #[test]
    fn new_deliveries_start_in_the_seed_status() {
        let now = Timestamp::from_unix_millis(1_000).unwrap();
        let id = EntityId::next(IdKind::Delivery, 1, []);
        let new = |mode, feedback_schema| NewDelivery {
            mode,
            title: "t".into(),
            content_type: ContentType::Markdown,
            body: "b".into(),
            feedback_schema,
        };
        let passive = Delivery::create(new(DeliveryMode::Passive, None), id, now);
        assert_eq!(passive.status, DeliveryStatus::Delivered);
        let schema = Some(serde_json::json!({"type": "confirm"}));
        let asking = Delivery::create(new(DeliveryMode::Interactive, schema), id, now);
        assert_eq!(asking.status, DeliveryStatus::AwaitingFeedback);
        assert_eq!(asking.id, "d_1_001");
    }

    #[test]
    fn newest_first_uses_time_then_sequence() {
        let record = |id: &str, at: &str| {
            let mut value: Value = serde_json::from_str(SEED_RECORD).unwrap();
            value["id"] = id.into();
            value["created_at"] = at.into();
            serde_json::from_value::<Delivery>(value).unwrap()
        };
        let mut list = vec![
            record("d_100_002", "2026-02-06T14:00:00.000Z"),
            record("d_100_010", "2026-02-06T14:00:00.000Z"),
            record("d_200_001", "2026-02-06T15:00:00.000Z"),
            record("d_050_001", "2026-02-06T13:00:00.000Z"),
        ];
        sort_newest_first(&mut list);
        let ids: Vec<_> = list.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(ids, ["d_200_001", "d_100_010", "d_100_002", "d_050_001"]);
    }
}
