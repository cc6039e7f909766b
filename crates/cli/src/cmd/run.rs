//! `switchboard run`: ClaudeControl's one-shot run — a program on a
//! pseudo-terminal, answered through `--expect`/`--send` pairs, its output
//! printed and its exit status returned; past `--timeout` it is ended, and
//! it never outlives this command.

use crate::failure::{BadInput, refuse};
use std::io::Write;

use anyhow::{Context, Result};
use clap::Args;
use serde_json::json;
use switchboard_session::{
    protocol::Pattern,
    run::{RunRequest, Step},
};

use crate::cmd::session::TIMED_OUT;

/// `switchboard run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Wait for this (a regex, or text with `--exact`) before the send
    /// of the same position (repeatable, in order).
    #[arg(long = "expect", value_name = "PATTERN")]
    pub expect: Vec<String>,
    /// The line to type once the expect of the same position showed.
    #[arg(long = "send", value_name = "TEXT")]
    pub send: Vec<String>,
    /// The patterns are plain text.
    #[arg(long)]
    pub exact: bool,
    /// Seconds for the whole run; then the program is ended (exit 124).
    #[arg(long, default_value_t = 30.0)]
    pub timeout: f64,
    /// One JSON object: output, exit code or signal, whether time ran out.
    #[arg(long)]
    pub json: bool,
    /// The program and its arguments.
    #[arg(last = true, required = true, value_name = "PROGRAM ARGS")]
    pub command: Vec<String>,
}

/// Runs the program; the process's exit status (the program's; 128 + a
/// signal's number; 124 when time ran out).
pub fn run(args: RunArgs) -> Result<u8> {
    if args.send.len() > args.expect.len() {
        refuse!("each --send needs an --expect before it (what to wait for)");
    }
    if !args.timeout.is_finite() || args.timeout <= 0.0 {
        refuse!("--timeout must be a positive number of seconds");
    }
    let steps = args
        .expect
        .iter()
        .enumerate()
        .map(|(index, pattern)| Step {
            expect: if args.exact {
                Pattern::Exact(pattern.clone())
            } else {
                Pattern::Regex(pattern.clone())
            },
            send: args.send.get(index).cloned(),
        })
        .collect();
    let mut command = args.command.into_iter();
    let program = command.next().bad_input("no program to run")?;
    let request = RunRequest {
        program,
        args: command.collect(),
        cwd: std::env::current_dir()
            .context("could not read the current directory")?
            .display()
            .to_string(),
        env: std::env::vars().collect(),
        steps,
        timeout: std::time::Duration::from_secs_f64(args.timeout),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    let ran = runtime
        .block_on(switchboard_session::run::run(request))
        .map_err(|error| {
            let code = match error {
                switchboard_session::run::RunError::Pty(
                    switchboard_session::pty::PtyError::Spawn { .. },
                ) => switchboard_model::ErrorCode::NotFound,
                _ => switchboard_model::ErrorCode::InvalidRequest,
            };
            anyhow::Error::new(switchboard_model::ErrorPayload::new(
                code,
                error.to_string(),
            ))
        })?;
    let status = if ran.timed_out {
        TIMED_OUT
    } else {
        match ran.exit {
            Some(exit) => match (exit.code, exit.signal) {
                (_, Some(signal)) => u8::try_from(128 + signal).unwrap_or(255),
                (Some(code), None) => u8::try_from(code).unwrap_or(1),
                (None, None) => 1,
            },
            None => 1,
        }
    };
    if args.json {
        println!(
            "{}",
            json!({
                "output": String::from_utf8_lossy(&ran.output),
                "exit_code": ran.exit.and_then(|exit| exit.code),
                "signal": ran.exit.and_then(|exit| exit.signal),
                "timed_out": ran.timed_out,
                "unmet_step": ran.unmet,
            })
        );
    } else {
        let mut out = std::io::stdout().lock();
        out.write_all(&ran.output)
            .and_then(|()| out.flush())
            .context("could not write the output")?;
        if let Some(step) = ran.unmet {
            let why = if ran.timed_out {
                "time ran out"
            } else {
                "the output ended"
            };
            eprintln!("(--expect {:?} never showed: {why})", args.expect[step]);
        } else if ran.timed_out {
            eprintln!(
                "(time ran out after {} s; the program was ended)",
                args.timeout
            );
        }
    }
    Ok(status)
}
