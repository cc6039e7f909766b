//! The sidecar's tests, in one binary: the real `switchboard-sidecar`
//! process over its stdio (`process`), the model client against a
//! scripted server on loopback (`model_client`), the write allow-list
//! under attack (`allowlist`), and the chat on the real agent CLIs
//! (`agent`).

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.
#![allow(clippy::disallowed_methods)] // Tests read the files they made.

mod agent;
mod allowlist;
mod model_client;
mod process;
