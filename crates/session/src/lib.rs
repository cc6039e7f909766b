//! Program sessions: interactive programs on pseudo-terminals that agents
//! drive and the developer watches and takes over.
//!
//! Process control is an edge of its own: [`pty`] is the one
//! pseudo-terminal layer (used by `rec`, `play` and the host), [`host`] is
//! the session host process that owns the programs' terminals and outlives
//! the commands that start them, [`protocol`] is what it speaks over its
//! private socket ([`runtime`]), and [`client`] is the one way to reach it,
//! used by the CLI, the MCP server and the shell.

pub mod client;
pub mod config;
pub mod host;
pub mod probe;
pub mod protocol;
pub mod pty;
pub mod run;
pub mod runtime;

pub use client::{Client, ClientError};
