//! A delivery's outcome and its answers in words, as a person reads them
//! in a terminal (`switchboard list`, `switchboard show`): "allowed" or
//! "denied" rather than "completed" for an agent's permission request,
//! "Yes — ship it" rather than `{"value":true,"comment":"ship it"}`.

use serde_json::Value;

use crate::{
    agent::permission::{Decision, mark_of},
    blocking::FeedbackResponse,
    delivery::Delivery,
    feedback::{ConfirmAnswer, FeedbackSchema},
};

/// The delivery's status in a word: for a decided permission request, what
/// was decided (`allowed`, `denied`, `terminal`); else its status.
pub fn status_word(delivery: &Delivery) -> String {
    mark_of(&delivery.extra)
        .and_then(|mark| mark.decided)
        .map_or_else(
            || delivery.status.as_str().to_owned(),
            |decision| decision.badge().to_owned(),
        )
}

/// The answer `response` to `delivery` in words: a permission request's
/// decision ("Denied — not on main"), a yes/no ("Yes — ship it"), a
/// choice, stars, or a form's fields one per line (`name: value`).
pub fn answer_words(delivery: &Delivery, response: &FeedbackResponse) -> String {
    if let Some(mark) = mark_of(&delivery.extra) {
        return Decision::of_closed(&mark, &delivery.id, std::slice::from_ref(response))
            .map_or_else(|| plain(&response.values), |decision| decision.label());
    }
    values_words(delivery, &response.values)
}

/// An answer about to be given to `delivery` (its `values`, as a reply
/// carries them) in the words [`answer_words`] shows it with once given:
/// "Always allowed: Bash(cargo test)", "Yes — ship it", …
pub fn values_words(delivery: &Delivery, values: &Value) -> String {
    if let Some(mark) = mark_of(&delivery.extra) {
        let given = crate::blocking::AwaitOutcome::Responded {
            delivery_id: delivery.id.clone(),
            response: values.clone(),
        };
        return Decision::of_answer(&mark, &given)
            .map_or_else(|| plain(values), |decision| decision.label());
    }
    let value = values.get("value");
    match delivery.schema().ok().flatten() {
        Some(FeedbackSchema::Confirm { .. }) => {
            ConfirmAnswer::from_value(values).map_or_else(|| plain(values), |answer| answer.label())
        }
        Some(FeedbackSchema::Rating { max, .. }) => match value.and_then(Value::as_u64) {
            Some(stars) => format!("{stars} of {} stars", max.unwrap_or(5)),
            None => plain(values),
        },
        Some(FeedbackSchema::Select { .. }) => match value {
            Some(Value::Array(chosen)) => chosen.iter().map(plain).collect::<Vec<_>>().join(", "),
            Some(chosen) => plain(chosen),
            None => plain(values),
        },
        Some(FeedbackSchema::Form { fields }) => {
            let named = values.get("values").unwrap_or(values);
            let lines: Vec<String> = fields
                .iter()
                .filter_map(|field| {
                    let given = named.get(&field.name)?;
                    let label = field.label.as_deref().unwrap_or(&field.name);
                    Some(format!("{label}: {}", plain(given)))
                })
                .collect();
            if lines.is_empty() {
                plain(values)
            } else {
                lines.join("\n")
            }
        }
        None => plain(values),
    }
}

/// A value as plain words: text without quotes, anything else as JSON.
fn plain(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    fn delivery(schema: Value, extra: Value) -> Delivery {
        let mut record = json!({
            "id": "d_1764000000_001", "mode": "blocking", "status": "completed",
            "title": "t", "content": {"type": "markdown", "body": "b"},
            "created_at": "2026-11-26T00:00:00.000Z", "feedback_schema": schema,
        });
        if let (Value::Object(record), Value::Object(extra)) = (&mut record, extra) {
            record.extend(extra);
        }
        serde_json::from_value(record).unwrap()
    }

    fn response(values: Value) -> FeedbackResponse {
        serde_json::from_value(json!({
            "id": "f_1764000000_001", "delivery_id": "d_1764000000_001",
            "values": values, "created_at": "2026-11-26T00:00:01.000Z",
        }))
        .unwrap()
    }

    #[test]
    fn answers_read_as_words() {
        let confirm = delivery(json!({"type": "confirm"}), json!({}));
        assert_eq!(status_word(&confirm), "completed");
        assert_eq!(
            answer_words(
                &confirm,
                &response(json!({"value": true, "comment": "ship it"}))
            ),
            "Yes — ship it"
        );
        let form = delivery(
            json!({"type": "form", "fields": [{"name": "why", "type": "text", "label": "Why"}]}),
            json!({}),
        );
        assert_eq!(
            answer_words(&form, &response(json!({"values": {"why": "tests pass"}}))),
            "Why: tests pass"
        );
        let rating = delivery(json!({"type": "rating", "max": 3}), json!({}));
        assert_eq!(
            answer_words(&rating, &response(json!({"value": 2}))),
            "2 of 3 stars"
        );
        let select = delivery(
            json!({"type": "select", "options": ["a", "b"], "multiple": true}),
            json!({}),
        );
        assert_eq!(
            answer_words(&select, &response(json!({"value": ["a", "b"]}))),
            "a, b"
        );
        let mark = |decided: Value| {
            json!({"agent_request": {"agent": "claude-code", "session_id": "s", "cwd": "/w",
                   "tool_name": "Bash", "has_terminal": true, "decided": decided}})
        };
        let denied = delivery(
            json!({"type": "confirm"}),
            mark(json!({"kind": "denied", "reason": "not on main"})),
        );
        assert_eq!(status_word(&denied), "denied");
        assert_eq!(
            answer_words(
                &denied,
                &response(json!({"value": false, "comment": "not on main"}))
            ),
            "Denied — not on main"
        );
        let allowed = delivery(json!({"type": "confirm"}), mark(json!({"kind": "allowed"})));
        assert_eq!(status_word(&allowed), "allowed");
    }
}
