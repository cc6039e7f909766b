//! The chat pane's state: past messages, the turn streaming now, and the
//! writes it made, folded from the sidecar's events. Kept here so the
//! window's component only renders it.

use serde::{Deserialize, Serialize};

use super::{ChatSession, Role, prompt::PromptPart, summary::SummaryChange};
use crate::sidecar::{ProposalOutcome, ResponseBody, WriteEvent};

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
    /// A write the model asked for, and (for a proposal) what became of
    /// it: `None` while it waits for the developer.
    Write {
        /// The write.
        event: WriteEvent,
        /// A proposal's fate, once settled.
        outcome: Option<ProposalOutcome>,
    },
    /// The developer stopped the answer; what arrived is kept.
    Stopped,
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
    /// The transcript of a stored session: each answer after the writes
    /// its turn asked for, as they were shown when it ran.
    pub fn from_session(session: Option<&ChatSession>) -> Self {
        let entries = session
            .map(|session| {
                session
                    .messages
                    .iter()
                    .flat_map(|message| {
                        let writes = message.writes.iter().map(|write| Entry::Write {
                            event: write.event.clone(),
                            outcome: write.settled.clone(),
                        });
                        writes.chain(std::iter::once(Entry::Message {
                            role: message.role,
                            text: message.content.clone(),
                        }))
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

    /// Write proposals still waiting for the developer.
    pub fn pending_proposals(&self) -> Vec<String> {
        self.entries
            .iter()
            .filter_map(|entry| match entry {
                Entry::Write {
                    event: WriteEvent::Proposed { proposal, .. },
                    outcome: None,
                } => Some(proposal.clone()),
                _ => None,
            })
            .collect()
    }

    /// Folds one sidecar event for turn `chat` in; events of other turns
    /// are ignored, except the settling of a proposal shown here.
    pub fn apply(&mut self, chat: u64, event: ResponseBody) {
        if let ResponseBody::ProposalSettled {
            proposal, outcome, ..
        } = &event
        {
            for entry in &mut self.entries {
                if let Entry::Write {
                    event:
                        WriteEvent::Proposed {
                            proposal: shown, ..
                        },
                    outcome: settled,
                } = entry
                    && shown == proposal
                {
                    *settled = Some(outcome.clone());
                }
            }
            return;
        }
        if !self.is_streaming(chat) {
            return;
        }
        match event {
            ResponseBody::Write(event) => self.entries.push(Entry::Write {
                event,
                outcome: None,
            }),
            ResponseBody::Delta { text } => {
                if let Some((_, so_far)) = &mut self.streaming {
                    so_far.push_str(&text);
                }
            }
            ResponseBody::ChatDone {
                reply,
                prompt,
                summary_change,
                stopped,
                ..
            } => {
                self.streaming = None;
                if !(stopped && reply.is_empty()) {
                    self.entries.push(Entry::Message {
                        role: Role::Assistant,
                        text: reply,
                    });
                }
                if stopped {
                    self.entries.push(Entry::Stopped);
                }
                self.last_prompt = prompt;
                self.last_change = summary_change;
            }
            ResponseBody::Error { message, .. } => {
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
            ResponseBody::Health { .. }
            | ResponseBody::ShuttingDown
            | ResponseBody::Models { .. }
            | ResponseBody::ProposalSettled { .. } => {}
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
            ResponseBody::Write(WriteEvent::Refused {
                path: "src/x".into(),
                reason: "no".into(),
            }),
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
                Entry::Write {
                    event: WriteEvent::Refused {
                        path: "src/x".into(),
                        reason: "no".into()
                    },
                    outcome: None
                },
                Entry::Message {
                    role: Role::Assistant,
                    text: "Planned.".into()
                },
            ]
        );
    }

    #[test]
    fn proposals_wait_then_settle_even_after_the_turn() {
        let mut transcript = Transcript::default();
        transcript.begin(3, "write the plan");
        transcript.apply(
            3,
            ResponseBody::Write(WriteEvent::Proposed {
                proposal: "p3-1".into(),
                path: ".prompts/plan/a.md".into(),
                bytes: 5,
                preview: "# A\n".into(),
            }),
        );
        transcript.apply(
            3,
            ResponseBody::ChatDone {
                session: "s".into(),
                reply: "Proposed.".into(),
                stopped: false,
                summary_change: SummaryChange::default(),
                prompt: vec![],
            },
        );
        assert_eq!(transcript.pending_proposals(), ["p3-1"]);
        transcript.apply(
            11,
            ResponseBody::ProposalSettled {
                proposal: "p3-1".into(),
                path: ".prompts/plan/a.md".into(),
                outcome: ProposalOutcome::Applied { bytes: 5 },
            },
        );
        assert!(transcript.pending_proposals().is_empty());
        assert!(matches!(
            &transcript.entries[1],
            Entry::Write {
                outcome: Some(ProposalOutcome::Applied { bytes: 5 }),
                ..
            }
        ));
    }

    #[test]
    fn a_failed_turn_keeps_what_arrived_and_says_why() {
        let mut transcript = Transcript::default();
        transcript.begin(1, "hi");
        transcript.apply(1, ResponseBody::Delta { text: "Par".into() });
        transcript.apply(
            1,
            ResponseBody::Error {
                code: crate::ErrorCode::Model,
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

    #[test]
    fn a_stored_chat_shows_each_answers_writes_before_it_with_their_fates() {
        use crate::chat::{ChatMessage, ChatWrite};
        let message = |role, content: &str, writes| ChatMessage {
            id: content.to_owned(),
            role,
            content: content.to_owned(),
            timestamp: crate::Timestamp::EPOCH,
            writes,
            extra: Default::default(),
        };
        let refused = WriteEvent::Refused {
            path: "src/main.rs".into(),
            reason: "not in Planning's allow-list".into(),
        };
        let held = WriteEvent::Proposed {
            proposal: "p1-1".into(),
            path: ".prompts/plan/a.md".into(),
            bytes: 3,
            preview: "# A".into(),
        };
        let session = ChatSession {
            id: "chat-1".into(),
            project_name: String::new(),
            mode: super::super::ChatMode::Planning,
            messages: vec![
                message(Role::User, "Plan it", Vec::new()),
                message(
                    Role::Assistant,
                    "Planned.",
                    vec![
                        ChatWrite {
                            event: refused.clone(),
                            settled: None,
                        },
                        ChatWrite {
                            event: held.clone(),
                            settled: Some(ProposalOutcome::Discarded),
                        },
                    ],
                ),
            ],
            summary: None,
            created_at: crate::Timestamp::EPOCH,
            updated_at: crate::Timestamp::EPOCH,
            extra: Default::default(),
        };
        let transcript = Transcript::from_session(Some(&session));
        assert_eq!(
            transcript.entries,
            [
                Entry::Message {
                    role: Role::User,
                    text: "Plan it".into()
                },
                Entry::Write {
                    event: refused,
                    outcome: None
                },
                Entry::Write {
                    event: held,
                    outcome: Some(ProposalOutcome::Discarded)
                },
                Entry::Message {
                    role: Role::Assistant,
                    text: "Planned.".into()
                },
            ]
        );
        assert!(
            transcript.pending_proposals().is_empty(),
            "a settled one waits no more"
        );
    }
}
