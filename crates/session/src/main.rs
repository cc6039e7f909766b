//! `switchboard-session-host`: the process that holds program sessions.
//! Clients start it on demand ([`switchboard_session::Client`]); it prints
//! `ready` on stdout once it listens, logs its own errors (never a
//! program's output or input) to stderr, and ends a while after its last
//! session is gone.

use std::{io::Write, process::ExitCode};

use switchboard_model::program::Limits;
use switchboard_session::{host, runtime::RuntimeDir};

fn main() -> ExitCode {
    if std::env::args()
        .nth(1)
        .is_some_and(|arg| arg == "--version")
    {
        println!("switchboard-session-host {}", env!("CARGO_PKG_VERSION"));
        return ExitCode::SUCCESS;
    }
    // Out of the starter's session: its terminal's signals and hang-up
    // are not ours.
    let _ = nix::unistd::setsid();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("SWITCHBOARD_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let runtime = match RuntimeDir::locate() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("switchboard-session-host: {error}");
            return ExitCode::from(2);
        }
    };
    // The settings file's session limits under their variables.
    let limits = Limits::default()
        .with_settings(&switchboard_store::settings::effective())
        .with_host_env(|name| std::env::var(name).ok());
    let built = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build();
    let runtime_threads = match built {
        Ok(threads) => threads,
        Err(error) => {
            eprintln!("switchboard-session-host: {error}");
            return ExitCode::FAILURE;
        }
    };
    let served = runtime_threads.block_on(host::serve(runtime, limits, || {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(b"ready\n").and_then(|()| out.flush());
    }));
    match served {
        Ok(served) => {
            tracing::info!(?served, "session host ends");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("switchboard-session-host: {error}");
            ExitCode::FAILURE
        }
    }
}
