//! What the window is sent of the reports: a list of the workspace's
//! investigations, test and fuzz reports with a headline each, and one
//! report whole; the states of an investigation laid out as a small graph.

use serde::{Deserialize, Serialize};

use super::{InvestigationReport, report::ENTRY_STATE, testing::TestReport};

/// Which kind of report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReportKind {
    /// An investigation (`investigations/`).
    Investigation,
    /// The seven black-box checks (`test-reports/`).
    Test,
    /// A fuzz run (`test-reports/`, its one check `fuzzing`).
    Fuzz,
}

impl ReportKind {
    /// Its label.
    pub fn label(self) -> &'static str {
        match self {
            Self::Investigation => "investigation",
            Self::Test => "tests",
            Self::Fuzz => "fuzz",
        }
    }
}

/// One report in the list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportSummary {
    /// Its file (the request for it whole).
    pub path: String,
    /// Its kind.
    pub kind: ReportKind,
    /// The command line.
    pub program: String,
    /// When it was written, milliseconds since the epoch.
    pub when_ms: i64,
    /// One line: what it found.
    pub headline: String,
    /// A check failed or a crash was found.
    pub failed: bool,
    /// The run whose sessions made it, if it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
}

/// The workspace's reports, newest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReportList {
    /// The reports.
    pub reports: Vec<ReportSummary>,
    /// Where they are kept.
    pub folder: String,
}

/// Names one report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportRequest {
    /// Its file, as listed.
    pub path: String,
}

/// One report, whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "report", rename_all = "snake_case")]
pub enum ReportView {
    /// An investigation.
    Investigation(Box<InvestigationReport>),
    /// A test or fuzz report.
    Test(Box<TestReport>),
}

/// The kind of a test report: a fuzz run has the one check `fuzzing`.
pub fn test_kind(report: &TestReport) -> ReportKind {
    match report.test_results.as_slice() {
        [only] if only.test == "fuzzing" => ReportKind::Fuzz,
        _ => ReportKind::Test,
    }
}

/// An investigation's headline.
pub fn investigation_headline(report: &InvestigationReport) -> String {
    let skipped = report
        .commands
        .values()
        .filter(|info| info.skipped.is_some())
        .count();
    format!(
        "{} state{}, {} command{} ({} not sent), exits: {}",
        report.states.len(),
        if report.states.len() == 1 { "" } else { "s" },
        report.commands.len(),
        if report.commands.len() == 1 { "" } else { "s" },
        skipped,
        if report.exit_commands.is_empty() {
            "none found".to_owned()
        } else {
            report.exit_commands.join(", ")
        }
    )
}

/// A test report's headline, and whether something failed.
pub fn test_headline(report: &TestReport) -> (String, bool) {
    let crashes = report
        .findings
        .iter()
        .filter(|finding| finding.kind == super::fuzz::FindingKind::Crash)
        .count();
    let failed = report.summary.failed > 0;
    let text = match test_kind(report) {
        ReportKind::Fuzz => format!(
            "{} finding{}, {} crash{}{}",
            report.findings.len(),
            if report.findings.len() == 1 { "" } else { "s" },
            crashes,
            if crashes == 1 { "" } else { "es" },
            report
                .seed
                .map(|seed| format!(" (seed {seed})"))
                .unwrap_or_default()
        ),
        _ => format!(
            "{} of {} checks passed{}",
            report.summary.passed,
            report.summary.total_tests,
            if crashes > 0 {
                format!(", {crashes} crash{}", if crashes == 1 { "" } else { "es" })
            } else {
                String::new()
            }
        ),
    };
    (text, failed)
}

/// A state placed on the graph: its column is its depth from the entry
/// state, its row its place among the states of that depth.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    /// The state's name.
    pub name: String,
    /// Its prompt.
    pub prompt: String,
    /// Depth from the entry state.
    pub column: usize,
    /// Place in its column.
    pub row: usize,
}

/// An arrow of the graph: a command leading from one state to another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arrow {
    /// From (index into the placed states).
    pub from: usize,
    /// To.
    pub to: usize,
    /// The command.
    pub command: String,
}

/// The states laid out as a graph: columns by depth (the parent a state
/// was opened from), rows in discovery order; arrows for each transition.
pub fn graph(report: &InvestigationReport) -> (Vec<Placed>, Vec<Arrow>) {
    let depth = |name: &str| {
        let mut depth = 0;
        let mut at = report.states.get(name);
        while let Some(parent) = at.and_then(|state| state.parent.as_deref()) {
            depth += 1;
            if depth > report.states.len() {
                break;
            }
            at = report.states.get(parent);
        }
        depth
    };
    let mut rows_used: Vec<usize> = Vec::new();
    let mut placed = Vec::new();
    for state in report.states.values() {
        let column = if state.name == ENTRY_STATE {
            0
        } else {
            depth(&state.name)
        };
        if rows_used.len() <= column {
            rows_used.resize(column + 1, 0);
        }
        placed.push(Placed {
            name: state.name.clone(),
            prompt: state.prompt.clone(),
            column,
            row: rows_used[column],
        });
        rows_used[column] += 1;
    }
    let index = |name: &str| placed.iter().position(|state| state.name == name);
    let mut arrows = Vec::new();
    for state in report.states.values() {
        for (command, target) in &state.transitions {
            if let (Some(from), Some(to)) = (index(&state.name), index(target)) {
                arrows.push(Arrow {
                    from,
                    to,
                    command: command.clone(),
                });
            }
        }
    }
    (placed, arrows)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;
    use crate::probe::ProgramState;

    #[test]
    fn states_are_placed_by_depth() {
        let mut report = InvestigationReport::default();
        let mut initial = ProgramState::new("initial", "toy>");
        initial
            .transitions
            .insert("config".into(), "state_1".into());
        initial.transitions.insert("admin".into(), "state_2".into());
        let mut config = ProgramState::new("state_1", "toy(config)#");
        config.parent = Some("initial".into());
        config.transitions.insert("back".into(), "initial".into());
        config.transitions.insert("deep".into(), "state_3".into());
        let mut admin = ProgramState::new("state_2", "admin#");
        admin.parent = Some("initial".into());
        let mut deep = ProgramState::new("state_3", "deep>");
        deep.parent = Some("state_1".into());
        for state in [initial, config, admin, deep] {
            report.states.insert(state.name.clone(), state);
        }
        let (placed, arrows) = graph(&report);
        let spots: Vec<(usize, usize)> = placed.iter().map(|p| (p.column, p.row)).collect();
        assert_eq!(spots, [(0, 0), (1, 0), (1, 1), (2, 0)]);
        assert_eq!(arrows.len(), 4);
        assert_eq!(
            arrows[2],
            Arrow {
                from: 1,
                to: 0,
                command: "back".into()
            }
        );
        assert!(investigation_headline(&report).starts_with("4 states, 0 commands"));
    }
}
