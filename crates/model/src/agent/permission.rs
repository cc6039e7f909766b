//! A permission request as the developer reads it in the inbox — the
//! command, the edit as a diff against the file on disk, the MCP tool with
//! its arguments — asked as visual-delivery's `confirm` ("Allow" /
//! "Deny"), and how the answer becomes the agent's decision. What an
//! "always allow" keeps is exactly what the developer was shown, or it is
//! not offered.

use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{
    AgentKind,
    hook::{Rule, Verdict},
};
use crate::{
    ContentType, DeliveryMode, NewDelivery, blocking::AwaitOutcome, feedback::ConfirmAnswer,
};

/// The delivery field (beside visual-delivery's) that marks a question as
/// an agent's own permission request and says whose.
pub const REQUEST_FIELD: &str = "agent_request";

/// How many bytes of a file a diff is made from, on either side; a larger
/// file, or a larger text written over it, is shown as the edit alone.
pub const DIFF_LIMIT: usize = 512 * 1024;

/// The longest command "always allow" keeps a rule for (a longer one is
/// asked each time): the rule is written into the agent's settings and
/// kept with the question.
pub const RULE_LIMIT: usize = 4 * 1024;

/// How many bytes of any one text an agent sent (a command, a text to
/// write, a diff, arguments) a question shows; the rest is cut, and the
/// cut said.
pub const SHOWN_LIMIT: usize = 64 * 1024;

/// What the window needs to know of a permission request it shows: who
/// asks, where, for which tool, and what "always allow" would keep.
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
    /// The rules "always allow this" keeps, where the agent keeps rules
    /// and one allows exactly what is shown; none: "always" is not
    /// offered.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub always: Vec<Rule>,
    /// Whether the agent has a terminal prompt to fall back to (a hook)
    /// or not (`--permission-prompt-tool`).
    pub has_terminal: bool,
    /// The started agent that asks (its launch's name), when it is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch: Option<String>,
    /// What was decided, once it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided: Option<Decision>,
    /// Why "always" is not offered, in a sentence, where the agent keeps
    /// rules but none allows exactly this request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_always: Option<String>,
    /// The body the question keeps once answered
    /// ([`PermissionRequest::decided_body`]); none once it is kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_body: Option<String>,
}

/// Records on `delivery`, when it is a permission request and as its
/// answer is stored, what was decided, and cuts its body to what was
/// asked — whoever answers, and whether or not the agent that asked still
/// waits, so nothing read to decide it stays. The rules offered are
/// forgotten (the decision keeps those kept).
pub fn record_answer(delivery: &mut crate::Delivery, outcome: &AwaitOutcome) {
    let Some(mut mark) = mark_of(&delivery.extra) else {
        return;
    };
    mark.decided = Decision::of_answer(&mark, outcome).or(mark.decided);
    mark.always = Vec::new();
    if let Some(kept) = mark.kept_body.take() {
        delivery.content.body = kept;
    }
    if let Ok(mark) = serde_json::to_value(mark) {
        delivery.extra.insert(REQUEST_FIELD.to_owned(), mark);
    }
}

/// What the developer decided on a permission request, as the inbox
/// shows it afterwards.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Decision {
    /// Allowed this once.
    Allowed,
    /// Allowed, and the agent keeps these rules.
    AlwaysAllowed {
        /// The rules kept.
        rules: Vec<Rule>,
    },
    /// Denied, with the developer's reason if they gave one.
    Denied {
        /// Why.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// Handed back: the agent asked in its own terminal.
    LeftToTerminal,
}

impl Decision {
    /// The decision in words: "Allowed", "Always allowed: Bash(ls)",
    /// "Denied — not on main", "Left to the terminal".
    pub fn label(&self) -> String {
        match self {
            Self::Allowed => "Allowed".to_owned(),
            Self::AlwaysAllowed { rules } => format!(
                "Always allowed: {}",
                rules
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Self::Denied {
                reason: Some(reason),
            } => format!("Denied — {reason}"),
            Self::Denied { reason: None } => "Denied".to_owned(),
            Self::LeftToTerminal => "Left to the terminal".to_owned(),
        }
    }

    /// One word for a badge: `allowed`, `denied` or `terminal`.
    pub fn badge(&self) -> &'static str {
        match self {
            Self::Allowed | Self::AlwaysAllowed { .. } => "allowed",
            Self::Denied { .. } => "denied",
            Self::LeftToTerminal => "terminal",
        }
    }

    /// What was decided on the question `delivery_id` marked `mark`, no
    /// longer open: as recorded with its answer, else as its last stored
    /// answer (`feedback`) says.
    pub fn of_closed(
        mark: &RequestMark,
        delivery_id: &str,
        feedback: &[crate::blocking::FeedbackResponse],
    ) -> Option<Self> {
        mark.decided.clone().or_else(|| {
            let record = feedback.last()?;
            Self::of_answer(
                mark,
                &AwaitOutcome::Responded {
                    delivery_id: delivery_id.to_owned(),
                    response: record.values.clone(),
                },
            )
        })
    }

    /// The decision an answer stored for a question marked `mark` stands
    /// for (a decline is a denial; a dismissal hands it back).
    pub fn of_answer(mark: &RequestMark, outcome: &AwaitOutcome) -> Option<Self> {
        match outcome {
            AwaitOutcome::Responded { response, .. } => {
                let answer = ConfirmAnswer::from_value(response)?;
                Some(match answer {
                    ConfirmAnswer {
                        value: false,
                        comment,
                        ..
                    } => Self::Denied { reason: comment },
                    ConfirmAnswer { remember: true, .. } if !mark.always.is_empty() => {
                        Self::AlwaysAllowed {
                            rules: mark.always.clone(),
                        }
                    }
                    ConfirmAnswer { .. } => Self::Allowed,
                })
            }
            AwaitOutcome::Declined { .. } => Some(Self::Denied { reason: None }),
            AwaitOutcome::Dismissed { .. } => Some(Self::LeftToTerminal),
            AwaitOutcome::Timeout { .. } | AwaitOutcome::Error { .. } => None,
        }
    }
}

/// What the file an edit or write would change holds now, as the store
/// found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OnDisk {
    /// Its text.
    Text(String),
    /// There is no file: the write makes one.
    Missing,
    /// Not read, and why (a sentence: outside the workspace, not a regular
    /// file, too large, not text).
    Withheld(String),
}

/// One permission request.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionRequest {
    /// Which agent asks.
    pub agent: AgentKind,
    /// Who it is to a person: the agent's label, an MCP client's name, a
    /// started agent's name and label ([`super::named`]).
    pub name: String,
    /// The started agent that asks (its launch's name), when it is one.
    pub launch: Option<String>,
    /// Its session.
    pub session_id: String,
    /// Its folder.
    pub cwd: String,
    /// The tool it wants to call.
    pub tool_name: String,
    /// The tool's arguments.
    pub tool_input: Value,
    /// The rules the agent itself offers to keep for "don't ask again"
    /// (see [`super::hook::HookEvent::PermissionRequest`]); `None` when
    /// it offered none.
    pub suggested: Option<Vec<Rule>>,
    /// Asked from another machine (over HTTP): its paths name files
    /// there, so no file here is read for it.
    pub remote: bool,
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
                .map(|file| format!("edit {}", one_line(short_path(file, &self.cwd), 120))),
            "Write" => self
                .target_file()
                .map(|file| format!("write {}", one_line(short_path(file, &self.cwd), 120))),
            "WebFetch" => self
                .input_text("url")
                .map(|url| format!("fetch {}", one_line(url, 120))),
            _ => None,
        };
        let what = what.unwrap_or_else(|| match mcp_parts(&self.tool_name) {
            Some((server, tool)) => format!("call {tool} on {server}"),
            None => format!("use {}", self.tool_name),
        });
        format!("{} wants to {what}", self.name)
    }

    /// The question's body in Markdown: the request as a person reads it,
    /// then where and who. `on_disk` is what the target file holds now;
    /// a diff that runs past `deadline` is finished coarsely (its lines
    /// still right, maybe not the fewest).
    pub fn body(&self, on_disk: &OnDisk, deadline: Option<Instant>) -> String {
        let mut body = String::new();
        match self.tool_name.as_str() {
            "Bash" => {
                if let Some(description) = self.input_text("description") {
                    body.push_str(&format!("{}\n\n", escape_line(&cut(description, 2000))));
                }
                let command = self.input_text("command").unwrap_or_default();
                body.push_str(&fenced("sh", &cut(command, SHOWN_LIMIT)));
            }
            "Edit" | "MultiEdit" | "Write" => body.push_str(&self.edit_body(on_disk, deadline)),
            _ => body.push_str(&self.call_body()),
        }
        body.push_str(&self.footer());
        body
    }

    /// The body an edit or write shows: its diff, or why not and the edit
    /// as asked.
    fn edit_body(&self, on_disk: &OnDisk, deadline: Option<Instant>) -> String {
        let file = self.target_file().unwrap_or_default();
        let shown = short_path(file, &self.cwd);
        let before = match on_disk {
            OnDisk::Text(text) => Some(text.as_str()),
            OnDisk::Missing => None,
            OnDisk::Withheld(why) => return self.edit_alone(why),
        };
        let too_large = || {
            self.edit_alone(&format!(
                "The file or its new text is over {} KiB, too large to show as a diff",
                DIFF_LIMIT / 1024
            ))
        };
        if before.map_or(0, str::len) > DIFF_LIMIT {
            return too_large();
        }
        let after = match self.edited(before) {
            Ok(after) if after.len() > DIFF_LIMIT => return too_large(),
            Ok(after) => after,
            Err(Unworkable::TooLarge) => return too_large(),
            Err(Unworkable::NotFound) => {
                return self.edit_alone("The text to replace was not found in the file on disk");
            }
        };
        let mut config = similar::TextDiff::configure();
        if let Some(deadline) = deadline {
            config.deadline(deadline);
        }
        let diff = config.diff_lines(before.unwrap_or_default(), &after);
        let (old, new) = match before {
            Some(_) if shown == file => (file.to_owned(), file.to_owned()),
            Some(_) => (format!("a/{shown}"), format!("b/{shown}")),
            None if shown == file => ("/dev/null".to_owned(), file.to_owned()),
            None => ("/dev/null".to_owned(), format!("b/{shown}")),
        };
        let unified = diff
            .unified_diff()
            .context_radius(3)
            .header(&old, &new)
            .to_string();
        let mut body = String::new();
        if before.is_none() {
            body.push_str("A new file.\n\n");
        }
        body.push_str(&fenced("diff", &cut(&unified, SHOWN_LIMIT)));
        body
    }

    /// An edit shown as asked, after why no diff is shown: a write's new
    /// text, an edit's replacements.
    fn edit_alone(&self, why: &str) -> String {
        let why = escape_line(why);
        match (self.tool_name.as_str(), self.input_text("content")) {
            ("Write", Some(content)) => format!(
                "{why}; the text it would write:\n\n{}",
                fenced("", &cut(content, SHOWN_LIMIT))
            ),
            _ => format!(
                "{why}; the edit as asked:\n\n{}",
                fenced("json", &cut(&pretty(&self.tool_input), SHOWN_LIMIT))
            ),
        }
    }

    /// Any other tool: its name (an MCP tool's server), then its arguments.
    fn call_body(&self) -> String {
        let mut body = match mcp_parts(&self.tool_name) {
            Some((server, tool)) => format!(
                "MCP tool `{}` of server `{}`, with:\n\n",
                escape_code(tool),
                escape_code(server)
            ),
            None => format!("Tool `{}`, with:\n\n", escape_code(&self.tool_name)),
        };
        body.push_str(&fenced(
            "json",
            &cut(&pretty(&self.tool_input), SHOWN_LIMIT),
        ));
        body
    }

    fn footer(&self) -> String {
        format!(
            "\n\nIn `{}` · {} session `{}`",
            escape_code(&self.cwd),
            escape_line(&self.name),
            escape_code(&self.session_id)
        )
    }

    /// The body kept once the developer decided: what was asked, without
    /// what was read from disk to decide it (a diff, a file's text) and
    /// with any one text cut short. The question keeps no more of the
    /// request than a person needs to recall it.
    pub fn decided_body(&self) -> String {
        const KEPT: usize = 4 * 1024;
        let mut body = match self.tool_name.as_str() {
            "Bash" => fenced(
                "sh",
                &cut(self.input_text("command").unwrap_or_default(), KEPT),
            ),
            "Edit" | "MultiEdit" | "Write" | "NotebookEdit" => format!(
                "`{}` — what was shown to decide it is not kept.\n",
                escape_code(&one_line(self.target_file().unwrap_or_default(), 400))
            ),
            _ => {
                let mut body = self.call_body();
                if body.len() > KEPT {
                    body = format!("{}\n", cut(&body, KEPT));
                }
                body
            }
        };
        body.push_str(&self.footer());
        body
    }

    /// The file's text after the edit or write, when it can be worked out
    /// (every text to replace found, the result within [`DIFF_LIMIT`]: its
    /// length is known before anything is replaced, so a small edit that
    /// would multiply a file is never carried out).
    fn edited(&self, on_disk: Option<&str>) -> Result<String, Unworkable> {
        match self.tool_name.as_str() {
            "Write" => Ok(self.input_text("content").unwrap_or_default().to_owned()),
            "Edit" => apply_edit(
                on_disk.ok_or(Unworkable::NotFound)?.to_owned(),
                &self.tool_input,
            ),
            "MultiEdit" => self
                .tool_input
                .get("edits")
                .and_then(Value::as_array)
                .ok_or(Unworkable::NotFound)?
                .iter()
                .try_fold(on_disk.ok_or(Unworkable::NotFound)?.to_owned(), apply_edit),
            _ => Err(Unworkable::NotFound),
        }
    }

    /// The rules "always allow this" keeps — each allowing exactly what
    /// the question shows, never more —, or none, and then "always" is
    /// not offered. Only Claude Code keeps rules a hook hands it.
    ///
    /// Where Claude Code offered its own (`permission_suggestions`), they
    /// decide whether it can keep a rule for this request at all: a
    /// redirection, a removal or an edit get a folder or a mode for the
    /// session instead, never a rule, and then none is offered. Its exact
    /// rules (a command, or each command of a pipeline, as shown) are
    /// kept as they are; its pattern for one simple command (`npm run *`
    /// for `npm run test:unit`) is narrowed to that command; a pattern
    /// that cannot be narrowed (the command itself holds `*`, which a rule
    /// reads as a wildcard), a domain for a fetch, or a whole MCP tool
    /// asked with arguments offers none. With no suggestions at all, a
    /// simple command's own exact rule is offered, and an edit's file.
    pub fn always_rules(&self) -> Vec<Rule> {
        if self.agent != AgentKind::ClaudeCode
            || self
                .input_text("command")
                .is_some_and(|command| command.len() > RULE_LIMIT)
        {
            return Vec::new();
        }
        match &self.suggested {
            Some(suggested) => self.exact_of(suggested).unwrap_or_default(),
            None => self.own_exact_rule().into_iter().collect(),
        }
    }

    /// Why "always" is not offered for this request, where the agent keeps
    /// rules (Claude Code) and none allows exactly what is shown.
    pub fn no_always_reason(&self) -> Option<String> {
        if self.agent != AgentKind::ClaudeCode || !self.always_rules().is_empty() {
            return None;
        }
        let why = match (self.tool_name.as_str(), self.input_text("command")) {
            ("Bash", Some(command)) if command.len() > RULE_LIMIT => {
                "the command is too long to keep as a rule"
            }
            ("Bash", Some(command)) if command.contains('*') => {
                "a `*` in a rule is a wildcard to Claude Code, so no rule allows exactly this command"
            }
            ("Bash", Some(command)) if !is_simple_command(command) => {
                "Claude Code keeps no rule for a whole pipeline, list of commands or redirection (it would allow their parts on their own)"
            }
            ("Edit" | "MultiEdit" | "Write" | "NotebookEdit", _) => {
                "Claude Code keeps file changes for its session, not as a rule"
            }
            ("WebFetch", _) => "a rule would allow every page of the site",
            (tool, _) if mcp_parts(tool).is_some() => {
                "a rule would allow this tool with any arguments"
            }
            _ => "Claude Code keeps no rule for exactly this",
        };
        Some(format!("“Always” is not offered: {why}."))
    }

    /// The suggested rules made exact, or `None` when one cannot be: a
    /// rule is kept only when it allows the whole command shown — Claude
    /// Code's rule for one command of a pipeline (`Bash(sh)` for `echo hi
    /// | sh`) would let that command run anything fed to it —, and its
    /// pattern for one simple command is narrowed to that command.
    fn exact_of(&self, suggested: &[Rule]) -> Option<Vec<Rule>> {
        let [rule] = suggested else {
            return None;
        };
        if self.tool_name != "Bash" || rule.tool != "Bash" {
            return None;
        }
        let command = self.input_text("command")?.trim();
        let content = rule.content.as_deref()?.trim();
        let exact = content == command && !is_pattern(content);
        let narrowed = is_pattern(content)
            && is_simple_command(command)
            && command.starts_with(pattern_prefix(content));
        (exact || narrowed).then(|| vec![Rule::new("Bash", Some(command))])
    }

    /// This request's own exact rule, where the agent offered none.
    fn own_exact_rule(&self) -> Option<Rule> {
        match self.tool_name.as_str() {
            "Bash" => self
                .input_text("command")
                .filter(|command| is_simple_command(command))
                .map(|command| Rule::new("Bash", Some(command))),
            // `//` starts an absolute path in Claude Code's file rules (a
            // single `/` is relative to the settings file), and the rest
            // is a gitignore pattern: a path with its pattern characters
            // has no exact rule.
            "Edit" | "MultiEdit" | "Write" => self
                .target_file()
                .filter(|file| file.starts_with('/'))
                .filter(|file| !file.contains(['*', '?', '[', ']', '!', '\\', '(', ')', '\n', '#']))
                .map(|file| Rule::new("Edit", Some(&format!("/{file}")))),
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
            always: self.always_rules(),
            has_terminal: self.has_terminal,
            launch: self.launch.clone(),
            decided: None,
            no_always: self.no_always_reason(),
            kept_body: Some(self.decided_body()),
        }
    }

    /// The blocking question the inbox shows: a `confirm` with "Allow" /
    /// "Deny". The store adds the mark ([`REQUEST_FIELD`]).
    pub fn question(&self, on_disk: &OnDisk, deadline: Option<Instant>) -> NewDelivery {
        NewDelivery {
            mode: DeliveryMode::Blocking,
            title: self.title(),
            content_type: ContentType::Markdown,
            body: self.body(on_disk, deadline),
            feedback_schema: Some(json!({
                "type": "confirm",
                "prompt": format!("Allow {}?", self.tool_name),
                "confirm_label": "Allow",
                "cancel_label": "Deny",
            })),
        }
    }

    /// What the agent is told once the question settled: an answer of
    /// `true` allows (with `remember`, always — by the rules the question
    /// offered, if it offered any), `false` denies (its `comment` is the
    /// reason the model reads); a decline denies; a dismissal ("answer in
    /// the terminal") or a wait that ran out decides nothing.
    pub fn verdict(&self, outcome: &AwaitOutcome) -> Verdict {
        match Decision::of_answer(&self.mark(), outcome) {
            Some(Decision::Allowed) => Verdict::Allow { rules: Vec::new() },
            Some(Decision::AlwaysAllowed { rules }) => Verdict::Allow { rules },
            Some(Decision::Denied { reason }) => Verdict::Deny {
                message: denial(reason.as_deref()),
            },
            Some(Decision::LeftToTerminal) | None => Verdict::FallThrough,
        }
    }
}

/// Whether a Bash rule's content is a pattern to Claude Code: `*` is a
/// wildcard anywhere (`:*` at the end, the older prefix form).
fn is_pattern(content: &str) -> bool {
    content.contains('*')
}

/// What a pattern's matches start with: its text before the first `*`
/// (and before the `:` of the older `prefix:*` form).
fn pattern_prefix(content: &str) -> &str {
    let before = content.split('*').next().unwrap_or_default();
    before.strip_suffix(':').unwrap_or(before)
}

/// A command Claude Code matches a rule against whole: one line, no
/// wildcard, nothing it splits into several commands (`;`, `&`, `|`), no
/// redirection, substitution or grouping.
fn is_simple_command(command: &str) -> bool {
    !command.trim().is_empty()
        && !command.contains([
            '*', '\n', '\r', ';', '&', '|', '<', '>', '`', '$', '(', ')', '{', '}',
        ])
}

/// The status a delivery shows: a decided permission request its
/// decision (`allowed`, `denied`, `terminal`), anything else its own.
pub fn shown_status(delivery: &crate::Delivery) -> String {
    mark_of(&delivery.extra)
        .and_then(|mark| mark.decided)
        .map_or_else(
            || delivery.shown_status().to_owned(),
            |decision| decision.badge().to_owned(),
        )
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

/// Why an edit's result cannot be shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unworkable {
    /// A text to replace is not in the file.
    NotFound,
    /// The result would be over [`DIFF_LIMIT`].
    TooLarge,
}

/// Applies one `{old_string, new_string, replace_all}` edit, if its old
/// text is there and the result stays within [`DIFF_LIMIT`] (worked out
/// from the count of replacements before any is made).
fn apply_edit(text: String, edit: &Value) -> Result<String, Unworkable> {
    let old = edit
        .get("old_string")
        .and_then(Value::as_str)
        .ok_or(Unworkable::NotFound)?;
    let new = edit
        .get("new_string")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if old.is_empty() || !text.contains(old) {
        return Err(Unworkable::NotFound);
    }
    let all = edit
        .get("replace_all")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let times = if all { text.matches(old).count() } else { 1 };
    let grows = new.len().saturating_sub(old.len()).saturating_mul(times);
    if text.len().saturating_add(grows) > DIFF_LIMIT {
        return Err(Unworkable::TooLarge);
    }
    Ok(if all {
        text.replace(old, new)
    } else {
        text.replacen(old, new, 1)
    })
}

/// `mcp__server__tool` → (`server`, `tool`).
fn mcp_parts(name: &str) -> Option<(&str, &str)> {
    name.strip_prefix("mcp__")?.split_once("__")
}

/// `text` cut to at most `limit` bytes (at a character's edge), with a
/// line saying how much more there was.
fn cut(text: &str, limit: usize) -> String {
    if text.len() <= limit {
        return text.to_owned();
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}\n… ({} more bytes not shown)\n",
        &text[..end],
        text.len() - end
    )
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
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    fn request(tool_name: &str, tool_input: Value) -> PermissionRequest {
        PermissionRequest {
            agent: AgentKind::ClaudeCode,
            name: "Claude Code".into(),
            launch: None,
            session_id: "5c23".into(),
            cwd: "/home/dev/app".into(),
            tool_name: tool_name.into(),
            tool_input,
            suggested: None,
            remote: false,
            has_terminal: true,
        }
    }

    fn suggesting(
        mut request: PermissionRequest,
        rules: &[(&str, Option<&str>)],
    ) -> PermissionRequest {
        request.suggested = Some(
            rules
                .iter()
                .map(|(tool, content)| Rule::new(tool, *content))
                .collect(),
        );
        request
    }

    fn shown(rules: Vec<Rule>) -> Vec<String> {
        rules.iter().map(ToString::to_string).collect()
    }

    fn text(on_disk: &str) -> OnDisk {
        OnDisk::Text(on_disk.to_owned())
    }

    #[test]
    fn a_command_reads_as_the_command_with_its_description_where_and_who() {
        let bash = request(
            "Bash",
            json!({"command": "rm -rf build", "description": "Remove <the> build"}),
        );
        assert_eq!(bash.title(), "Claude Code wants to run `rm -rf build`");
        let body = bash.body(&OnDisk::Missing, None);
        assert!(
            body.starts_with("Remove \\<the\\> build\n\n```sh\nrm -rf build\n```\n"),
            "{body}"
        );
        assert!(
            body.ends_with("In `/home/dev/app` · Claude Code session `5c23`"),
            "{body}"
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
        let body = sneaky.body(&OnDisk::Missing, None);
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
        let body = edit.body(&text(on_disk), None);
        assert!(
            body.contains("--- a/src/main.rs\n+++ b/src/main.rs\n"),
            "{body}"
        );
        assert!(
            body.contains("-    let x = 1;\n+    let x = 2;\n"),
            "{body}"
        );
        // The text to replace is gone: the edit as asked, never a wrong diff.
        let body = edit.body(&text("fn main() {}\n"), None);
        assert!(
            body.contains("was not found") && body.contains("\"old_string\": \"let x = 1;\""),
            "{body}"
        );
    }

    #[test]
    fn a_write_is_a_diff_against_what_was_there_or_a_new_file_from_dev_null() {
        let write = request(
            "Write",
            json!({"file_path": "/home/dev/app/notes.md", "content": "one\ntwo\n"}),
        );
        let new = write.body(&OnDisk::Missing, None);
        assert!(
            new.starts_with("A new file.")
                && new.contains("--- /dev/null\n+++ b/notes.md\n")
                && new.contains("+one\n+two\n"),
            "{new}"
        );
        let over = write.body(&text("one\n"), None);
        assert!(
            over.contains(" one\n+two\n") && !over.contains("A new file"),
            "{over}"
        );
        let multi = request(
            "MultiEdit",
            json!({"file_path": "/f", "edits": [{"old_string": "a", "new_string": "b"}, {"old_string": "b\nc", "new_string": "d"}]}),
        );
        let body = multi.body(&text("a\nc\n"), None);
        assert!(body.contains("-a\n-c\n+d\n"), "{body}");
        // Outside the folder: its path as it is, no a/ b/ prefix.
        assert!(body.contains("--- /f\n+++ /f\n"), "{body}");
    }

    #[test]
    fn a_file_not_read_is_said_so_and_the_edit_shown_as_asked() {
        let write = request(
            "Write",
            json!({"file_path": "/home/dev/.ssh/id_ed25519", "content": ""}),
        );
        let why =
            OnDisk::Withheld("The file is outside the workspace, so its text is not shown".into());
        let body = write.body(&why, None);
        assert!(
            body.starts_with("The file is outside the workspace, so its text is not shown; the text it would write:\n\n```\n\n```\n"),
            "{body}"
        );
        assert!(!body.contains("```diff"), "{body}");
        let edit = request(
            "Edit",
            json!({"file_path": "/proc/self/environ", "old_string": "PATH", "new_string": "X"}),
        );
        let body = edit.body(&why, None);
        assert!(
            body.contains("the edit as asked:\n\n```json\n")
                && body.contains("\"old_string\": \"PATH\""),
            "{body}"
        );
    }

    #[test]
    fn large_texts_are_not_diffed_and_what_is_shown_is_cut() {
        let huge = "line\n".repeat(DIFF_LIMIT / 5 + 1);
        let write = request(
            "Write",
            json!({"file_path": "/home/dev/app/big.txt", "content": huge}),
        );
        let body = write.body(&text("line\n"), None);
        assert!(
            body.contains("too large to show as a diff"),
            "{}",
            &body[..200]
        );
        assert!(body.len() < SHOWN_LIMIT + 1024, "{}", body.len());
        assert!(body.contains("more bytes not shown"));
        // Over the limit on disk, even for a small edit.
        let edit = request(
            "Edit",
            json!({"file_path": "/home/dev/app/big.txt", "old_string": "line", "new_string": "LINE"}),
        );
        assert!(edit.body(&text(&huge), None).contains("too large"));
    }

    #[test]
    fn an_edit_that_would_multiply_a_file_is_never_carried_out() {
        // 40 doublings of a six-byte file: a terabyte, were it applied.
        let edits: Vec<Value> = (0..40)
            .map(|_| json!({"old_string": "l", "new_string": "ll", "replace_all": true}))
            .collect();
        let multi = request(
            "MultiEdit",
            json!({"file_path": "/home/dev/app/f", "edits": edits}),
        );
        let body = multi.body(&text("hello\n"), None);
        assert!(body.contains("too large to show as a diff"), "{body}");
        let edit = request(
            "Edit",
            json!({"file_path": "/home/dev/app/f", "old_string": "l", "new_string": "x".repeat(DIFF_LIMIT), "replace_all": true}),
        );
        assert!(edit.body(&text("hello\n"), None).contains("too large"));
    }

    #[test]
    fn a_diff_past_its_deadline_still_ends_and_is_a_diff() {
        // Every line differs: the slowest kind of diff.
        let before: String = (0..20_000).map(|n| format!("a{n}\n")).collect();
        let after: String = (0..20_000).map(|n| format!("b{n}\n")).collect();
        let write = request(
            "Write",
            json!({"file_path": "/home/dev/app/gen.txt", "content": after}),
        );
        let body = write.body(&OnDisk::Text(before), Some(Instant::now()));
        assert!(
            body.contains("```diff\n--- a/gen.txt\n+++ b/gen.txt\n"),
            "{}",
            &body[..300]
        );
        assert!(body.contains("-a0\n") && body.contains("more bytes not shown"));
    }

    #[test]
    fn once_decided_the_question_keeps_what_was_asked_and_nothing_read_from_disk() {
        let write = request(
            "Write",
            json!({"file_path": "/home/dev/app/.env", "content": "KEY=new"}),
        );
        let asked = write.body(&text("KEY=old-secret\n"), None);
        assert!(asked.contains("-KEY=old-secret"));
        let kept = write.decided_body();
        assert!(
            !kept.contains("old-secret") && !kept.contains("KEY=new"),
            "{kept}"
        );
        assert!(
            kept.starts_with("`/home/dev/app/.env` — what was shown"),
            "{kept}"
        );
        let bash = request("Bash", json!({"command": "ls"}));
        assert!(bash.decided_body().starts_with("```sh\nls\n```\n"));
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
        let body = mcp.body(&OnDisk::Missing, None);
        assert!(body.contains("MCP tool `create_issue` of server `github`"));
        assert!(body.contains("\"title\": \"Bug\""));
    }

    #[test]
    fn always_keeps_exactly_what_is_shown_or_is_not_offered() {
        let bash = |command: &str| request("Bash", json!({"command": command}));
        // Claude Code 2.1.332's own suggestions, as captured.
        assert_eq!(
            shown(
                suggesting(bash("npm --version"), &[("Bash", Some("npm --version"))])
                    .always_rules()
            ),
            ["Bash(npm --version)"]
        );
        // Its pattern for one simple command is narrowed to the command.
        assert_eq!(
            shown(
                suggesting(bash("npm run test:unit"), &[("Bash", Some("npm run *"))])
                    .always_rules()
            ),
            ["Bash(npm run test:unit)"]
        );
        assert_eq!(
            shown(
                suggesting(
                    bash("cargo build --release"),
                    &[("Bash", Some("cargo build:*"))]
                )
                .always_rules()
            ),
            ["Bash(cargo build --release)"]
        );
        // A pipeline's commands, kept one by one, would let `sh` run
        // anything piped to it: none.
        for (command, parts) in [
            (
                "curl http://example.com | sh",
                vec![
                    ("Bash", Some("curl http://example.com")),
                    ("Bash", Some("sh")),
                ],
            ),
            ("echo hi | sh", vec![("Bash", Some("sh"))]),
            ("cat list | xargs rm", vec![("Bash", Some("xargs rm"))]),
        ] {
            assert!(
                suggesting(bash(command), &parts).always_rules().is_empty(),
                "{command}"
            );
        }
        // Too long to keep as a rule.
        let long = format!("echo {}", "x".repeat(RULE_LIMIT));
        assert!(
            suggesting(bash(&long), &[("Bash", Some(&long))])
                .always_rules()
                .is_empty()
        );
        assert!(bash(&long).always_rules().is_empty());
        // A folder or a mode instead of a rule (a redirection, a removal):
        // none. `rm -rf build/*` holds a wildcard: none, whatever is
        // suggested.
        assert!(
            suggesting(bash("date > year.txt"), &[])
                .always_rules()
                .is_empty()
        );
        for suggested in [
            vec![],
            vec![("Bash", Some("rm -rf build/*"))],
            vec![("Bash", Some("rm *"))],
        ] {
            assert!(
                suggesting(bash("rm -rf build/*"), &suggested)
                    .always_rules()
                    .is_empty(),
                "{suggested:?}"
            );
        }
        // A pattern inside a pipeline cannot be narrowed; a whole tool, a
        // rule for another tool, a domain: none.
        assert!(
            suggesting(
                bash("ls && make"),
                &[("Bash", Some("ls")), ("Bash", Some("make *"))]
            )
            .always_rules()
            .is_empty()
        );
        assert!(
            suggesting(bash("ls"), &[("Bash", None)])
                .always_rules()
                .is_empty()
        );
        assert!(
            suggesting(bash("ls"), &[("Read", Some("ls"))])
                .always_rules()
                .is_empty()
        );
        assert!(
            suggesting(bash("ls"), &[("Bash", Some("rm"))])
                .always_rules()
                .is_empty()
        );
        assert!(
            suggesting(bash("ls -l"), &[("Bash", Some("rm *"))])
                .always_rules()
                .is_empty()
        );
        let fetch = request("WebFetch", json!({"url": "https://example.com/x"}));
        assert!(
            suggesting(fetch, &[("WebFetch", Some("domain:example.com"))])
                .always_rules()
                .is_empty()
        );
        let mcp = request("mcp__github__create_issue", json!({"title": "Bug"}));
        assert!(
            suggesting(mcp.clone(), &[("mcp__github__create_issue", None)])
                .always_rules()
                .is_empty()
        );
        // A whole MCP tool allows its every later call, whatever its
        // arguments: none, even for a call without any.
        let bare = request("mcp__github__list_issues", json!({}));
        assert!(
            suggesting(bare, &[("mcp__github__list_issues", None)])
                .always_rules()
                .is_empty()
        );
        // With no suggestions: a simple command's own rule, an edit's
        // file as an absolute path (`//`); a pattern or a compound, none.
        assert_eq!(
            shown(bash("npm --version").always_rules()),
            ["Bash(npm --version)"]
        );
        for command in [
            "*",
            "rm -rf build/*",
            "npm run:*",
            "date > y",
            "a; b",
            "a && b",
            "echo $(id)",
            "ls\nrm x",
        ] {
            assert!(bash(command).always_rules().is_empty(), "{command}");
        }
        let edit = request("Edit", json!({"file_path": "/home/dev/app/src/main.rs"}));
        assert_eq!(
            shown(edit.always_rules()),
            ["Edit(//home/dev/app/src/main.rs)"]
        );
        let globby = request("Edit", json!({"file_path": "/home/dev/app/src/[id].rs"}));
        assert!(globby.always_rules().is_empty());
        assert!(mcp.always_rules().is_empty());
        let mut codex = bash("npm --version");
        codex.agent = AgentKind::Codex;
        assert!(codex.always_rules().is_empty());
    }

    #[test]
    fn the_answer_becomes_the_agents_decision() {
        let bash = suggesting(
            request("Bash", json!({"command": "npm --version"})),
            &[("Bash", Some("npm --version"))],
        );
        let responded = |response: Value| AwaitOutcome::Responded {
            delivery_id: "d_1".into(),
            response,
        };
        assert_eq!(
            bash.verdict(&responded(json!({"value": true}))),
            Verdict::Allow { rules: Vec::new() }
        );
        assert_eq!(
            bash.verdict(&responded(json!({"value": true, "remember": true}))),
            Verdict::Allow {
                rules: vec![Rule::new("Bash", Some("npm --version"))]
            }
        );
        // "Always" where none is offered allows this once.
        let wild = request("Bash", json!({"command": "rm -rf build/*"}));
        assert_eq!(
            wild.verdict(&responded(json!({"value": true, "remember": true}))),
            Verdict::Allow { rules: Vec::new() }
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
    fn a_decision_reads_as_what_was_decided() {
        let bash = suggesting(
            request("Bash", json!({"command": "npm --version"})),
            &[("Bash", Some("npm --version"))],
        );
        let mark = bash.mark();
        let said = |response: Value| {
            Decision::of_answer(
                &mark,
                &AwaitOutcome::Responded {
                    delivery_id: "d_1".into(),
                    response,
                },
            )
            .map(|decision| decision.label())
        };
        assert_eq!(said(json!({"value": true})).as_deref(), Some("Allowed"));
        assert_eq!(
            said(json!({"value": true, "remember": true})).as_deref(),
            Some("Always allowed: Bash(npm --version)")
        );
        assert_eq!(
            said(json!({"value": false, "comment": "not on main"})).as_deref(),
            Some("Denied — not on main")
        );
        assert_eq!(said(json!({"value": false})).as_deref(), Some("Denied"));
        assert_eq!(said(json!({"value": "maybe"})), None);
        let dismissed = AwaitOutcome::Dismissed {
            delivery_id: "d_1".into(),
        };
        assert_eq!(
            Decision::of_answer(&mark, &dismissed)
                .map(|decision| decision.label())
                .as_deref(),
            Some("Left to the terminal")
        );
        let decision = Decision::Denied {
            reason: Some("why".into()),
        };
        let stored = serde_json::to_value(&decision).unwrap();
        assert_eq!(stored, json!({"kind": "denied", "reason": "why"}));
        assert_eq!(
            serde_json::from_value::<Decision>(stored).unwrap(),
            decision
        );
    }

    #[test]
    fn the_question_is_a_valid_blocking_confirm_and_its_mark_reads_back() {
        let bash = request("Bash", json!({"command": "ls"}));
        assert!(bash.question(&OnDisk::Missing, None).validate().is_ok());
        let mut extra = Map::new();
        extra.insert(
            REQUEST_FIELD.into(),
            serde_json::to_value(bash.mark()).unwrap(),
        );
        assert_eq!(mark_of(&extra), Some(bash.mark()));
        assert_eq!(mark_of(&Map::new()), None);
        // A mark written before rules were kept as a list still reads.
        extra.insert(
            REQUEST_FIELD.into(),
            json!({"agent": "claude-code", "session_id": "s", "cwd": "/w", "tool_name": "Bash", "always_rule": "Bash(ls)", "has_terminal": true}),
        );
        assert!(mark_of(&extra).is_some_and(|mark| mark.always.is_empty()));
    }
}
