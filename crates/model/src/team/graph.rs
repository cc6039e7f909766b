//! The dependency graph laid out in layers: each task one layer right of
//! its furthest dependency, so every arrow points right, and the critical
//! path — the longest chain of work not yet completed — picked out.
//!
//! The rules keep the plugin's files acyclic, but a file edited by hand may
//! still close a cycle; such tasks are placed after the rest and reported,
//! never looped over.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::{Task, TaskStatus};

/// Width of a node, in the layout's units (pixels in the window).
pub const NODE_WIDTH: u32 = 180;
/// Height of a node.
pub const NODE_HEIGHT: u32 = 44;
/// Space between layers.
pub const LAYER_GAP: u32 = 60;
/// Space between nodes of a layer.
pub const ROW_GAP: u32 = 16;

/// A task placed in the graph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Node {
    /// The task's id.
    pub id: String,
    /// Its layer (0: depends on nothing on the board).
    pub layer: u32,
    /// Its place within the layer.
    pub row: u32,
    /// Left edge.
    pub x: u32,
    /// Top edge.
    pub y: u32,
    /// Whether it lies on the critical path.
    pub critical: bool,
}

/// An arrow from a dependency to the task that waits for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edge {
    /// Index of the dependency in `nodes`.
    pub from: usize,
    /// Index of the dependent in `nodes`.
    pub to: usize,
    /// Whether both ends are consecutive on the critical path.
    pub critical: bool,
}

/// The laid-out graph.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Graph {
    /// The tasks, by layer then row.
    pub nodes: Vec<Node>,
    /// The dependencies between them.
    pub edges: Vec<Edge>,
    /// The critical path's task ids, first to last.
    pub critical_path: Vec<String>,
    /// Tasks caught in a dependency cycle (files edited by hand).
    pub cyclic: Vec<String>,
    /// The whole drawing's width.
    pub width: u32,
    /// The whole drawing's height.
    pub height: u32,
}

/// Lays out `tasks` (dependencies on tasks not on the board are ignored).
pub fn layout(tasks: &[Task]) -> Graph {
    let index: HashMap<&str, usize> = tasks
        .iter()
        .enumerate()
        .map(|(at, task)| (task.id.as_str(), at))
        .collect();
    // Dependencies as indexes, each once.
    let mut needs: Vec<Vec<usize>> = tasks
        .iter()
        .map(|task| {
            let mut found: Vec<usize> = task
                .dependencies
                .iter()
                .filter_map(|id| index.get(id.as_str()).copied())
                .collect();
            found.sort_unstable();
            found.dedup();
            found
        })
        .collect();
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); tasks.len()];
    for (task, deps) in needs.iter().enumerate() {
        for &dep in deps {
            dependents[dep].push(task);
        }
    }
    // Kahn's order; what never frees is cyclic.
    let mut waiting: Vec<usize> = needs.iter().map(Vec::len).collect();
    let mut order: Vec<usize> = (0..tasks.len()).filter(|&t| waiting[t] == 0).collect();
    let mut next = 0;
    while next < order.len() {
        let task = order[next];
        next += 1;
        for &dependent in &dependents[task] {
            waiting[dependent] -= 1;
            if waiting[dependent] == 0 {
                order.push(dependent);
            }
        }
    }
    let mut placed = vec![false; tasks.len()];
    for &task in &order {
        placed[task] = true;
    }
    let cyclic: Vec<usize> = (0..tasks.len()).filter(|&t| !placed[t]).collect();
    // Edges into cyclic tasks are not followed for layering.
    for &task in &cyclic {
        needs[task].retain(|dep| placed[*dep]);
    }
    let mut layer = vec![0_u32; tasks.len()];
    for &task in &order {
        layer[task] = needs[task]
            .iter()
            .map(|&dep| layer[dep] + 1)
            .max()
            .unwrap_or(0);
    }
    let last = layer.iter().copied().max().map_or(0, |max| max + 1);
    for &task in &cyclic {
        layer[task] = last;
    }
    // The critical path: the longest chain of unfinished tasks.
    let open = |task: usize| tasks[task].status != TaskStatus::Completed;
    let mut length = vec![0_u32; tasks.len()];
    let mut previous: Vec<Option<usize>> = vec![None; tasks.len()];
    for &task in &order {
        if !open(task) {
            continue;
        }
        let best = needs[task]
            .iter()
            .copied()
            .filter(|&dep| open(dep))
            .max_by_key(|&dep| (length[dep], std::cmp::Reverse(dep)));
        length[task] = 1 + best.map_or(0, |dep| length[dep]);
        previous[task] = best;
    }
    let mut on_path = vec![false; tasks.len()];
    let mut critical_path = Vec::new();
    if let Some(end) = order
        .iter()
        .copied()
        .filter(|&task| open(task))
        .max_by_key(|&task| (length[task], std::cmp::Reverse(task)))
    {
        let mut at = Some(end);
        while let Some(task) = at {
            on_path[task] = true;
            critical_path.push(tasks[task].id.clone());
            at = previous[task];
        }
        critical_path.reverse();
    }
    // Rows: within a layer, by priority, then id.
    let mut by_layer: Vec<usize> = (0..tasks.len()).collect();
    by_layer.sort_by(|&a, &b| {
        (layer[a], tasks[a].priority, &tasks[a].id).cmp(&(
            layer[b],
            tasks[b].priority,
            &tasks[b].id,
        ))
    });
    let mut slot = vec![0_usize; tasks.len()];
    let mut nodes = Vec::with_capacity(tasks.len());
    let mut rows_in_layer: HashMap<u32, u32> = HashMap::new();
    for task in by_layer {
        let row = rows_in_layer.entry(layer[task]).or_insert(0);
        slot[task] = nodes.len();
        nodes.push(Node {
            id: tasks[task].id.clone(),
            layer: layer[task],
            row: *row,
            x: layer[task] * (NODE_WIDTH + LAYER_GAP),
            y: *row * (NODE_HEIGHT + ROW_GAP),
            critical: on_path[task],
        });
        *row += 1;
    }
    let mut edges = Vec::new();
    for (task, deps) in needs.iter().enumerate() {
        for &dep in deps {
            edges.push(Edge {
                from: slot[dep],
                to: slot[task],
                critical: on_path[task] && previous[task] == Some(dep),
            });
        }
    }
    let rows = rows_in_layer.values().copied().max().unwrap_or(0);
    let layers = rows_in_layer.len() as u32;
    Graph {
        nodes,
        edges,
        critical_path,
        cyclic: cyclic.iter().map(|&task| tasks[task].id.clone()).collect(),
        width: layers
            .saturating_mul(NODE_WIDTH + LAYER_GAP)
            .saturating_sub(LAYER_GAP),
        height: rows
            .saturating_mul(NODE_HEIGHT + ROW_GAP)
            .saturating_sub(ROW_GAP),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use proptest::prelude::*;

    use super::*;
    use crate::team::task::tests::task;

    #[test]
    fn layers_follow_the_longest_chain_and_the_critical_path_skips_done_work() {
        let mut tasks = vec![
            task("a", &[]),
            task("b", &["a"]),
            task("c", &["b"]),
            task("d", &["a"]),
            task("e", &["c", "d"]),
            task("x", &[]),
        ];
        let graph = layout(&tasks);
        let layer = |id: &str| graph.nodes.iter().find(|n| n.id == id).unwrap().layer;
        assert_eq!(
            ["a", "b", "c", "d", "e", "x"].map(layer),
            [0, 1, 2, 1, 3, 0]
        );
        assert_eq!(graph.critical_path, ["a", "b", "c", "e"]);
        assert_eq!(graph.edges.iter().filter(|e| e.critical).count(), 3);
        tasks[0].status = TaskStatus::Completed;
        tasks[1].status = TaskStatus::Completed;
        assert_eq!(layout(&tasks).critical_path, ["c", "e"]);
    }

    #[test]
    fn a_cycle_written_by_hand_is_reported_not_followed() {
        let tasks = vec![task("a", &["b"]), task("b", &["a"]), task("c", &[])];
        let graph = layout(&tasks);
        assert_eq!(graph.cyclic, ["a", "b"]);
        assert_eq!(graph.nodes.len(), 3);
    }

    proptest! {
        /// Every arrow points right; nodes never overlap; the critical path
        /// is a chain of unfinished tasks no shorter than any other.
        #[test]
        fn arrows_point_right_and_the_critical_path_is_longest(
            edges in proptest::collection::vec((0..12_usize, 0..12_usize), 0..30),
            done in proptest::collection::vec(any::<bool>(), 12),
        ) {
            // Only edges from a lower to a higher index: acyclic.
            let mut tasks: Vec<Task> = (0..12).map(|i| task(&format!("t{i:02}"), &[])).collect();
            for (a, b) in edges {
                if a < b {
                    let dep = tasks[a].id.clone();
                    tasks[b].dependencies.push(dep);
                }
            }
            for (task, done) in tasks.iter_mut().zip(done) {
                if done { task.status = TaskStatus::Completed; }
            }
            let graph = layout(&tasks);
            for edge in &graph.edges {
                prop_assert!(graph.nodes[edge.from].layer < graph.nodes[edge.to].layer);
            }
            let mut places: Vec<(u32, u32)> = graph.nodes.iter().map(|n| (n.x, n.y)).collect();
            places.sort_unstable();
            places.dedup();
            prop_assert_eq!(places.len(), graph.nodes.len());
            // Longest open chain by brute force (indexes are a topological order).
            let open: Vec<bool> = tasks.iter().map(|t| t.status != TaskStatus::Completed).collect();
            let mut best = [0_usize; 12];
            for b in 0..12 {
                if !open[b] { continue; }
                best[b] = 1 + tasks[b].dependencies.iter()
                    .map(|d| d[1..].parse::<usize>().unwrap())
                    .filter(|&a| open[a]).map(|a| best[a]).max().unwrap_or(0);
            }
            prop_assert_eq!(graph.critical_path.len(), best.iter().copied().max().unwrap_or(0));
            for pair in graph.critical_path.windows(2) {
                let later = tasks.iter().find(|t| t.id == pair[1]).unwrap();
                prop_assert!(later.dependencies.contains(&pair[0]));
            }
        }
    }
}
