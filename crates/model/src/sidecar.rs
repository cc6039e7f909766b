//! The sidecar protocol: newline-delimited JSON over the sidecar's stdio.
//!
//! Each request carries an `id` the response echoes, so requests may be
//! pipelined. Versioned by [`PROTOCOL_VERSION`]; a peer seeing another
//! version refuses to talk rather than guess.

use serde::{Deserialize, Serialize};

/// The protocol version both ends must agree on.
pub const PROTOCOL_VERSION: u32 = 1;

/// A request from the app (or CLI) to the sidecar.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SidecarRequest {
    /// Chosen by the caller, echoed in the response.
    pub id: u64,
    /// What is asked.
    #[serde(flatten)]
    pub body: RequestBody,
}

/// The kinds of request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RequestBody {
    /// Liveness and version check.
    Health,
    /// Finish pending work and exit.
    Shutdown,
}

/// A response from the sidecar.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SidecarResponse {
    /// The id of the request answered, or 0 for a line that did not parse.
    pub id: u64,
    /// The answer.
    #[serde(flatten)]
    pub body: ResponseBody,
}

/// The kinds of response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResponseBody {
    /// Answer to [`RequestBody::Health`].
    Health {
        /// The sidecar's protocol version.
        protocol: u32,
        /// The sidecar's package version.
        version: String,
    },
    /// Answer to [`RequestBody::Shutdown`]; the sidecar exits after it.
    ShuttingDown,
    /// The request could not be handled.
    Error {
        /// Why, in words.
        message: String,
    },
}
