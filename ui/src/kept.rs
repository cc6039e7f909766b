//! What the developer has written but not sent, kept by key for the
//! window's life: a view left and opened again finds its boxes and forms as
//! they were. The window provides one store per kind of value —
//! `Kept<String>` for text boxes ([`KeptText`]: comments, messages, notes,
//! edits and forms), `Kept<Draft>` for the inbox's feedback forms (by
//! delivery) — and [`Kept::bind`] makes a field's signal of one.

use std::collections::HashMap;

use leptos::prelude::*;

/// Values by key, for the window's life.
#[derive(Debug)]
pub struct Kept<T: Send + Sync + 'static>(StoredValue<HashMap<String, T>>);

impl<T: Send + Sync + 'static> Clone for Kept<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Send + Sync + 'static> Copy for Kept<T> {}

impl<T: Clone + PartialEq + Send + Sync + 'static> Kept<T> {
    /// Nothing kept yet.
    pub fn new() -> Self {
        Self(StoredValue::new(HashMap::new()))
    }

    /// What is kept under `key`.
    pub fn get(self, key: &str) -> Option<T> {
        self.0.with_value(|kept| kept.get(key).cloned())
    }

    /// Keeps `value` under `key`; a `blank` one (nothing written, or sent
    /// and cleared) keeps nothing.
    pub fn keep(self, key: &str, value: T, blank: &T) {
        self.0.update_value(|kept| {
            if &value == blank {
                kept.remove(key);
            } else {
                kept.insert(key.to_owned(), value);
            }
        });
    }

    /// Forgets what is kept under `key` (it was sent).
    pub fn forget(self, key: &str) {
        self.0.update_value(|kept| {
            kept.remove(key);
        });
    }

    /// A signal for the value under `key`: it starts from what is kept
    /// (else `initial`), and each change that leaves it different from
    /// `initial` is kept (one back at `initial` keeps nothing).
    pub fn bind(self, key: String, initial: T) -> RwSignal<T> {
        let value = RwSignal::new(self.get(&key).unwrap_or_else(|| initial.clone()));
        Effect::new(move |_| value.with(|now| self.keep(&key, now.clone(), &initial)));
        value
    }
}

impl<T: Clone + PartialEq + Send + Sync + 'static> Default for Kept<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// A text field's value kept for the window's life under a key.
#[derive(Debug, Clone, Copy)]
pub struct KeptText {
    /// The value, bound to the field.
    pub text: RwSignal<String>,
    key: StoredValue<String>,
    kept: Option<Kept<String>>,
}

impl KeptText {
    /// The window's [`Kept<String>`] bound under `key` ([`Kept::bind`]);
    /// outside a window (none provided) a plain signal.
    pub fn new(key: String, initial: String) -> Self {
        let kept = use_context::<Kept<String>>();
        let text = match kept {
            Some(kept) => kept.bind(key.clone(), initial),
            None => RwSignal::new(initial),
        };
        Self {
            text,
            key: StoredValue::new(key),
            kept,
        }
    }

    /// Forgets what is kept (it was saved or given up; also once the
    /// field is gone); the field keeps its value until it changes.
    pub fn forget(self) {
        if let Some(kept) = self.kept {
            self.key.try_with_value(|key| kept.forget(key));
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn what_is_written_is_kept_by_key_and_a_blank_or_sent_one_is_not() {
        let kept = Kept::<String>::new();
        kept.keep("comment:d_1", "half a thought".into(), &String::new());
        kept.keep("comment:d_2", "another".into(), &String::new());
        assert_eq!(kept.get("comment:d_1").as_deref(), Some("half a thought"));
        // Cleared back to blank: nothing kept.
        kept.keep("comment:d_1", String::new(), &String::new());
        assert_eq!(kept.get("comment:d_1"), None);
        // Sent: forgotten; the other key is untouched.
        kept.forget("comment:d_2");
        assert_eq!(kept.get("comment:d_2"), None);
        kept.keep("note", "x".into(), &"x".to_owned());
        assert_eq!(kept.get("note"), None, "the initial value is blank too");
    }
}
