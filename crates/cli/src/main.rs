//! `switchboard`: the command agents and scripts use to reach the workspace.
//!
//! Thin glue: parse arguments, call `switchboard-store`, print. Exit code 0
//! on success; 1 when a command ran but reports a negative outcome; on a
//! failure `error[CODE]: …` on stderr (or `{"error": …}` under `--json`)
//! and the code's exit status (see `failure::exit_code`).

mod args;
mod cmd;
mod commands;
mod failure;
mod front;
mod mcp;
mod pipe;
mod serve;

use clap::Parser;

fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("SWITCHBOARD_LOG").unwrap_or_else(
                |_| // rmcp logs every error reply it sends at WARN; the reply says it.
                tracing_subscriber::EnvFilter::new("warn,rmcp::service=error"),
            ),
        )
        .init();
    pipe::end_quietly_on_closed_stdout();
    let cli = args::Cli::parse();
    let json = cli.command.wants_json();
    match commands::run(cli) {
        Ok(status) => std::process::ExitCode::from(status),
        Err(error) if pipe::is_closed_stdout(&error) => pipe::end_as_closed_pipe(),
        Err(error) => std::process::ExitCode::from(failure::report(&error, json)),
    }
}
