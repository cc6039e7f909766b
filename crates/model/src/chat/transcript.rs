//! The chat pane's state: past messages, the turn streaming now, and the
//! writes it made, folded from the sidecar's events. Kept here so the
//! window's component only renders it.

use serde::{Deserialize, Serialize};

use super::{ChatSession, Role, prompt::PromptPart, summary::SummaryChange};
use crate::{
    Timestamp,
    ipc::ChatEvent,
    sidecar::{ProposalOutcome, ResponseBody, WriteEvent},
};

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
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Transcript {
    /// Everything shown, oldest first.
    pub entries: Vec<Entry>,
    /// The chat id streaming now and its text so far.
    pub streaming: Option<(u64, String)>,
    /// The last turn's prompt, for the context inspector.
    pub last_prompt: Vec<PromptPart>,
    /// The last turn's summary change.
    pub last_change: SummaryChange,
    /// The number of the last shell event folded in ([`Transcript::fold`]).
    pub seq: u64,
    /// A turn's events that came before the turn was begun here (its
    /// failure may beat `chat_send`'s answer): the newest such chat's.
    #[serde(skip)]
    early: Option<(u64, Vec<ResponseBody>)>,
}

/// The most events kept for a turn not begun yet.
const EARLY_EVENTS: usize = 256;

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
                        writes
                            .chain(std::iter::once(Entry::Message {
                                role: message.role,
                                text: message.content.clone(),
                            }))
                            .chain(message.stopped.then_some(Entry::Stopped))
                    })
                    .collect()
            })
            .unwrap_or_default();
        Self {
            entries,
            ..Self::default()
        }
    }

    /// What a Chat view opened now shows: the stored `session`, then the
    /// window's `last` turn where the file does not hold it yet (under way,
    /// failed, or just ended), as of shell event `seq`.
    pub fn open(session: Option<&ChatSession>, last: Option<&LastTurn>, seq: u64) -> Self {
        let mut transcript = Self::from_session(session);
        transcript.seq = seq;
        let Some(last) = last else {
            return transcript;
        };
        // A saved turn is the file's to show (with its stop, if stopped).
        if !session.is_some_and(|session| last.is_saved_in(session)) {
            transcript
                .entries
                .extend(last.transcript.entries.iter().cloned());
            transcript.streaming.clone_from(&last.transcript.streaming);
        }
        transcript
            .last_prompt
            .clone_from(&last.transcript.last_prompt);
        transcript
            .last_change
            .clone_from(&last.transcript.last_change);
        transcript
    }

    /// Folds a shell event in, once: an event at or before [`Self::seq`]
    /// is already here (it was in the state this was opened from).
    pub fn fold(&mut self, event: ChatEvent) {
        if event.seq <= self.seq {
            return;
        }
        self.seq = event.seq;
        self.apply(event.response.id, event.response.body);
    }

    /// Starts turn `chat` for the developer's `message`.
    pub fn begin(&mut self, chat: u64, message: &str) {
        self.entries.push(Entry::Message {
            role: Role::User,
            text: message.to_owned(),
        });
        self.streaming = Some((chat, String::new()));
        if let Some((id, early)) = self.early.take()
            && id == chat
        {
            for event in early {
                self.apply(chat, event);
            }
        }
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
            self.keep_early(chat, event);
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

    /// Keeps a turn's `event` of a `chat` not begun here, in case it is
    /// begun next; the events of any earlier such chat are dropped.
    fn keep_early(&mut self, chat: u64, event: ResponseBody) {
        let turns = matches!(
            event,
            ResponseBody::Delta { .. }
                | ResponseBody::Write(_)
                | ResponseBody::ChatDone { .. }
                | ResponseBody::Error { .. }
        );
        if !turns {
            return;
        }
        match &mut self.early {
            Some((id, early)) if *id == chat => {
                if early.len() < EARLY_EVENTS {
                    early.push(event);
                }
            }
            _ => self.early = Some((chat, vec![event])),
        }
    }
}

/// The turn the window started last, as its events left it (the shell
/// keeps it): what a Chat view opened after the turn began shows, though
/// the view was closed while it streamed, failed or ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LastTurn {
    /// The developer's message.
    pub message: String,
    /// When it was sent: a chat file holding the message as written since
    /// holds this turn.
    pub sent: Timestamp,
    /// The turn alone, from its message on.
    pub transcript: Transcript,
}

impl LastTurn {
    /// Turn `chat`, just sent with `message` at `sent`.
    pub fn new(chat: u64, message: &str, sent: Timestamp) -> Self {
        let mut transcript = Transcript::default();
        transcript.begin(chat, message);
        Self {
            message: message.to_owned(),
            sent,
            transcript,
        }
    }

    /// Folds the sidecar's answer `body` to request `id` in.
    pub fn apply(&mut self, id: u64, body: ResponseBody) {
        self.transcript.apply(id, body);
    }

    /// Whether the turn is over (answered, stopped or failed).
    pub fn ended(&self) -> bool {
        self.transcript.streaming.is_none()
    }

    /// Whether `session` holds this turn: its message, written since it
    /// was sent.
    pub fn is_saved_in(&self, session: &ChatSession) -> bool {
        session.messages.iter().any(|message| {
            message.role == Role::User
                && message.content == self.message
                && message.timestamp >= self.sent
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
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
            stopped: false,
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

    fn at(millis: i64) -> crate::Timestamp {
        crate::Timestamp::from_unix_millis(millis).expect("a time")
    }

    fn chat_of(messages: &[(Role, &str, i64)]) -> ChatSession {
        ChatSession {
            id: "chat-1".into(),
            project_name: String::new(),
            mode: super::super::ChatMode::Planning,
            messages: messages
                .iter()
                .enumerate()
                .map(|(n, (role, content, millis))| crate::chat::ChatMessage {
                    id: n.to_string(),
                    role: *role,
                    content: (*content).to_owned(),
                    timestamp: at(*millis),
                    writes: Vec::new(),
                    stopped: false,
                    extra: Default::default(),
                })
                .collect(),
            summary: None,
            created_at: at(0),
            updated_at: at(0),
            extra: Default::default(),
        }
    }

    fn event(seq: u64, id: u64, body: ResponseBody) -> ChatEvent {
        ChatEvent {
            seq,
            response: crate::sidecar::SidecarResponse { id, body },
        }
    }

    fn done(reply: &str, stopped: bool) -> ResponseBody {
        ResponseBody::ChatDone {
            session: "chat-1".into(),
            reply: reply.into(),
            stopped,
            summary_change: SummaryChange::default(),
            prompt: vec![],
        }
    }

    fn said(role: Role, text: &str) -> Entry {
        Entry::Message {
            role,
            text: text.into(),
        }
    }

    #[test]
    fn a_view_opened_mid_turn_shows_it_and_folds_each_later_event_once() {
        let session = chat_of(&[(Role::User, "First", 10), (Role::Assistant, "One.", 11)]);
        let mut last = LastTurn::new(5, "Second", at(20));
        last.apply(5, ResponseBody::Delta { text: "Par".into() });
        last.apply(
            4,
            ResponseBody::Delta {
                text: "other".into(),
            },
        );
        let mut transcript = Transcript::open(Some(&session), Some(&last), 8);
        assert_eq!(
            transcript.entries,
            [
                said(Role::User, "First"),
                said(Role::Assistant, "One."),
                said(Role::User, "Second")
            ]
        );
        assert_eq!(transcript.streaming, Some((5, "Par".into())));
        // Already in what the view opened on (it arrived before event 8).
        transcript.fold(event(8, 5, ResponseBody::Delta { text: "Par".into() }));
        transcript.fold(event(9, 5, ResponseBody::Delta { text: "t.".into() }));
        transcript.fold(event(10, 5, done("Part.", false)));
        assert_eq!(transcript.streaming, None);
        assert_eq!(transcript.entries[3], said(Role::Assistant, "Part."));
        assert_eq!(transcript.entries.len(), 4);
        assert_eq!(transcript.seq, 10);
    }

    #[test]
    fn a_saved_last_turn_is_shown_once_with_its_stop_from_the_file() {
        let mut last = LastTurn::new(5, "Again", at(20));
        last.apply(
            5,
            ResponseBody::Delta {
                text: "Half".into(),
            },
        );
        last.apply(5, done("Half", true));
        assert!(last.ended());
        // The same words sent earlier are another turn: this one is not saved.
        let earlier = chat_of(&[(Role::User, "Again", 10), (Role::Assistant, "Yes.", 11)]);
        assert!(!last.is_saved_in(&earlier));
        let unsaved = Transcript::open(Some(&earlier), Some(&last), 3);
        assert_eq!(
            unsaved.entries[2..],
            [
                said(Role::User, "Again"),
                said(Role::Assistant, "Half"),
                Entry::Stopped
            ]
        );
        let mut saved = chat_of(&[
            (Role::User, "Again", 10),
            (Role::Assistant, "Yes.", 11),
            (Role::User, "Again", 20),
            (Role::Assistant, "Half", 21),
        ]);
        saved.messages[3].stopped = true;
        assert!(last.is_saved_in(&saved));
        let opened = Transcript::open(Some(&saved), Some(&last), 3);
        assert_eq!(opened.entries.len(), 5);
        assert_eq!(opened.entries[4], Entry::Stopped);
        assert_eq!(opened.streaming, None);
    }

    #[test]
    fn a_failed_last_turn_keeps_the_message_and_why() {
        let mut last = LastTurn::new(2, "Plan the login", at(30));
        last.apply(
            2,
            ResponseBody::Error {
                code: crate::ErrorCode::Model,
                message: "Claude Code is not signed in".into(),
            },
        );
        assert!(last.ended());
        let opened = Transcript::open(None, Some(&last), 1);
        assert_eq!(
            opened.entries,
            [
                said(Role::User, "Plan the login"),
                Entry::Failed {
                    message: "Claude Code is not signed in".into()
                }
            ]
        );
    }

    #[test]
    fn a_turn_whose_failure_beats_its_begin_still_fails() {
        let mut transcript = Transcript::default();
        transcript.apply(
            6,
            ResponseBody::Error {
                code: crate::ErrorCode::Model,
                message: "no model".into(),
            },
        );
        // Another request's answer came since: chat 6's events are let go.
        transcript.apply(
            7,
            ResponseBody::Delta {
                text: "other".into(),
            },
        );
        transcript.begin(6, "hello");
        assert_eq!(transcript.streaming, Some((6, String::new())));
        let mut transcript = Transcript::default();
        transcript.apply(6, ResponseBody::Delta { text: "Hal".into() });
        transcript.apply(
            6,
            ResponseBody::Error {
                code: crate::ErrorCode::Model,
                message: "no model".into(),
            },
        );
        transcript.begin(6, "hello");
        assert_eq!(transcript.streaming, None);
        assert_eq!(
            transcript.entries,
            [
                said(Role::User, "hello"),
                said(Role::Assistant, "Hal"),
                Entry::Failed {
                    message: "no model".into()
                }
            ]
        );
    }
}
