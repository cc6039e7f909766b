//! End-to-end tests of the real Switchboard window: Xvfb, tauri-driver and
//! WebKitWebDriver drive the built app, exactly as a person would see it.
//!
//! Runs one test at a time (one display, one driver). A missing tool fails
//! the run with the setup step to take; nothing is skipped.

#![allow(clippy::disallowed_methods)] // Test and build code reads the files it made.
mod agents;
mod annotations;
mod chat;
mod everywhere;
mod export;
mod harness;
mod hostile;
mod inbox;
mod instance;
mod knowledge;
mod lifetimes;
mod mcp;
mod navigation;
mod questions;
mod recovery;
mod settings;
mod tapes;
mod team;
mod terminals;
mod theme;

fn main() -> std::process::ExitCode {
    // The test windows, their session host and the workspaces they
    // register live in a runtime folder of this run's own, so a real
    // window open on this machine neither lists them nor answers for them
    // (a hook asks when any window is open). The run goes on in a child
    // given it (the environment is set before any thread starts).
    if std::env::var_os(RUNTIME).is_none() {
        return in_own_runtime();
    }
    let mut arguments = libtest_mimic::Arguments::from_args();
    arguments.test_threads = Some(1);
    let environment = match harness::Environment::start() {
        Ok(environment) => std::sync::Arc::new(environment),
        Err(error) => {
            eprintln!("e2e: could not set up the window test environment: {error:#}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let mut trials = Vec::new();
    trials.extend(inbox::trials(&environment));
    trials.extend(navigation::trials(&environment));
    trials.extend(questions::trials(&environment));
    trials.extend(everywhere::trials(&environment));
    trials.extend(hostile::trials(&environment));
    trials.extend(annotations::trials(&environment));
    trials.extend(theme::trials(&environment));
    trials.extend(recovery::trials(&environment));
    trials.extend(chat::trials(&environment));
    trials.extend(knowledge::trials(&environment));
    trials.extend(lifetimes::trials(&environment));
    trials.extend(mcp::trials(&environment));
    trials.extend(team::trials(&environment));
    trials.extend(tapes::trials(&environment));
    trials.extend(terminals::trials(&environment));
    trials.extend(instance::trials(&environment));
    trials.extend(export::trials(&environment));
    trials.extend(agents::trials(&environment));
    trials.extend(settings::trials(&environment));
    let conclusion = libtest_mimic::run(&arguments, trials);
    drop(environment);
    conclusion.exit_code()
}

/// The runtime folder's variable (`store::runtime::locate`).
const RUNTIME: &str = "SWITCHBOARD_RUNTIME_DIR";

/// Runs this same test binary again with a private runtime folder of its
/// own (0700, removed after); its exit status.
fn in_own_runtime() -> std::process::ExitCode {
    let ran = tempfile::Builder::new()
        .prefix("sb-e2e-")
        .tempdir()
        .and_then(|runtime| {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(runtime.path(), std::fs::Permissions::from_mode(0o700))?;
            let status = std::process::Command::new(std::env::current_exe()?)
                .args(std::env::args_os().skip(1))
                .env(RUNTIME, runtime.path())
                .status()?;
            Ok(status.code())
        });
    match ran {
        Ok(Some(0)) => std::process::ExitCode::SUCCESS,
        Ok(_) => std::process::ExitCode::FAILURE,
        Err(error) => {
            eprintln!("e2e: could not run the tests in a runtime folder of their own: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}
