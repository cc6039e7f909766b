//! MCP elicitation's `requestedSchema` (spec revision 2025-11-25) as a
//! feedback form: a flat object of strings (length, pattern, format),
//! numbers and integers (bounds), booleans, and single- and multi-select
//! enums (plain, titled with `oneOf`/`anyOf`, or the older `enumNames`),
//! each with an optional default. The answer a form gets is the field map,
//! which is exactly elicitation's `content`, so an agent gets its answer in
//! the shape it asked in.

use serde_json::{Map, Value};

use super::{FeedbackSchema, FieldKind, FormField, SchemaError, TextFormat};

/// How an elicitation ended, in MCP's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// The developer answered.
    Accept,
    /// The developer said no.
    Decline,
    /// The developer closed it without a word.
    Cancel,
}

impl Action {
    /// The name MCP gives it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Accept => "accept",
            Self::Decline => "decline",
            Self::Cancel => "cancel",
        }
    }
}

fn fail(message: impl Into<String>) -> SchemaError {
    SchemaError::Elicitation(message.into())
}

fn text(schema: &Map<String, Value>, key: &str) -> Option<String> {
    schema.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn count(schema: &Map<String, Value>, key: &str, name: &str) -> Result<Option<u32>, SchemaError> {
    schema
        .get(key)
        .map(|value| {
            value
                .as_u64()
                .and_then(|count| u32::try_from(count).ok())
                .ok_or_else(|| fail(format!("{name}: {key} must be a whole number")))
        })
        .transpose()
}

fn bound(schema: &Map<String, Value>, key: &str, name: &str) -> Result<Option<f64>, SchemaError> {
    schema
        .get(key)
        .map(|value| {
            value
                .as_f64()
                .ok_or_else(|| fail(format!("{name}: {key} must be a number")))
        })
        .transpose()
}

/// An enum's values, and the labels shown for them when it names any.
type Choices = (Vec<String>, Option<Vec<String>>);

/// The values and labels of an enum: `enum` (with `enumNames`), or
/// `oneOf`/`anyOf` of `{const, title}`.
fn choices(schema: &Map<String, Value>, name: &str) -> Result<Option<Choices>, SchemaError> {
    let strings = |values: &Value, key: &str| -> Result<Vec<String>, SchemaError> {
        values
            .as_array()
            .ok_or_else(|| fail(format!("{name}: {key} must be a list")))?
            .iter()
            .map(|value| {
                value
                    .as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| fail(format!("{name}: {key} holds a value that is not text")))
            })
            .collect()
    };
    if let Some(values) = schema.get("enum") {
        let options = strings(values, "enum")?;
        let labels = schema
            .get("enumNames")
            .map(|names| strings(names, "enumNames"))
            .transpose()?;
        return Ok(Some((options, labels)));
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(variants) = schema.get(key) {
            let variants = variants
                .as_array()
                .ok_or_else(|| fail(format!("{name}: {key} must be a list")))?;
            let mut options = Vec::with_capacity(variants.len());
            let mut labels = Vec::with_capacity(variants.len());
            for variant in variants {
                let value = variant
                    .get("const")
                    .and_then(Value::as_str)
                    .ok_or_else(|| fail(format!("{name}: each of {key} needs a text const")))?;
                options.push(value.to_owned());
                labels.push(
                    variant
                        .get("title")
                        .and_then(Value::as_str)
                        .unwrap_or(value)
                        .to_owned(),
                );
            }
            return Ok(Some((options, Some(labels))));
        }
    }
    Ok(None)
}

/// One property as a form field.
fn field(name: &str, schema: &Value, required: bool) -> Result<FormField, SchemaError> {
    let schema = schema
        .as_object()
        .ok_or_else(|| fail(format!("{name}: a property is a schema object")))?;
    let kind = schema.get("type").and_then(Value::as_str).unwrap_or("");
    let mut field = FormField {
        name: name.to_owned(),
        kind: FieldKind::Text,
        label: text(schema, "title"),
        options: None,
        placeholder: None,
        required,
        default: schema.get("default").cloned(),
        description: text(schema, "description"),
        min_length: None,
        max_length: None,
        pattern: None,
        format: None,
        minimum: None,
        maximum: None,
        integer: false,
        multiple: false,
        min_items: None,
        max_items: None,
        option_labels: None,
    };
    match kind {
        "string" => match choices(schema, name)? {
            Some((options, labels)) => {
                field.kind = FieldKind::Select;
                field.options = Some(options);
                field.option_labels = labels;
            }
            None => {
                field.min_length = count(schema, "minLength", name)?;
                field.max_length = count(schema, "maxLength", name)?;
                field.pattern = text(schema, "pattern");
                field.format = schema
                    .get("format")
                    .map(|format| {
                        serde_json::from_value::<TextFormat>(format.clone()).map_err(|_| {
                            fail(format!(
                                "{name}: format {format} is not one of email, uri, date, date-time"
                            ))
                        })
                    })
                    .transpose()?;
            }
        },
        "number" | "integer" => {
            field.kind = FieldKind::Number;
            field.integer = kind == "integer";
            field.minimum = bound(schema, "minimum", name)?;
            field.maximum = bound(schema, "maximum", name)?;
        }
        "boolean" => field.kind = FieldKind::Checkbox,
        "array" => {
            let items = schema
                .get("items")
                .and_then(Value::as_object)
                .ok_or_else(|| fail(format!("{name}: a multi-select needs items")))?;
            let (options, labels) = choices(items, name)?
                .ok_or_else(|| fail(format!("{name}: a multi-select's items need an enum")))?;
            field.kind = FieldKind::Select;
            field.multiple = true;
            field.options = Some(options);
            field.option_labels = labels;
            field.min_items = count(schema, "minItems", name)?;
            field.max_items = count(schema, "maxItems", name)?;
        }
        other => {
            return Err(fail(format!(
                "{name}: type {other:?} is not one elicitation allows (string, number, integer, \
                 boolean, or an array of enum strings)"
            )));
        }
    }
    Ok(field)
}

/// The form a `requestedSchema` asks for, checked like any form.
pub fn form(requested: &Value) -> Result<FeedbackSchema, SchemaError> {
    let object = requested
        .as_object()
        .ok_or_else(|| fail("must be a JSON object"))?;
    if object.get("type").and_then(Value::as_str) != Some("object") {
        return Err(fail("its type must be \"object\""));
    }
    let properties = object
        .get("properties")
        .and_then(Value::as_object)
        .ok_or_else(|| fail("needs properties"))?;
    let required: Vec<&str> = object
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(unknown) = required
        .iter()
        .find(|name| !properties.contains_key(**name))
    {
        return Err(fail(format!(
            "required names {unknown:?}, which is not a property"
        )));
    }
    let fields = properties
        .iter()
        .map(|(name, schema)| field(name, schema, required.contains(&name.as_str())))
        .collect::<Result<Vec<_>, _>>()?;
    let form = FeedbackSchema::Form { fields };
    form.validate()?;
    Ok(form)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use serde_json::json;

    use super::*;

    fn requested() -> Value {
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "title": "Name", "minLength": 2, "maxLength": 20,
                         "default": "Ada"},
                "email": {"type": "string", "format": "email", "description": "Work address"},
                "code": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]+$"},
                "age": {"type": "integer", "minimum": 18, "maximum": 130},
                "ratio": {"type": "number", "minimum": 0, "maximum": 1},
                "agree": {"type": "boolean", "default": false},
                "tier": {"type": "string", "enum": ["free", "pro"], "enumNames": ["Free", "Pro"]},
                "region": {"type": "string", "oneOf": [{"const": "eu", "title": "Europe"},
                                                         {"const": "us", "title": "Americas"}]},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]},
                         "minItems": 1, "maxItems": 2, "default": ["a"]}
            },
            "required": ["name", "email", "tags"]
        })
    }

    #[test]
    fn every_kind_elicitation_allows_becomes_a_field() {
        let FeedbackSchema::Form { fields } = form(&requested()).unwrap() else {
            panic!("a form");
        };
        let by_name = |name: &str| fields.iter().find(|field| field.name == name).unwrap();
        let name = by_name("name");
        assert_eq!(
            (name.kind, name.min_length, name.max_length),
            (FieldKind::Text, Some(2), Some(20))
        );
        assert!(name.required);
        assert_eq!(by_name("email").format, Some(TextFormat::Email));
        assert_eq!(
            by_name("email").description.as_deref(),
            Some("Work address")
        );
        let age = by_name("age");
        assert!(age.integer && age.minimum == Some(18.0));
        assert_eq!(by_name("agree").kind, FieldKind::Checkbox);
        let region = by_name("region");
        assert_eq!(
            region.options.as_deref(),
            Some(&["eu".to_owned(), "us".to_owned()][..])
        );
        assert_eq!(
            region.option_labels.as_deref(),
            Some(&["Europe".to_owned(), "Americas".to_owned()][..])
        );
        let tags = by_name("tags");
        assert!(tags.multiple && tags.min_items == Some(1) && tags.max_items == Some(2));
        assert_eq!(
            by_name("tier")
                .option_labels
                .as_deref()
                .map(<[String]>::len),
            Some(2)
        );
    }

    #[test]
    fn answers_are_checked_against_every_constraint() {
        let form = form(&requested()).unwrap();
        let good = json!({"name": "Ada", "email": "ada@example.org", "code": "ABC-12", "age": 36,
                          "ratio": 0.5, "agree": true, "tier": "pro", "region": "eu",
                          "tags": ["a", "c"]});
        assert_eq!(
            form.check_answer(&good).unwrap(),
            good,
            "the content is the answer"
        );
        let cases = [
            ("name", json!("A"), "must be at least 2 characters"),
            ("email", json!("ada"), "must be an e-mail address"),
            ("age", json!(17), "must be at least 18"),
            ("age", json!(20.5), "must be a whole number"),
            ("ratio", json!(2), "must be at most 1"),
            ("region", json!("Europe"), "must be one of: eu, us"),
            ("tags", json!(["a", "b", "c"]), "choose at most 2"),
            ("tags", json!(["d"]), "\"d\" is not one of: a, b, c"),
            ("tags", json!([]), "is required"),
        ];
        for (field, value, message) in cases {
            let mut answer = good.clone();
            answer[field] = value;
            let errors = form.check_answer(&answer).unwrap_err();
            assert_eq!(errors.0[0].field.as_deref(), Some(field));
            assert_eq!(errors.0[0].message, message, "{field}");
        }
    }

    #[cfg(feature = "patterns")]
    #[test]
    fn patterns_match_the_whole_value() {
        let form = form(&requested()).unwrap();
        let answer = json!({"name": "Ada", "email": "a@b.c", "code": "xABC-1", "tags": ["a"]});
        let errors = form.check_answer(&answer).unwrap_err();
        assert_eq!(errors.0[0].message, "must match ^[A-Z]{3}-[0-9]+$");
        let bad =
            json!({"type": "object", "properties": {"x": {"type": "string", "pattern": "("}}});
        assert!(
            super::form(&bad)
                .unwrap_err()
                .to_string()
                .contains("is not a regular expression")
        );
    }

    #[test]
    fn schemas_elicitation_does_not_allow_are_refused_with_the_reason() {
        let cases = [
            (
                json!({"type": "array"}),
                "requestedSchema: its type must be \"object\"",
            ),
            (
                json!({"type": "object", "properties": {"x": {"type": "object"}}}),
                "requestedSchema: x: type \"object\" is not one elicitation allows (string, number, integer, boolean, or an array of enum strings)",
            ),
            (
                json!({"type": "object", "properties": {"x": {"type": "string"}}, "required": ["y"]}),
                "requestedSchema: required names \"y\", which is not a property",
            ),
            (
                json!({"type": "object", "properties": {"x": {"type": "string", "format": "phone"}}}),
                "requestedSchema: x: format \"phone\" is not one of email, uri, date, date-time",
            ),
            (
                json!({"type": "object", "properties": {"x": {"type": "integer", "minimum": 5, "maximum": 1}}}),
                "form field \"x\": a lower bound is above its upper bound",
            ),
            (
                json!({"type": "object", "properties": {"x": {"type": "string", "default": 3}}}),
                "form field \"x\" has an invalid default: must be text",
            ),
        ];
        for (schema, message) in cases {
            assert_eq!(form(&schema).unwrap_err().to_string(), message);
        }
    }
}
