//! `switchboard tapes list|validate`: the tapes folder from the terminal.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Subcommand;
use serde_json::json;
use switchboard_model::tape::{diff, export, validate::validate};
use switchboard_store::{Workspace, tapes::Tapes};

/// `switchboard tapes …`.
#[derive(Debug, Subcommand)]
pub enum TapesCommand {
    /// List the tapes: program, arguments, exchanges; tapes that do not
    /// read are named with line:column and reason.
    List {
        /// The tapes folder (default: `tapes/` in the workspace).
        #[arg(long, value_name = "DIR")]
        tapes: Option<PathBuf>,
        /// One JSON document.
        #[arg(long)]
        json: bool,
    },
    /// Check every tape as ClaudeControl's `tapes validate` does; exits 1
    /// while any finding remains.
    Validate {
        /// The tapes folder (default: `tapes/` in the workspace).
        #[arg(long, value_name = "DIR")]
        tapes: Option<PathBuf>,
        /// Also require pre, input.type, output.chunks and whole delays,
        /// and forbid keys of their own in exchanges, inputs, outputs and
        /// chunks.
        #[arg(long)]
        strict: bool,
        /// One JSON document.
        #[arg(long)]
        json: bool,
    },
    /// Mask secrets in the tapes (ClaudeControl's patterns, across reads and
    /// in inputs): says which tapes hold some; --inplace rewrites them.
    Redact {
        /// The tapes folder (default: `tapes/` in the workspace).
        #[arg(long, value_name = "DIR")]
        tapes: Option<PathBuf>,
        /// Rewrite the tapes that hold secrets (under ClaudeControl's lock).
        #[arg(long)]
        inplace: bool,
    },
    /// How two tapes differ: command, folder, environment, then each
    /// exchange's input and output (volatile values set aside).
    Diff {
        /// The first tape (`program/name`, with or without `.json5`).
        a: String,
        /// The second tape.
        b: String,
        /// The tapes folder (default: `tapes/` in the workspace).
        #[arg(long, value_name = "DIR")]
        tapes: Option<PathBuf>,
    },
    /// Write a tape out in another format.
    Export {
        /// The tape (`program/name`, with or without `.json5`).
        id: String,
        /// As an asciicast v3 recording (asciinema's player plays it), on
        /// stdout.
        #[arg(long, required = true)]
        cast: bool,
        /// The tapes folder (default: `tapes/` in the workspace).
        #[arg(long, value_name = "DIR")]
        tapes: Option<PathBuf>,
    },
}

impl TapesCommand {
    /// Whether the output is for a program.
    pub fn wants_json(&self) -> bool {
        match self {
            Self::List { json, .. } | Self::Validate { json, .. } => *json,
            Self::Redact { .. } | Self::Diff { .. } | Self::Export { .. } => false,
        }
    }
}

fn folder(workspace: &Workspace, given: Option<PathBuf>) -> Tapes {
    match given {
        Some(dir) => Tapes::at(workspace.root().join(dir)),
        None => Tapes::in_workspace(workspace),
    }
}

/// Runs `switchboard tapes …`; `Ok(false)` when validation found problems.
pub fn run(workspace: &Workspace, command: TapesCommand) -> Result<bool> {
    match command {
        TapesCommand::List { tapes, json } => {
            let loaded = folder(workspace, tapes).load()?;
            if json {
                let rows: Vec<_> = loaded
                    .tapes
                    .iter()
                    .map(|tape| {
                        json!({"path": tape.path, "program": tape.tape.meta.program,
                               "args": tape.tape.meta.args, "exchanges": tape.tape.exchanges.len(),
                               "createdAt": tape.tape.meta.created_at})
                    })
                    .collect();
                println!(
                    "{}",
                    serde_json::to_string_pretty(
                        &json!({"tapes": rows, "problems": loaded.problems})
                    )?
                );
                return Ok(true);
            }
            for tape in &loaded.tapes {
                let mut command = vec![tape.tape.meta.program.clone()];
                command.extend(tape.tape.meta.args.iter().cloned());
                println!(
                    "{}  {}  {} exchange(s)",
                    tape.path,
                    command.join(" "),
                    tape.tape.exchanges.len()
                );
            }
            for problem in &loaded.problems {
                eprintln!(
                    "warning: {}:{}:{}: {}",
                    problem.path, problem.line, problem.column, problem.reason
                );
            }
            Ok(true)
        }
        TapesCommand::Validate {
            tapes,
            strict,
            json,
        } => {
            let tapes = folder(workspace, tapes);
            let mut findings = Vec::new();
            let mut checked = 0;
            for (path, file) in tapes.files()? {
                checked += 1;
                let text = switchboard_store::regular::read_to_string_in(
                    tapes.root(),
                    &file,
                    switchboard_store::regular::DATA_LIMIT,
                )
                .with_context(|| format!("could not read {}", file.display()));
                let found = match text {
                    Ok(text) => match validate(&text, strict) {
                        Ok(found) => found
                            .into_iter()
                            .map(|f| (f.line, f.column, format!("{}: {}", f.path, f.reason)))
                            .collect(),
                        Err(error) => vec![(error.line, error.column, error.reason)],
                    },
                    Err(error) => vec![(1, 1, format!("{error:#}"))],
                };
                findings.extend(
                    found
                        .into_iter()
                        .map(|(line, column, reason)| (path.clone(), line, column, reason)),
                );
            }
            if json {
                let rows: Vec<_> = findings
                    .iter()
                    .map(|(path, line, column, reason)| {
                        json!({"path": path, "line": line, "column": column, "reason": reason})
                    })
                    .collect();
                println!(
                    "{}",
                    serde_json::to_string_pretty(&json!({"checked": checked, "findings": rows}))?
                );
            } else {
                for (path, line, column, reason) in &findings {
                    println!("{path}:{line}:{column}: {reason}");
                }
                println!(
                    "{checked} tape(s) checked{}, {} finding(s)",
                    if strict { " strictly" } else { "" },
                    findings.len()
                );
            }
            Ok(findings.is_empty())
        }
        TapesCommand::Redact { tapes, inplace } => {
            let redacted = folder(workspace, tapes).redact(inplace)?;
            for problem in &redacted.problems {
                eprintln!(
                    "warning: {}:{}:{}: {} (left as it is)",
                    problem.path, problem.line, problem.column, problem.reason
                );
            }
            for (path, masked) in &redacted.holding {
                if inplace {
                    println!("{path}: {masked} read(s) or input(s) masked");
                } else {
                    println!("{path}: {masked} read(s) or input(s) hold secrets");
                }
            }
            if !inplace && !redacted.holding.is_empty() {
                println!("run again with --inplace to mask them");
            }
            Ok(true)
        }
        TapesCommand::Diff { a, b, tapes } => {
            let tapes = folder(workspace, tapes);
            let left = tapes.get(&a)?;
            let right = tapes.get(&b)?;
            let lines = diff::diff(&left, &right);
            for line in &lines {
                println!("{line}");
            }
            Ok(lines.is_empty())
        }
        TapesCommand::Export { id, tapes, .. } => {
            let tapes = folder(workspace, tapes);
            let tape = tapes.get(&id)?;
            print!("{}", export::cast(&tape, &id));
            Ok(true)
        }
    }
}
