//! What the developer has written but not sent, kept by key for the
//! window's life: a view left and opened again finds its boxes and forms as
//! they were. The window provides one store per kind of value —
//! `Kept<String>` for text boxes (a `Composer`'s `keep` key, a tape
//! exchange's unsaved note), `Kept<Draft>` for the inbox's feedback forms
//! (by delivery).

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
}

impl<T: Clone + PartialEq + Send + Sync + 'static> Default for Kept<T> {
    fn default() -> Self {
        Self::new()
    }
}
