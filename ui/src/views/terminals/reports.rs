//! The reports of the workspace's programs, beside its sessions: each
//! investigation with its states as a small graph (prompts, the commands
//! that lead from one to another), its commands and what was not sent and
//! why; each test run's checks with their verdicts; each fuzz finding with
//! its exact input and, for a crash, a button that plays its tape. A report
//! written while the view is open (`switchboard investigate`, `test`,
//! `fuzz`, or an agent's MCP call) appears at once.

use std::rc::Rc;

use leptos::prelude::*;
use switchboard_model::{
    ipc::StoreChange,
    probe::{
        InvestigationReport,
        fuzz::FindingKind,
        testing::TestReport,
        view::{ReportList, ReportView, graph},
    },
};

use crate::{
    events, ipc, tasks,
    views::tapes::{TapesState, player::Player},
};

/// What the reports' parts share.
#[derive(Clone, Copy)]
struct ReportsState {
    list: RwSignal<ReportList>,
    selected: RwSignal<Option<String>>,
    shown: RwSignal<Option<Rc<ReportView>>, LocalStorage>,
    error: RwSignal<Option<String>>,
    /// The crash tape being played.
    replay: TapesState,
    /// The run whose report is asked for (the Sessions tab's run row).
    wanted_run: RwSignal<Option<String>>,
}

impl ReportsState {
    /// Reads the list, and the report shown again.
    fn reload(self) {
        tasks::fetch(async move {
            match ipc::probe_reports().await {
                Ok(list) => {
                    let first = list.reports.first().map(|report| report.path.clone());
                    let wanted = self.wanted_run.get_untracked().and_then(|run| {
                        list.reports
                            .iter()
                            .find(|report| report.run.as_deref() == Some(run.as_str()))
                            .map(|report| report.path.clone())
                    });
                    self.list.set(list);
                    if wanted.is_some() {
                        self.wanted_run.set(None);
                        self.selected.set(wanted);
                    } else if self.selected.get_untracked().is_none() {
                        self.selected.set(first);
                    }
                }
                Err(failure) => self.error.set(Some(failure.message)),
            }
            self.show().await;
        });
    }

    /// Reads the chosen report.
    async fn show(self) {
        let Some(path) = self.selected.get_untracked() else {
            self.shown.set(None);
            return;
        };
        match ipc::probe_report(&path).await {
            Ok(report) if self.selected.get_untracked().as_deref() == Some(path.as_str()) => {
                self.shown.set(Some(Rc::new(report)));
            }
            Ok(_) => {}
            Err(failure) => self.error.set(Some(failure.message)),
        }
    }

    /// Plays tape `tape` (a path the fuzzer gave, relative to the
    /// workspace), at its end: the crash.
    fn play(self, tape: String) {
        let id = switchboard_model::tape::view::tape_id_in_workspace(&tape).to_owned();
        tasks::act(async move {
            match ipc::tape(&id).await {
                Ok(view) => {
                    self.replay.pos.set(view.frames.len());
                    self.replay.tape.set(Some(Rc::new(view)));
                }
                Err(failure) => self.error.set(Some(failure.message)),
            }
        });
    }
}

/// The reports: the list and the chosen one (the report of `wanted_run`
/// when a run's row asked for it).
#[component]
pub fn Reports(wanted_run: RwSignal<Option<String>>) -> impl IntoView {
    let error = RwSignal::new(None);
    let state = ReportsState {
        list: RwSignal::new(ReportList::default()),
        selected: RwSignal::new(None),
        shown: RwSignal::new_local(None),
        error,
        replay: TapesState::new(error, false),
        wanted_run,
    };
    state.reload();
    events::on_store_change(move |change| {
        if change == StoreChange::ProbeReports {
            state.reload();
        }
    });
    view! {
        {move || state.error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
        <div class="terminals-columns">
            <aside class="terminals-list" aria-label="Reports">
                <ReportItems state />
            </aside>
            <div class="terminal-pane report-pane">
                <Shown state />
            </div>
        </div>
    }
}

/// The list, newest first.
#[component]
fn ReportItems(state: ReportsState) -> impl IntoView {
    move || {
        let list = state.list.get();
        if list.reports.is_empty() {
            return view! {
                <p class="muted" id="reports-empty">
                    "No reports for this workspace yet. "
                    <code>"switchboard investigate -- PROGRAM"</code>", "
                    <code>"switchboard test"</code>" and "<code>"switchboard fuzz"</code>
                    " (or the MCP tools of the same names) write them to "
                    <code>{list.folder.clone()}</code>"."
                </p>
            }
            .into_any();
        }
        let selected = state.selected.get();
        list.reports
            .into_iter()
            .map(|report| {
                let path = report.path.clone();
                let current = selected.as_deref() == Some(report.path.as_str());
                view! {
                    <button
                        class="session-item report-item"
                        class:current=current
                        class:failed=report.failed
                        data-kind=report.kind.label()
                        on:click=move |_| {
                            state.selected.set(Some(path.clone()));
                            state.replay.tape.set(None);
                            tasks::fetch(state.show());
                        }
                    >
                        <span class="session-name">{report.kind.label()}</span>
                        <code class="session-command">{report.program.clone()}</code>
                        <span class="muted session-details">{report.headline.clone()}</span>
                    </button>
                }
            })
            .collect_view()
            .into_any()
    }
}

/// The chosen report.
#[component]
fn Shown(state: ReportsState) -> impl IntoView {
    move || match state.shown.get().as_deref() {
        None => view! { <p class="muted">"Pick a report to read it."</p> }.into_any(),
        Some(ReportView::Investigation(report)) => investigation(report).into_any(),
        Some(ReportView::Test(report)) => test(state, report).into_any(),
    }
}

/// Width and height of a state's box on the graph, and the gaps.
const BOX_W: f64 = 170.0;
const BOX_H: f64 = 44.0;
const GAP_X: f64 = 90.0;
const GAP_Y: f64 = 26.0;

/// The states as a graph: boxes by depth, an arrow per command.
fn state_graph(report: &InvestigationReport) -> impl IntoView + use<> {
    let (placed, arrows) = graph(report);
    let columns = placed
        .iter()
        .map(|state| state.column + 1)
        .max()
        .unwrap_or(1);
    let rows = placed.iter().map(|state| state.row + 1).max().unwrap_or(1);
    let width = columns as f64 * (BOX_W + GAP_X);
    let height = rows as f64 * (BOX_H + GAP_Y) + GAP_Y;
    let at = |column: usize, row: usize| {
        (
            10.0 + column as f64 * (BOX_W + GAP_X),
            GAP_Y / 2.0 + row as f64 * (BOX_H + GAP_Y),
        )
    };
    let described = arrows
        .iter()
        .map(|arrow| {
            format!(
                "{} to {} by {}",
                placed[arrow.from].name, placed[arrow.to].name, arrow.command
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    let lines = arrows
        .iter()
        .map(|arrow| {
            let (from, to) = (&placed[arrow.from], &placed[arrow.to]);
            let (fx, fy) = at(from.column, from.row);
            let (tx, ty) = at(to.column, to.row);
            // Forward arrows leave the right side; back arrows the left, a
            // little lower, so both of a pair are seen.
            let (x1, y1, x2, y2) = if to.column > from.column {
                (fx + BOX_W, fy + BOX_H * 0.4, tx, ty + BOX_H * 0.4)
            } else if to.column < from.column {
                (fx, fy + BOX_H * 0.75, tx + BOX_W, ty + BOX_H * 0.75)
            } else {
                (fx + BOX_W * 0.5, fy + BOX_H, tx + BOX_W * 0.5, ty)
            };
            view! {
                <g class="graph-arrow">
                    <line x1=x1 y1=y1 x2=x2 y2=y2 marker-end="url(#graph-head)" />
                    <text x=(x1 + x2) / 2.0 y=(y1 + y2) / 2.0 - 4.0 text-anchor="middle">
                        {arrow.command.clone()}
                    </text>
                </g>
            }
        })
        .collect_view();
    let boxes = placed
        .iter()
        .map(|state| {
            let (x, y) = at(state.column, state.row);
            view! {
                <g class="graph-state" data-state=state.name.clone()>
                    <rect x=x y=y width=BOX_W height=BOX_H rx="6" />
                    <text x=x + 8.0 y=y + 17.0 class="graph-name">{state.name.clone()}</text>
                    <text x=x + 8.0 y=y + 35.0 class="graph-prompt">{state.prompt.clone()}</text>
                </g>
            }
        })
        .collect_view();
    view! {
        <svg
            class="state-graph"
            id="report-graph"
            role="img"
            aria-label=format!("{} states. {described}", placed.len())
            width=width
            height=height
            viewBox=format!("0 0 {width} {height}")
        >
            <defs>
                <marker id="graph-head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                    <path d="M 0 0 L 10 5 L 0 10 z" />
                </marker>
            </defs>
            {lines}
            {boxes}
        </svg>
    }
}

fn list_line(label: &'static str, items: &[String]) -> impl IntoView + use<> {
    let text = if items.is_empty() {
        "none found".to_owned()
    } else {
        items.join(", ")
    };
    view! { <p><strong>{label}</strong>" "{text}</p> }
}

/// An investigation.
fn investigation(report: &InvestigationReport) -> impl IntoView + use<> {
    let facts = report.switchboard.clone().unwrap_or_default();
    let states = report
        .states
        .values()
        .map(|state| {
            let back = match (&state.parent, &state.way_back) {
                (Some(parent), Some(way)) => format!("from {parent}; back with {way:?}"),
                (Some(parent), None) => format!("from {parent}; no way back but a restart"),
                _ => "where it starts".to_owned(),
            };
            view! {
                <li>
                    <strong>{state.name.clone()}</strong>" "<code>{state.prompt.clone()}</code>
                    <span class="muted">{format!(" · {back} · {}", state.commands.join(", "))}</span>
                </li>
            }
        })
        .collect_view();
    let commands = report
        .commands
        .iter()
        .map(|(name, info)| {
            let sent = match (&info.skipped, info.tested) {
                (Some(why), _) => format!("not sent: {why}"),
                (None, Some(true)) => "sent".to_owned(),
                _ => "not tried".to_owned(),
            };
            let skipped = info.skipped.is_some();
            view! {
                <tr class:skipped=skipped>
                    <td><code>{name.clone()}</code></td>
                    <td>{info.description.clone().unwrap_or_default()}</td>
                    <td class="muted">{sent}</td>
                </tr>
            }
        })
        .collect_view();
    let notes = report
        .safety_notes
        .iter()
        .map(|note| view! { <li>{note.clone()}</li> })
        .collect_view();
    view! {
        <div class="report" id="report-investigation">
            <div class="terminal-head">
                <strong id="report-title">{report.program.clone()}</strong>
                <span class="muted">
                    {format!(
                        "investigated {} · {} inputs, {} start(s), {:.1} s · {}",
                        report.started_at.get(..19).unwrap_or(&report.started_at),
                        facts.exchanges,
                        facts.starts,
                        facts.duration_ms as f64 / 1000.0,
                        if facts.interactive { "interactive" } else { "not interactive" },
                    )}
                </span>
            </div>
            <h2>"States"</h2>
            {state_graph(report)}
            <ul class="report-states">{states}</ul>
            <h2>"Commands"</h2>
            <table class="report-table" id="report-commands">
                <thead><tr><th>"Command"</th><th>"Description"</th><th>"Sent"</th></tr></thead>
                <tbody>{commands}</tbody>
            </table>
            {list_line("Help:", &report.help_commands)}
            {list_line("Exits:", &report.exit_commands)}
            {list_line("Formats:", &report.data_formats)}
            {list_line("Errors:", &report.error_messages)}
            <h2>"Not done, and why"</h2>
            <ul class="report-notes" id="report-notes">{notes}</ul>
        </div>
    }
}

/// A test or fuzz report.
fn test(state: ReportsState, report: &TestReport) -> impl IntoView + use<> {
    let checks = report
        .test_results
        .iter()
        .map(|result| {
            let why = result
                .verdict
                .clone()
                .or_else(|| result.error.clone())
                .unwrap_or_default();
            view! {
                <tr class:failed=!result.passed>
                    <td><code>{result.test.clone()}</code></td>
                    <td>{if result.passed { "pass" } else { "FAIL" }}</td>
                    <td>{why}</td>
                </tr>
            }
        })
        .collect_view();
    let findings = report
        .findings
        .iter()
        .map(|finding| {
            let input: String = finding.input.chars().take(80).collect();
            let exit = finding.exit.map(|exit| exit.to_string()).unwrap_or_default();
            let tape = finding.tape.clone();
            let crash = finding.kind == FindingKind::Crash;
            view! {
                <tr class:failed=crash data-kind=finding.kind.as_str()>
                    <td>{finding.index}</td>
                    <td>{finding.kind.as_str()}</td>
                    <td><code title=finding.input.clone()>{format!("{input:?}")}</code></td>
                    <td>{exit}</td>
                    <td>{tape.map(|tape| view! {
                        <button class="finding-play" on:click=move |_| state.play(tape.clone())>"Play its tape"</button>
                    })}</td>
                </tr>
            }
        })
        .collect_view();
    let has_tape = Memo::new(move |_| state.replay.tape.with(Option::is_some));
    view! {
        <div class="report" id="report-test">
            <div class="terminal-head">
                <strong id="report-title">{report.program.clone()}</strong>
                <span class="muted">
                    {format!(
                        "{} of {} checks passed{}",
                        report.summary.passed,
                        report.summary.total_tests,
                        report.seed.map(|seed| format!(" · seed {seed}")).unwrap_or_default(),
                    )}
                </span>
            </div>
            <table class="report-table" id="report-checks">
                <thead><tr><th>"Check"</th><th>"Verdict"</th><th>"Why"</th></tr></thead>
                <tbody>{checks}</tbody>
            </table>
            <h2>{format!("Findings ({})", report.findings.len())}</h2>
            <table class="report-table" id="report-findings">
                <thead><tr><th>"#"</th><th>"Type"</th><th>"Input"</th><th>"Exit"</th><th></th></tr></thead>
                <tbody>{findings}</tbody>
            </table>
            {move || has_tape.get().then(|| view! {
                <div class="report-replay" id="report-replay">
                    <Player state=state.replay />
                </div>
            })}
        </div>
    }
}
