//! The message being written in the chat: kept for the window's life, so
//! leaving the view to answer an agent loses nothing, and given back to
//! the box when the turn it was sent in fails, to send again.

use leptos::prelude::*;
use switchboard_model::sidecar::ResponseBody;

use crate::events;

/// The chat's draft and the turn sent last.
#[derive(Debug, Clone, Copy)]
pub struct ChatDraft {
    /// What is written.
    pub text: RwSignal<String>,
    /// The turn sent last and its message, until it ends.
    sent: StoredValue<Option<(u64, String)>>,
    /// A turn that failed before its sending was answered (the newest).
    failed_first: StoredValue<Option<u64>>,
}

impl ChatDraft {
    /// An empty draft that follows the chat's events for the window's
    /// life (created under the window's own owner).
    pub fn follow() -> Self {
        let draft = Self {
            text: RwSignal::new(String::new()),
            sent: StoredValue::new(None),
            failed_first: StoredValue::new(None),
        };
        events::on_sidecar(move |event| match event.response.body {
            ResponseBody::Error { .. } => draft.failed(event.response.id),
            ResponseBody::ChatDone { .. } => draft.ended(event.response.id),
            _ => {}
        });
        draft
    }

    /// Turn `chat` went out with `message`: the box is emptied, unless the
    /// turn has already failed.
    pub fn sent(self, chat: u64, message: String) {
        if self.failed_first.get_value() == Some(chat) {
            self.failed_first.set_value(None);
            return;
        }
        self.sent.set_value(Some((chat, message)));
        self.text.set(String::new());
    }

    /// Turn `chat` was answered.
    fn ended(self, chat: u64) {
        if self
            .sent
            .with_value(|sent| sent.as_ref().is_some_and(|(id, _)| *id == chat))
        {
            self.sent.set_value(None);
        }
    }

    /// Turn `chat` failed: its message comes back, unless something new
    /// has been written since.
    fn failed(self, chat: u64) {
        let message = self.sent.try_update_value(|sent| match sent.take() {
            Some((id, message)) if id == chat => Some(message),
            other => {
                *sent = other;
                None
            }
        });
        match message.flatten() {
            Some(message) => {
                if self.text.with_untracked(|text| text.trim().is_empty()) {
                    self.text.set(message);
                }
            }
            None => self.failed_first.set_value(Some(chat)),
        }
    }
}
