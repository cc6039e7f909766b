//! Theme overrides from visual-delivery's `custom/theme.json`: groups of
//! settings (colors, typography, spacing, components) become CSS custom
//! properties `--vds-{group}-{key}`, which the window's styles read with
//! their own defaults as fallback.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The CSS custom properties a theme sets, and what was skipped.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ThemeVariables {
    /// `(name, value)` pairs, names starting with `--vds-`.
    pub variables: Vec<(String, String)>,
    /// Entries left out, with the reason.
    pub warnings: Vec<String>,
}

fn is_safe_name(part: &str) -> bool {
    !part.is_empty()
        && part
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A value that cannot break out of a declaration or load anything.
fn is_safe_value(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    !value.is_empty()
        && value.len() <= 200
        && !value.contains([';', '{', '}', '<', '>', '\\', '\n', '\r'])
        && !lower.contains("url(")
        && !lower.contains("expression(")
        && !lower.contains("@import")
}

/// Flattens `theme` into CSS custom properties. Nested objects join their
/// keys with `-`; strings and numbers become values; anything unsafe or of
/// another type is skipped with a warning, never applied.
pub fn theme_variables(theme: &Value) -> ThemeVariables {
    let mut result = ThemeVariables::default();
    match theme {
        Value::Object(_) => flatten("--vds", theme, &mut result),
        _ => result
            .warnings
            .push("theme.json must hold an object of groups".into()),
    }
    result
}

fn flatten(prefix: &str, value: &Value, result: &mut ThemeVariables) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                if is_safe_name(key) {
                    flatten(&format!("{prefix}-{key}"), inner, result);
                } else {
                    result.warnings.push(format!(
                        "{prefix}-{key}: the name may only use letters, digits, - and _"
                    ));
                }
            }
        }
        Value::String(text) if is_safe_value(text) => {
            result.variables.push((prefix.to_owned(), text.clone()))
        }
        Value::Number(number) => result
            .variables
            .push((prefix.to_owned(), number.to_string())),
        Value::String(_) => result
            .warnings
            .push(format!("{prefix}: the value is not a plain CSS value")),
        _ => result
            .warnings
            .push(format!("{prefix}: only text and numbers are theme values")),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use serde_json::json;

    use super::*;

    #[test]
    fn groups_become_vds_variables() {
        let theme = json!({
            "colors": {"primary": "#ff6600", "background": "rgb(10, 10, 10)"},
            "typography": {"fontSize": 15, "fontFamily": "Inter, sans-serif"},
            "components": {"button": {"radius": "4px"}}
        });
        let result = theme_variables(&theme);
        assert!(result.warnings.is_empty(), "{:?}", result.warnings);
        let names: Vec<&str> = result
            .variables
            .iter()
            .map(|(name, _)| name.as_str())
            .collect();
        assert_eq!(
            names,
            [
                "--vds-colors-background",
                "--vds-colors-primary",
                "--vds-components-button-radius",
                "--vds-typography-fontFamily",
                "--vds-typography-fontSize",
            ],
            "in key order, so a theme always applies the same way"
        );
        assert_eq!(result.variables[1].1, "#ff6600");
        assert_eq!(
            result.variables[4].1, "15",
            "numbers are written as they are"
        );
    }

    #[test]
    fn hostile_or_odd_entries_are_skipped_with_a_reason() {
        let theme = json!({
            "colors": {
                "primary": "red; } body { display: none",
                "image": "url(https://evil.example/x.png)",
                "ok": "blue",
                "bad key!": "green",
                "flag": true
            }
        });
        let result = theme_variables(&theme);
        assert_eq!(
            result.variables,
            [("--vds-colors-ok".to_owned(), "blue".to_owned())]
        );
        assert_eq!(result.warnings.len(), 4, "{:?}", result.warnings);
        assert_eq!(theme_variables(&json!([1])).warnings.len(), 1);
    }
}
