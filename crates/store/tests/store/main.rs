//! Integration tests of `switchboard-store` on real temp folders.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.
#![allow(clippy::disallowed_methods)] // Tests read the files they made.

mod agents;
mod claude_team;
mod feedback;
mod knowledge;
mod registry;
mod search;
mod tapes;
mod tasks;
mod team;
mod watch;
mod worktrees;
