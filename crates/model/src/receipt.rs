//! Receipts of answers Switchboard acts on itself — an agent's permission
//! request (allowed, it runs a command), a started agent's start-up screen
//! (answered, keys are typed into its terminal). The inbox's files live in
//! the workspace, which anything working there can write (an agent, even
//! one sandboxed to it; a script a cloned repository runs): an answer found
//! there alone is no answer of the developer's. Switchboard's own reply
//! (the window's, a paired browser's, `switchboard answer`) also leaves a
//! receipt outside the workspace, and only an answer its receipt vouches
//! for is acted on.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{
    Delivery, Timestamp,
    agent::{permission::REQUEST_FIELD, screen_prompt::SCREEN_FIELD},
    blocking::AwaitOutcome,
};

/// The fields of a question whose answer Switchboard acts on: a
/// permission request's mark, a start-up screen's.
pub const ACTING_FIELDS: [&str; 2] = [REQUEST_FIELD, SCREEN_FIELD];

/// Whether Switchboard acts on the answer to `delivery` itself (see
/// [`ACTING_FIELDS`]), so that answering it leaves a receipt.
pub fn answer_acts(delivery: &Delivery) -> bool {
    ACTING_FIELDS
        .iter()
        .any(|field| delivery.extra.contains_key(*field))
}

/// The developer's answer to one waiting session, as Switchboard's reply
/// recorded it outside the workspace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerReceipt {
    /// The session the answer settled (`s_…`).
    pub session_id: String,
    /// The question answered (`d_…`).
    pub delivery_id: String,
    /// The answer, as checked against the question's form.
    pub response: Value,
    /// When it was given.
    pub at: Timestamp,
    /// Fields a newer version wrote.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What a waiter that acts on the answer takes `outcome` for, given the
/// receipt found for its session: an answer only as a receipt of the same
/// question says it (the answer in the workspace's files, which anyone
/// working there can write, counts for nothing then); without one, no
/// answer at all (`None`: the waiter hands the question back). A decline,
/// a dismissal or a wait that ran out acts on nothing and stands as it is.
pub fn vouched(outcome: AwaitOutcome, receipt: Option<&AnswerReceipt>) -> Option<AwaitOutcome> {
    match outcome {
        AwaitOutcome::Responded { delivery_id, .. } => receipt
            .filter(|receipt| receipt.delivery_id == delivery_id)
            .map(|receipt| AwaitOutcome::Responded {
                delivery_id,
                response: receipt.response.clone(),
            }),
        other => Some(other),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn receipt(delivery_id: &str, response: Value) -> AnswerReceipt {
        AnswerReceipt {
            session_id: "s_1764000000_001".into(),
            delivery_id: delivery_id.into(),
            response,
            at: Timestamp::from_unix_millis(1_764_000_000_000).unwrap(),
            extra: Map::new(),
        }
    }

    fn responded(response: Value) -> AwaitOutcome {
        AwaitOutcome::Responded {
            delivery_id: "d_1764000000_001".into(),
            response,
        }
    }

    #[test]
    fn an_answer_counts_only_as_its_receipt_says_and_refusals_stand_as_they_are() {
        let yes = json!({"value": true});
        assert_eq!(vouched(responded(yes.clone()), None), None, "no receipt");
        assert_eq!(
            vouched(
                responded(yes.clone()),
                Some(&receipt("d_1764000000_002", yes.clone()))
            ),
            None,
            "a receipt of another question"
        );
        // The files say yes, the developer said no: the receipt is the answer.
        assert_eq!(
            vouched(
                responded(yes),
                Some(&receipt("d_1764000000_001", json!({"value": false})))
            ),
            Some(responded(json!({"value": false})))
        );
        for standing in [
            AwaitOutcome::Declined {
                delivery_id: "d_1764000000_001".into(),
            },
            AwaitOutcome::Dismissed {
                delivery_id: "d_1764000000_001".into(),
            },
            AwaitOutcome::Timeout {
                delivery_id: "d_1764000000_001".into(),
            },
        ] {
            assert_eq!(vouched(standing.clone(), None), Some(standing));
        }
    }
}
