//! An answer being filled in: the form's state as the window edits it,
//! turned into the answer JSON the schema checks. Kept here, not in the UI,
//! so it is tested natively and the component only binds inputs to it.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::{FeedbackSchema, FieldKind};

/// One form field's state.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldDraft {
    /// Text as typed (text, textarea, number, select).
    Text(String),
    /// A tick box.
    Checked(bool),
    /// The chosen options of a multiple select field.
    Choices(BTreeSet<String>),
}

/// The state of a feedback form.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Draft {
    /// The chosen option of a single select.
    pub choice: Option<String>,
    /// The chosen options of a multiple select.
    pub choices: BTreeSet<String>,
    /// The stars of a rating.
    pub stars: Option<u32>,
    /// Form fields by name.
    pub fields: BTreeMap<String, FieldDraft>,
}

impl Draft {
    /// A fresh draft with the schema's defaults filled in.
    pub fn new(schema: &FeedbackSchema) -> Self {
        let mut draft = Self::default();
        if let FeedbackSchema::Form { fields } = schema {
            for field in fields {
                let value = match (field.kind, &field.default) {
                    (FieldKind::Select, default) if field.multiple => FieldDraft::Choices(
                        default
                            .as_ref()
                            .and_then(Value::as_array)
                            .map(|chosen| {
                                chosen
                                    .iter()
                                    .filter_map(Value::as_str)
                                    .map(str::to_owned)
                                    .collect()
                            })
                            .unwrap_or_default(),
                    ),
                    (FieldKind::Checkbox, default) => FieldDraft::Checked(
                        default.as_ref().and_then(Value::as_bool).unwrap_or(false),
                    ),
                    (_, Some(Value::String(text))) => FieldDraft::Text(text.clone()),
                    (_, Some(Value::Number(number))) => FieldDraft::Text(number.to_string()),
                    _ => FieldDraft::Text(String::new()),
                };
                draft.fields.insert(field.name.clone(), value);
            }
        }
        draft
    }

    /// Toggles `option` in a multiple select.
    pub fn toggle(&mut self, option: &str) {
        if !self.choices.remove(option) {
            self.choices.insert(option.to_owned());
        }
    }

    /// Toggles `option` in the multiple select field `name`.
    pub fn toggle_field(&mut self, name: &str, option: &str) {
        let entry = self
            .fields
            .entry(name.to_owned())
            .or_insert_with(|| FieldDraft::Choices(BTreeSet::new()));
        if let FieldDraft::Choices(chosen) = entry
            && !chosen.remove(option)
        {
            chosen.insert(option.to_owned());
        }
    }

    /// The answer this draft amounts to, for [`FeedbackSchema::check_answer`].
    /// Blank fields are left out; number fields that do not parse are kept
    /// as text so the check reports them. A confirm is answered by its
    /// buttons, not by a draft, and yields `{}` here.
    pub fn answer(&self, schema: &FeedbackSchema) -> Value {
        let value = |value: Value| serde_json::json!({ "value": value });
        match schema {
            FeedbackSchema::Confirm { .. } => Value::Object(Map::new()),
            FeedbackSchema::Select { multiple: true, .. } => {
                value(self.choices.iter().cloned().map(Value::String).collect())
            }
            FeedbackSchema::Select { .. } => {
                value(self.choice.clone().map_or(Value::Null, Value::String))
            }
            FeedbackSchema::Rating { .. } => value(self.stars.map_or(Value::Null, Value::from)),
            FeedbackSchema::Form { fields } => {
                let mut values = Map::new();
                for field in fields {
                    let entry = match (field.kind, self.fields.get(&field.name)) {
                        (_, Some(FieldDraft::Checked(checked))) => Some(Value::Bool(*checked)),
                        (_, Some(FieldDraft::Choices(chosen))) => {
                            // In the options' order, as the form lists them.
                            let options = field.options.as_deref().unwrap_or_default();
                            let picked: Vec<Value> = options
                                .iter()
                                .filter(|option| chosen.contains(*option))
                                .cloned()
                                .map(Value::String)
                                .collect();
                            (!picked.is_empty()).then_some(Value::Array(picked))
                        }
                        (_, Some(FieldDraft::Text(text))) if text.trim().is_empty() => None,
                        (FieldKind::Number, Some(FieldDraft::Text(text))) => Some(
                            text.trim()
                                .parse::<f64>()
                                .ok()
                                .and_then(|number| {
                                    if number.fract() == 0.0 && number.abs() < 9e15 {
                                        Some(Value::from(number as i64))
                                    } else {
                                        serde_json::Number::from_f64(number).map(Value::Number)
                                    }
                                })
                                .unwrap_or_else(|| Value::String(text.clone())),
                        ),
                        (_, Some(FieldDraft::Text(text))) => Some(Value::String(text.clone())),
                        (_, None) => None,
                    };
                    if let Some(entry) = entry {
                        values.insert(field.name.clone(), entry);
                    }
                }
                serde_json::json!({ "values": values })
            }
        }
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
    fn form_drafts_start_from_defaults_and_convert_types() {
        let form = schema(json!({"type": "form", "fields": [
            {"name": "title", "type": "text", "default": "Fix"},
            {"name": "points", "type": "number", "default": 3},
            {"name": "urgent", "type": "checkbox", "default": true},
            {"name": "notes", "type": "textarea"}
        ]}));
        let mut draft = Draft::new(&form);
        assert_eq!(draft.fields["points"], FieldDraft::Text("3".into()));
        assert_eq!(
            draft.answer(&form),
            json!({"values": {"title": "Fix", "points": 3, "urgent": true}}),
            "blank fields are left out, numbers are numbers"
        );
        assert!(form.check_answer(&draft.answer(&form)).is_ok());

        draft
            .fields
            .insert("points".into(), FieldDraft::Text("2.5".into()));
        assert_eq!(draft.answer(&form)["values"]["points"], json!(2.5));
        draft
            .fields
            .insert("points".into(), FieldDraft::Text("lots".into()));
        let errors = form.check_answer(&draft.answer(&form)).unwrap_err().0;
        assert_eq!(
            errors[0].field.as_deref(),
            Some("points"),
            "unparsable numbers are reported"
        );
    }

    #[test]
    fn multiple_select_fields_answer_lists_in_option_order() {
        let form = schema(json!({"type": "form", "fields": [
            {"name": "tags", "type": "select", "options": ["a", "b", "c"], "multiple": true,
             "default": ["c"]}
        ]}));
        let mut draft = Draft::new(&form);
        draft.toggle_field("tags", "a");
        assert_eq!(draft.answer(&form), json!({"values": {"tags": ["a", "c"]}}));
        draft.toggle_field("tags", "a");
        draft.toggle_field("tags", "c");
        assert_eq!(
            draft.answer(&form),
            json!({"values": {}}),
            "none chosen is blank"
        );
        assert!(form.check_answer(&draft.answer(&form)).is_ok());
    }

    #[test]
    fn select_and_rating_drafts() {
        let multiple =
            schema(json!({"type": "select", "options": ["a", "b", "c"], "multiple": true}));
        let mut draft = Draft::new(&multiple);
        draft.toggle("c");
        draft.toggle("a");
        draft.toggle("c");
        assert_eq!(draft.answer(&multiple), json!({"value": ["a"]}));

        let single = schema(json!({"type": "select", "options": ["x"]}));
        let empty = Draft::new(&single).answer(&single);
        assert!(
            single.check_answer(&empty).is_err(),
            "nothing chosen is not an answer"
        );

        let rating = schema(json!({"type": "rating"}));
        let mut draft = Draft::new(&rating);
        draft.stars = Some(4);
        assert_eq!(
            rating.check_answer(&draft.answer(&rating)).unwrap(),
            json!({"value": 4})
        );
    }
}
