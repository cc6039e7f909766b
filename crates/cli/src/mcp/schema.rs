//! Tool schemas every agent client accepts. rmcp publishes what schemars
//! derives (draft 2020-12): `$ref`s into `$defs`, `["integer", "null"]`
//! for optional fields, `oneOf` lists of `const`s for documented enums and
//! formats such as `uint32` or `double`. Clients validating with Ajv warn on
//! every unknown format and Gemini's function declarations refuse unions and
//! references, so each tool's schemas are rewritten here, once, into the
//! subset they all take: one scalar `type` per node, optional fields simply
//! not required, enums as `enum`, references inlined, no `$schema`, integer
//! bounds as `minimum`/`maximum`, and only standard string formats.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

/// The string formats of JSON Schema that every validator knows.
const STRING_FORMATS: [&str; 6] = ["date-time", "date", "time", "email", "uri", "uuid"];

/// Keys whose value is one schema.
const SCHEMA_KEYS: [&str; 4] = ["items", "additionalProperties", "contains", "not"];

/// Keys whose value is a list of schemas.
const SCHEMA_LIST_KEYS: [&str; 4] = ["prefixItems", "allOf", "anyOf", "oneOf"];

/// `schema` (a tool's input or output schema, as schemars derives it) in
/// the portable subset.
pub fn portable(schema: &Map<String, Value>) -> Map<String, Value> {
    let defs = schema
        .get("$defs")
        .or_else(|| schema.get("definitions"))
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut inliner = Inliner {
        defs,
        open: Vec::new(),
    };
    match inliner.rewrite(Value::Object(schema.clone())) {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// Rewrites schema nodes, inlining `$defs` entries as it meets them.
struct Inliner {
    defs: Map<String, Value>,
    /// The definitions being inlined, outermost first: a reference back to
    /// one of them would never end.
    open: Vec<String>,
}

impl Inliner {
    fn rewrite(&mut self, node: Value) -> Value {
        match node {
            Value::Object(map) => Value::Object(self.rewrite_map(map)),
            other => other,
        }
    }

    fn rewrite_map(&mut self, mut map: Map<String, Value>) -> Map<String, Value> {
        for key in ["$schema", "$defs", "definitions", "$id"] {
            map.remove(key);
        }
        map = collapse_null_branch(map);
        if let Some(Value::String(reference)) = map.remove("$ref") {
            map = self.inline(&reference, map);
        }
        map = self.const_branches_as_enum(map);
        drop_null_type(&mut map);
        bounds_for_format(&mut map);
        if map.get("default").is_some_and(Value::is_null) {
            map.remove("default");
        }
        for key in SCHEMA_KEYS {
            if let Some(child) = map.remove(key) {
                map.insert(key.to_owned(), self.rewrite(child));
            }
        }
        for key in SCHEMA_LIST_KEYS {
            if let Some(Value::Array(children)) = map.remove(key) {
                let children = children.into_iter().map(|child| self.rewrite(child));
                map.insert(key.to_owned(), Value::Array(children.collect()));
            }
        }
        if let Some(Value::Object(properties)) = map.remove("properties") {
            let mut optional = BTreeSet::new();
            let mut rewritten = Map::new();
            for (name, property) in properties {
                if self.nullable(&property) {
                    optional.insert(name.clone());
                }
                rewritten.insert(name, self.rewrite(property));
            }
            // A field that may be null is one that may be left out: results
            // leave `None` out rather than writing `null`.
            if let Some(Value::Array(required)) = map.get_mut("required") {
                required.retain(|name| name.as_str().is_none_or(|name| !optional.contains(name)));
                if required.is_empty() {
                    map.remove("required");
                }
            }
            map.insert("properties".to_owned(), Value::Object(rewritten));
        }
        map
    }

    /// The definition `reference` names, rewritten, under the keys beside
    /// the reference (a field's own description wins over its type's).
    fn inline(&mut self, reference: &str, beside: Map<String, Value>) -> Map<String, Value> {
        let name = reference
            .strip_prefix("#/$defs/")
            .or_else(|| reference.strip_prefix("#/definitions/"))
            .unwrap_or(reference)
            .to_owned();
        let target = match self.defs.get(&name) {
            Some(target) if !self.open.contains(&name) => target.clone(),
            // Unknown or recursive: an open object, never a dangling `$ref`.
            _ => json!({"type": "object"}),
        };
        self.open.push(name);
        let mut inlined = match self.rewrite(target) {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        self.open.pop();
        for (key, value) in beside {
            inlined.insert(key, value);
        }
        inlined
    }

    /// Whether `node` admits `null`: a type list with it, a `null` branch,
    /// or a reference to such a definition.
    fn nullable(&self, node: &Value) -> bool {
        let Some(map) = node.as_object() else {
            return false;
        };
        let listed = match map.get("type") {
            Some(Value::Array(types)) => types.iter().any(|kind| kind == "null"),
            Some(kind) => kind == "null",
            None => false,
        };
        let branch = ["anyOf", "oneOf"].iter().any(|key| {
            map.get(*key)
                .and_then(Value::as_array)
                .is_some_and(|branches| branches.iter().any(|branch| self.nullable(branch)))
        });
        let referred = map
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| reference.rsplit('/').next())
            .filter(|name| !self.open.iter().any(|open| open == name))
            .and_then(|name| self.defs.get(name))
            .is_some_and(|target| self.nullable(target));
        listed || branch || referred
    }

    /// A `oneOf`/`anyOf` whose every branch is one constant (schemars' form
    /// of an enum with documented variants) as a plain `enum`, the
    /// variants' descriptions kept in the node's own.
    fn const_branches_as_enum(&mut self, mut map: Map<String, Value>) -> Map<String, Value> {
        for key in ["oneOf", "anyOf"] {
            let Some(Value::Array(branches)) = map.get(key) else {
                continue;
            };
            let branches: Vec<Map<String, Value>> = branches
                .iter()
                .map(|branch| match self.rewrite(branch.clone()) {
                    Value::Object(branch) => branch,
                    _ => Map::new(),
                })
                .collect();
            let constants: Option<Vec<Value>> = branches
                .iter()
                .map(|branch| {
                    branch.get("const").cloned().or_else(|| {
                        match branch.get("enum").and_then(Value::as_array) {
                            Some(values) if values.len() == 1 => values.first().cloned(),
                            _ => None,
                        }
                    })
                })
                .collect();
            let Some(constants) = constants else {
                continue;
            };
            let Some(kind) = common_type(&constants) else {
                continue;
            };
            let notes: Vec<String> = branches
                .iter()
                .zip(&constants)
                .filter_map(|(branch, constant)| {
                    let description = branch.get("description")?.as_str()?;
                    Some(format!("`{}`: {description}", plain(constant)))
                })
                .collect();
            map.remove(key);
            map.insert("type".to_owned(), Value::String(kind.to_owned()));
            map.insert("enum".to_owned(), Value::Array(constants));
            if !notes.is_empty() {
                let joined = notes.join("; ");
                let description = match map.get("description").and_then(Value::as_str) {
                    Some(own) => format!("{own} ({joined})"),
                    None => joined,
                };
                map.insert("description".to_owned(), Value::String(description));
            }
        }
        map
    }
}

/// `{"anyOf": [X, {"type": "null"}]}` (an optional value of a compound
/// type) as X, with the node's own keys over X's.
fn collapse_null_branch(mut map: Map<String, Value>) -> Map<String, Value> {
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = map.get(key) else {
            continue;
        };
        let mut kept: Vec<&Value> = branches.iter().filter(|b| !is_null(b)).collect();
        if kept.len() == 1 && kept.len() < branches.len() {
            let Some(Value::Object(only)) = kept.pop().cloned() else {
                continue;
            };
            map.remove(key);
            let mut merged = only;
            for (key, value) in map {
                merged.insert(key, value);
            }
            map = merged;
        }
    }
    map
}

/// Whether `node` is the schema of `null` alone.
fn is_null(node: &Value) -> bool {
    node.get("type").is_some_and(|kind| kind == "null")
        || node.get("const").is_some_and(Value::is_null)
}

/// `["integer", "null"]` as `"integer"`, and `null` out of an `enum`.
fn drop_null_type(map: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|kind| kind != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            map.insert("type".to_owned(), only);
        }
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        values.retain(|value| !value.is_null());
    }
}

/// schemars' numeric formats (`uint32`, `int64`, `double`…) turned into
/// the bounds they mean; a string format no validator knows goes too.
fn bounds_for_format(map: &mut Map<String, Value>) {
    let Some(format) = map.get("format").and_then(Value::as_str).map(str::to_owned) else {
        return;
    };
    let is_string = map.get("type").is_some_and(|kind| kind == "string");
    if is_string && STRING_FORMATS.contains(&format.as_str()) {
        return;
    }
    map.remove("format");
    let (low, high): (Option<i64>, Option<i64>) = match format.as_str() {
        "uint8" => (Some(0), Some(i64::from(u8::MAX))),
        "uint16" => (Some(0), Some(i64::from(u16::MAX))),
        "uint32" => (Some(0), Some(i64::from(u32::MAX))),
        "uint64" | "uint" => (Some(0), None),
        "int8" => (Some(i64::from(i8::MIN)), Some(i64::from(i8::MAX))),
        "int16" => (Some(i64::from(i16::MIN)), Some(i64::from(i16::MAX))),
        "int32" => (Some(i64::from(i32::MIN)), Some(i64::from(i32::MAX))),
        _ => (None, None),
    };
    if let Some(low) = low {
        map.entry("minimum").or_insert(json!(low));
    }
    if let Some(high) = high {
        map.entry("maximum").or_insert(json!(high));
    }
}

/// The one JSON type every value in `values` has.
fn common_type(values: &[Value]) -> Option<&'static str> {
    let kind = |value: &Value| match value {
        Value::String(_) => Some("string"),
        Value::Bool(_) => Some("boolean"),
        Value::Number(number) if number.is_i64() || number.is_u64() => Some("integer"),
        Value::Number(_) => Some("number"),
        _ => None,
    };
    let first = kind(values.first()?)?;
    values
        .iter()
        .all(|value| kind(value) == Some(first))
        .then_some(first)
}

/// A constant as written in prose: strings without their quotes.
fn plain(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            other => panic!("not an object: {other}"),
        }
    }

    #[test]
    fn references_are_inlined_with_the_fields_own_description() {
        let schema = object(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "hit": {"$ref": "#/$defs/Hit", "description": "The best hit."},
                "maybe": {"anyOf": [{"$ref": "#/$defs/Hit"}, {"type": "null"}]}
            },
            "required": ["hit", "maybe"],
            "$defs": {"Hit": {
                "type": "object",
                "description": "A hit.",
                "properties": {"line": {"type": "integer", "format": "uint", "minimum": 0}},
                "required": ["line"]
            }}
        }));
        let out = Value::Object(portable(&schema));
        assert_eq!(
            out,
            json!({
                "type": "object",
                "properties": {
                    "hit": {
                        "type": "object",
                        "description": "The best hit.",
                        "properties": {"line": {"type": "integer", "minimum": 0}},
                        "required": ["line"]
                    },
                    "maybe": {
                        "type": "object",
                        "description": "A hit.",
                        "properties": {"line": {"type": "integer", "minimum": 0}},
                        "required": ["line"]
                    }
                },
                "required": ["hit"]
            })
        );
    }

    #[test]
    fn optional_scalars_lose_null_and_bounds_replace_formats() {
        let schema = object(json!({
            "type": "object",
            "properties": {
                "limit": {"type": ["integer", "null"], "format": "uint32", "minimum": 0, "default": null},
                "score": {"type": "number", "format": "double"},
                "at": {"type": "string", "format": "date-time"},
                "kind": {"type": ["string", "null"], "enum": ["a", "b", null]}
            }
        }));
        let out = Value::Object(portable(&schema));
        assert_eq!(
            out,
            json!({
                "type": "object",
                "properties": {
                    "limit": {"type": "integer", "minimum": 0, "maximum": 4_294_967_295_u64},
                    "score": {"type": "number"},
                    "at": {"type": "string", "format": "date-time"},
                    "kind": {"type": "string", "enum": ["a", "b"]}
                }
            })
        );
    }

    #[test]
    fn documented_enums_become_plain_enums_that_keep_their_notes() {
        let schema = object(json!({
            "type": "object",
            "properties": {"mode": {"$ref": "#/$defs/Mode"}},
            "$defs": {"Mode": {
                "description": "How.",
                "oneOf": [
                    {"type": "string", "const": "passive", "description": "Shown."},
                    {"type": "string", "const": "blocking", "description": "Waits."}
                ]
            }}
        }));
        let out = Value::Object(portable(&schema));
        assert_eq!(
            out["properties"]["mode"],
            json!({
                "type": "string",
                "enum": ["passive", "blocking"],
                "description": "How. (`passive`: Shown.; `blocking`: Waits.)"
            })
        );
    }

    #[test]
    fn a_recursive_definition_ends_in_an_open_object() {
        let schema = object(json!({
            "type": "object",
            "properties": {"node": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {
                "type": "object",
                "properties": {"next": {"$ref": "#/$defs/Node"}}
            }}
        }));
        let out = Value::Object(portable(&schema));
        assert_eq!(
            out["properties"]["node"]["properties"]["next"],
            json!({"type": "object"})
        );
        assert!(!out.to_string().contains("$ref"));
    }
}
