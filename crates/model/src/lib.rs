//! Switchboard's data types and the pure rules over them.
//!
//! Everything here is plain data plus functions without side effects: no file
//! system, no clock, no threads. The store, the CLI, the shell and the wasm UI
//! all share these types, so what crosses a boundary is defined exactly once.

pub mod agent;
pub mod annotation;
pub mod blocking;
pub mod browser;
pub mod chat;
pub mod delivery;
pub mod error;
pub mod export;
pub mod feedback;
pub mod html;
pub mod id;
pub mod inbox;
pub mod ipc;
pub mod knowledge;
pub mod notice;
pub mod probe;
pub mod process;
pub mod program;
pub mod receipt;
pub mod registry;
#[cfg(feature = "render")]
pub mod render;
pub mod settings;
pub mod sidecar;
pub mod tape;
pub mod task;
pub mod team;
pub mod terminal_text;
pub mod theme;
pub mod time;
pub mod token;

pub use delivery::{
    Content, ContentType, Delivery, DeliveryError, DeliveryMode, DeliveryStatus, NewDelivery,
    ReplyRefusal, sort_newest_first,
};
pub use error::{ErrorCode, ErrorPayload};
pub use id::{EntityId, IdKind, IdParseError};
pub use time::{Timestamp, age_label};
