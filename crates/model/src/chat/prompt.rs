//! Prompt assembly in Naide's seven steps — base prompt, mode prompt,
//! relevant learnings, relevant spec and feature files, the conversation
//! summary, recent messages, the new message — under a token budget. When
//! over budget, long-term files go first (least relevant first), then older
//! recent messages down to two; the base and mode prompts, the summary and
//! the new message are never dropped. Every part, kept or dropped, is
//! reported with its token count for the context inspector.

use serde::{Deserialize, Serialize};

use super::{ChatMessage, ConversationSummary, Role, summary::SummaryList};

/// Recent messages sent verbatim (short-term memory).
pub const MAX_RECENT_MESSAGES: usize = 8;

/// Said after a recent answer the developer stopped.
pub const STOPPED_NOTE: &str = "[The developer stopped this answer here.]";
/// Recent messages kept even when over budget.
pub const MIN_RECENT_MESSAGES: usize = 2;

/// Estimated tokens of `text`: one per four characters, rounded up. A
/// tokenizer-free estimate, close enough for budgeting across models.
pub fn estimate_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// A long-term memory file offered to the prompt, with its relevance to the
/// message (higher is more relevant).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContextFile {
    /// Workspace-relative path.
    pub path: String,
    /// The file's text.
    pub text: String,
    /// Relevance score; the least relevant are dropped first.
    pub relevance: f64,
}

/// Which of the seven steps a part belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PartKind {
    /// 1. Base system prompt.
    Base,
    /// 2. Mode system prompt.
    Mode,
    /// 3. A relevant learning.
    Learning,
    /// 4. A relevant spec or feature file.
    Spec,
    /// 5. The conversation summary.
    Summary,
    /// 6. A recent message.
    Recent,
    /// 7. The new message.
    Message,
}

/// One part of the prompt, as the context inspector shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptPart {
    /// Its step.
    pub kind: PartKind,
    /// What it is: a path, a role, "base prompt"…
    pub label: String,
    /// The text sent.
    pub text: String,
    /// Estimated tokens.
    pub tokens: usize,
    /// Whether it went in (false: dropped for the budget).
    pub included: bool,
    /// For recent messages: the role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
    /// A file that was not read (a symlink out of the workspace); `text`
    /// says why and nothing of it was sent.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub refused: bool,
}

impl PromptPart {
    /// A file of step `kind` that was not read, with the reason, for the
    /// inspector; never sent.
    pub fn refused(kind: PartKind, reason: impl Into<String>) -> Self {
        Self {
            kind,
            label: "not read".to_owned(),
            text: reason.into(),
            tokens: 0,
            included: false,
            role: None,
            refused: true,
        }
    }
}

/// What goes into one prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptInputs<'a> {
    /// Step 1.
    pub base: &'a str,
    /// Step 2.
    pub mode: &'a str,
    /// Step 3, any order.
    pub learnings: Vec<ContextFile>,
    /// Step 4, any order.
    pub specs: Vec<ContextFile>,
    /// Step 5.
    pub summary: Option<&'a ConversationSummary>,
    /// The session's messages so far, oldest first.
    pub history: &'a [ChatMessage],
    /// Step 7.
    pub message: &'a str,
    /// Token budget for the whole prompt.
    pub budget: usize,
}

/// The assembled prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssembledPrompt {
    /// Every part in step order, dropped ones included (marked).
    pub parts: Vec<PromptPart>,
    /// Estimated tokens of the included parts.
    pub total_tokens: usize,
    /// The budget it was assembled for.
    pub budget: usize,
}

impl AssembledPrompt {
    /// Whether even the parts never dropped exceed the budget.
    pub fn over_budget(&self) -> bool {
        self.total_tokens > self.budget
    }

    /// The included parts as chat messages `(role, content)`: one system
    /// message (steps 1–5), then the recent messages, then the new message.
    pub fn messages(&self) -> Vec<(&'static str, String)> {
        let system: Vec<&str> = self
            .parts
            .iter()
            .filter(|part| {
                part.included && !matches!(part.kind, PartKind::Recent | PartKind::Message)
            })
            .map(|part| part.text.as_str())
            .collect();
        let mut messages = vec![("system", system.join("\n\n"))];
        for part in self.parts.iter().filter(|part| part.included) {
            match (part.kind, part.role) {
                (PartKind::Recent, Some(Role::Assistant)) => {
                    messages.push(("assistant", part.text.clone()))
                }
                (PartKind::Recent, _) | (PartKind::Message, _) => {
                    messages.push(("user", part.text.clone()))
                }
                _ => {}
            }
        }
        messages
    }
}

/// The summary as the model reads it.
pub fn summary_text(summary: &ConversationSummary) -> String {
    let mut text = String::from("Conversation summary (authoritative; keep to it):");
    for which in SummaryList::ALL {
        let entries = summary.list(which);
        if !entries.is_empty() {
            text.push_str(&format!("\n{}:", which.title()));
            for entry in entries {
                let pin = if summary.is_pinned(entry) {
                    " (pinned by the developer: fixed)"
                } else {
                    ""
                };
                text.push_str(&format!("\n- {entry}{pin}"));
            }
        }
    }
    text
}

fn part(kind: PartKind, label: impl Into<String>, text: String, role: Option<Role>) -> PromptPart {
    PromptPart {
        refused: false,
        kind,
        label: label.into(),
        tokens: estimate_tokens(&text),
        text,
        included: true,
        role,
    }
}

fn file_parts(
    kind: PartKind,
    heading: &str,
    mut files: Vec<ContextFile>,
) -> Vec<(PromptPart, f64)> {
    files.sort_by(|a, b| b.relevance.total_cmp(&a.relevance));
    files
        .into_iter()
        .map(|file| {
            let text = format!("{heading} `{}`:\n{}", file.path, file.text);
            (part(kind, file.path, text, None), file.relevance)
        })
        .collect()
}

/// Assembles the prompt in the seven steps and fits it to the budget.
pub fn assemble(inputs: PromptInputs<'_>) -> AssembledPrompt {
    let mut parts = vec![
        part(PartKind::Base, "base prompt", inputs.base.to_owned(), None),
        part(PartKind::Mode, "mode prompt", inputs.mode.to_owned(), None),
    ];
    let mut relevance = vec![None, None];
    for (file, score) in file_parts(PartKind::Learning, "Learning from", inputs.learnings)
        .into_iter()
        .chain(file_parts(PartKind::Spec, "Spec file", inputs.specs))
    {
        parts.push(file);
        relevance.push(Some(score));
    }
    if let Some(summary) = inputs.summary {
        parts.push(part(
            PartKind::Summary,
            "conversation summary",
            summary_text(summary),
            None,
        ));
        relevance.push(None);
    }
    let conversational: Vec<&ChatMessage> = inputs
        .history
        .iter()
        .filter(|message| message.role != Role::Command)
        .collect();
    let recent = &conversational[conversational.len().saturating_sub(MAX_RECENT_MESSAGES)..];
    for message in recent {
        // The model is told an answer was cut short, not left to think it
        // said all it meant to.
        let content = if message.stopped {
            format!("{}\n\n{STOPPED_NOTE}", message.content.trim_end())
        } else {
            message.content.clone()
        };
        parts.push(part(
            PartKind::Recent,
            format!("{:?}", message.role).to_lowercase(),
            content,
            Some(message.role),
        ));
        relevance.push(None);
    }
    parts.push(part(
        PartKind::Message,
        "new message",
        inputs.message.to_owned(),
        Some(Role::User),
    ));

    let total = |parts: &[PromptPart]| {
        parts
            .iter()
            .filter(|p| p.included)
            .map(|p| p.tokens)
            .sum::<usize>()
    };
    // Long-term files, least relevant first (later steps first on ties).
    while total(&parts) > inputs.budget {
        let victim = parts
            .iter()
            .enumerate()
            .filter(|(_, p)| p.included && matches!(p.kind, PartKind::Learning | PartKind::Spec))
            .min_by(|(a, _), (b, _)| {
                let (ra, rb) = (relevance[*a].unwrap_or(0.0), relevance[*b].unwrap_or(0.0));
                ra.total_cmp(&rb).then(b.cmp(a))
            })
            .map(|(index, _)| index);
        match victim {
            Some(index) => parts[index].included = false,
            None => break,
        }
    }
    // Then older recent messages, keeping the last two.
    while total(&parts) > inputs.budget {
        let kept: Vec<usize> = parts
            .iter()
            .enumerate()
            .filter(|(_, p)| p.included && p.kind == PartKind::Recent)
            .map(|(index, _)| index)
            .collect();
        if kept.len() <= MIN_RECENT_MESSAGES {
            break;
        }
        parts[kept[0]].included = false;
    }
    AssembledPrompt {
        total_tokens: total(&parts),
        parts,
        budget: inputs.budget,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;
    use crate::Timestamp;

    fn message(n: usize) -> ChatMessage {
        ChatMessage {
            id: format!("m{n}"),
            role: if n.is_multiple_of(2) {
                Role::User
            } else {
                Role::Assistant
            },
            content: format!("message number {n} {}", "x".repeat(36)),
            timestamp: Timestamp::EPOCH,
            writes: Vec::new(),
            stopped: false,
            extra: Default::default(),
        }
    }

    fn file(path: &str, relevance: f64) -> ContextFile {
        ContextFile {
            path: path.into(),
            text: "y".repeat(400),
            relevance,
        }
    }

    fn kinds(prompt: &AssembledPrompt) -> Vec<(PartKind, String, bool)> {
        prompt
            .parts
            .iter()
            .map(|p| (p.kind, p.label.clone(), p.included))
            .collect()
    }

    #[test]
    fn parts_come_in_the_seven_step_order_with_the_last_eight_messages() {
        let history: Vec<_> = (0..12).map(message).collect();
        let summary = ConversationSummary {
            decisions: vec!["Use OAuth".into()],
            ..Default::default()
        };
        let prompt = assemble(PromptInputs {
            base: "base",
            mode: "planning",
            learnings: vec![file("l/low.md", 0.1), file("l/high.md", 0.9)],
            specs: vec![file("plan/a.md", 0.5)],
            summary: Some(&summary),
            history: &history,
            message: "now?",
            budget: 100_000,
        });
        let order: Vec<PartKind> = prompt.parts.iter().map(|p| p.kind).collect();
        let mut expected = vec![
            PartKind::Base,
            PartKind::Mode,
            PartKind::Learning,
            PartKind::Learning,
            PartKind::Spec,
            PartKind::Summary,
        ];
        expected.extend([PartKind::Recent; MAX_RECENT_MESSAGES]);
        expected.push(PartKind::Message);
        assert_eq!(order, expected);
        assert_eq!(prompt.parts[2].label, "l/high.md", "learnings by relevance");
        assert!(
            prompt.parts[6].text.starts_with("message number 4 "),
            "the last eight messages"
        );
        assert!(prompt.parts.iter().all(|p| p.included));
        let messages = prompt.messages();
        assert_eq!(messages[0].0, "system");
        assert!(messages[0].1.contains("Decisions:\n- Use OAuth"));
        assert_eq!(messages.len(), 1 + MAX_RECENT_MESSAGES + 1);
        assert_eq!(messages.last().unwrap(), &("user", "now?".to_owned()));
    }

    #[test]
    fn over_budget_drops_files_least_relevant_first_then_old_messages_down_to_two() {
        let history: Vec<_> = (0..8).map(message).collect();
        let summary = ConversationSummary {
            decisions: vec!["keep me".into()],
            ..Default::default()
        };
        let inputs = |budget| PromptInputs {
            base: "base",
            mode: "mode",
            learnings: vec![file("l/low.md", 0.1), file("l/high.md", 0.9)],
            specs: vec![file("plan/mid.md", 0.5)],
            summary: Some(&summary),
            history: &history,
            message: "question",
            budget,
        };
        let full = assemble(inputs(100_000)).total_tokens;
        let file_tokens =
            estimate_tokens(&format!("Learning from `l/low.md`:\n{}", "y".repeat(400)));

        let one_dropped = assemble(inputs(full - 1));
        let dropped: Vec<_> = kinds(&one_dropped)
            .into_iter()
            .filter(|k| !k.2)
            .map(|k| k.1)
            .collect();
        assert_eq!(dropped, ["l/low.md"], "the least relevant file goes first");

        let no_files = assemble(inputs(full - 3 * file_tokens));
        assert!(
            no_files
                .parts
                .iter()
                .filter(|p| matches!(p.kind, PartKind::Learning | PartKind::Spec))
                .all(|p| !p.included)
        );
        assert!(
            no_files
                .parts
                .iter()
                .filter(|p| p.kind == PartKind::Recent)
                .all(|p| p.included),
            "messages go only after files"
        );

        let tight = assemble(inputs(10));
        let recent_kept: Vec<_> = tight
            .parts
            .iter()
            .filter(|p| p.kind == PartKind::Recent && p.included)
            .map(|p| p.label.clone())
            .collect();
        assert_eq!(
            recent_kept.len(),
            MIN_RECENT_MESSAGES,
            "the last two messages stay"
        );
        assert!(
            tight
                .parts
                .iter()
                .filter(|p| matches!(
                    p.kind,
                    PartKind::Base | PartKind::Mode | PartKind::Summary | PartKind::Message
                ))
                .all(|p| p.included)
        );
        assert!(tight.over_budget(), "reported, not hidden");
        assert!(
            tight
                .parts
                .iter()
                .rev()
                .find(|p| p.kind == PartKind::Recent)
                .unwrap()
                .included,
            "the newest message is kept"
        );
    }

    #[test]
    fn token_estimate_is_a_quarter_of_the_characters_rounded_up() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abcd"), 1);
        assert_eq!(estimate_tokens("abcde"), 2);
        assert_eq!(estimate_tokens("ééééé"), 2, "characters, not bytes");
    }

    #[test]
    fn a_stopped_answer_reaches_the_model_marked_as_cut_short() {
        let mut history: Vec<_> = (0..2).map(message).collect();
        history[1].stopped = true;
        let assembled = assemble(PromptInputs {
            base: "base",
            mode: "mode",
            learnings: vec![],
            specs: vec![],
            summary: None,
            history: &history,
            message: "go on",
            budget: 10_000,
        });
        let messages = assembled.messages();
        let answer = &messages[messages.len() - 2];
        assert_eq!(answer.0, "assistant");
        assert!(
            answer.1.ends_with(&format!("x\n\n{STOPPED_NOTE}")),
            "{answer:?}"
        );
        assert!(!messages[messages.len() - 3].1.contains(STOPPED_NOTE));
    }
}
