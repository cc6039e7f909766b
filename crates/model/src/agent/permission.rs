//! A permission request as the developer reads it in the inbox — the
//! command, the edit as a diff against the file on disk, the MCP tool with
//! its arguments — asked as visual-delivery's `confirm` ("Allow" /
//! "Deny"), and how the answer becomes the agent's decision.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{
    AgentKind,
    hook::{Rule, Verdict},
};
use crate::{ContentType, DeliveryMode, NewDelivery, blocking::AwaitOutcome};

/// The delivery field (beside visual-delivery's) that marks a question as
/// an agent's own permission request and says whose.
pub const REQUEST_FIELD: &str = "agent_request";

/// How many bytes of a file a diff is made from; a larger file is shown
/// as the edit alone.
pub const DIFF_LIMIT: usize = 512 * 1024;

/// What the window needs to know of a permission request it shows: who
/// asks, where, for which tool, and what "always allow" would add.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequestMark {
    /// Which agent asks.
    pub agent: AgentKind,
    /// Its session.
    pub session_id: String,
    /// Its folder.
    pub cwd: String,
    /// The tool.
    pub tool_name: String,
    /// The rule "always allow this" adds, where the agent keeps rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub always_rule: Option<String>,
    /// Whether the agent has a terminal prompt to fall back to (a hook)
    /// or not (`--permission-prompt-tool`).
    pub has_terminal: bool,
}

/// One permission request.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionRequest {
    /// Which agent asks.
    pub agent: AgentKind,
    /// Who it is to a person (the agent's label, or an MCP client's name).
    pub name: String,
    /// Its session.
    pub session_id: String,
    /// Its folder.
    pub cwd: String,
    /// The tool it wants to call.
    pub tool_name: String,
    /// The tool's arguments.
    pub tool_input: Value,
    /// Whether a terminal prompt is there to fall back to.
    pub has_terminal: bool,
}

impl PermissionRequest {
    fn input_text(&self, key: &str) -> Option<&str> {
        self.tool_input.get(key).and_then(Value::as_str)
    }

    /// The file an edit or write would change, when it is one.
    pub fn target_file(&self) -> Option<&str> {
        match self.tool_name.as_str() {
            "Edit" | "Write" | "MultiEdit" => self.input_text("file_path"),
            "NotebookEdit" => self.input_text("notebook_path"),
            _ => None,
        }
    }

    /// The inbox title: who wants to do what.
    pub fn title(&self) -> String {
        let what = match self.tool_name.as_str() {
            "Bash" => self
                .input_text("command")
                .map(|command| format!("run `{}`", one_line(command, 80))),
            "Edit" | "MultiEdit" | "NotebookEdit" => self
                .target_file()
                .map(|file| format!("edit {}", short_path(file, &self.cwd))),
            "Write" => self
                .target_file()
                .map(|file| format!("write {}", short_path(file, &self.cwd))),
            "WebFetch" => self.input_text("url").map(|url| format!("fetch {url}")),
            _ => None,
        };
        let what = what.unwrap_or_else(|| match mcp_parts(&self.tool_name) {
            Some((server, tool)) => format!("call {tool} on {server}"),
            None => format!("use {}", self.tool_name),
        });
        format!("{} wants to {what}", self.name)
    }

    /// The question's body in Markdown: the request as a person reads it,
    /// then where and who. `on_disk` is the target file's text now (`None`
    /// when it does not exist or could not be read).
    pub fn body(&self, on_disk: Option<&str>) -> String {
        let mut body = String::new();
        match self.tool_name.as_str() {
            "Bash" => {
                if let Some(description) = self.input_text("description") {
                    body.push_str(&format!("{}\n\n", escape_line(description)));
                }
                let command = self.input_text("command").unwrap_or_default();
                body.push_str(&fenced("sh", command));
            }
            "Edit" | "MultiEdit" | "Write" => {
                let file = self.target_file().unwrap_or_default();
                match self.edited(on_disk) {
                    Some(after) => {
                        let before = on_disk.unwrap_or_default();
                        if on_disk.is_none() {
                            body.push_str("A new file.\n\n");
                        }
                        let diff = similar::TextDiff::from_lines(before, &after)
                            .unified_diff()
                            .context_radius(3)
                            .header(&format!("a/{file}"), &format!("b/{file}"))
                            .to_string();
                        body.push_str(&fenced("diff", &diff));
                    }
                    None => {
                        body.push_str("The text to replace was not found in the file on disk; the edit as asked:\n\n");
                        body.push_str(&fenced("json", &pretty(&self.tool_input)));
                    }
                }
            }
            _ => {
                if let Some((server, tool)) = mcp_parts(&self.tool_name) {
                    body.push_str(&format!(
                        "MCP tool `{}` of server `{}`, with:\n\n",
                        escape_code(tool),
                        escape_code(server)
                    ));
                } else {
                    body.push_str(&format!(
                        "Tool `{}`, with:\n\n",
                        escape_code(&self.tool_name)
                    ));
                }
                body.push_str(&fenced("json", &pretty(&self.tool_input)));
            }
        }
        body.push_str(&format!(
            "\n\nIn `{}` · {} session `{}`",
            escape_code(&self.cwd),
            self.name,
            escape_code(&self.session_id)
        ));
        body
    }

    /// The file's text after the edit or write, when it can be worked out
    /// (every text to replace found); `None` otherwise.
    fn edited(&self, on_disk: Option<&str>) -> Option<String> {
        match self.tool_name.as_str() {
            "Write" => Some(self.input_text("content").unwrap_or_default().to_owned()),
            "Edit" => apply_edit(on_disk?.to_owned(), &self.tool_input),
            "MultiEdit" => self
                .tool_input
                .get("edits")?
                .as_array()?
                .iter()
                .try_fold(on_disk?.to_owned(), apply_edit),
            _ => None,
        }
    }

    /// The rule "always allow this" adds, where the agent keeps rules:
    /// Claude Code's `Bash(<command>)`, `Edit(<file>)`, `WebFetch(domain:…)`,
    /// or an MCP tool's name; `None` for agents whose hooks cannot add one.
    pub fn always_rule(&self) -> Option<Rule> {
        if self.agent != AgentKind::ClaudeCode {
            return None;
        }
        match self.tool_name.as_str() {
            "Bash" => self
                .input_text("command")
                .filter(|command| !command.contains(['(', ')']) && !command.contains('\n'))
                .map(|command| Rule::new("Bash", Some(command))),
            "Edit" | "MultiEdit" | "Write" => {
                let file = self.target_file()?;
                (!file.contains(['(', ')'])).then(|| Rule::new("Edit", Some(file)))
            }
            name if mcp_parts(name).is_some() => Some(Rule::new(name, None)),
            _ => None,
        }
    }

    /// The mark the question carries (see [`RequestMark`]).
    pub fn mark(&self) -> RequestMark {
        RequestMark {
            agent: self.agent,
            session_id: self.session_id.clone(),
            cwd: self.cwd.clone(),
            tool_name: self.tool_name.clone(),
            always_rule: self.always_rule().map(|rule| rule.to_string()),
            has_terminal: self.has_terminal,
        }
    }

    /// The blocking question the inbox shows: a `confirm` with "Allow" /
    /// "Deny". The store adds the mark ([`REQUEST_FIELD`]).
    pub fn question(&self, on_disk: Option<&str>) -> NewDelivery {
        NewDelivery {
            mode: DeliveryMode::Blocking,
            title: self.title(),
            content_type: ContentType::Markdown,
            body: self.body(on_disk),
            feedback_schema: Some(json!({
                "type": "confirm",
                "prompt": format!("Allow {}?", self.tool_name),
                "confirm_label": "Allow",
                "cancel_label": "Deny",
            })),
        }
    }

    /// What the agent is told once the question settled: an answer of
    /// `true` allows (with `remember`, always), `false` denies (its
    /// `comment` is the reason the model reads); a decline denies; a
    /// dismissal ("answer in the terminal") or a wait that ran out decides
    /// nothing.
    pub fn verdict(&self, outcome: &AwaitOutcome) -> Verdict {
        match outcome {
            AwaitOutcome::Responded { response, .. } => {
                match response.get("value").and_then(Value::as_bool) {
                    Some(true) => Verdict::Allow {
                        rule: response
                            .get("remember")
                            .and_then(Value::as_bool)
                            .unwrap_or(false)
                            .then(|| self.always_rule())
                            .flatten(),
                    },
                    Some(false) => Verdict::Deny {
                        message: denial(response.get("comment").and_then(Value::as_str)),
                    },
                    None => Verdict::FallThrough,
                }
            }
            AwaitOutcome::Declined { .. } => Verdict::Deny {
                message: denial(None),
            },
            AwaitOutcome::Dismissed { .. }
            | AwaitOutcome::Timeout { .. }
            | AwaitOutcome::Error { .. } => Verdict::FallThrough,
        }
    }
}

/// The mark of a delivery's `extra`, when it is a permission request.
pub fn mark_of(extra: &Map<String, Value>) -> Option<RequestMark> {
    serde_json::from_value(extra.get(REQUEST_FIELD)?.clone()).ok()
}

/// What the model reads when the developer denies.
fn denial(reason: Option<&str>) -> String {
    match reason.map(str::trim).filter(|reason| !reason.is_empty()) {
        Some(reason) => format!("The developer denied this in Switchboard: {reason}"),
        None => "The developer denied this in Switchboard.".to_owned(),
    }
}

/// Applies one `{old_string, new_string, replace_all}` edit, if its old
/// text is there.
fn apply_edit(text: String, edit: &Value) -> Option<String> {
    let old = edit.get("old_string")?.as_str()?;
    let new = edit
        .get("new_string")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if old.is_empty() || !text.contains(old) {
        return None;
    }
    let all = edit
        .get("replace_all")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    Some(if all {
        text.replace(old, new)
    } else {
        text.replacen(old, new, 1)
    })
}

/// `mcp__server__tool` → (`server`, `tool`).
fn mcp_parts(name: &str) -> Option<(&str, &str)> {
    name.strip_prefix("mcp__")?.split_once("__")
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// `text` in a fenced block whose fence is longer than any run of
/// backticks inside it, so nothing in it can close the block.
fn fenced(language: &str, text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let newline = if text.ends_with('\n') { "" } else { "\n" };
    format!("{fence}{language}\n{text}{newline}{fence}\n")
}

/// Text for inline code: backticks would end it.
fn escape_code(text: &str) -> String {
    text.replace('`', "'")
}

/// A line of prose with Markdown's and HTML's markup characters escaped.
fn escape_line(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|' | '!'
        ) {
            escaped.push('\\');
        }
        escaped.push(if c == '\n' { ' ' } else { c });
    }
    escaped
}

/// The first line of `text`, cut to `limit` characters.
fn one_line(text: &str, limit: usize) -> String {
    let first = text.lines().next().unwrap_or_default();
    let cut: String = first.chars().take(limit).collect();
    let cut = cut.replace('`', "'");
    if cut.len() < text.trim_end().len() {
        format!("{cut}…")
    } else {
        cut
    }
}

/// `file` relative to `cwd` when inside it.
fn short_path<'a>(file: &'a str, cwd: &str) -> &'a str {
    file.strip_prefix(cwd)
        .and_then(|rest| rest.strip_prefix('/'))
        .filter(|rest| !rest.is_empty())
        .unwrap_or(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(tool_name: &str, tool_input: Value) -> PermissionRequest {
        PermissionRequest {
            agent: AgentKind::ClaudeCode,
            name: "Claude Code".into(),
            session_id: "5c23".into(),
            cwd: "/home/dev/app".into(),
            tool_name: tool_name.into(),
            tool_input,
            has_terminal: true,
        }
    }

    #[test]
    fn a_command_reads_as_the_command_with_its_description_where_and_who() {
        let bash = request(
            "Bash",
            json!({"command": "rm -rf build", "description": "Remove <the> build"}),
        );
        assert_eq!(bash.title(), "Claude Code wants to run `rm -rf build`");
        let body = bash.body(None);
        assert!(
            body.starts_with("Remove \\<the\\> build\n\n```sh\nrm -rf build\n```\n"),
            "{body}"
        );
        assert!(
            body.ends_with("In `/home/dev/app` · Claude Code session `5c23`"),
            "{body}"
        );
        assert_eq!(
            bash.always_rule().map(|rule| rule.to_string()).as_deref(),
            Some("Bash(rm -rf build)")
        );
        let long = request(
            "Bash",
            json!({"command": format!("echo {}\nls", "x".repeat(100))}),
        );
        assert!(long.title().ends_with("…`"));
    }

    #[test]
    fn a_fence_inside_a_command_cannot_close_its_block() {
        let sneaky = request(
            "Bash",
            json!({"command": "echo ```\n<script>alert(1)</script>"}),
        );
        let body = sneaky.body(None);
        assert!(
            body.contains("````sh\necho ```\n<script>alert(1)</script>\n````\n"),
            "{body}"
        );
    }

    #[test]
    fn an_edit_is_a_diff_against_the_file_on_disk() {
        let edit = request(
            "Edit",
            json!({"file_path": "/home/dev/app/src/main.rs", "old_string": "let x = 1;", "new_string": "let x = 2;"}),
        );
        assert_eq!(edit.title(), "Claude Code wants to edit src/main.rs");
        let on_disk = "fn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n";
        let body = edit.body(Some(on_disk));
        assert!(
            body.contains("--- a//home/dev/app/src/main.rs\n+++ b//home/dev/app/src/main.rs\n"),
            "{body}"
        );
        assert!(
            body.contains("-    let x = 1;\n+    let x = 2;\n"),
            "{body}"
        );
        // The text to replace is gone: the edit as asked, never a wrong diff.
        let body = edit.body(Some("fn main() {}\n"));
        assert!(
            body.contains("was not found") && body.contains("\"old_string\": \"let x = 1;\""),
            "{body}"
        );
        assert_eq!(
            edit.always_rule().map(|rule| rule.to_string()).as_deref(),
            Some("Edit(/home/dev/app/src/main.rs)")
        );
    }

    #[test]
    fn a_write_is_a_diff_against_what_was_there_or_a_new_file() {
        let write = request(
            "Write",
            json!({"file_path": "/home/dev/app/notes.md", "content": "one\ntwo\n"}),
        );
        let new = write.body(None);
        assert!(
            new.starts_with("A new file.") && new.contains("+one\n+two\n"),
            "{new}"
        );
        let over = write.body(Some("one\n"));
        assert!(
            over.contains(" one\n+two\n") && !over.contains("A new file"),
            "{over}"
        );
        let multi = request(
            "MultiEdit",
            json!({"file_path": "/f", "edits": [{"old_string": "a", "new_string": "b"}, {"old_string": "b\nc", "new_string": "d"}]}),
        );
        assert!(multi.body(Some("a\nc\n")).contains("-a\n-c\n+d\n"));
    }

    #[test]
    fn an_mcp_tool_shows_its_server_name_and_arguments() {
        let mcp = request(
            "mcp__github__create_issue",
            json!({"title": "Bug", "body": "It breaks"}),
        );
        assert_eq!(
            mcp.title(),
            "Claude Code wants to call create_issue on github"
        );
        let body = mcp.body(None);
        assert!(body.contains("MCP tool `create_issue` of server `github`"));
        assert!(body.contains("\"title\": \"Bug\""));
        assert_eq!(
            mcp.always_rule().map(|rule| rule.to_string()).as_deref(),
            Some("mcp__github__create_issue")
        );
        let mut codex = mcp.clone();
        codex.agent = AgentKind::Codex;
        assert_eq!(codex.always_rule(), None);
    }

    #[test]
    fn the_answer_becomes_the_agents_decision() {
        let bash = request("Bash", json!({"command": "rm -rf build"}));
        let responded = |response: Value| AwaitOutcome::Responded {
            delivery_id: "d_1".into(),
            response,
        };
        assert_eq!(
            bash.verdict(&responded(json!({"value": true}))),
            Verdict::Allow { rule: None }
        );
        assert_eq!(
            bash.verdict(&responded(json!({"value": true, "remember": true}))),
            Verdict::Allow {
                rule: Some(Rule::new("Bash", Some("rm -rf build")))
            }
        );
        assert_eq!(
            bash.verdict(&responded(
                json!({"value": false, "comment": "not on main"})
            )),
            Verdict::Deny {
                message: "The developer denied this in Switchboard: not on main".into()
            }
        );
        assert_eq!(
            bash.verdict(&AwaitOutcome::Declined {
                delivery_id: "d_1".into()
            }),
            Verdict::Deny {
                message: "The developer denied this in Switchboard.".into()
            }
        );
        assert_eq!(
            bash.verdict(&AwaitOutcome::Dismissed {
                delivery_id: "d_1".into()
            }),
            Verdict::FallThrough
        );
        assert_eq!(
            bash.verdict(&AwaitOutcome::Timeout {
                delivery_id: "d_1".into()
            }),
            Verdict::FallThrough
        );
    }

    #[test]
    fn the_question_is_a_valid_blocking_confirm_and_its_mark_reads_back() {
        let bash = request("Bash", json!({"command": "ls"}));
        assert!(bash.question(None).validate().is_ok());
        let mut extra = Map::new();
        extra.insert(
            REQUEST_FIELD.into(),
            serde_json::to_value(bash.mark()).unwrap(),
        );
        assert_eq!(mark_of(&extra), Some(bash.mark()));
        assert_eq!(mark_of(&Map::new()), None);
    }
}
