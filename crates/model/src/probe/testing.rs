//! A black-box test report as ClaudeControl saves one
//! (`test-reports/{program}_{stamp}.json`: `{program, timestamp,
//! test_results, summary}`), its seven checks by its names, plus the fuzz
//! findings (which it never saves) after its keys.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::fuzz::{Finding, FindingKind, FuzzReport};

/// The checks, in the order run, by ClaudeControl's names.
pub const TESTS: [&str; 7] = [
    "startup",
    "help_system",
    "invalid_input",
    "exit_behavior",
    "resource_usage",
    "concurrent_sessions",
    "fuzzing",
];

/// One check's result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TestResult {
    /// Its name (one of [`TESTS`]).
    pub test: String,
    /// Its verdict.
    pub passed: bool,
    /// What it saw.
    #[serde(default)]
    pub details: IndexMap<String, Value>,
    /// Why it could not run, if it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// A sentence saying why the verdict is what it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    /// Its other keys (`working_commands`, `crashes`, `good_errors`,
    /// `working_exits`, …).
    #[serde(flatten)]
    pub extra: IndexMap<String, Value>,
}

impl TestResult {
    /// A result of check `test`.
    pub fn new(test: &str, passed: bool, verdict: impl Into<String>) -> Self {
        Self {
            test: test.to_owned(),
            passed,
            verdict: Some(verdict.into()),
            ..Self::default()
        }
    }

    /// Adds a detail.
    pub fn detail(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details.insert(key.to_owned(), value.into());
        self
    }

    /// Adds one of the check's own keys.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.extra.insert(key.to_owned(), value.into());
        self
    }
}

/// The counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// Checks run.
    pub total_tests: usize,
    /// Passed.
    pub passed: usize,
    /// Failed.
    pub failed: usize,
}

/// A test report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TestReport {
    /// The command line tested.
    pub program: String,
    /// When, seconds since the epoch.
    pub timestamp: f64,
    /// Each check's result.
    pub test_results: Vec<TestResult>,
    /// The counts.
    pub summary: Summary,
    /// The fuzz check's findings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<Finding>,
    /// The fuzz check's seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The workspace it was run for (absolute), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The run its sessions belong to (their `run`), so the window links
    /// them to this report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
}

impl TestReport {
    /// A report of `results` (the summary counted from them).
    pub fn new(program: String, timestamp: f64, test_results: Vec<TestResult>) -> Self {
        let passed = test_results.iter().filter(|result| result.passed).count();
        Self {
            program,
            timestamp,
            summary: Summary {
                total_tests: test_results.len(),
                passed,
                failed: test_results.len() - passed,
            },
            test_results,
            findings: Vec::new(),
            seed: None,
            workspace: None,
            run: None,
        }
    }

    /// Lines a person reads at a terminal.
    pub fn summary_text(&self) -> String {
        let mut lines = vec![format!(
            "Tests of {}: {} passed, {} failed",
            self.program, self.summary.passed, self.summary.failed
        )];
        for result in &self.test_results {
            let mark = if result.passed { "PASS" } else { "FAIL" };
            let why = result
                .verdict
                .as_deref()
                .or(result.error.as_deref())
                .unwrap_or("");
            lines.push(format!("  [{mark}] {}: {why}", result.test));
        }
        lines.join("\n")
    }
}

/// The `fuzzing` check's result of a fuzz run: failed when it crashed.
pub fn fuzzing_result(report: &FuzzReport) -> TestResult {
    let crashes = report.count(FindingKind::Crash);
    let result = TestResult::new(
        "fuzzing",
        crashes == 0,
        if crashes == 0 {
            format!("{} inputs, no crash", report.inputs)
        } else {
            format!("{crashes} of {} inputs crashed it", report.inputs)
        },
    )
    .detail("total_findings", report.findings.len())
    .detail("crashes", crashes)
    .detail("errors", report.count(FindingKind::Error))
    .detail("no_response", report.count(FindingKind::NoResponse))
    .detail("large_output", report.count(FindingKind::LargeOutput))
    .detail("inputs", report.inputs)
    .detail("seed", report.seed);
    let crash_inputs: Vec<String> = report
        .findings
        .iter()
        .filter(|finding| finding.kind == FindingKind::Crash)
        .take(3)
        .map(|finding| finding.input.chars().take(50).collect())
        .collect();
    if crash_inputs.is_empty() {
        result
    } else {
        result.detail("crash_inputs", crash_inputs)
    }
}

impl FuzzReport {
    /// The run as a test report of its one check, findings included (how
    /// a fuzz run is saved), made at `timestamp` (seconds since the epoch).
    pub fn into_test_report(self, timestamp: f64) -> TestReport {
        let mut report =
            TestReport::new(self.program.clone(), timestamp, vec![fuzzing_result(&self)]);
        report.seed = Some(self.seed);
        report.workspace = self.workspace;
        report.run = self.run;
        report.findings = self.findings;
        report
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn claude_controls_reports_read_and_ours_keep_its_keys() {
        let theirs = r#"{"program": "bc", "timestamp": 1756720000.5, "test_results": [
            {"test": "help_system", "passed": true, "working_commands": ["help"],
             "details": {"help": "Found help content"}},
            {"test": "startup", "passed": false, "details": {}, "error": "boom"}],
            "summary": {"total_tests": 2, "passed": 1, "failed": 1}}"#;
        let report: TestReport = serde_json::from_str(theirs).unwrap();
        assert_eq!(report.test_results[0].extra["working_commands"][0], "help");
        assert_eq!(report.test_results[1].error.as_deref(), Some("boom"));
        let ours = TestReport::new(
            "bc".into(),
            1.0,
            vec![
                TestResult::new("startup", true, "it started").detail("started", true),
                TestResult::new("fuzzing", false, "1 crash"),
            ],
        );
        assert_eq!(
            ours.summary,
            Summary {
                total_tests: 2,
                passed: 1,
                failed: 1
            }
        );
        let text = serde_json::to_string(&ours).unwrap();
        let keys: IndexMap<String, Value> = serde_json::from_str(&text).unwrap();
        assert_eq!(
            keys.keys().collect::<Vec<_>>(),
            ["program", "timestamp", "test_results", "summary"]
        );
    }
}
