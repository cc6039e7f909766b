//! A confirm answer as one type: what the window and the CLI send, and
//! what an agent's permission request is decided from.

use serde_json::{Map, Value};

/// A yes or no, with the developer's reason (for a "no") and whether the
/// same answer stands next time (an agent's "always allow").
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ConfirmAnswer {
    /// Yes or no.
    pub value: bool,
    /// Why, in the developer's words (blank is none).
    pub comment: Option<String>,
    /// The same answer next time.
    pub remember: bool,
}

impl ConfirmAnswer {
    /// Yes, this once.
    pub fn yes() -> Self {
        Self {
            value: true,
            ..Self::default()
        }
    }

    /// No, with `reason` when it is not blank.
    pub fn no(reason: &str) -> Self {
        Self {
            value: false,
            comment: Some(reason.trim().to_owned()).filter(|reason| !reason.is_empty()),
            remember: false,
        }
    }

    /// The answer in its sent and stored shape: `{"value": …}`, with
    /// `comment` and `remember` only when given.
    pub fn to_value(&self) -> Value {
        let mut map = Map::new();
        map.insert("value".into(), Value::Bool(self.value));
        if let Some(comment) = &self.comment {
            map.insert("comment".into(), Value::String(comment.clone()));
        }
        if self.remember {
            map.insert("remember".into(), Value::Bool(true));
        }
        Value::Object(map)
    }

    /// The answer in words: "Yes", "No — not on main".
    pub fn label(&self) -> String {
        let word = if self.value { "Yes" } else { "No" };
        match &self.comment {
            Some(comment) => format!("{word} — {comment}"),
            None => word.to_owned(),
        }
    }

    /// Reads an answer of that shape; `None` when `value` is not a yes or
    /// no.
    pub fn from_value(answer: &Value) -> Option<Self> {
        Some(Self {
            value: answer.get("value")?.as_bool()?,
            comment: answer
                .get("comment")
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|comment| !comment.is_empty())
                .map(str::to_owned),
            remember: answer
                .get("remember")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use serde_json::json;

    use super::*;

    #[test]
    fn an_answer_goes_out_and_comes_back_the_same() {
        let always = ConfirmAnswer {
            remember: true,
            ..ConfirmAnswer::yes()
        };
        assert_eq!(always.to_value(), json!({"value": true, "remember": true}));
        assert_eq!(
            ConfirmAnswer::no("  not on main ").to_value(),
            json!({"value": false, "comment": "not on main"})
        );
        assert_eq!(ConfirmAnswer::no(" ").to_value(), json!({"value": false}));
        for answer in [always, ConfirmAnswer::no("why"), ConfirmAnswer::yes()] {
            assert_eq!(ConfirmAnswer::from_value(&answer.to_value()), Some(answer));
        }
        assert_eq!(ConfirmAnswer::from_value(&json!({"value": "yes"})), None);
        assert_eq!(ConfirmAnswer::from_value(&json!({})), None);
        assert_eq!(ConfirmAnswer::yes().label(), "Yes");
        assert_eq!(ConfirmAnswer::no("not on main").label(), "No — not on main");
    }
}
