//! A harness for driving the real Switchboard window: an Xvfb display, a
//! `tauri-driver` WebDriver server, and WebDriver sessions that launch the
//! built app on a workspace. Used by the end-to-end tests and the window
//! benchmarks alike.
//!
//! Nothing here skips: a missing tool is an error that names the setup step.

#![allow(clippy::disallowed_methods)] // Test and build code reads the files it made.
mod binaries;
pub mod browser;
mod display;
mod driver;
pub mod measure;
pub mod memory;
pub mod pages;
pub mod process;
pub mod project;
mod session;

pub use binaries::Binaries;
pub use display::Display;
pub use driver::Driver;
pub use session::{Session, WAIT};
