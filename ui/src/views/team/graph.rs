//! The dependency graph as SVG: the model's layered layout, arrows from a
//! dependency to the task waiting for it, the critical path picked out.
//! Laid out and drawn only while it is open (a thousand SVG elements at
//! 500 tasks are not redrawn on every change nobody is looking at).

use std::collections::HashMap;

use leptos::prelude::*;
use switchboard_model::team::{
    Task,
    graph::{NODE_HEIGHT, NODE_WIDTH, layout},
};

use super::TeamState;

/// The graph of the shown team, drawn while open.
#[component]
pub fn DependencyGraph(state: TeamState) -> impl IntoView {
    let open = state.graph_open;
    view! {
        <details class="task-graph" id="task-graph-details" prop:open=move || open.get() on:toggle=move |event| {
            let now: bool = event_target::<web_sys::HtmlDetailsElement>(&event).open();
            if now != open.get_untracked() {
                open.set(now);
            }
        }>
            <summary>"Dependencies"</summary>
            {move || {
                if !open.get() {
                    return None;
                }
                state.board.get().map(|board| view! { <Drawing tasks=board.tasks /> })
            }}
        </details>
    }
}

/// The graph of `tasks`.
#[component]
fn Drawing(tasks: Vec<Task>) -> impl IntoView {
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
            <p class="muted critical-summary">
                {if critical > 0 { format!("Critical path: {critical} tasks, outlined.") } else { "Nothing left to do.".to_owned() }}
            </p>
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
    }
}
