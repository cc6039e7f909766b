//! Program sessions: interactive programs on pseudo-terminals that agents
//! drive and the developer watches and takes over.
//!
//! Process control is an edge of its own: [`pty`] is the one
//! pseudo-terminal layer (used by `rec`, `play` and the host), [`replay`]
//! stands in for a program from its tapes (`play`'s engine), [`host`] is
//! the session host process that owns the programs' terminals and outlives
//! the commands that start them, [`protocol`] is what it speaks over its
//! private socket ([`runtime`]), and [`client`] is the one way to reach it,
//! used by the CLI, the MCP server and the shell. [`config`] starts a
//! session from ClaudeControl's program configuration and saves one;
//! [`run`] is a session of the caller's own, with no host. What finds out
//! what a program is — investigations, tests, fuzzing — is a client of the
//! host, in `switchboard-probe`.

pub mod client;
pub mod config;
pub mod host;
pub mod protocol;
pub mod pty;
pub mod replay;
pub mod run;
pub mod runtime;

pub use client::{Client, ClientError};
