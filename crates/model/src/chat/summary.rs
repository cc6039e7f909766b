//! The conversation summary (mid-term memory): what the model reports
//! between `<!-- CONVERSATION_SUMMARY_START -->` and
//! `<!-- CONVERSATION_SUMMARY_END -->`, merged turn by turn as Naide does:
//! lists grow without duplicates, open questions are replaced.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::Timestamp;

/// The marker opening a summary block in a model reply.
pub const SUMMARY_START: &str = "<!-- CONVERSATION_SUMMARY_START -->";
/// The marker closing it.
pub const SUMMARY_END: &str = "<!-- CONVERSATION_SUMMARY_END -->";

/// The structured summary of a conversation.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversationSummary {
    /// Key decisions made.
    #[serde(default)]
    pub decisions: Vec<String>,
    /// Active constraints and requirements.
    #[serde(default)]
    pub constraints: Vec<String>,
    /// Defaults the developer accepted.
    #[serde(default)]
    pub accepted_defaults: Vec<String>,
    /// Options the developer rejected.
    #[serde(default)]
    pub rejected_options: Vec<String>,
    /// Questions still open.
    #[serde(default)]
    pub open_questions: Vec<String>,
    /// When it last changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<Timestamp>,
    /// Entries the developer pinned: they stay when the model replaces the
    /// open questions, and the model is told they are fixed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pinned: Vec<String>,
}

/// One of the summary's five lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SummaryList {
    /// [`ConversationSummary::decisions`].
    Decisions,
    /// [`ConversationSummary::constraints`].
    Constraints,
    /// [`ConversationSummary::accepted_defaults`].
    AcceptedDefaults,
    /// [`ConversationSummary::rejected_options`].
    RejectedOptions,
    /// [`ConversationSummary::open_questions`].
    OpenQuestions,
}

impl SummaryList {
    /// All five, in the order they are shown and sent.
    pub const ALL: [SummaryList; 5] = [
        Self::Decisions,
        Self::Constraints,
        Self::AcceptedDefaults,
        Self::RejectedOptions,
        Self::OpenQuestions,
    ];

    /// The heading shown to the developer and the model.
    pub fn title(self) -> &'static str {
        match self {
            Self::Decisions => "Decisions",
            Self::Constraints => "Constraints",
            Self::AcceptedDefaults => "Accepted defaults",
            Self::RejectedOptions => "Rejected options",
            Self::OpenQuestions => "Open questions",
        }
    }

    /// The field's name in the JSON.
    pub fn key(self) -> &'static str {
        match self {
            Self::Decisions => "decisions",
            Self::Constraints => "constraints",
            Self::AcceptedDefaults => "acceptedDefaults",
            Self::RejectedOptions => "rejectedOptions",
            Self::OpenQuestions => "openQuestions",
        }
    }
}

/// A summary update as the model writes it: every list optional.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryUpdate {
    /// New decisions.
    pub decisions: Option<Vec<String>>,
    /// New constraints.
    pub constraints: Option<Vec<String>>,
    /// Newly accepted defaults.
    pub accepted_defaults: Option<Vec<String>>,
    /// Newly rejected options.
    pub rejected_options: Option<Vec<String>>,
    /// The open questions now (replaces the old list when present).
    pub open_questions: Option<Vec<String>>,
}

/// Why a summary block could not be used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SummaryError {
    /// A start marker without an end marker.
    #[error("the summary block is not closed")]
    Unclosed,
    /// The block is not JSON of the summary's shape.
    #[error("the summary block is not valid JSON: {0}")]
    Json(String),
}

/// A reply split into what the developer reads and the summary update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitReply {
    /// The reply without the summary block.
    pub visible: String,
    /// The update, if the reply carried a valid block.
    pub update: Option<SummaryUpdate>,
    /// Why a block present was ignored, if it was.
    pub problem: Option<SummaryError>,
}

/// Splits the summary block out of a model reply. The last block wins when
/// there are several; a broken block is left visible and reported.
pub fn split_reply(reply: &str) -> SplitReply {
    let Some(start) = reply.rfind(SUMMARY_START) else {
        return SplitReply {
            visible: reply.to_owned(),
            update: None,
            problem: None,
        };
    };
    let inner_start = start + SUMMARY_START.len();
    let Some(end) = reply[inner_start..]
        .find(SUMMARY_END)
        .map(|end| inner_start + end)
    else {
        return SplitReply {
            visible: reply.to_owned(),
            update: None,
            problem: Some(SummaryError::Unclosed),
        };
    };
    let json = reply[inner_start..end].trim();
    let json = json
        .strip_prefix("```json")
        .or_else(|| json.strip_prefix("```"))
        .unwrap_or(json);
    let json = json.strip_suffix("```").unwrap_or(json).trim();
    match serde_json::from_str::<SummaryUpdate>(json) {
        Ok(update) => {
            let visible = format!("{}{}", &reply[..start], &reply[end + SUMMARY_END.len()..]);
            SplitReply {
                visible: visible.trim().to_owned(),
                update: Some(update),
                problem: None,
            }
        }
        Err(error) => SplitReply {
            visible: reply.to_owned(),
            update: None,
            problem: Some(SummaryError::Json(error.to_string())),
        },
    }
}

/// What one merge changed, for the memory panel's "what changed" view.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryChange {
    /// Entries added, as `(list name, entry)`.
    pub added: Vec<(String, String)>,
    /// Open questions no longer open.
    pub closed_questions: Vec<String>,
}

impl SummaryChange {
    /// Whether anything changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.closed_questions.is_empty()
    }
}

fn add_unique(
    list: &mut Vec<String>,
    new: Option<Vec<String>>,
    name: &str,
    change: &mut SummaryChange,
) {
    for entry in new.unwrap_or_default() {
        let entry = entry.trim().to_owned();
        if !entry.is_empty() && !list.iter().any(|known| known.eq_ignore_ascii_case(&entry)) {
            change.added.push((name.to_owned(), entry.clone()));
            list.push(entry);
        }
    }
}

impl ConversationSummary {
    /// One list.
    pub fn list(&self, which: SummaryList) -> &Vec<String> {
        match which {
            SummaryList::Decisions => &self.decisions,
            SummaryList::Constraints => &self.constraints,
            SummaryList::AcceptedDefaults => &self.accepted_defaults,
            SummaryList::RejectedOptions => &self.rejected_options,
            SummaryList::OpenQuestions => &self.open_questions,
        }
    }

    /// One list, to edit.
    pub fn list_mut(&mut self, which: SummaryList) -> &mut Vec<String> {
        match which {
            SummaryList::Decisions => &mut self.decisions,
            SummaryList::Constraints => &mut self.constraints,
            SummaryList::AcceptedDefaults => &mut self.accepted_defaults,
            SummaryList::RejectedOptions => &mut self.rejected_options,
            SummaryList::OpenQuestions => &mut self.open_questions,
        }
    }

    /// Whether `entry` is pinned.
    pub fn is_pinned(&self, entry: &str) -> bool {
        self.pinned.iter().any(|pin| pin == entry)
    }

    /// Pins `entry`, or unpins it if it was pinned.
    pub fn toggle_pin(&mut self, entry: &str) {
        if self.is_pinned(entry) {
            self.pinned.retain(|pin| pin != entry);
        } else {
            self.pinned.push(entry.to_owned());
        }
    }

    /// Replaces entry `old` of `which` with `text` (trimmed), keeping its
    /// pin; an empty text removes the entry and its pin. The entry is found
    /// by its text, not its place (a turn may have changed the list since
    /// the edit began); answers whether it was still there.
    pub fn edit(&mut self, which: SummaryList, old: &str, text: &str) -> bool {
        let text = text.trim().to_owned();
        let Some(index) = self.list(which).iter().position(|entry| entry == old) else {
            return false;
        };
        let pinned = self.is_pinned(old);
        self.pinned.retain(|pin| pin != old);
        let list = self.list_mut(which);
        if text.is_empty() {
            list.remove(index);
            return true;
        }
        list[index] = text.clone();
        if pinned {
            self.pinned.push(text);
        }
        true
    }

    /// Adds `text` to `which` unless it is empty or already there.
    pub fn add(&mut self, which: SummaryList, text: &str) {
        let text = text.trim();
        let list = self.list_mut(which);
        if !text.is_empty() && !list.iter().any(|known| known.eq_ignore_ascii_case(text)) {
            list.push(text.to_owned());
        }
    }

    /// Whether no list has an entry.
    pub fn is_empty(&self) -> bool {
        SummaryList::ALL
            .iter()
            .all(|which| self.list(*which).is_empty())
    }

    /// Applies `update` at `now`: lists grow without duplicates (compared
    /// case-insensitively), open questions are replaced when given.
    pub fn merge(&mut self, update: SummaryUpdate, now: Timestamp) -> SummaryChange {
        let mut change = SummaryChange::default();
        add_unique(
            &mut self.decisions,
            update.decisions,
            "decisions",
            &mut change,
        );
        add_unique(
            &mut self.constraints,
            update.constraints,
            "constraints",
            &mut change,
        );
        add_unique(
            &mut self.accepted_defaults,
            update.accepted_defaults,
            "acceptedDefaults",
            &mut change,
        );
        add_unique(
            &mut self.rejected_options,
            update.rejected_options,
            "rejectedOptions",
            &mut change,
        );
        if let Some(questions) = update.open_questions {
            let questions: Vec<String> = questions
                .into_iter()
                .map(|q| q.trim().to_owned())
                .filter(|q| !q.is_empty())
                .collect();
            let mut questions = questions;
            let kept: Vec<String> = self
                .open_questions
                .iter()
                .filter(|old| self.is_pinned(old) && !questions.contains(old))
                .cloned()
                .collect();
            questions.splice(0..0, kept);
            change.closed_questions = self
                .open_questions
                .iter()
                .filter(|old| !questions.contains(old))
                .cloned()
                .collect();
            for question in &questions {
                if !self.open_questions.contains(question) {
                    change
                        .added
                        .push(("openQuestions".to_owned(), question.clone()));
                }
            }
            self.open_questions = questions;
        }
        if !change.is_empty() {
            self.updated_at = Some(now);
        }
        change
    }
}

/// Hides summary blocks from text as it streams, so the developer never
/// sees the JSON: text that might begin a marker is held back until it is
/// clear whether it does.
#[derive(Debug, Clone, Default)]
pub struct SummaryFilter {
    pending: String,
    inside: bool,
}

/// The length of the longest suffix of `text` that begins `marker`.
fn partial_marker(text: &str, marker: &str) -> usize {
    (1..marker.len().min(text.len() + 1))
        .rev()
        .find(|&length| {
            text.is_char_boundary(text.len() - length)
                && marker.starts_with(&text[text.len() - length..])
        })
        .unwrap_or(0)
}

impl SummaryFilter {
    /// Takes the next streamed `text`; returns what may be shown now.
    pub fn push(&mut self, text: &str) -> String {
        self.pending.push_str(text);
        let mut shown = String::new();
        loop {
            if self.inside {
                match self.pending.find(SUMMARY_END) {
                    Some(end) => {
                        self.pending.drain(..end + SUMMARY_END.len());
                        self.inside = false;
                    }
                    None => {
                        let keep = partial_marker(&self.pending, SUMMARY_END);
                        self.pending.drain(..self.pending.len() - keep);
                        return shown;
                    }
                }
            } else {
                match self.pending.find(SUMMARY_START) {
                    Some(start) => {
                        shown.push_str(&self.pending[..start]);
                        self.pending.drain(..start + SUMMARY_START.len());
                        self.inside = true;
                    }
                    None => {
                        let keep = partial_marker(&self.pending, SUMMARY_START);
                        let cut = self.pending.len() - keep;
                        shown.push_str(&self.pending[..cut]);
                        self.pending.drain(..cut);
                        return shown;
                    }
                }
            }
        }
    }

    /// The held-back text at the end of the stream (never a block's inside).
    pub fn finish(&mut self) -> String {
        if self.inside {
            String::new()
        } else {
            std::mem::take(&mut self.pending)
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    fn now() -> Timestamp {
        Timestamp::from_unix_millis(1_000).unwrap()
    }

    #[test]
    fn splits_the_block_out_of_the_reply() {
        let reply = format!(
            "Here is the plan.\n\n{SUMMARY_START}\n```json\n{{\"decisions\": [\"Use OAuth\"], \"openQuestions\": [\"Which IdP?\"]}}\n```\n{SUMMARY_END}\n"
        );
        let split = split_reply(&reply);
        assert_eq!(split.visible, "Here is the plan.");
        let update = split.update.unwrap();
        assert_eq!(update.decisions, Some(vec!["Use OAuth".to_owned()]));
        assert_eq!(update.constraints, None);
    }

    #[test]
    fn the_stream_filter_hides_blocks_split_anywhere() {
        let reply =
            format!("Plan ready.\n{SUMMARY_START}{{\"decisions\":[\"x\"]}}{SUMMARY_END}\nBye <b>");
        for size in [1, 2, 3, 5, 7, 13, 64] {
            let mut filter = SummaryFilter::default();
            let mut shown = String::new();
            let chars: Vec<char> = reply.chars().collect();
            for chunk in chars.chunks(size) {
                shown.push_str(&filter.push(&chunk.iter().collect::<String>()));
            }
            shown.push_str(&filter.finish());
            assert_eq!(shown, "Plan ready.\n\nBye <b>", "chunks of {size}");
        }
    }

    #[test]
    fn broken_blocks_stay_visible_and_are_reported() {
        let unclosed = format!("text {SUMMARY_START} {{\"decisions\": []}}");
        assert_eq!(split_reply(&unclosed).problem, Some(SummaryError::Unclosed));
        assert_eq!(split_reply(&unclosed).visible, unclosed);
        let bad = format!("text {SUMMARY_START} not json {SUMMARY_END}");
        assert!(matches!(
            split_reply(&bad).problem,
            Some(SummaryError::Json(_))
        ));
        assert_eq!(split_reply("plain").update, None);
    }

    #[test]
    fn lists_merge_without_duplicates_and_questions_are_replaced() {
        let mut summary = ConversationSummary {
            decisions: vec!["Use OAuth".into()],
            open_questions: vec!["Which IdP?".into(), "Token lifetime?".into()],
            ..Default::default()
        };
        let change = summary.merge(
            SummaryUpdate {
                decisions: Some(vec![
                    "use oauth".into(),
                    "Keycloak as IdP".into(),
                    " ".into(),
                ]),
                constraints: Some(vec!["No cookies".into()]),
                open_questions: Some(vec!["Token lifetime?".into()]),
                ..Default::default()
            },
            now(),
        );
        assert_eq!(
            summary.decisions,
            ["Use OAuth", "Keycloak as IdP"],
            "case-insensitive dedup"
        );
        assert_eq!(summary.constraints, ["No cookies"]);
        assert_eq!(
            summary.open_questions,
            ["Token lifetime?"],
            "open questions are replaced"
        );
        assert_eq!(change.closed_questions, ["Which IdP?"]);
        assert_eq!(change.added.len(), 2);
        assert_eq!(summary.updated_at, Some(now()));

        let untouched = summary.merge(SummaryUpdate::default(), Timestamp::EPOCH);
        assert!(untouched.is_empty(), "an empty update changes nothing");
        assert_eq!(
            summary.open_questions,
            ["Token lifetime?"],
            "absent open questions are kept"
        );
        assert_eq!(summary.updated_at, Some(now()));
    }

    #[test]
    fn pinned_questions_survive_replacement_and_edits_keep_pins() {
        let mut summary = ConversationSummary {
            open_questions: vec!["Which IdP?".into(), "Token lifetime?".into()],
            ..ConversationSummary::default()
        };
        summary.toggle_pin("Which IdP?");
        let change = summary.merge(
            SummaryUpdate {
                open_questions: Some(vec!["Refresh tokens?".into()]),
                ..SummaryUpdate::default()
            },
            now(),
        );
        assert_eq!(summary.open_questions, ["Which IdP?", "Refresh tokens?"]);
        assert_eq!(change.closed_questions, ["Token lifetime?"]);

        assert!(summary.edit(
            SummaryList::OpenQuestions,
            "Which IdP?",
            " Which IdP: Okta or Entra? "
        ));
        assert_eq!(summary.pinned, ["Which IdP: Okta or Entra?"]);
        assert!(
            !summary.edit(SummaryList::OpenQuestions, "Which IdP?", "Okta"),
            "an entry changed meanwhile is not found by its old text"
        );
        assert_eq!(
            summary.open_questions,
            ["Which IdP: Okta or Entra?", "Refresh tokens?"]
        );
        summary.add(SummaryList::Decisions, "Use OAuth");
        summary.add(SummaryList::Decisions, "use oauth");
        assert_eq!(summary.decisions, ["Use OAuth"]);
        assert!(summary.edit(SummaryList::OpenQuestions, "Which IdP: Okta or Entra?", ""));
        assert_eq!(summary.open_questions, ["Refresh tokens?"]);
        assert!(summary.pinned.is_empty(), "a removed entry loses its pin");
        summary.toggle_pin("Use OAuth");
        summary.toggle_pin("Use OAuth");
        assert!(summary.pinned.is_empty());
    }
}
