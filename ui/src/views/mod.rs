//! One module per view of the window.

pub mod agents;
pub mod chat;
pub mod composer;
pub mod edit_line;
pub mod everywhere;
pub mod inbox;
pub mod knowledge;
pub mod launches;
pub mod markdown;
pub mod save;
pub mod settings;
pub mod tapes;
pub mod team;
pub mod terminal;
pub mod terminals;
pub mod this_browser;
