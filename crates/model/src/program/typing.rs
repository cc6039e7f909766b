//! The developer's typing into a session, kept in order: one send to the
//! shell at a time per session, and whatever was typed while it was under
//! way goes as the next send, in one batch. Sends that ran side by side
//! could reach the program in any order (each is a call of its own to the
//! shell and a connection of its own to the session host).

use std::collections::VecDeque;

use super::view::Typing;

/// The most pieces one send carries (text typed in a row is one piece);
/// the rest wait for the next send.
pub const MAX_BATCH: usize = 64;

/// One session's typing not yet sent, and whether a send is under way.
#[derive(Debug, Default)]
pub struct TypingQueue {
    waiting: VecDeque<Typing>,
    sending: bool,
}

impl TypingQueue {
    /// Takes what the developer typed: the batch to send now when no send
    /// is under way, else nothing (it goes with the next one).
    pub fn push(&mut self, typed: Typing) -> Option<Vec<Typing>> {
        self.waiting.push_back(typed);
        if self.sending {
            return None;
        }
        self.next_batch()
    }

    /// The send under way was done: the next batch to send, if anything
    /// was typed meanwhile.
    pub fn sent(&mut self) -> Option<Vec<Typing>> {
        self.sending = false;
        self.next_batch()
    }

    /// The send under way failed: what was typed after it is dropped (it
    /// followed what the program never got); how many pieces were.
    pub fn failed(&mut self) -> usize {
        self.sending = false;
        let dropped = self.waiting.len();
        self.waiting.clear();
        dropped
    }

    /// Whether a send is under way.
    pub fn is_sending(&self) -> bool {
        self.sending
    }

    /// What waits, in order, as one batch: text typed in a row joined into
    /// one piece, at most [`MAX_BATCH`] pieces.
    fn next_batch(&mut self) -> Option<Vec<Typing>> {
        let mut batch: Vec<Typing> = Vec::new();
        while let Some(typed) = self.waiting.pop_front() {
            let full = batch.len() == MAX_BATCH;
            match batch.last_mut() {
                Some(last) if last.is_plain_text() && typed.is_plain_text() => {
                    if let (Some(text), Some(more)) = (last.text.as_mut(), typed.text) {
                        text.push_str(&more);
                    }
                }
                _ if full => {
                    self.waiting.push_front(typed);
                    break;
                }
                _ => batch.push(typed),
            }
        }
        self.sending = !batch.is_empty();
        self.sending.then_some(batch)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use proptest::prelude::*;

    use super::*;

    /// The bytes-level meaning of pieces: what reaches the program, in
    /// order (text joined, keys and lines as markers).
    fn typed_out(pieces: &[Typing]) -> Vec<String> {
        let mut out = Vec::new();
        for piece in pieces {
            if let Some(key) = &piece.key {
                out.push(format!("<{key}>"));
            }
            if let Some(text) = &piece.text {
                out.extend(text.chars().map(String::from));
                if piece.line {
                    out.push(format!(
                        "<line{}>",
                        if piece.secret { " secret" } else { "" }
                    ));
                }
            }
        }
        out
    }

    #[test]
    fn keys_typed_while_a_send_is_under_way_go_next_as_one_batch() {
        let mut queue = TypingQueue::default();
        assert_eq!(
            queue.push(Typing::text("p")),
            Some(vec![Typing::text("p")]),
            "the first key goes at once"
        );
        for key in ["r", "i", "n", "t"] {
            assert_eq!(queue.push(Typing::text(key)), None, "one send at a time");
        }
        assert_eq!(queue.push(Typing::key("left")), None);
        assert_eq!(queue.push(Typing::text("(")), None);
        assert_eq!(
            queue.sent(),
            Some(vec![
                Typing::text("rint"),
                Typing::key("left"),
                Typing::text("(")
            ]),
            "what was typed meanwhile, in order, text in a row joined"
        );
        assert_eq!(queue.sent(), None, "nothing more waits");
        assert!(!queue.is_sending());
        assert_eq!(
            queue.push(Typing::text("x")),
            Some(vec![Typing::text("x")]),
            "idle again: the next key goes at once"
        );
    }

    #[test]
    fn lines_and_secrets_are_never_joined_with_keys() {
        let mut queue = TypingQueue::default();
        queue.push(Typing::text("a"));
        queue.push(Typing::text("b"));
        queue.push(Typing::line("hunter2", true));
        queue.push(Typing::text("c"));
        queue.push(Typing::line("ls", false));
        assert_eq!(
            queue.sent(),
            Some(vec![
                Typing::text("b"),
                Typing::line("hunter2", true),
                Typing::text("c"),
                Typing::line("ls", false),
            ])
        );
    }

    #[test]
    fn a_failed_send_drops_what_was_typed_after_it() {
        let mut queue = TypingQueue::default();
        queue.push(Typing::text("a"));
        queue.push(Typing::text("b"));
        queue.push(Typing::key("enter"));
        assert_eq!(queue.failed(), 2);
        assert!(!queue.is_sending());
        assert_eq!(queue.sent(), None, "nothing waits after a failure");
        assert_eq!(queue.push(Typing::text("c")), Some(vec![Typing::text("c")]));
    }

    #[test]
    fn a_long_run_of_keys_goes_in_batches_of_the_most_pieces() {
        let mut queue = TypingQueue::default();
        queue.push(Typing::key("up"));
        for _ in 0..MAX_BATCH + 3 {
            queue.push(Typing::key("down"));
        }
        assert_eq!(queue.sent().map(|batch| batch.len()), Some(MAX_BATCH));
        assert_eq!(queue.sent().map(|batch| batch.len()), Some(3));
        assert_eq!(queue.sent(), None);
    }

    fn piece() -> impl Strategy<Value = Typing> {
        prop_oneof![
            "[a-z()' ]{1,2}".prop_map(Typing::text),
            prop::sample::select(vec!["enter", "left", "ctrl-c"]).prop_map(Typing::key),
            ("[a-z]{0,3}", any::<bool>()).prop_map(|(text, secret)| Typing::line(text, secret)),
        ]
    }

    proptest! {
        /// However typing and the sends' completions interleave, the
        /// program gets exactly what was typed, in order, and at most one
        /// send is ever under way.
        #[test]
        fn the_program_gets_what_was_typed_in_order(
            steps in prop::collection::vec(prop::option::of(piece()), 0..200)
        ) {
            let mut queue = TypingQueue::default();
            let mut typed = Vec::new();
            let mut delivered = Vec::new();
            let mut under_way: Option<Vec<Typing>> = None;
            for step in steps {
                match step {
                    Some(piece) => {
                        typed.push(piece.clone());
                        if let Some(batch) = queue.push(piece) {
                            prop_assert!(under_way.is_none(), "two sends at once");
                            prop_assert!(!batch.is_empty() && batch.len() <= MAX_BATCH);
                            under_way = Some(batch);
                        }
                    }
                    None => {
                        if let Some(batch) = under_way.take() {
                            delivered.extend(batch);
                            under_way = queue.sent();
                        }
                    }
                }
                prop_assert_eq!(queue.is_sending(), under_way.is_some());
            }
            while let Some(batch) = under_way.take() {
                delivered.extend(batch);
                under_way = queue.sent();
            }
            prop_assert_eq!(typed_out(&delivered), typed_out(&typed));
        }
    }
}
