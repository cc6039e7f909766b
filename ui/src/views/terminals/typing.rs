//! The developer's typing into sessions, sent in the order typed
//! (`model::program::typing`): one send at a time per session, what was
//! typed meanwhile going next as one batch. Kept for the window's life, so
//! a send under way when the view is left still sends what was typed
//! after it, before anything typed once the view is back.

use std::collections::HashMap;

use leptos::prelude::*;
use switchboard_model::program::{
    typing::TypingQueue,
    view::{SessionTypeRequest, Typing},
};

use crate::{ipc, tasks};

/// Each session's typing not yet sent.
#[derive(Clone, Copy)]
pub struct Typist {
    queues: StoredValue<HashMap<String, TypingQueue>, LocalStorage>,
}

impl Typist {
    /// No typing yet; it lives as long as the current owner.
    pub fn new() -> Self {
        Self {
            queues: StoredValue::new_local(HashMap::new()),
        }
    }

    /// Types `typed` into session `id` after everything typed into it
    /// before; `failed` hears why a send failed (what was typed after it
    /// is dropped then).
    pub fn type_in(self, id: &str, typed: Typing, failed: impl Fn(String) + 'static) {
        let Some(mut batch) = self
            .queues
            .try_update_value(|queues| queues.entry(id.to_owned()).or_default().push(typed))
            .flatten()
        else {
            return;
        };
        let id = id.to_owned();
        tasks::act(async move {
            loop {
                let request = SessionTypeRequest {
                    session: id.clone(),
                    typed: batch,
                };
                let sent = ipc::session_type(&request).await;
                let done = sent.is_ok();
                let next = self
                    .queues
                    .try_update_value(|queues| {
                        let queue = queues.entry(id.clone()).or_default();
                        let next = if done {
                            queue.sent()
                        } else {
                            queue.failed();
                            None
                        };
                        if next.is_none() {
                            queues.remove(&id);
                        }
                        next
                    })
                    .flatten();
                if let Err(failure) = sent {
                    failed(failure.message);
                }
                match next {
                    Some(more) => batch = more,
                    None => break,
                }
            }
        });
    }
}

impl Default for Typist {
    fn default() -> Self {
        Self::new()
    }
}
