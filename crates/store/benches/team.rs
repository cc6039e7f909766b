//! opencode-teams' task queue at 5,000 tasks across 10 teams, printed as a
//! table (run by `make bench`): opening a team's board (every task and
//! inbox read and checked, the ready queue, the graph layout), and
//! completing a task with its cascade, lock included, beside the plugin's
//! way of completing (re-read and re-parse every task file twice, as its
//! `updateTask` does), in the same run.

#![allow(clippy::unwrap_used)] // A benchmark: failing loudly is right.
#![allow(clippy::disallowed_methods)] // Tests read the files they made.

#[path = "support/table.rs"]
mod table;

use table::percentile;

use std::{collections::HashMap, path::Path, time::Instant};

use serde_json::json;
use switchboard_model::{
    Timestamp,
    team::{Task, TaskStatus, graph, readiness},
};
use switchboard_store::team::{Teams, advance_task};

const TEAMS: usize = 10;
const TASKS_PER_TEAM: usize = 500;
const OPENS: usize = 30;
const COMPLETIONS: usize = 60;

fn id(team: usize, task: usize) -> String {
    format!(
        "{}-{:08x}",
        1_770_000_000_000_u64 + task as u64,
        team * 100_000 + task
    )
}

/// Writes the teams as the plugin would have: each task depending on up to
/// two earlier ones, a third of them in progress.
fn corpus(root: &Path) {
    for team in 0..TEAMS {
        let name = format!("team-{team}");
        let config = root.join(format!("teams/{name}/config.json"));
        std::fs::create_dir_all(config.parent().unwrap()).unwrap();
        let members: Vec<_> = (0..5)
            .map(|m| {
                json!({"agentId": format!("a{m}"), "agentName": format!("A{m}"),
                            "agentType": "worker", "joinedAt": "2026-02-10T09:00:00.000Z"})
            })
            .collect();
        let body = json!({"name": name, "created": "2026-02-10T09:00:00.000Z", "leader": "a0",
                          "members": members, "dispatchRules": [], "dispatchLog": []});
        std::fs::write(&config, serde_json::to_vec_pretty(&body).unwrap()).unwrap();
        let dir = root.join(format!("tasks/{name}"));
        std::fs::create_dir_all(&dir).unwrap();
        let mut blocks: HashMap<usize, Vec<String>> = HashMap::new();
        let mut tasks = Vec::new();
        for n in 0..TASKS_PER_TEAM {
            let created = Timestamp::from_unix_millis(1_770_000_000_000 + n as i64).unwrap();
            let mut task = Task::new(id(team, n), &format!("Task {n}"), created);
            for back in [1, 7] {
                if n >= back && !n.is_multiple_of(3) {
                    task.dependencies.push(id(team, n - back));
                    blocks.entry(n - back).or_default().push(task.id.clone());
                }
            }
            if n % 3 == 1 {
                task.status = TaskStatus::InProgress;
                task.owner = Some("a1".into());
            }
            tasks.push(task);
        }
        for (n, mut task) in tasks.into_iter().enumerate() {
            task.blocks = blocks.remove(&n).unwrap_or_default();
            std::fs::write(
                dir.join(format!("{}.json", task.id)),
                serde_json::to_vec_pretty(&task).unwrap(),
            )
            .unwrap();
        }
    }
}

/// The plugin's completion: read and write the task, then read every task
/// file (to announce unblocked tasks), then read every file again and
/// rewrite the ones the cascade changes. Unlocked here, as a lower bound.
fn naive_complete(dir: &Path, id: &str, now: Timestamp) {
    let path = dir.join(format!("{id}.json"));
    let mut task: Task = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    task.advance(TaskStatus::Completed, now).unwrap();
    std::fs::write(&path, serde_json::to_vec_pretty(&task).unwrap()).unwrap();
    let read_all = || -> Vec<(std::path::PathBuf, Task)> {
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
            .collect();
        files.sort();
        files
            .into_iter()
            .filter_map(|path| {
                let task = serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?;
                Some((path, task))
            })
            .collect()
    };
    let _announce = read_all();
    for (path, mut other) in read_all() {
        let before = other.clone();
        switchboard_model::team::cascade_completion(std::slice::from_mut(&mut other), id);
        if other != before {
            std::fs::write(&path, serde_json::to_vec_pretty(&other).unwrap()).unwrap();
        }
    }
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let teams = Teams::at(dir.path());
    corpus(dir.path());
    let now = Timestamp::from_unix_millis(1_780_000_000_000).unwrap();

    let mut opens = Vec::new();
    for round in 0..OPENS {
        let team = format!("team-{}", round % TEAMS);
        let started = Instant::now();
        let board = teams.board(&team).unwrap();
        let ready = readiness(&board.tasks)
            .into_iter()
            .filter(|ready| *ready)
            .count();
        let layout = graph::layout(&board.tasks);
        opens.push(started.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(board.tasks.len(), TASKS_PER_TEAM);
        assert!(ready > 0 && !layout.critical_path.is_empty());
    }

    // Completions: in-progress tasks, alternating between this store and
    // the plugin's way, in different teams so neither sees the other's.
    let (mut ours, mut naive) = (Vec::new(), Vec::new());
    for round in 0..COMPLETIONS {
        let task = 1 + 3 * round;
        let (team_ours, team_naive) = (2 * (round % (TEAMS / 2)), 2 * (round % (TEAMS / 2)) + 1);
        let started = Instant::now();
        let (_, cascaded) = advance_task(
            &teams,
            &format!("team-{team_ours}"),
            &id(team_ours, task),
            TaskStatus::Completed,
            now,
        )
        .unwrap();
        ours.push(started.elapsed().as_secs_f64() * 1000.0);
        assert!(!cascaded.is_empty());
        let started = Instant::now();
        naive_complete(
            &dir.path().join(format!("tasks/team-{team_naive}")),
            &id(team_naive, task),
            now,
        );
        naive.push(started.elapsed().as_secs_f64() * 1000.0);
    }

    println!();
    println!(
        "| team board, {} tasks in {TEAMS} teams ({TASKS_PER_TEAM} a team) | n | p50 | p95 | goal |",
        TEAMS * TASKS_PER_TEAM
    );
    println!("|---|---|---|---|---|");
    for (what, samples, goal) in [
        (
            "board open: tasks + inboxes read and checked, ready queue, graph layout",
            &opens,
            "≤ 150 ms",
        ),
        (
            "complete a task with its cascade, lock and fsync included (Switchboard)",
            &ours,
            "p95 ≤ 50 ms",
        ),
        (
            "complete a task the plugin's way: every file read twice, no lock, no fsync",
            &naive,
            "–",
        ),
    ] {
        println!(
            "| {what} | {} | {:.1} ms | {:.1} ms | {goal} |",
            samples.len(),
            percentile(samples, 50.0),
            percentile(samples, 95.0)
        );
    }
}
