//! Feedback forms: the four schema types agents attach to a delivery and
//! the validation of the schema when an agent delivers (`answer` checks
//! an answer when the developer replies). The same code runs in the store,
//! the CLI and, through wasm, in the window.

mod answer;
mod confirm;
mod draft;
pub mod elicitation;
pub mod words;

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use thiserror::Error;

pub use self::{
    confirm::ConfirmAnswer,
    draft::{Draft, FieldDraft},
};

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
                        && let Err(reason) = answer::check_field_value(field, default)
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

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
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
}
