//! One module per command (or family of commands): its arguments as clap
//! parses them and the function that runs it; `crate::commands` routes
//! the parsed command line to them.

pub mod agent;
pub mod agents;
pub mod chat;
pub mod connect;
pub mod hook;
pub mod hooks;
pub mod inbox;
pub mod knowledge;
pub mod mcp;
pub mod open;
pub mod play;
pub mod probe;
pub mod rec;
pub mod run;
pub mod serve;
pub mod session;
pub mod tapes;
pub mod team;
