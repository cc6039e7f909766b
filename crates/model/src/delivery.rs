//! Deliveries: what an agent publishes to the developer's inbox.
//!
//! Field names, enum spellings and the status rules follow the visual-delivery
//! data model (`deliveries.json`). Fields this version does not know are kept
//! in `extra` and written back unchanged, so newer tools' data survives us.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use thiserror::Error;

use crate::{EntityId, Timestamp, feedback::FeedbackSchema, feedback::SchemaError};

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
    /// Every mode.
    pub const ALL: [Self; 3] = [Self::Passive, Self::Interactive, Self::Blocking];

    /// The mode spelt `text`.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|mode| mode.as_str() == text)
    }

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

    /// Every status, in lifecycle order.
    pub const ALL: [Self; 4] = [
        Self::Delivered,
        Self::AwaitingFeedback,
        Self::Completed,
        Self::Timeout,
    ];

    /// The status spelled `text`, if any.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|status| status.as_str() == text)
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
    /// When the agent that asked stopped waiting (it cancelled its call);
    /// the question still takes an answer, which is kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withdrawn_at: Option<Timestamp>,
    /// Fields written by other tools that this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The delivery field (beside visual-delivery's) naming the agent whose
/// token sent it over HTTP (`switchboard mcp token --name`).
pub const SENT_BY_FIELD: &str = "sent_by";

/// The delivery field (beside visual-delivery's) that says when the
/// developer first opened a question in the window.
pub const OPENED_AT_FIELD: &str = "opened_at";

impl Delivery {
    /// When the developer first opened this question in the window.
    pub fn opened_at(&self) -> Option<Timestamp> {
        self.extra
            .get(OPENED_AT_FIELD)
            .and_then(Value::as_str)
            .and_then(Timestamp::parse_lenient)
    }

    /// Notes that the developer opened this question at `now`; `false`
    /// (nothing changed) when it was opened before or waits for nothing.
    pub fn mark_opened(&mut self, now: Timestamp) -> bool {
        if self.opened_at().is_some() || self.status != DeliveryStatus::AwaitingFeedback {
            return false;
        }
        self.extra
            .insert(OPENED_AT_FIELD.to_owned(), Value::String(now.to_string()));
        true
    }

    /// The agent whose token sent this delivery, when one did.
    pub fn sent_by(&self) -> Option<&str> {
        self.extra.get(SENT_BY_FIELD).and_then(Value::as_str)
    }

    /// Whether `caller` may read this delivery: a local client (no token)
    /// reads every one; an agent over HTTP only those its token sent —
    /// not the developer's other agents' questions, their diffs and
    /// answers.
    pub fn visible_to(&self, caller: Option<&str>) -> bool {
        caller.is_none_or(|caller| self.sent_by() == Some(caller))
    }
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

/// Why a new delivery is refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DeliveryError {
    /// The title is empty.
    #[error("a delivery needs a title")]
    EmptyTitle,
    /// A passive delivery with a feedback form.
    #[error("a passive delivery takes no feedback schema; use --mode interactive or blocking")]
    SchemaOnPassive,
    /// An interactive or blocking delivery without a feedback form.
    #[error("an {0} delivery needs a feedback schema (--schema)")]
    MissingSchema(&'static str),
    /// The feedback form is invalid.
    #[error(transparent)]
    Schema(#[from] SchemaError),
}

/// Why a delivery does not take a reply now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum ReplyRefusal {
    /// Passive deliveries expect no feedback.
    #[error("this delivery expects no feedback")]
    NoFeedbackExpected,
    /// The first answer was already given (visual-delivery's
    /// ALREADY_RESPONDED).
    #[error("this delivery was already answered or closed")]
    AlreadyResponded,
    /// The question says something else than it did when it was shown
    /// (its text, its form, what it asks to allow): the answer was to
    /// other words, so it is not recorded.
    #[error(
        "this question changed after it was shown (its text or what it asks was rewritten): read it again before answering"
    )]
    ChangedSinceShown,
    /// An answer Switchboard acts on (it allows a command, it types keys)
    /// given without saying what it answers: only an answer to the
    /// question as it was shown is taken.
    #[error(
        "this question allows what it asks once answered: answer it as it was shown — `switchboard show ID` prints the --seen to answer with, or run `switchboard answer` at a terminal, which shows the question first"
    )]
    NotShown,
}

impl NewDelivery {
    /// Checks the title, the mode/schema pairing and the schema itself, and
    /// returns the parsed schema.
    pub fn validate(&self) -> Result<Option<FeedbackSchema>, DeliveryError> {
        if self.title.trim().is_empty() {
            return Err(DeliveryError::EmptyTitle);
        }
        match (self.mode, &self.feedback_schema) {
            (DeliveryMode::Passive, None) => Ok(None),
            (DeliveryMode::Passive, Some(_)) => Err(DeliveryError::SchemaOnPassive),
            (mode, None) => Err(DeliveryError::MissingSchema(mode.as_str())),
            (_, Some(schema)) => Ok(Some(FeedbackSchema::from_value(schema)?)),
        }
    }
}

impl Delivery {
    /// The parsed feedback form, if any.
    pub fn schema(&self) -> Result<Option<FeedbackSchema>, SchemaError> {
        self.feedback_schema
            .as_ref()
            .map(FeedbackSchema::from_value)
            .transpose()
    }

    /// Whether a reply may be recorded now. A timed-out question still takes
    /// its late answer, so nothing the developer says is lost.
    pub fn check_open_for_reply(&self) -> Result<(), ReplyRefusal> {
        match (self.feedback_schema.is_some(), self.status) {
            (false, _) | (_, DeliveryStatus::Delivered) => Err(ReplyRefusal::NoFeedbackExpected),
            (true, DeliveryStatus::Completed) => Err(ReplyRefusal::AlreadyResponded),
            (true, DeliveryStatus::AwaitingFeedback | DeliveryStatus::Timeout) => Ok(()),
        }
    }

    /// Marks the delivery answered or closed at `now`.
    pub fn complete(&mut self, now: Timestamp) {
        self.status = DeliveryStatus::Completed;
        self.completed_at = Some(now);
    }

    /// The status as the window names it: `withdrawn` for a question its
    /// agent stopped waiting for, else the stored status.
    pub fn shown_status(&self) -> &'static str {
        if self.status == DeliveryStatus::Timeout && self.withdrawn_at.is_some() {
            "withdrawn"
        } else {
            self.status.as_str()
        }
    }

    /// Marks a still-unanswered question withdrawn at `now`: its agent
    /// stopped waiting, so it leaves the waiting questions (status
    /// `timeout`), and an answer is still taken. Returns whether it was.
    pub fn withdraw(&mut self, now: Timestamp) -> bool {
        let waiting = self.time_out();
        if waiting {
            self.withdrawn_at = Some(now);
        }
        waiting
    }

    /// Marks a still-unanswered question as timed out; returns whether it was.
    pub fn time_out(&mut self) -> bool {
        let waiting = self.status == DeliveryStatus::AwaitingFeedback;
        if waiting {
            self.status = DeliveryStatus::Timeout;
        }
        waiting
    }

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
            withdrawn_at: None,
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
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
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
    fn new_deliveries_pair_modes_with_schemas() {
        let new = |mode, feedback_schema: Option<Value>| NewDelivery {
            mode,
            title: "t".into(),
            content_type: ContentType::Markdown,
            body: "b".into(),
            feedback_schema,
        };
        let confirm = Some(serde_json::json!({"type": "confirm"}));
        assert!(
            new(DeliveryMode::Passive, None)
                .validate()
                .unwrap()
                .is_none()
        );
        assert!(
            new(DeliveryMode::Blocking, confirm.clone())
                .validate()
                .unwrap()
                .is_some()
        );
        assert_eq!(
            new(DeliveryMode::Passive, confirm).validate(),
            Err(DeliveryError::SchemaOnPassive)
        );
        assert_eq!(
            new(DeliveryMode::Interactive, None).validate(),
            Err(DeliveryError::MissingSchema("interactive"))
        );
        let bad = Some(serde_json::json!({"type": "select", "options": []}));
        assert!(matches!(
            new(DeliveryMode::Blocking, bad).validate(),
            Err(DeliveryError::Schema(_))
        ));
        let untitled = NewDelivery {
            title: "  ".into(),
            ..new(DeliveryMode::Passive, None)
        };
        assert_eq!(untitled.validate(), Err(DeliveryError::EmptyTitle));
    }

    #[test]
    fn status_lifecycle_follows_the_seed() {
        let mut delivery: Delivery = serde_json::from_str(SEED_RECORD).unwrap();
        let now = Timestamp::from_unix_millis(5_000).unwrap();
        assert_eq!(
            delivery.check_open_for_reply(),
            Err(ReplyRefusal::AlreadyResponded)
        );
        delivery.status = DeliveryStatus::AwaitingFeedback;
        assert_eq!(delivery.check_open_for_reply(), Ok(()));
        assert!(delivery.time_out(), "an open question can time out");
        assert_eq!(delivery.status, DeliveryStatus::Timeout);
        assert_eq!(
            delivery.check_open_for_reply(),
            Ok(()),
            "a late answer is still taken"
        );
        delivery.complete(now);
        assert_eq!(delivery.status, DeliveryStatus::Completed);
        assert_eq!(delivery.completed_at, Some(now));
        assert!(!delivery.time_out(), "a completed delivery never times out");
        delivery.feedback_schema = None;
        delivery.status = DeliveryStatus::Delivered;
        assert_eq!(
            delivery.check_open_for_reply(),
            Err(ReplyRefusal::NoFeedbackExpected)
        );
    }

    #[test]
    fn a_withdrawn_question_says_so_and_still_takes_an_answer() {
        let mut delivery: Delivery = serde_json::from_str(SEED_RECORD).unwrap();
        let now = Timestamp::from_unix_millis(5_000).unwrap();
        assert!(
            !delivery.withdraw(now),
            "an answered question is not withdrawn"
        );
        assert_eq!(delivery.withdrawn_at, None);
        delivery.status = DeliveryStatus::AwaitingFeedback;
        assert_eq!(delivery.shown_status(), "awaiting_feedback");
        assert!(delivery.withdraw(now));
        assert_eq!(delivery.status, DeliveryStatus::Timeout);
        assert_eq!(delivery.shown_status(), "withdrawn");
        assert_eq!(delivery.check_open_for_reply(), Ok(()));
        let written = serde_json::to_value(&delivery).unwrap();
        assert_eq!(written["withdrawn_at"], "1970-01-01T00:00:05.000Z");
        let untouched: Value = serde_json::from_str(SEED_RECORD).unwrap();
        assert!(
            untouched.get("withdrawn_at").is_none()
                && serde_json::to_value(serde_json::from_value::<Delivery>(untouched).unwrap())
                    .unwrap()
                    .get("withdrawn_at")
                    .is_none(),
            "a record never withdrawn is written as it was"
        );
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

    #[test]
    fn a_question_is_marked_opened_once_and_only_while_it_waits() {
        let asked = NewDelivery {
            mode: DeliveryMode::Blocking,
            title: "Go?".into(),
            content_type: ContentType::Markdown,
            body: "b".into(),
            feedback_schema: Some(serde_json::json!({"type": "confirm"})),
        };
        let id: EntityId = "d_1795000000_001".parse().unwrap();
        let mut delivery = Delivery::create(asked, id, Timestamp::EPOCH);
        assert_eq!(delivery.opened_at(), None);
        let later = Timestamp::from_unix_millis(1_000).unwrap();
        assert!(delivery.mark_opened(later));
        assert_eq!(delivery.opened_at(), Some(later));
        assert!(!delivery.mark_opened(Timestamp::from_unix_millis(2_000).unwrap()));
        assert_eq!(delivery.opened_at(), Some(later));
        let mut answered = delivery.clone();
        answered.extra.clear();
        answered.complete(later);
        assert!(
            !answered.mark_opened(later),
            "an answered question is not marked"
        );
    }
}
