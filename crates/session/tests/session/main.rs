//! The session host's tests, in one binary: the host as clients meet it
//! (`host`: a real host process started on demand, real programs on real
//! pseudo-terminals) and its limits and refusals (`limits`), each with a
//! host of its own (`support`).

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.
#![allow(clippy::disallowed_methods)] // Tests read the files they made.

mod host;
mod limits;
mod support;
