//! `switchboard`: the command agents and scripts use to reach the workspace.
//!
//! Thin glue: parse arguments, call `switchboard-store`, print. Exit code 0
//! on success, 1 with a one-line `error: …` on stderr otherwise.

mod args;
mod chat;
mod commands;
mod knowledge;

use clap::Parser;

fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("SWITCHBOARD_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let cli = args::Cli::parse();
    match commands::run(cli) {
        Ok(true) => std::process::ExitCode::SUCCESS,
        Ok(false) => std::process::ExitCode::FAILURE,
        Err(error) => {
            eprintln!("error: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
