//! `tapes validate`: ClaudeControl's own checks of a tape, each finding
//! with the path of the offending value and its line:column.
//!
//! Always: the top level is exactly `meta`, `session` and `exchanges`;
//! `meta` has `program` and `cwd` (text), `args` (a list of text), `env`
//! (text to text), `pty` only whole `rows`/`cols`, `seed` whole or null;
//! each input holds exactly one of `dataText` and `dataBytesB64`.
//! `--strict` also requires `pre`, `input.type`, `output.chunks`, whole
//! `delay_ms` and `dataB64` in every chunk, and forbids keys of its own in
//! an exchange, input, output or chunk (`meta` may carry extra keys).

use jsonc_parser::{ParseOptions, ast};
use serde_json::{Map, Value};

use super::codec::DecodeError;

/// One step into a tape.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

/// One thing wrong with a tape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Where, e.g. `exchanges[2].input.type`.
    pub path: String,
    /// 1-based line of the value (or of the object missing it).
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong.
    pub reason: String,
}

struct Checker {
    strict: bool,
    found: Vec<(Vec<Step>, String)>,
}

impl Checker {
    fn fail(&mut self, path: &[Step], reason: impl Into<String>) {
        self.found.push((path.to_vec(), reason.into()));
    }

    fn object<'v>(
        &mut self,
        value: &'v Value,
        path: &[Step],
        what: &str,
    ) -> Option<&'v Map<String, Value>> {
        let object = value.as_object();
        if object.is_none() {
            self.fail(path, format!("{what} must be an object"));
        }
        object
    }

    fn only(&mut self, object: &Map<String, Value>, path: &[Step], allowed: &[&str], what: &str) {
        for key in object.keys() {
            if !allowed.contains(&key.as_str()) {
                let mut at = path.to_vec();
                at.push(Step::Key(key.clone()));
                self.fail(&at, format!("{what} takes no key {key:?}"));
            }
        }
    }

    fn required<'v>(
        &mut self,
        object: &'v Map<String, Value>,
        path: &[Step],
        key: &str,
    ) -> Option<&'v Value> {
        let value = object.get(key);
        if value.is_none() {
            self.fail(path, format!("{key:?} is missing"));
        }
        value
    }

    fn meta(&mut self, meta: &Value) {
        let path = [Step::Key("meta".into())];
        let Some(meta) = self.object(meta, &path, "meta") else {
            return;
        };
        let at = |key: &str| vec![Step::Key("meta".into()), Step::Key(key.into())];
        for key in ["program", "cwd"] {
            if let Some(value) = self.required(meta, &path, key)
                && !value.is_string()
            {
                self.fail(&at(key), format!("{key} must be text"));
            }
        }
        if let Some(args) = self.required(meta, &path, "args")
            && !args
                .as_array()
                .is_some_and(|items| items.iter().all(Value::is_string))
        {
            self.fail(&at("args"), "args must be a list of text");
        }
        if let Some(env) = self.required(meta, &path, "env")
            && !env
                .as_object()
                .is_some_and(|vars| vars.values().all(Value::is_string))
        {
            self.fail(&at("env"), "env must map names to text");
        }
        if let Some(pty) = meta.get("pty").filter(|pty| !pty.is_null()) {
            let fits = pty.as_object().is_some_and(|pty| {
                pty.iter()
                    .all(|(key, value)| matches!(key.as_str(), "rows" | "cols") && value.is_u64())
            });
            if !fits {
                self.fail(&at("pty"), "pty holds only whole rows and cols");
            }
        }
        if let Some(seed) = meta.get("seed")
            && !(seed.is_null() || seed.is_i64() || seed.is_u64())
        {
            self.fail(&at("seed"), "seed must be a whole number or null");
        }
    }

    fn exchange(&mut self, exchange: &Value, path: &[Step]) {
        let Some(exchange) = self.object(exchange, path, "an exchange") else {
            return;
        };
        let inner = |key: &str| {
            let mut at = path.to_vec();
            at.push(Step::Key(key.into()));
            at
        };
        if self.strict {
            self.only(
                exchange,
                path,
                &["pre", "input", "output", "exit", "dur_ms", "annotations"],
                "an exchange",
            );
            self.required(exchange, path, "pre");
        }
        if let Some(input) = self.required(exchange, path, "input")
            && let Some(input) = self.object(input, &inner("input"), "input")
        {
            let text = input
                .get("dataText")
                .or_else(|| input.get("data_text"))
                .filter(|v| !v.is_null());
            let bytes = input
                .get("dataBytesB64")
                .or_else(|| input.get("data_b64"))
                .filter(|v| !v.is_null());
            if text.is_some() == bytes.is_some() {
                self.fail(
                    &inner("input"),
                    "input holds exactly one of dataText and dataBytesB64",
                );
            }
            if self.strict {
                self.only(
                    input,
                    &inner("input"),
                    &["type", "dataText", "dataBytesB64"],
                    "input",
                );
                if let Some(kind) = self.required(input, &inner("input"), "type")
                    && !matches!(kind.as_str(), Some("line" | "raw"))
                {
                    let mut at = inner("input");
                    at.push(Step::Key("type".into()));
                    self.fail(&at, "input type is line or raw");
                }
            }
        }
        if !self.strict {
            return;
        }
        let Some(output) = self.required(exchange, path, "output") else {
            return;
        };
        let Some(output) = self.object(output, &inner("output"), "output") else {
            return;
        };
        self.only(output, &inner("output"), &["chunks"], "output");
        let Some(chunks) = self.required(output, &inner("output"), "chunks") else {
            return;
        };
        let mut chunks_at = inner("output");
        chunks_at.push(Step::Key("chunks".into()));
        let Some(chunks) = chunks.as_array() else {
            self.fail(&chunks_at, "chunks must be a list");
            return;
        };
        for (n, chunk) in chunks.iter().enumerate() {
            let mut at = chunks_at.clone();
            at.push(Step::Index(n));
            let Some(chunk) = self.object(chunk, &at, "a chunk") else {
                continue;
            };
            self.only(chunk, &at, &["delay_ms", "dataB64", "isUtf8"], "a chunk");
            if let Some(delay) = self.required(chunk, &at, "delay_ms")
                && !delay.is_u64()
            {
                self.fail(&at, "delay_ms must be a whole number");
            }
            if let Some(data) = self.required(chunk, &at, "dataB64")
                && !data.is_string()
            {
                self.fail(&at, "dataB64 must be text");
            }
        }
    }
}

fn render(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(key) if out.is_empty() => out.push_str(key),
            Step::Key(key) => {
                out.push('.');
                out.push_str(key);
            }
            Step::Index(n) => out.push_str(&format!("[{n}]")),
        }
    }
    if out.is_empty() {
        "(top level)".to_owned()
    } else {
        out
    }
}

/// The start of the deepest node along `path` in the parsed text.
fn locate(root: Option<&ast::Value<'_>>, path: &[Step]) -> usize {
    let Some(mut node) = root else {
        return 0;
    };
    let mut start = node_start(node);
    for step in path {
        let next = match (node, step) {
            (ast::Value::Object(object), Step::Key(key)) => object
                .properties
                .iter()
                .find(|prop| prop.name.as_str() == key)
                .map(|prop| {
                    start = prop.range.start;
                    &prop.value
                }),
            (ast::Value::Array(array), Step::Index(n)) => array.elements.get(*n),
            _ => None,
        };
        match next {
            Some(value) => {
                node = value;
                if matches!(step, Step::Index(_)) {
                    start = node_start(node);
                }
            }
            None => break,
        }
    }
    start
}

fn node_start(node: &ast::Value<'_>) -> usize {
    use jsonc_parser::common::Ranged;
    node.start()
}

fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit('\n')
        .next()
        .map_or(0, |tail| tail.chars().count())
        + 1;
    (line, column)
}

/// Checks a tape's text; a tape that does not parse is the error.
pub fn validate(text: &str, strict: bool) -> Result<Vec<Finding>, DecodeError> {
    let value: Value = json5::from_str(text).map_err(super::codec::decode_error)?;
    let mut checker = Checker {
        strict,
        found: Vec::new(),
    };
    if let Some(top) = checker.object(&value, &[], "a tape") {
        checker.only(top, &[], &["meta", "session", "exchanges"], "a tape");
        if let Some(meta) = checker.required(top, &[], "meta") {
            checker.meta(meta);
        }
        checker.required(top, &[], "session");
        if let Some(exchanges) = checker.required(top, &[], "exchanges") {
            match exchanges.as_array() {
                Some(exchanges) => {
                    for (n, exchange) in exchanges.iter().enumerate() {
                        checker
                            .exchange(exchange, &[Step::Key("exchanges".into()), Step::Index(n)]);
                    }
                }
                None => checker.fail(&[Step::Key("exchanges".into())], "exchanges must be a list"),
            }
        }
    }
    let parsed =
        jsonc_parser::parse_to_ast(text, &Default::default(), &ParseOptions::default()).ok();
    let root = parsed.as_ref().and_then(|parsed| parsed.value.as_ref());
    Ok(checker
        .found
        .into_iter()
        .map(|(path, reason)| {
            let (line, column) = line_column(text, locate(root, &path));
            Finding {
                path: render(&path),
                line,
                column,
                reason,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use super::*;

    const GOOD: &str = r#"{"meta":{"createdAt":"x","program":"bc","args":[],"env":{},"cwd":"/","pty":{"rows":24,"cols":80},"tag":null,"latency":0,"errorRate":0,"seed":null,"banner":{"chunks":[]}},"session":{},"exchanges":[{"pre":{"prompt":null},"input":{"type":"line","dataText":"1\n","dataBytesB64":null},"output":{"chunks":[{"delay_ms":1,"dataB64":"MQ==","isUtf8":true}]},"exit":null,"dur_ms":1,"annotations":{}}]}"#;

    #[test]
    fn our_form_passes_strict_with_extra_meta_keys() {
        assert_eq!(validate(GOOD, true).unwrap(), []);
    }

    #[test]
    fn findings_name_the_value_and_where_it_is() {
        let text = "{\n  meta: {program: 'bc', args: [1], env: {}, cwd: '/', seed: 1.5},\n  session: {},\n  exchanges: [\n    {input: {type: 'line', dataText: 'a', dataBytesB64: 'YQ=='}, output: {chunks: [{delay_ms: 'soon', dataB64: 'YQ==', x: 1}]}, extra: true}\n  ],\n}";
        let loose = validate(text, false).unwrap();
        let paths: Vec<(&str, usize, usize)> = loose
            .iter()
            .map(|f| (f.path.as_str(), f.line, f.column))
            .collect();
        assert_eq!(
            paths,
            [
                ("meta.args", 2, 25),
                ("meta.seed", 2, 55),
                ("exchanges[0].input", 5, 6)
            ]
        );
        let strict = validate(text, true).unwrap();
        let reasons: Vec<&str> = strict.iter().map(|f| f.reason.as_str()).collect();
        assert!(
            reasons.contains(&"an exchange takes no key \"extra\""),
            "{reasons:?}"
        );
        assert!(reasons.contains(&"\"pre\" is missing"), "{reasons:?}");
        assert!(
            reasons.contains(&"a chunk takes no key \"x\""),
            "{reasons:?}"
        );
        assert!(
            reasons.contains(&"delay_ms must be a whole number"),
            "{reasons:?}"
        );
        assert!(validate("{meta: ", false).is_err());
    }
}
