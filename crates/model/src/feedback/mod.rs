//! Feedback forms: the four schema types agents attach to a delivery, and
//! the validation of both the schema (when an agent delivers) and an answer
//! (when the developer replies). The same code runs in the store, the CLI
//! and, through wasm, in the window.

mod draft;
pub mod elicitation;

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use thiserror::Error;

pub use self::draft::{Draft, FieldDraft};

/// The default number of stars of a rating.
pub const DEFAULT_RATING_MAX: u32 = 5;
/// The largest rating scale accepted.
pub const RATING_MAX_LIMIT: u32 = 10;

/// A feedback form, as stored in a delivery's `feedback_schema`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FeedbackSchema {
    /// A yes/no question. Answer: `{"value": true|false}`.
    Confirm {
        /// The question.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        prompt: Option<String>,
        /// Text of the yes button (default "Confirm").
        #[serde(default, skip_serializing_if = "Option::is_none")]
        confirm_label: Option<String>,
        /// Text of the no button (default "Cancel").
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cancel_label: Option<String>,
    },
    /// A choice among options. Answer: `{"value": "a"}`, or
    /// `{"value": ["a", "b"]}` when `multiple`.
    Select {
        /// The question.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        prompt: Option<String>,
        /// The choices, in order.
        options: Vec<String>,
        /// Whether several may be chosen.
        #[serde(default)]
        multiple: bool,
    },
    /// Named fields. Answer: `{"values": {"name": value, …}}`.
    Form {
        /// The fields, in order.
        fields: Vec<FormField>,
    },
    /// Stars from 1 to `max`. Answer: `{"value": 4}`.
    Rating {
        /// The question.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        prompt: Option<String>,
        /// The number of stars (default 5).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max: Option<u32>,
    },
}

/// One field of a form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FormField {
    /// The key of this field's value in the answer.
    pub name: String,
    /// The input kind.
    #[serde(rename = "type")]
    pub kind: FieldKind,
    /// The label shown (default: the name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The choices of a `select` field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<String>>,
    /// Hint text of an empty text input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<String>,
    /// Whether an answer must fill this field.
    #[serde(default)]
    pub required: bool,
    /// The value the form starts with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// A longer explanation shown under the label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Text: the fewest characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u32>,
    /// Text: the most characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u32>,
    /// Text: a regular expression the whole value must match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// Text: what kind of text it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<TextFormat>,
    /// Number: the smallest value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum: Option<f64>,
    /// Number: the largest value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum: Option<f64>,
    /// Number: whole numbers only.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub integer: bool,
    /// Select: several may be chosen (the value is a list).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub multiple: bool,
    /// Multiple select: the fewest choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u32>,
    /// Multiple select: the most choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u32>,
    /// Select: the text shown for each option, in `options`' order (the
    /// options are the values answered).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub option_labels: Option<Vec<String>>,
}

/// What kind of text a text field holds (JSON Schema's `format`s that MCP
/// elicitation allows).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TextFormat {
    /// An e-mail address.
    #[serde(rename = "email")]
    Email,
    /// An absolute URI.
    #[serde(rename = "uri")]
    Uri,
    /// A calendar date, `YYYY-MM-DD`.
    #[serde(rename = "date")]
    Date,
    /// A date and time, RFC 3339.
    #[serde(rename = "date-time")]
    DateTime,
}

impl TextFormat {
    /// The name JSON Schema gives it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Email => "email",
            Self::Uri => "uri",
            Self::Date => "date",
            Self::DateTime => "date-time",
        }
    }

    /// Whether `text` is of this kind.
    pub fn accepts(self, text: &str) -> bool {
        match self {
            Self::Email => text.split_once('@').is_some_and(|(user, domain)| {
                !user.is_empty()
                    && !domain.is_empty()
                    && !domain.starts_with('.')
                    && !domain.ends_with('.')
                    && !text.contains(char::is_whitespace)
            }),
            Self::Uri => text.split_once(':').is_some_and(|(scheme, rest)| {
                !rest.is_empty()
                    && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                    && scheme
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
                    && !text.contains(char::is_whitespace)
            }),
            Self::Date => chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").is_ok(),
            Self::DateTime => chrono::DateTime::parse_from_rfc3339(text).is_ok(),
        }
    }
}

/// The input kind of a form field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldKind {
    /// One line of text.
    Text,
    /// A number.
    Number,
    /// Several lines of text.
    Textarea,
    /// One of `options`.
    Select,
    /// A tick box: true or false.
    Checkbox,
}

/// Why a feedback schema is not acceptable.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SchemaError {
    /// Not JSON of any known schema shape.
    #[error("invalid feedback schema: {0}")]
    Shape(String),
    /// A select (or select field) without choices.
    #[error("{0} needs at least one option")]
    NoOptions(String),
    /// The same option twice.
    #[error("{context} lists the option {option:?} twice")]
    DuplicateOption {
        /// Where.
        context: String,
        /// The repeated option.
        option: String,
    },
    /// A form without fields.
    #[error("a form needs at least one field")]
    NoFields,
    /// A field without a name.
    #[error("form field {0} has an empty name")]
    EmptyFieldName(usize),
    /// Two fields of the same name.
    #[error("form field name {0:?} is used twice")]
    DuplicateField(String),
    /// `options` on a field that is not a select.
    #[error("form field {0:?} has options but is not a select")]
    StrayOptions(String),
    /// A rating scale outside 1..=10.
    #[error("rating max must be between 1 and {RATING_MAX_LIMIT}, not {0}")]
    RatingMax(u32),
    /// A default value that its own field would reject.
    #[error("form field {field:?} has an invalid default: {reason}")]
    BadDefault {
        /// The field.
        field: String,
        /// Why the default is rejected.
        reason: String,
    },
    /// A constraint the field's kind does not take, or that contradicts
    /// itself.
    #[error("form field {field:?}: {reason}")]
    BadConstraint {
        /// The field.
        field: String,
        /// What is wrong.
        reason: String,
    },
    /// An MCP elicitation `requestedSchema` this form cannot show.
    #[error("requestedSchema: {0}")]
    Elicitation(String),
}

/// One problem with an answer, attached to a form field where there is one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldError {
    /// The form field, or `None` for the answer as a whole.
    pub field: Option<String>,
    /// What is wrong, in words for the developer.
    pub message: String,
}

impl FieldError {
    fn whole(message: impl Into<String>) -> Self {
        Self {
            field: None,
            message: message.into(),
        }
    }

    fn at(field: &str, message: impl Into<String>) -> Self {
        Self {
            field: Some(field.to_owned()),
            message: message.into(),
        }
    }
}

/// Every problem found in one answer.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{}", .0.iter().map(|e| match &e.field {
    Some(field) => format!("{field}: {}", e.message),
    None => e.message.clone(),
}).collect::<Vec<_>>().join("; "))]
pub struct AnswerErrors(pub Vec<FieldError>);

impl FeedbackSchema {
    /// Parses and validates a schema as an agent sent it.
    pub fn from_value(value: &Value) -> Result<Self, SchemaError> {
        let schema: Self = serde_json::from_value(value.clone())
            .map_err(|error| SchemaError::Shape(error.to_string()))?;
        schema.validate()?;
        Ok(schema)
    }

    /// Checks the rules the types cannot express.
    pub fn validate(&self) -> Result<(), SchemaError> {
        match self {
            Self::Confirm { .. } => Ok(()),
            Self::Select { options, .. } => check_options("the select", options),
            Self::Rating { max, .. } => match max {
                Some(max) if *max == 0 || *max > RATING_MAX_LIMIT => {
                    Err(SchemaError::RatingMax(*max))
                }
                _ => Ok(()),
            },
            Self::Form { fields } => {
                if fields.is_empty() {
                    return Err(SchemaError::NoFields);
                }
                let mut names = BTreeSet::new();
                for (index, field) in fields.iter().enumerate() {
                    if field.name.trim().is_empty() {
                        return Err(SchemaError::EmptyFieldName(index + 1));
                    }
                    if !names.insert(field.name.as_str()) {
                        return Err(SchemaError::DuplicateField(field.name.clone()));
                    }
                    match (&field.kind, &field.options) {
                        (FieldKind::Select, Some(options)) => {
                            check_options(&format!("form field {:?}", field.name), options)?
                        }
                        (FieldKind::Select, None) => {
                            return Err(SchemaError::NoOptions(format!(
                                "form field {:?}",
                                field.name
                            )));
                        }
                        (_, Some(_)) => return Err(SchemaError::StrayOptions(field.name.clone())),
                        (_, None) => {}
                    }
                    check_constraints(field).map_err(|reason| SchemaError::BadConstraint {
                        field: field.name.clone(),
                        reason,
                    })?;
                    if let Some(default) = &field.default
                        && let Err(reason) = check_field_value(field, default)
                    {
                        return Err(SchemaError::BadDefault {
                            field: field.name.clone(),
                            reason,
                        });
                    }
                }
                Ok(())
            }
        }
    }

    /// The rating scale, with its default applied.
    pub fn rating_max(&self) -> Option<u32> {
        match self {
            Self::Rating { max, .. } => Some(max.unwrap_or(DEFAULT_RATING_MAX)),
            _ => None,
        }
    }

    /// Checks an answer against this schema and returns it in the stored
    /// shape: `{"value": …}` for confirm, select and rating, the field map
    /// for a form (feedback-responses.json keeps form values unwrapped).
    /// Accepts a form answer as `{"values": {…}}` or as the bare map.
    pub fn check_answer(&self, answer: &Value) -> Result<Value, AnswerErrors> {
        let fail = |message: String| AnswerErrors(vec![FieldError::whole(message)]);
        match self {
            Self::Confirm { .. } => match answer.get("value") {
                Some(Value::Bool(value)) => Ok(single(Value::Bool(*value))),
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

fn single(value: Value) -> Value {
    let mut map = Map::new();
    map.insert("value".into(), value);
    Value::Object(map)
}

fn check_options(context: &str, options: &[String]) -> Result<(), SchemaError> {
    if options.is_empty() {
        return Err(SchemaError::NoOptions(context.to_owned()));
    }
    let mut seen = BTreeSet::new();
    for option in options {
        if !seen.insert(option) {
            return Err(SchemaError::DuplicateOption {
                context: context.to_owned(),
                option: option.clone(),
            });
        }
    }
    Ok(())
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

/// Checks that a field's constraints fit its kind and each other.
fn check_constraints(field: &FormField) -> Result<(), String> {
    let text = matches!(field.kind, FieldKind::Text | FieldKind::Textarea);
    let number = field.kind == FieldKind::Number;
    let select = field.kind == FieldKind::Select;
    let misplaced = [
        ("minLength", field.min_length.is_some(), text),
        ("maxLength", field.max_length.is_some(), text),
        ("pattern", field.pattern.is_some(), text),
        ("format", field.format.is_some(), text),
        ("minimum", field.minimum.is_some(), number),
        ("maximum", field.maximum.is_some(), number),
        ("integer", field.integer, number),
        ("multiple", field.multiple, select),
        ("option labels", field.option_labels.is_some(), select),
        ("minItems", field.min_items.is_some(), field.multiple),
        ("maxItems", field.max_items.is_some(), field.multiple),
    ];
    if let Some((name, _, _)) = misplaced.iter().find(|(_, set, fits)| *set && !fits) {
        return Err(format!("{name} does not apply to a {:?} field", field.kind).to_lowercase());
    }
    let backwards = |low: Option<f64>, high: Option<f64>| low.zip(high).is_some_and(|(l, h)| l > h);
    if backwards(
        field.min_length.map(f64::from),
        field.max_length.map(f64::from),
    ) || backwards(field.minimum, field.maximum)
        || backwards(
            field.min_items.map(f64::from),
            field.max_items.map(f64::from),
        )
    {
        return Err("a lower bound is above its upper bound".into());
    }
    if let (Some(labels), Some(options)) = (&field.option_labels, &field.options)
        && labels.len() != options.len()
    {
        return Err(format!(
            "{} option labels for {} options",
            labels.len(),
            options.len()
        ));
    }
    #[cfg(feature = "patterns")]
    if let Some(pattern) = &field.pattern {
        regex::Regex::new(pattern)
            .map_err(|error| format!("pattern {pattern:?} is not a regular expression: {error}"))?;
    }
    Ok(())
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
fn check_field_value(field: &FormField, value: &Value) -> Result<(), String> {
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
    use serde_json::json;

    use super::*;

    fn schema(value: Value) -> FeedbackSchema {
        FeedbackSchema::from_value(&value).unwrap()
    }

    #[test]
    fn the_seed_examples_parse_and_round_trip() {
        let examples = [
            json!({"type": "confirm", "prompt": "Deploy to production?", "confirm_label": "Yes, deploy", "cancel_label": "Cancel"}),
            json!({"type": "select", "prompt": "Choose", "options": ["staging", "production", "dev"], "multiple": false}),
            json!({"type": "form", "fields": [
                {"name": "priority", "type": "select", "label": "Priority", "options": ["P0", "P1", "P2"], "required": true},
                {"name": "description", "type": "textarea", "label": "Description", "placeholder": "Describe the issue...", "required": false}
            ]}),
            json!({"type": "rating", "prompt": "How satisfied are you?", "max": 5}),
        ];
        for example in examples {
            let parsed = schema(example.clone());
            assert_eq!(
                serde_json::to_value(&parsed).unwrap(),
                example,
                "round trip of {example}"
            );
        }
    }

    #[test]
    fn bad_schemas_are_refused_with_a_reason() {
        let cases = [
            (json!({"type": "poll"}), "invalid feedback schema"),
            (
                json!({"type": "select", "options": []}),
                "at least one option",
            ),
            (json!({"type": "select", "options": ["a", "a"]}), "twice"),
            (json!({"type": "form", "fields": []}), "at least one field"),
            (
                json!({"type": "form", "fields": [{"name": "", "type": "text"}]}),
                "empty name",
            ),
            (
                json!({"type": "form", "fields": [{"name": "a", "type": "text"}, {"name": "a", "type": "number"}]}),
                "used twice",
            ),
            (
                json!({"type": "form", "fields": [{"name": "a", "type": "select"}]}),
                "at least one option",
            ),
            (
                json!({"type": "form", "fields": [{"name": "a", "type": "text", "options": ["x"]}]}),
                "not a select",
            ),
            (
                json!({"type": "form", "fields": [{"name": "a", "type": "number", "default": "ten"}]}),
                "invalid default",
            ),
            (
                json!({"type": "form", "fields": [{"name": "a", "type": "date"}]}),
                "invalid feedback schema",
            ),
            (json!({"type": "rating", "max": 0}), "between 1 and"),
            (json!({"type": "rating", "max": 11}), "between 1 and"),
            (json!("confirm"), "invalid feedback schema"),
        ];
        for (value, expected) in cases {
            let error = FeedbackSchema::from_value(&value).unwrap_err().to_string();
            assert!(
                error.contains(expected),
                "{value}: {error:?} should mention {expected:?}"
            );
        }
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
