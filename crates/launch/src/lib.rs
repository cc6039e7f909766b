//! Starting agents — Claude Code and Codex in their own interactive
//! interfaces, each in a program session on the session host (so it
//! outlives whoever started it, shows live in Terminals and can be taken
//! over), in the workspace or a git worktree of its own, with
//! Switchboard's hooks given for that run only — and what follows: their
//! rows, a follow-up typed into their prompt, stopping them, landing or
//! discarding their work. Every edge (the CLI, MCP, the window) calls
//! this; the records and git steps are the store's.

mod error;
mod mind;
mod rows;
mod start;
mod work;

pub use error::LaunchFailure;
pub use mind::mind;
pub use rows::rows;
pub use start::{Caller, start};
pub use work::{diff, discard, merge, send, send_prompt, stop, type_line};
