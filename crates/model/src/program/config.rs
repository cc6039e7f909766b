//! ClaudeControl's program configurations (`~/.claude-control/programs/
//! NAME.json`) in both shapes in use: its code's — `{name,
//! command_template, typical_timeout, expect_sequences: [{step, expect,
//! note?}], success_indicators, ready_indicators, notes, sample_output?}` —
//! and its docs' steps `{pattern, response}`. Keys of either that this does
//! not know are kept. What Switchboard writes is its code's shape, so its
//! own `config show` reads it, with what was sent under `sent` (a key its
//! reader ignores).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use thiserror::Error;

/// One program configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProgramConfig {
    /// Its name (the file's stem).
    pub name: String,
    /// The command line, shell-quoted, perhaps with `{placeholders}`.
    pub command_template: String,
    /// What the program shows, in order, and what to answer.
    #[serde(default)]
    pub expect_sequences: Vec<ExpectStep>,
    /// Output that means the work succeeded.
    #[serde(default)]
    pub success_indicators: Vec<String>,
    /// Output that means the program is ready.
    #[serde(default)]
    pub ready_indicators: Vec<String>,
    /// Seconds an operation usually takes at most.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub typical_timeout: Option<Value>,
    /// Free text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// Anything else.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One step of a configuration, in either shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExpectStep {
    /// 1-based (its code's shape).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<u64>,
    /// The pattern (its code's shape).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<String>,
    /// The pattern (its docs' shape).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// The line to answer, or null for none (its docs' shape).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<String>,
    /// What was sent after the match (Switchboard's; its reader ignores it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sent: Option<String>,
    /// A remark.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl ExpectStep {
    /// The pattern, whichever shape named it.
    pub fn pattern(&self) -> Option<&str> {
        self.expect.as_deref().or(self.pattern.as_deref())
    }

    /// The line to send after the match, whichever shape named it.
    pub fn answer(&self) -> Option<&str> {
        self.sent.as_deref().or(self.response.as_deref())
    }
}

/// Why a configuration cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ConfigError {
    /// Not a name a file can have here.
    #[error("{0:?} is not a configuration name: use letters, digits, '.', '_' or '-'")]
    Name(String),
    /// The command does not split as a shell would (an open quote).
    #[error("the command template {0:?} does not split into words (an open quote?)")]
    Command(String),
    /// A `{placeholder}` is left in the command or an answer.
    #[error("{0:?} still holds a {{placeholder}}: fill it in the configuration first")]
    Placeholder(String),
}

/// Checks a configuration name: the same rule as session names (never a
/// path).
pub fn check_name(name: &str) -> Result<(), ConfigError> {
    let ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric())
        && name.len() <= super::MAX_NAME_LEN
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(ConfigError::Name(name.to_owned()))
    }
}

fn placeholder(text: &str) -> bool {
    text.find('{')
        .is_some_and(|open| text[open..].find('}').is_some_and(|close| close > 1))
}

impl ProgramConfig {
    /// The program and its arguments, split as ClaudeControl splits them
    /// (Python's `shlex.split`).
    pub fn command(&self) -> Result<Vec<String>, ConfigError> {
        if placeholder(&self.command_template) {
            return Err(ConfigError::Placeholder(self.command_template.clone()));
        }
        shlex::split(&self.command_template)
            .filter(|words| !words.is_empty())
            .ok_or_else(|| ConfigError::Command(self.command_template.clone()))
    }

    /// The steps to play: each pattern and its answer, if any.
    pub fn steps(&self) -> Result<Vec<(String, Option<String>)>, ConfigError> {
        self.expect_sequences
            .iter()
            .filter_map(|step| {
                step.pattern()
                    .map(|pattern| (pattern.to_owned(), step.answer().map(str::to_owned)))
            })
            .map(|(pattern, answer)| match &answer {
                Some(text) if placeholder(text) => Err(ConfigError::Placeholder(text.clone())),
                _ => Ok((pattern, answer)),
            })
            .collect()
    }

    /// Seconds for each step: `typical_timeout` when it is a number.
    pub fn timeout_secs(&self) -> Option<f64> {
        self.typical_timeout.as_ref().and_then(Value::as_f64)
    }

    /// A configuration in ClaudeControl's code's shape: the command, the
    /// patterns matched in order with what was sent after each.
    pub fn recorded(
        name: &str,
        command: &[String],
        steps: &[(String, Option<String>)],
        timeout_secs: u64,
        notes: String,
    ) -> Self {
        Self {
            name: name.to_owned(),
            command_template: shlex::try_join(command.iter().map(String::as_str))
                .unwrap_or_else(|_| command.join(" ")),
            expect_sequences: steps
                .iter()
                .zip(1..)
                .map(|((pattern, sent), step)| ExpectStep {
                    step: Some(step),
                    expect: Some(pattern.clone()),
                    pattern: None,
                    response: None,
                    sent: sent.clone(),
                    note: None,
                })
                .collect(),
            success_indicators: Vec::new(),
            ready_indicators: Vec::new(),
            typical_timeout: Some(Value::from(timeout_secs)),
            notes: Some(notes),
            extra: Map::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn both_shapes_read_as_steps() {
        let code: ProgramConfig = serde_json::from_str(
            r#"{"name": "py", "command_template": "python3 -i -q", "expect_sequences":
                [{"step": 1, "expect": ">>> ", "note": "first"}], "success_indicators": [],
                "ready_indicators": [], "typical_timeout": 30, "notes": "n", "sample_output": ["x"]}"#,
        )
        .unwrap();
        assert_eq!(code.command().unwrap(), ["python3", "-i", "-q"]);
        assert_eq!(code.steps().unwrap(), [(">>> ".to_owned(), None)]);
        assert_eq!(code.timeout_secs(), Some(30.0));
        assert!(code.extra.contains_key("sample_output"));
        let docs: ProgramConfig = serde_json::from_str(
            r#"{"name": "db", "command_template": "sqlite3 'my db.sqlite'", "expect_sequences":
                [{"pattern": "sqlite> ", "response": ".tables"}, {"pattern": "sqlite> ", "response": null}]}"#,
        )
        .unwrap();
        assert_eq!(docs.command().unwrap(), ["sqlite3", "my db.sqlite"]);
        assert_eq!(
            docs.steps().unwrap(),
            [
                ("sqlite> ".to_owned(), Some(".tables".to_owned())),
                ("sqlite> ".to_owned(), None)
            ]
        );
        let templated: ProgramConfig = serde_json::from_str(
            r#"{"name": "m", "command_template": "mysql -u {user} -p{password}"}"#,
        )
        .unwrap();
        assert!(matches!(
            templated.command(),
            Err(ConfigError::Placeholder(_))
        ));
    }

    #[test]
    fn what_is_written_is_its_codes_shape() {
        let config = ProgramConfig::recorded(
            "py",
            &["python3".into(), "-i".into(), "my file.py".into()],
            &[
                (">>> ".into(), Some("print(1)".into())),
                (">>> ".into(), None),
            ],
            30,
            "saved".into(),
        );
        let json = serde_json::to_value(&config).unwrap();
        assert_eq!(json["command_template"], "python3 -i 'my file.py'");
        assert_eq!(json["expect_sequences"][0]["step"], 1);
        assert_eq!(json["expect_sequences"][0]["expect"], ">>> ");
        assert_eq!(json["expect_sequences"][0]["sent"], "print(1)");
        assert!(json["expect_sequences"][1].get("sent").is_none());
        assert_eq!(json["typical_timeout"], 30);
        assert!(json["success_indicators"].as_array().unwrap().is_empty());
        assert_eq!(check_name("../x"), Err(ConfigError::Name("../x".into())));
    }
}
