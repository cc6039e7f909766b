//! The dependency graph as SVG: the model's layered layout, arrows from a
//! dependency to the task waiting for it, the critical path picked out.

use std::collections::HashMap;

use leptos::prelude::*;
use switchboard_model::team::{
    Task,
    graph::{NODE_HEIGHT, NODE_WIDTH, layout},
};

/// The graph of `tasks`.
#[component]
pub fn DependencyGraph(tasks: Vec<Task>) -> impl IntoView {
    let graph = layout(&tasks);
    let by_id: HashMap<&str, &Task> = tasks.iter().map(|task| (task.id.as_str(), task)).collect();
    let (width, height) = (graph.width.max(NODE_WIDTH), graph.height.max(NODE_HEIGHT));
    let half = NODE_HEIGHT / 2;
    let edges = graph
        .edges
        .iter()
        .map(|edge| {
            let (from, to) = (&graph.nodes[edge.from], &graph.nodes[edge.to]);
            let (x1, y1) = (from.x + NODE_WIDTH, from.y + half);
            let (x2, y2) = (to.x, to.y + half);
            let bend = (x2.saturating_sub(x1)) / 2;
            let path = format!(
                "M{x1},{y1} C{},{y1} {},{y2} {x2},{y2}",
                x1 + bend,
                x2.saturating_sub(bend)
            );
            view! { <path class=if edge.critical { "edge critical" } else { "edge" } d=path marker-end="url(#arrow)"></path> }
        })
        .collect_view();
    let nodes = graph
        .nodes
        .iter()
        .map(|node| {
            let task = by_id.get(node.id.as_str());
            let title: String = task
                .map(|task| task.title.chars().take(24).collect())
                .unwrap_or_default();
            let status = task.map_or("pending", |task| task.status.as_str());
            let class = format!(
                "node status-{status}{}",
                if node.critical { " critical" } else { "" }
            );
            view! {
                <g class=class data-id=node.id.clone() transform=format!("translate({},{})", node.x, node.y)>
                    <title>{format!("{} ({status})", node.id)}</title>
                    <rect width=NODE_WIDTH height=NODE_HEIGHT rx="6"></rect>
                    <text x="10" y="27">{title}</text>
                </g>
            }
        })
        .collect_view();
    let critical = graph.critical_path.len();
    let cyclic = graph.cyclic.clone();
    view! {
        <details class="task-graph" open>
            <summary>
                "Dependencies"
                {(critical > 0).then(|| format!(" — critical path: {critical} tasks"))}
            </summary>
            {(!cyclic.is_empty()).then(|| view! {
                <p class="warning" role="status">{format!("In a dependency cycle (edited by hand): {}", cyclic.join(", "))}</p>
            })}
            <div class="graph-scroll">
                <svg
                    id="task-graph"
                    width=width + 8
                    height=height + 8
                    viewBox=format!("-4 -4 {} {}", width + 8, height + 8)
                    role="img"
                    aria-label="Task dependency graph"
                >
                    <defs>
                        <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse">
                            <path d="M 0 0 L 10 5 L 0 10 z"></path>
                        </marker>
                    </defs>
                    {edges}
                    {nodes}
                </svg>
            </div>
        </details>
    }
}
