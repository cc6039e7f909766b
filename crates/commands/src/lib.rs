//! The commands the window's page calls (`model::ipc`'s `CMD_*`), over the
//! store: one function per command, which the desktop shell's Tauri
//! commands call and `switchboard serve` routes a browser's calls to
//! ([`dispatch`]), so no command has a second implementation. Each takes
//! the workspace the page shows and returns what the page reads.

pub mod agents;
mod dispatch;
pub mod inbox;
pub mod launches;
pub mod pairing;
pub mod tapes;
pub mod team;
pub mod terminals;

pub use dispatch::{BROWSER_COMMANDS, Grants, Reach, START_COMMANDS, TAKE_OVER_COMMANDS, dispatch};
