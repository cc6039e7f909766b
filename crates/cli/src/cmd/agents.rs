//! `switchboard agents`: what the agents seen here do — who, since when,
//! where, and what they wait on.

use anyhow::Result;
use clap::Args;
use switchboard_model::age_label;
use switchboard_store::{Workspace, agents, clock};

use super::hooks::codex_trust_note;

/// `switchboard agents`.
#[derive(Debug, Args)]
pub struct AgentsArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Lists the agents: who, what they do and for how long, where, and what
/// they wait on.
pub fn list(workspace: &Workspace, args: &AgentsArgs) -> Result<()> {
    let now = clock::now();
    let rows = agents::list(workspace, now)?;
    let codex_note = codex_trust_note(workspace.root()).filter(|(runs, _)| !runs);
    if args.json {
        // The JSON stays the rows; the note is for the person.
        if let Some((_, note)) = &codex_note {
            eprintln!("{note}");
        }
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(());
    }
    if rows.is_empty() {
        println!("No agent has been seen here (see `switchboard hooks install`).");
        if let Some((_, note)) = &codex_note {
            println!("{note}");
        }
        return Ok(());
    }
    println!(
        "{:<12} {:<18} {:<10} {:<14} FOLDER",
        "AGENT", "STATE", "SINCE", "WAITS ON"
    );
    for row in rows {
        let record = &row.record;
        println!(
            "{:<12} {:<18} {:<10} {:<14} {}",
            record.name,
            row.shown.label(),
            age_label(record.since, now),
            record.waiting_on.as_deref().unwrap_or("-"),
            record.cwd
        );
    }
    if let Some((_, note)) = &codex_note {
        println!("{note}");
    }
    Ok(())
}
