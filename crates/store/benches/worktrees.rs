//! A started agent's worktree on a repository of 10,000 files, printed as
//! a table (run by `make bench`): `worktrees::create` (its checks, the
//! base resolved, the branch made, the folder's `.gitignore`) beside `git
//! worktree add -b` alone, paired in the same run.

#![allow(clippy::unwrap_used)] // A benchmark: failing loudly is right.
#![allow(clippy::disallowed_methods)] // Tests read the files they made.

#[path = "support/table.rs"]
mod table;

use table::percentile;

use std::{path::Path, process::Command, time::Instant};

use switchboard_store::{Workspace, worktrees};

const FILES: usize = 10_000;
const ROUNDS: usize = 10;

fn git(dir: &Path, args: &[&str]) {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    for n in 0..FILES {
        let folder = root.join(format!("src/m{:03}", n / 100));
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join(format!("f{n}.rs")),
            format!("pub fn f{n}() -> usize {{\n    {n}\n}}\n"),
        )
        .unwrap();
    }
    git(&root, &["add", "."]);
    git(
        &root,
        &[
            "-c",
            "user.name=B",
            "-c",
            "user.email=b@e.f",
            "commit",
            "-q",
            "-m",
            "Files",
        ],
    );
    let workspace = Workspace::open(&root).unwrap();
    let mut ours = Vec::new();
    let mut plain = Vec::new();
    for round in 0..ROUNDS {
        let name = format!("ours-{round}");
        let place = root.join(".claude/worktrees").join(&name);
        let started = Instant::now();
        let tree = worktrees::create(&workspace, &name, &place, None).unwrap();
        ours.push(started.elapsed().as_secs_f64() * 1000.0);
        worktrees::discard(&workspace, &tree, true).unwrap();

        let place = root
            .join(".claude/worktrees")
            .join(format!("plain-{round}"));
        let place_text = place.display().to_string();
        let branch = format!("plain-{round}");
        let started = Instant::now();
        git(
            &root,
            &["worktree", "add", "-q", "-b", &branch, &place_text, "HEAD"],
        );
        plain.push(started.elapsed().as_secs_f64() * 1000.0);
        git(&root, &["worktree", "remove", "--force", &place_text]);
        git(&root, &["branch", "-D", &branch]);
    }
    println!();
    println!("| a started agent's worktree, {FILES} files | n | p50 | p95 | goal |");
    println!("|---|---|---|---|---|");
    for (what, samples, goal) in [
        (
            "worktrees::create (checks, base, branch, folder)",
            &ours,
            "≤ 1.2 × git alone",
        ),
        ("git worktree add -b alone", &plain, "–"),
    ] {
        println!(
            "| {what} | {} | {:.0} ms | {:.0} ms | {goal} |",
            samples.len(),
            percentile(samples, 50.0),
            percentile(samples, 95.0)
        );
    }
    println!(
        "| ratio of the medians | | {:.2} | | |",
        percentile(&ours, 50.0) / percentile(&plain, 50.0)
    );
}
