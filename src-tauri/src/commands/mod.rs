//! The `#[tauri::command]` adapters, one module per view. Each takes state,
//! calls the store and maps the error to an `ErrorPayload`.

pub mod chat;
pub mod inbox;
pub mod knowledge;
pub mod lifecycle;
pub mod settings;
pub mod theme;
pub mod workspace;
