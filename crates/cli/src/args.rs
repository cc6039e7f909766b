//! The command line, as clap parses it.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Switchboard: publish results and questions to the developer's inbox.
#[derive(Debug, Parser)]
#[command(name = "switchboard", version, about)]
pub struct Cli {
    /// The workspace folder (default: the current directory).
    #[arg(short = 'C', long, global = true, value_name = "PATH")]
    pub workspace: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Publish a result to the inbox and print its id.
    Deliver(DeliverArgs),
    /// List deliveries, newest first.
    List(ListArgs),
}

/// `switchboard deliver`.
#[derive(Debug, Args)]
pub struct DeliverArgs {
    /// One-line title shown in the inbox.
    #[arg(long)]
    pub title: String,
    /// The body text (default: read from stdin).
    #[arg(long, conflicts_with = "content_file")]
    pub content: Option<String>,
    /// Read the body from this file.
    #[arg(long, value_name = "PATH")]
    pub content_file: Option<PathBuf>,
    /// The body's markup.
    #[arg(long = "type", value_enum, default_value_t = Markup::Markdown)]
    pub markup: Markup,
    /// Print the whole stored record as JSON instead of the id.
    #[arg(long)]
    pub json: bool,
}

/// The markup of a body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Markup {
    /// CommonMark with GitHub extensions.
    Markdown,
    /// HTML, shown sandboxed.
    Html,
}

/// `switchboard list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Print JSON (an array of records) instead of a table.
    #[arg(long)]
    pub json: bool,
}
