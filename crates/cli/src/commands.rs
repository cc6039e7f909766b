//! One function per subcommand, each a few lines over `switchboard-store`.

use std::io::Read;

use anyhow::{Context, Result};
use switchboard_model::{ContentType, DeliveryMode, NewDelivery, age_label};
use switchboard_store::{Workspace, clock, deliveries};

use crate::args::{Cli, Command, DeliverArgs, ListArgs, Markup};

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    let root = match cli.workspace {
        Some(path) => path,
        None => std::env::current_dir().context("could not read the current directory")?,
    };
    let workspace = Workspace::open(&root)?;
    match cli.command {
        Command::Deliver(args) => deliver(&workspace, args),
        Command::List(args) => list(&workspace, args),
    }
}

fn deliver(workspace: &Workspace, args: DeliverArgs) -> Result<()> {
    let body = match (args.content, &args.content_file) {
        (Some(text), _) => text,
        (None, Some(path)) => std::fs::read_to_string(path)
            .with_context(|| format!("could not read --content-file {}", path.display()))?,
        (None, None) => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .context("could not read the body from stdin")?;
            text
        }
    };
    anyhow::ensure!(!args.title.trim().is_empty(), "--title must not be empty");
    let new = NewDelivery {
        mode: DeliveryMode::Passive,
        title: args.title,
        content_type: match args.markup {
            Markup::Markdown => ContentType::Markdown,
            Markup::Html => ContentType::Html,
        },
        body,
        feedback_schema: None,
    };
    let appended = deliveries::append(workspace, new, clock::now())?;
    if let Some(backup) = &appended.backed_up {
        eprintln!(
            "warning: deliveries.json did not parse; it was kept as {}",
            backup.display()
        );
    }
    if args.json {
        println!("{}", serde_json::to_string(&appended.delivery)?);
    } else {
        println!("{}", appended.delivery.id);
    }
    Ok(())
}

fn list(workspace: &Workspace, args: ListArgs) -> Result<()> {
    let listed = deliveries::list(workspace)?;
    for warning in &listed.warnings {
        eprintln!("warning: {warning}");
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&listed.deliveries)?);
        return Ok(());
    }
    let now = clock::now();
    for delivery in &listed.deliveries {
        println!(
            "{:<18} {:<12} {:<18} {:>9}  {}",
            delivery.id,
            delivery.mode.as_str(),
            delivery.status.as_str(),
            age_label(delivery.created_at, now),
            delivery.title
        );
    }
    Ok(())
}
