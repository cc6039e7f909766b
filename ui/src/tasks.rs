//! The two kinds of background work a view starts.
//!
//! - [`fetch`]: reading what a view shows. It runs under the view's owner
//!   and is cancelled when the view is left, so it never touches the view's
//!   signals after they are gone.
//! - [`act`]: carrying out what the developer asked (an answer, a save, a
//!   send). It always runs to its end, even when the part of the view that
//!   started it closes at once (an inline editor on Enter); after its await
//!   it only sets signals, which does nothing once they are gone, never
//!   reads them, and runs callbacks with `try_run` (running one that is
//!   gone is a panic).

use std::future::Future;

/// Starts a read for the current view; cancelled with it.
pub fn fetch(task: impl Future<Output = ()> + 'static) {
    leptos::task::spawn_local_scoped_with_cancellation(task);
}

/// Starts the developer's action; it completes whatever the view does.
pub fn act(task: impl Future<Output = ()> + 'static) {
    leptos::task::spawn_local(task);
}
