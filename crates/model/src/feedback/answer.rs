//! Checking an answer against its form: each field's presence, kind,
//! length, format, pattern and bounds, every problem reported with its
//! field; and the stored shape of the answer.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::{
    AnswerErrors, DEFAULT_RATING_MAX, FeedbackSchema, FieldError, FieldKind, FormField, TextFormat,
};

impl FeedbackSchema {
    /// Checks an answer against this schema and returns it in the stored
    /// shape: `{"value": …}` for confirm, select and rating, the field map
    /// for a form (feedback-responses.json keeps form values unwrapped).
    /// Accepts a form answer as `{"values": {…}}` or as the bare map.
    pub fn check_answer(&self, answer: &Value) -> Result<Value, AnswerErrors> {
        let fail = |message: String| AnswerErrors(vec![FieldError::whole(message)]);
        match self {
            Self::Confirm { .. } => match answer.get("value") {
                Some(Value::Bool(value)) => confirmed(*value, answer).map_err(fail),
                _ => Err(fail(
                    "a confirm answer is {\"value\": true} or {\"value\": false}".into(),
                )),
            },
            Self::Select {
                options, multiple, ..
            } => {
                let value = answer
                    .get("value")
                    .ok_or_else(|| fail("a select answer needs \"value\"".into()))?;
                if *multiple {
                    let chosen = value.as_array().ok_or_else(|| {
                        fail(
                            "this select takes several choices: {\"value\": [\"a\", \"b\"]}".into(),
                        )
                    })?;
                    let mut seen = BTreeSet::new();
                    for choice in chosen {
                        let text = choice.as_str().unwrap_or_default();
                        if !options.iter().any(|option| option == text) {
                            return Err(fail(format!("{choice} is not one of the options")));
                        }
                        if !seen.insert(text) {
                            return Err(fail(format!("{choice} is chosen twice")));
                        }
                    }
                    Ok(single(value.clone()))
                } else {
                    match value.as_str() {
                        Some(text) if options.iter().any(|option| option == text) => {
                            Ok(single(value.clone()))
                        }
                        _ => Err(fail(format!(
                            "{value} is not one of the options: {}",
                            options.join(", ")
                        ))),
                    }
                }
            }
            Self::Rating { .. } => {
                let max = self.rating_max().unwrap_or(DEFAULT_RATING_MAX);
                match answer.get("value").and_then(Value::as_u64) {
                    Some(stars) if (1..=u64::from(max)).contains(&stars) => {
                        Ok(single(Value::from(stars)))
                    }
                    _ => Err(fail(format!("a rating is a whole number from 1 to {max}"))),
                }
            }
            Self::Form { fields } => {
                let values = answer
                    .get("values")
                    .unwrap_or(answer)
                    .as_object()
                    .ok_or_else(|| {
                        fail("a form answer is {\"values\": {\"field\": value, …}}".into())
                    })?;
                check_form(fields, values).map(Value::Object)
            }
        }
    }
}

/// The longest `comment` a confirm answer keeps.
pub const COMMENT_LIMIT: usize = 4_000;

/// A confirm answer in its stored shape: `{"value": …}`, with the
/// developer's `comment` (a reason, for a "no") and `remember` (the same
/// answer next time) when given.
fn confirmed(value: bool, answer: &Value) -> Result<Value, String> {
    let mut stored = Map::new();
    stored.insert("value".into(), Value::Bool(value));
    match answer.get("comment") {
        None | Some(Value::Null) => {}
        Some(Value::String(comment)) if comment.chars().count() <= COMMENT_LIMIT => {
            if !comment.trim().is_empty() {
                stored.insert("comment".into(), Value::String(comment.trim().to_owned()));
            }
        }
        Some(Value::String(_)) => {
            return Err(format!("a comment is at most {COMMENT_LIMIT} characters"));
        }
        Some(_) => return Err("\"comment\" is text".into()),
    }
    match answer.get("remember") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => {}
        Some(Value::Bool(true)) => {
            stored.insert("remember".into(), Value::Bool(true));
        }
        Some(_) => return Err("\"remember\" is true or false".into()),
    }
    Ok(Value::Object(stored))
}

fn single(value: Value) -> Value {
    let mut map = Map::new();
    map.insert("value".into(), value);
    Value::Object(map)
}

/// Whether a value is "empty" for the purpose of `required`.
fn is_blank(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(text) => text.trim().is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}

/// Checks text against a field's length, format and pattern.
fn check_text(field: &FormField, text: &str) -> Result<(), String> {
    let length = u32::try_from(text.chars().count()).unwrap_or(u32::MAX);
    if let Some(min) = field.min_length
        && length < min
    {
        return Err(format!("must be at least {min} characters"));
    }
    if let Some(max) = field.max_length
        && length > max
    {
        return Err(format!("must be at most {max} characters"));
    }
    if let Some(format) = field.format
        && !format.accepts(text)
    {
        return Err(match format {
            TextFormat::Email => "must be an e-mail address".into(),
            TextFormat::Uri => "must be a URI (scheme:…)".into(),
            TextFormat::Date => "must be a date, YYYY-MM-DD".into(),
            TextFormat::DateTime => "must be a date and time (RFC 3339)".into(),
        });
    }
    #[cfg(feature = "patterns")]
    if let Some(pattern) = &field.pattern {
        // Anchored: JSON Schema's pattern may match anywhere, but a form
        // field's value is meant as a whole; `^…$` patterns are unchanged.
        let whole = format!("^(?:{pattern})$");
        if regex::Regex::new(&whole).is_ok_and(|regex| !regex.is_match(text)) {
            return Err(format!("must match {pattern}"));
        }
    }
    Ok(())
}

/// Checks a number against a field's bounds.
fn check_number(field: &FormField, number: &serde_json::Number) -> Result<(), String> {
    let value = number.as_f64().unwrap_or(f64::NAN);
    if field.integer && (value.fract() != 0.0 || !value.is_finite()) {
        return Err("must be a whole number".into());
    }
    if let Some(min) = field.minimum
        && value < min
    {
        return Err(format!("must be at least {min}"));
    }
    if let Some(max) = field.maximum
        && value > max
    {
        return Err(format!("must be at most {max}"));
    }
    Ok(())
}

/// Checks one field's value (not its presence).
pub(super) fn check_field_value(field: &FormField, value: &Value) -> Result<(), String> {
    let options = field.options.as_deref().unwrap_or_default();
    let offered = |text: &str| options.iter().any(|option| option == text);
    match (field.kind, value) {
        (_, Value::Null) => Ok(()),
        (FieldKind::Text | FieldKind::Textarea, Value::String(text)) => check_text(field, text),
        (FieldKind::Text | FieldKind::Textarea, _) => Err("must be text".into()),
        (FieldKind::Number, Value::Number(number)) => check_number(field, number),
        (FieldKind::Number, _) => Err("must be a number".into()),
        (FieldKind::Checkbox, Value::Bool(_)) => Ok(()),
        (FieldKind::Checkbox, _) => Err("must be true or false".into()),
        (FieldKind::Select, Value::Array(chosen)) if field.multiple => {
            let mut seen = BTreeSet::new();
            for choice in chosen {
                match choice.as_str() {
                    Some(text) if offered(text) => {
                        if !seen.insert(text) {
                            return Err(format!("{choice} is chosen twice"));
                        }
                    }
                    _ => return Err(format!("{choice} is not one of: {}", options.join(", "))),
                }
            }
            let count = u32::try_from(chosen.len()).unwrap_or(u32::MAX);
            if let Some(min) = field.min_items
                && count < min
            {
                return Err(format!("choose at least {min}"));
            }
            if let Some(max) = field.max_items
                && count > max
            {
                return Err(format!("choose at most {max}"));
            }
            Ok(())
        }
        (FieldKind::Select, _) if field.multiple => Err("must be a list of options".into()),
        (FieldKind::Select, Value::String(text)) if offered(text) => Ok(()),
        (FieldKind::Select, Value::String(_)) => {
            Err(format!("must be one of: {}", options.join(", ")))
        }
        (FieldKind::Select, _) => Err("must be one of the options".into()),
    }
}

fn check_form(
    fields: &[FormField],
    values: &Map<String, Value>,
) -> Result<Map<String, Value>, AnswerErrors> {
    let mut errors = Vec::new();
    for name in values.keys() {
        if !fields.iter().any(|field| &field.name == name) {
            errors.push(FieldError::at(name, "is not a field of this form"));
        }
    }
    for field in fields {
        match values.get(&field.name) {
            Some(value) if !is_blank(value) => {
                if let Err(message) = check_field_value(field, value) {
                    errors.push(FieldError::at(&field.name, message));
                }
            }
            _ if field.required => errors.push(FieldError::at(&field.name, "is required")),
            _ => {}
        }
    }
    if errors.is_empty() {
        Ok(values.clone())
    } else {
        Err(AnswerErrors(errors))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use serde_json::json;

    use super::*;

    fn schema(value: Value) -> FeedbackSchema {
        FeedbackSchema::from_value(&value).unwrap()
    }

    #[test]
    fn confirm_answers() {
        let confirm = schema(json!({"type": "confirm"}));
        assert_eq!(
            confirm.check_answer(&json!({"value": false})).unwrap(),
            json!({"value": false})
        );
        assert!(confirm.check_answer(&json!({"value": "yes"})).is_err());
        assert!(confirm.check_answer(&json!({})).is_err());
        assert_eq!(
            confirm
                .check_answer(
                    &json!({"value": false, "comment": " not on main ", "remember": false})
                )
                .unwrap(),
            json!({"value": false, "comment": "not on main"})
        );
        assert_eq!(
            confirm
                .check_answer(&json!({"value": true, "remember": true}))
                .unwrap(),
            json!({"value": true, "remember": true})
        );
        assert!(
            confirm
                .check_answer(&json!({"value": false, "comment": 3}))
                .is_err()
        );
        assert!(
            confirm
                .check_answer(&json!({"value": true, "remember": "yes"}))
                .is_err()
        );
        let long = "x".repeat(COMMENT_LIMIT + 1);
        assert!(
            confirm
                .check_answer(&json!({"value": false, "comment": long}))
                .is_err()
        );
    }

    #[test]
    fn select_answers_single_and_multiple() {
        let single = schema(json!({"type": "select", "options": ["staging", "dev"]}));
        assert_eq!(
            single.check_answer(&json!({"value": "dev"})).unwrap(),
            json!({"value": "dev"})
        );
        assert!(single.check_answer(&json!({"value": "prod"})).is_err());
        assert!(single.check_answer(&json!({"value": ["dev"]})).is_err());

        let multiple =
            schema(json!({"type": "select", "options": ["a", "b", "c"], "multiple": true}));
        assert_eq!(
            multiple
                .check_answer(&json!({"value": ["a", "c"]}))
                .unwrap(),
            json!({"value": ["a", "c"]})
        );
        assert!(
            multiple.check_answer(&json!({"value": []})).is_ok(),
            "choosing nothing is an answer"
        );
        assert!(
            multiple
                .check_answer(&json!({"value": ["a", "a"]}))
                .is_err()
        );
        assert!(multiple.check_answer(&json!({"value": ["z"]})).is_err());
        assert!(multiple.check_answer(&json!({"value": "a"})).is_err());
    }

    #[test]
    fn rating_answers_stay_on_the_scale() {
        let rating = schema(json!({"type": "rating", "max": 3}));
        assert_eq!(
            rating.check_answer(&json!({"value": 3})).unwrap(),
            json!({"value": 3})
        );
        for bad in [json!(0), json!(4), json!(2.5), json!(-1), json!("3")] {
            assert!(
                rating.check_answer(&json!({"value": bad})).is_err(),
                "{bad}"
            );
        }
        assert_eq!(
            schema(json!({"type": "rating"})).rating_max(),
            Some(DEFAULT_RATING_MAX)
        );
    }

    #[test]
    fn form_answers_report_every_field_problem() {
        let form = schema(json!({"type": "form", "fields": [
            {"name": "priority", "type": "select", "options": ["P0", "P1"], "required": true},
            {"name": "count", "type": "number"},
            {"name": "urgent", "type": "checkbox"},
            {"name": "notes", "type": "textarea", "required": true}
        ]}));
        let good = json!({"values": {"priority": "P1", "count": 3, "urgent": true, "notes": "ok"}});
        assert_eq!(
            form.check_answer(&good).unwrap(),
            json!({"priority": "P1", "count": 3, "urgent": true, "notes": "ok"}),
            "form values are stored unwrapped, as in feedback-responses.json"
        );
        let bare = json!({"priority": "P0", "notes": "x"});
        assert!(
            form.check_answer(&bare).is_ok(),
            "a bare value map is accepted too"
        );

        let bad = json!({"values": {"priority": "P9", "count": "many", "urgent": "yes", "notes": "  ", "extra": 1}});
        let errors = form.check_answer(&bad).unwrap_err().0;
        let fields: Vec<_> = errors.iter().map(|e| e.field.clone().unwrap()).collect();
        assert_eq!(fields, ["extra", "priority", "count", "urgent", "notes"]);
        assert!(
            errors[4].message.contains("required"),
            "blank text does not satisfy required"
        );
    }
}
