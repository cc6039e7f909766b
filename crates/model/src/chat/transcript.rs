//! The chat pane's state: past messages, the turn streaming now, and the
//! writes it made, folded from the sidecar's events. Kept here so the
//! window's component only renders it.

use serde::{Deserialize, Serialize};

use super::{ChatSession, Role, prompt::PromptPart, summary::SummaryChange};
use crate::sidecar::ResponseBody;

/// One line of the transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Entry {
    /// A message.
    Message {
        /// Who wrote it.
        role: Role,
        /// Its text.
        text: String,
    },
    /// A file the model wrote.
    Wrote {
        /// The path.
        path: String,
        /// Bytes written.
        bytes: usize,
    },
    /// A write that was refused.
    Refused {
        /// The path asked for.
        path: String,
        /// Why.
        reason: String,
    },
    /// A turn that failed.
    Failed {
        /// Why.
        message: String,
    },
}

/// The transcript and the turn in flight.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Transcript {
    /// Everything shown, oldest first.
    pub entries: Vec<Entry>,
    /// The chat id streaming now and its text so far.
    pub streaming: Option<(u64, String)>,
    /// The last turn's prompt, for the context inspector.
    pub last_prompt: Vec<PromptPart>,
    /// The last turn's summary change.
    pub last_change: SummaryChange,
}

impl Transcript {
    /// The transcript of a stored session.
    pub fn from_session(session: Option<&ChatSession>) -> Self {
        let entries = session
            .map(|session| {
                session
                    .messages
                    .iter()
                    .map(|message| Entry::Message {
                        role: message.role,
                        text: message.content.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        Self {
            entries,
            ..Self::default()
        }
    }

    /// Starts turn `chat` for the developer's `message`.
    pub fn begin(&mut self, chat: u64, message: &str) {
        self.entries.push(Entry::Message {
            role: Role::User,
            text: message.to_owned(),
        });
        self.streaming = Some((chat, String::new()));
    }

    /// Whether turn `chat` is the one streaming.
    pub fn is_streaming(&self, chat: u64) -> bool {
        self.streaming.as_ref().is_some_and(|(id, _)| *id == chat)
    }

    /// Folds one sidecar event for turn `chat` in; events of other turns
    /// are ignored.
    pub fn apply(&mut self, chat: u64, event: ResponseBody) {
        if !self.is_streaming(chat) {
            return;
        }
        match event {
            ResponseBody::Delta { text } => {
                if let Some((_, so_far)) = &mut self.streaming {
                    so_far.push_str(&text);
                }
            }
            ResponseBody::WriteApplied { path, bytes } => {
                self.entries.push(Entry::Wrote { path, bytes })
            }
            ResponseBody::WriteRefused { path, reason } => {
                self.entries.push(Entry::Refused { path, reason })
            }
            ResponseBody::ChatDone {
                reply,
                prompt,
                summary_change,
                ..
            } => {
                self.streaming = None;
                self.entries.push(Entry::Message {
                    role: Role::Assistant,
                    text: reply,
                });
                self.last_prompt = prompt;
                self.last_change = summary_change;
            }
            ResponseBody::Error { message } => {
                let partial = self
                    .streaming
                    .take()
                    .map(|(_, text)| text)
                    .unwrap_or_default();
                if !partial.is_empty() {
                    self.entries.push(Entry::Message {
                        role: Role::Assistant,
                        text: partial,
                    });
                }
                self.entries.push(Entry::Failed { message });
            }
            ResponseBody::Health { .. } | ResponseBody::ShuttingDown => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_fold_into_the_transcript() {
        let mut transcript = Transcript::default();
        transcript.begin(7, "plan it");
        transcript.apply(7, ResponseBody::Delta { text: "Pla".into() });
        transcript.apply(
            9,
            ResponseBody::Delta {
                text: "other chat".into(),
            },
        );
        transcript.apply(
            7,
            ResponseBody::Delta {
                text: "nned.".into(),
            },
        );
        assert_eq!(transcript.streaming, Some((7, "Planned.".into())));
        transcript.apply(
            7,
            ResponseBody::WriteRefused {
                path: "src/x".into(),
                reason: "no".into(),
            },
        );
        transcript.apply(
            7,
            ResponseBody::ChatDone {
                session: "s".into(),
                reply: "Planned.".into(),
                stopped: false,
                summary_change: SummaryChange::default(),
                prompt: vec![],
            },
        );
        assert_eq!(transcript.streaming, None);
        assert_eq!(
            transcript.entries,
            [
                Entry::Message {
                    role: Role::User,
                    text: "plan it".into()
                },
                Entry::Refused {
                    path: "src/x".into(),
                    reason: "no".into()
                },
                Entry::Message {
                    role: Role::Assistant,
                    text: "Planned.".into()
                },
            ]
        );
    }

    #[test]
    fn a_failed_turn_keeps_what_arrived_and_says_why() {
        let mut transcript = Transcript::default();
        transcript.begin(1, "hi");
        transcript.apply(1, ResponseBody::Delta { text: "Par".into() });
        transcript.apply(
            1,
            ResponseBody::Error {
                message: "stalled".into(),
            },
        );
        assert_eq!(transcript.entries.len(), 3);
        assert_eq!(
            transcript.entries[2],
            Entry::Failed {
                message: "stalled".into()
            }
        );
        assert_eq!(transcript.streaming, None);
    }
}
