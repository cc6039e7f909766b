//! `switchboard learn`, `validate` and `search`: knowledge from the
//! terminal.

use std::{
    io::{Read, Write},
    path::PathBuf,
};

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use switchboard_model::{
    knowledge::search::{HitKind, SearchQuery},
    terminal_text::printable,
};
use switchboard_store::{Workspace, clock, knowledge, search::search_workspace};

/// Appends a learning; prints where it landed (`path:line`).
pub fn learn(workspace: &Workspace, args: LearnArgs) -> Result<()> {
    let body = match args.body {
        Some(body) => body,
        None => {
            let mut body = String::new();
            std::io::stdin()
                .read_to_string(&mut body)
                .context("could not read the body from stdin")?;
            body
        }
    };
    let appended =
        knowledge::learnings::append(workspace, &args.category, &args.title, &body, clock::now())?;
    println!("{}:{}", appended.path, appended.line);
    Ok(())
}

/// Runs the checks; `Ok(false)` (exit 1) while any problem remains.
pub fn validate(workspace: &Workspace, args: ValidateArgs) -> Result<bool> {
    let only = args.path.map(|path| {
        if path.is_absolute() {
            path
        } else {
            workspace.root().join(path)
        }
    });
    let report =
        knowledge::playbooks::validate(workspace, only.as_deref(), args.fix, clock::now())?;
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string(&report)?)?;
    } else {
        for file in &report.fixed {
            writeln!(out, "fixed {}", printable(file))?;
        }
        for problem in &report.problems {
            let bullet = problem
                .bullet
                .as_ref()
                .map(|id| format!(" [{id}]"))
                .unwrap_or_default();
            let hint = if problem.fixable { " (--fix)" } else { "" };
            let line = format!("{}{bullet}: {}{hint}", problem.file, problem.message);
            writeln!(out, "{}", printable(&line))?;
        }
        writeln!(
            out,
            "{} playbook(s) checked, {} problem(s){}",
            report.checked,
            report.problems.len(),
            if report.fixed.is_empty() {
                String::new()
            } else {
                format!(", {} fixed", report.fixed.len())
            }
        )?;
    }
    Ok(report.problems.is_empty())
}

/// Prints the best hits: `path:line  kind  title` and the snippet, or JSON.
pub fn search(workspace: &Workspace, args: SearchArgs) -> Result<()> {
    let query = SearchQuery {
        kinds: args
            .kinds
            .iter()
            .map(|kind| match kind {
                KindArg::Learning => HitKind::Learning,
                KindArg::Bullet => HitKind::Bullet,
                KindArg::Profile => HitKind::Profile,
                KindArg::Memory => HitKind::Memory,
                KindArg::Spec => HitKind::Spec,
            })
            .collect(),
        ..SearchQuery::new(args.query.join(" "), args.limit)
    };
    let results = search_workspace(workspace, &query, clock::now())?;
    for warning in &results.warnings {
        eprintln!("warning: {warning}");
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string(&results)?)?;
        return Ok(());
    }
    for hit in &results.hits {
        let place = if hit.line > 0 {
            format!("{}:{}", hit.path, hit.line)
        } else {
            hit.path.clone()
        };
        let votes = if hit.kind == HitKind::Bullet {
            format!("  +{} -{}", hit.helpful, hit.harmful)
        } else {
            String::new()
        };
        // Titles and snippets are the workspace's files' (a cloned
        // repository's): shown, never obeyed.
        let line = format!("{place}  {}  {}{votes}", hit.kind.as_str(), hit.title);
        writeln!(out, "{}", printable(&line))?;
        writeln!(out, "    {}", printable(&hit.snippet.replace('\n', " ")))?;
    }
    Ok(())
}

/// The kinds of knowledge, for `--kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KindArg {
    /// Learnings entries.
    Learning,
    /// Playbook bullets.
    Bullet,
    /// Delia profiles.
    Profile,
    /// Delia memories.
    Memory,
    /// Spec and plan files.
    Spec,
}

/// `switchboard search`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// What to look for.
    #[arg(required = true)]
    pub query: Vec<String>,
    /// Only these kinds (repeatable).
    #[arg(long = "kind", value_enum)]
    pub kinds: Vec<KindArg>,
    /// At most this many hits.
    #[arg(long, default_value_t = 10)]
    pub limit: usize,
    /// One JSON document instead of lines.
    #[arg(long)]
    pub json: bool,
}

/// `switchboard learn`.
#[derive(Debug, Args)]
pub struct LearnArgs {
    /// The category (its file is `<category>.md`).
    #[arg(long)]
    pub category: String,
    /// The entry's title.
    #[arg(long)]
    pub title: String,
    /// The body; read from stdin when absent.
    #[arg(long)]
    pub body: Option<String>,
}

/// `switchboard validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// One playbook file to check (default: every playbook, plus profiles
    /// and memories).
    pub path: Option<PathBuf>,
    /// Migrate v1 files to v2 and give id-less bullets an id.
    #[arg(long)]
    pub fix: bool,
    /// One JSON document instead of lines.
    #[arg(long)]
    pub json: bool,
}
