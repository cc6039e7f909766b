//! `switchboard-app [WORKSPACE]`: opens the Switchboard window on a workspace
//! folder (default: the current directory).

// No console window on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() -> std::process::ExitCode {
    switchboard_app::run()
}
