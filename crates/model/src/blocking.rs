//! Blocking questions: visual-delivery's sessions (`sessions.json`: an
//! agent waiting on one question — not a program session, nor a chat),
//! feedback records (`feedback-responses.json`), and what a waiting agent
//! is told.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{Delivery, DeliveryMode, DeliveryStatus, EntityId, NewDelivery, Timestamp};

/// Where a blocking question stands. Only the seed's three statuses are
/// written; a decline or dismissal is a `responded` session whose
/// `response` says which ([`closing_response`]), so a waiter that knows
/// only the seed returns at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockingStatus {
    /// The agent waits.
    Waiting,
    /// The developer answered, declined or dismissed; `response` holds the
    /// answer, or says which.
    Responded,
    /// The wait ran out.
    Timeout,
    /// Read from files older versions wrote; never written now.
    Declined,
    /// Read from files older versions wrote; never written now.
    Dismissed,
}

/// The key of a `responded` session's `response` that marks a decline or
/// dismissal (a name no form field is likely to have).
pub const CLOSED_KEY: &str = "closed_without_answer";

/// How the developer closed a question without answering it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closing {
    /// Said no to the question as a whole.
    Declined,
    /// Closed it without a word.
    Dismissed,
}

impl Closing {
    fn as_str(self) -> &'static str {
        match self {
            Closing::Declined => "declined",
            Closing::Dismissed => "dismissed",
        }
    }
}

/// The `response` of a session closed by `closing`:
/// `{"closed_without_answer": "declined"}` or `… "dismissed"}`.
pub fn closing_response(closing: Closing) -> Value {
    let mut map = Map::new();
    map.insert(CLOSED_KEY.to_owned(), Value::from(closing.as_str()));
    Value::Object(map)
}

/// Which closing `response` records, if it is a closing response (exactly
/// the one key).
pub fn closing_of(response: &Value) -> Option<Closing> {
    let map = response.as_object().filter(|map| map.len() == 1)?;
    match map.get(CLOSED_KEY)?.as_str()? {
        "declined" => Some(Closing::Declined),
        "dismissed" => Some(Closing::Dismissed),
        _ => None,
    }
}

impl BlockingStatus {
    /// Whether the agent still waits on this session.
    pub fn is_open(self) -> bool {
        self == Self::Waiting
    }
}

/// One record of `sessions.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BlockingSession {
    /// `s_{unix}_{seq}`.
    pub id: String,
    /// The delivery the agent waits on.
    pub delivery_id: String,
    /// Where the wait stands.
    pub status: BlockingStatus,
    /// The answer, once given.
    #[serde(default)]
    pub response: Option<Value>,
    /// When the wait began.
    pub created_at: Timestamp,
    /// When the wait gives up.
    pub timeout_at: Timestamp,
    /// When the answer came.
    #[serde(default)]
    pub responded_at: Option<Timestamp>,
    /// Fields written by other tools that this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl BlockingSession {
    /// A new waiting session on `delivery_id`.
    pub fn create(id: EntityId, delivery_id: &str, now: Timestamp, timeout_at: Timestamp) -> Self {
        Self {
            id: id.to_string(),
            delivery_id: delivery_id.to_owned(),
            status: BlockingStatus::Waiting,
            response: None,
            created_at: now,
            timeout_at,
            responded_at: None,
            extra: Map::new(),
        }
    }
}

/// The session field (beside visual-delivery's) that says when its asker
/// stopped waiting without taking its question back — its client gave up
/// on the call, or went away. The question stays for the developer.
pub const LEFT_AT_FIELD: &str = "left_at";

/// The session field that says when the answer of a session whose asker
/// had left reached an asker that asked again.
pub const TAKEN_AT_FIELD: &str = "taken_at";

impl BlockingSession {
    /// When its asker left without taking the question back, if it did.
    pub fn left_at(&self) -> Option<Timestamp> {
        self.stamp(LEFT_AT_FIELD)
    }

    /// When its answer was taken by an asker that asked again, if it was.
    pub fn taken_at(&self) -> Option<Timestamp> {
        self.stamp(TAKEN_AT_FIELD)
    }

    fn stamp(&self, field: &str) -> Option<Timestamp> {
        self.extra
            .get(field)
            .and_then(Value::as_str)
            .and_then(|text| Timestamp::parse(text).ok())
    }

    /// Stamps `field` with `now` (`None` removes it).
    pub fn set_stamp(&mut self, field: &str, now: Option<Timestamp>) {
        match now {
            Some(now) => {
                self.extra
                    .insert(field.to_owned(), Value::String(now.to_string()));
            }
            None => {
                self.extra.remove(field);
            }
        }
    }
}

impl Delivery {
    /// Whether `new` asks exactly what this blocking question asks: the
    /// same title, text, markup and form.
    pub fn asks_the_same(&self, new: &NewDelivery) -> bool {
        self.mode == DeliveryMode::Blocking
            && new.mode == DeliveryMode::Blocking
            && self.title == new.title
            && self.content.body == new.body
            && self.content.kind == new.content_type
            && self.feedback_schema == new.feedback_schema
    }
}

/// What asking a question again does, given the newest question that asks
/// the same thing and its sessions (with their places in the file).
#[derive(Debug, Clone, PartialEq)]
pub enum Rejoin {
    /// It still waits for the developer, and this asker had left it: wait
    /// on that session again.
    Resume(usize),
    /// It still waits for the developer: wait on it beside whoever waits.
    Join,
    /// The developer answered (or declined) after its asker left, and no
    /// asker has had that answer: it is this asker's, at once.
    Answered(usize),
    /// Nothing to rejoin: ask anew.
    Anew,
}

/// What asking `question` again does now (see [`Rejoin`]); `sessions` are
/// its sessions. A question answered while its asker waited, one that ran
/// out or was withdrawn, or an answer already taken, is never reused: the
/// same words asked later are a new question.
pub fn rejoin(question: &Delivery, sessions: &[(usize, BlockingSession)]) -> Rejoin {
    match question.status {
        DeliveryStatus::AwaitingFeedback => sessions
            .iter()
            .find(|(_, session)| session.status.is_open() && session.left_at().is_some())
            .map_or(Rejoin::Join, |(index, _)| Rejoin::Resume(*index)),
        DeliveryStatus::Completed => sessions
            .iter()
            .find(|(_, session)| {
                session.status == BlockingStatus::Responded
                    && session.left_at().is_some()
                    && session.taken_at().is_none()
            })
            .map_or(Rejoin::Anew, |(index, _)| Rejoin::Answered(*index)),
        DeliveryStatus::Delivered | DeliveryStatus::Timeout => Rejoin::Anew,
    }
}

/// One record of `feedback-responses.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FeedbackResponse {
    /// `f_{unix}_{seq}`.
    pub id: String,
    /// The delivery answered.
    pub delivery_id: String,
    /// The answer: the field map of a form, `{"value": …}` otherwise.
    pub values: Value,
    /// When it was given.
    pub created_at: Timestamp,
    /// Fields written by other tools that this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// How the developer disposes of a question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reply {
    /// An answer to check against the schema.
    Answer {
        /// `{"value": …}`, or `{"values": {…}}` for a form.
        answer: Value,
    },
    /// The developer says no to the question as a whole.
    Decline,
    /// The developer closes the question without answering.
    Dismiss,
}

/// The one JSON line a waiting agent prints, in the shape of
/// visual-delivery's `await-feedback.sh` (plus `declined`/`dismissed`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum AwaitOutcome {
    /// The developer answered.
    Responded {
        /// The delivery.
        delivery_id: String,
        /// The answer as stored.
        response: Value,
    },
    /// The developer declined.
    Declined {
        /// The delivery.
        delivery_id: String,
    },
    /// The developer dismissed the question.
    Dismissed {
        /// The delivery.
        delivery_id: String,
    },
    /// Nobody answered in time.
    Timeout {
        /// The delivery.
        delivery_id: String,
    },
    /// Waiting failed.
    Error {
        /// Why.
        message: String,
    },
}

impl AwaitOutcome {
    /// What a session's state tells a waiting agent, if the wait is over.
    pub fn of_session(session: &BlockingSession) -> Option<Self> {
        let delivery_id = session.delivery_id.clone();
        match session.status {
            BlockingStatus::Waiting => None,
            BlockingStatus::Responded => {
                let response = session.response.clone().unwrap_or(Value::Null);
                Some(match closing_of(&response) {
                    Some(Closing::Declined) => Self::Declined { delivery_id },
                    Some(Closing::Dismissed) => Self::Dismissed { delivery_id },
                    None => Self::Responded {
                        delivery_id,
                        response,
                    },
                })
            }
            BlockingStatus::Timeout => Some(Self::Timeout { delivery_id }),
            BlockingStatus::Declined => Some(Self::Declined { delivery_id }),
            BlockingStatus::Dismissed => Some(Self::Dismissed { delivery_id }),
        }
    }

    /// The question the wait was on (none for a failed wait).
    pub fn delivery_id(&self) -> Option<&str> {
        match self {
            Self::Responded { delivery_id, .. }
            | Self::Declined { delivery_id }
            | Self::Dismissed { delivery_id }
            | Self::Timeout { delivery_id } => Some(delivery_id),
            Self::Error { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    fn asked(title: &str) -> NewDelivery {
        NewDelivery {
            mode: DeliveryMode::Blocking,
            title: title.to_owned(),
            content_type: crate::ContentType::Markdown,
            body: "Ready.".to_owned(),
            feedback_schema: Some(serde_json::json!({"type": "confirm"})),
        }
    }

    fn at(seconds: i64) -> Timestamp {
        Timestamp::from_unix_millis(1_764_000_000_000 + seconds * 1000).unwrap()
    }

    fn session(seq: u32, status: BlockingStatus, left: bool, taken: bool) -> BlockingSession {
        let id = EntityId {
            kind: crate::IdKind::Session,
            unix_seconds: 1_764_000_000,
            seq,
        };
        let mut session = BlockingSession::create(id, "d_1764000000_001", at(0), at(600));
        session.status = status;
        session.set_stamp(LEFT_AT_FIELD, left.then(|| at(1)));
        session.set_stamp(TAKEN_AT_FIELD, taken.then(|| at(2)));
        session
    }

    #[test]
    fn only_the_same_words_form_and_mode_ask_the_same() {
        let id = EntityId {
            kind: crate::IdKind::Delivery,
            unix_seconds: 1_764_000_000,
            seq: 1,
        };
        let question = Delivery::create(asked("Ship it?"), id, at(0));
        assert!(question.asks_the_same(&asked("Ship it?")));
        assert!(!question.asks_the_same(&asked("Ship it now?")));
        let mut other_form = asked("Ship it?");
        other_form.feedback_schema = Some(serde_json::json!({"type": "text"}));
        assert!(!question.asks_the_same(&other_form));
        let mut passive = asked("Ship it?");
        passive.mode = DeliveryMode::Interactive;
        assert!(!question.asks_the_same(&passive));
    }

    #[test]
    fn asking_again_resumes_joins_takes_a_left_answer_once_or_asks_anew() {
        let id = EntityId {
            kind: crate::IdKind::Delivery,
            unix_seconds: 1_764_000_000,
            seq: 1,
        };
        let mut question = Delivery::create(asked("Ship it?"), id, at(0));
        let waiting = |left| vec![(4, session(1, BlockingStatus::Waiting, left, false))];
        assert_eq!(rejoin(&question, &waiting(true)), Rejoin::Resume(4));
        assert_eq!(rejoin(&question, &waiting(false)), Rejoin::Join);

        question.complete(at(3));
        let answered = |left, taken| vec![(2, session(1, BlockingStatus::Responded, left, taken))];
        assert_eq!(
            rejoin(&question, &answered(true, false)),
            Rejoin::Answered(2)
        );
        assert_eq!(
            rejoin(&question, &answered(true, true)),
            Rejoin::Anew,
            "an answer is taken once"
        );
        assert_eq!(
            rejoin(&question, &answered(false, false)),
            Rejoin::Anew,
            "an answer its asker got is never given again"
        );
        question.status = DeliveryStatus::Timeout;
        assert_eq!(rejoin(&question, &waiting(true)), Rejoin::Anew);
    }

    #[test]
    fn seed_session_and_response_round_trip() {
        let session = serde_json::json!({
            "id": "s_1738850700_001", "delivery_id": "d_1738850400_003", "status": "waiting",
            "response": null, "created_at": "2026-02-06T14:10:00.000Z",
            "timeout_at": "2026-02-06T14:15:00.000Z", "responded_at": null
        });
        let parsed: BlockingSession = serde_json::from_value(session.clone()).unwrap();
        assert!(parsed.status.is_open());
        assert_eq!(serde_json::to_value(&parsed).unwrap(), session);
        let response = serde_json::json!({
            "id": "f_1738850600_002", "delivery_id": "d_1738850400_003",
            "values": {"value": "staging"}, "created_at": "2026-02-06T14:10:45.000Z"
        });
        let parsed: FeedbackResponse = serde_json::from_value(response.clone()).unwrap();
        assert_eq!(serde_json::to_value(&parsed).unwrap(), response);
    }

    #[test]
    fn closings_are_responded_sessions_and_old_statuses_still_read() {
        let closed = |closing| {
            serde_json::json!({
                "id": "s_1_001", "delivery_id": "d_1_001", "status": "responded",
                "response": closing_response(closing), "created_at": "2026-02-06T14:10:00.000Z",
                "timeout_at": "2026-02-06T14:15:00.000Z", "responded_at": "2026-02-06T14:11:00.000Z"
            })
        };
        let outcome = |json: serde_json::Value| {
            AwaitOutcome::of_session(&serde_json::from_value(json).unwrap()).unwrap()
        };
        assert_eq!(
            outcome(closed(Closing::Declined)),
            AwaitOutcome::Declined {
                delivery_id: "d_1_001".into()
            }
        );
        assert_eq!(
            outcome(closed(Closing::Dismissed)),
            AwaitOutcome::Dismissed {
                delivery_id: "d_1_001".into()
            }
        );
        // A form answer that merely has the key among others is an answer.
        let mut answer = closed(Closing::Declined);
        answer["response"]["note"] = "x".into();
        assert!(matches!(outcome(answer), AwaitOutcome::Responded { .. }));
        // Files written before this version.
        let mut old = closed(Closing::Declined);
        old["status"] = "declined".into();
        old["response"] = serde_json::Value::Null;
        assert!(matches!(outcome(old), AwaitOutcome::Declined { .. }));
    }

    #[test]
    fn await_lines_have_the_original_shape() {
        let responded = AwaitOutcome::Responded {
            delivery_id: "d_1_001".into(),
            response: serde_json::json!({"value": "staging"}),
        };
        assert_eq!(
            serde_json::to_string(&responded).unwrap(),
            r#"{"status":"responded","delivery_id":"d_1_001","response":{"value":"staging"}}"#
        );
        let timeout = AwaitOutcome::Timeout {
            delivery_id: "d_1_001".into(),
        };
        assert_eq!(
            serde_json::to_string(&timeout).unwrap(),
            r#"{"status":"timeout","delivery_id":"d_1_001"}"#
        );
        let error = AwaitOutcome::Error {
            message: "gone".into(),
        };
        assert_eq!(
            serde_json::to_string(&error).unwrap(),
            r#"{"status":"error","message":"gone"}"#
        );
    }
}
