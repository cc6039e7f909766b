//! `switchboard agents`: what the agents seen here do — who, since when,
//! where, and what they wait on.

use anyhow::Result;
use clap::Args;
use switchboard_model::{age_label, terminal_text::printable};
use switchboard_store::{Workspace, agents, clock, everywhere, registry};

use super::hooks::codex_trust_note;

/// `switchboard agents`.
#[derive(Debug, Args)]
pub struct AgentsArgs {
    /// Every workspace a Switchboard runs on (a window, a server, a
    /// question waiting) on this machine, not only this one.
    #[arg(long)]
    pub all: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Lists the agents: who, what they do and for how long, where, and what
/// they wait on.
pub fn list(workspace: &Workspace, args: &AgentsArgs) -> Result<()> {
    if args.all {
        return list_everywhere(workspace, args.json);
    }
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
            printable(&record.name),
            row.shown.label(),
            age_label(record.since, now),
            printable(record.waiting_on.as_deref().unwrap_or("-")),
            printable(&record.cwd)
        );
    }
    if let Some((_, note)) = &codex_note {
        println!("{note}");
    }
    Ok(())
}

/// The running Switchboards' registrations; what was not taken (a runtime
/// folder that cannot be used, a file that is no registration) is said
/// on stderr, so a list of this workspace alone says why.
pub(super) fn registered() -> registry::Listed {
    let listed = registry::list();
    for problem in &listed.problems {
        eprintln!("warning: {problem}");
    }
    listed
}

/// `switchboard agents --all`: each running workspace, what waits there,
/// and its agents.
fn list_everywhere(workspace: &Workspace, json: bool) -> Result<()> {
    let now = clock::now();
    let lines = everywhere::attention(&registered(), workspace, now);
    if json {
        println!("{}", serde_json::to_string_pretty(&lines)?);
        return Ok(());
    }
    for line in &lines {
        let presences: Vec<&str> = line.presences.iter().map(|p| p.as_str()).collect();
        println!(
            "{}  {}  ({}{}; {} waiting)",
            printable(&line.name),
            printable(&line.workspace),
            if line.current { "this one" } else { "" },
            if presences.is_empty() {
                String::new()
            } else {
                format!(
                    "{}{}",
                    if line.current { ", " } else { "" },
                    presences.join(", ")
                )
            },
            line.waiting()
        );
        for problem in &line.problems {
            println!("  ! {}", printable(&problem.to_string()));
        }
        for question in &line.questions {
            println!(
                "  ? {:<18} {:<11} {:>9}  {}",
                question.id,
                question.mode.as_str(),
                age_label(question.since, now),
                printable(&question.title)
            );
        }
        for row in &line.agents {
            let record = &row.record;
            println!(
                "  {:<12} {:<18} {:<10} {}",
                printable(&record.name),
                row.shown.label(),
                age_label(record.since, now),
                printable(record.waiting_on.as_deref().unwrap_or("-")),
            );
        }
    }
    Ok(())
}
