//! ClaudeControl's reports in its home (`$CLAUDE_CONTROL_HOME`, else
//! `~/.claude-control`): investigations in `investigations/` and black-box
//! test and fuzz reports in `test-reports/`, each `{program}_{YYYYmmdd_HHMMSS}.json`
//! indented as its `json.dumps(indent=2)` writes them (non-ASCII as UTF-8,
//! which its `json.loads` reads), written atomically
//! under a file name that is always valid (the program's last path
//! component, cleaned) and never over another report.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize, de::DeserializeOwned};
use switchboard_model::{
    Timestamp,
    probe::{
        InvestigationReport, file_stem,
        fuzz::FuzzReport,
        testing::TestReport,
        view::{
            ReportKind, ReportList, ReportSummary, ReportView, investigation_headline,
            test_headline, test_kind,
        },
    },
};

use crate::{StoreError, write_atomic};

/// Which folder of reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReportFolder {
    /// `investigations/`.
    Investigations,
    /// `test-reports/` (black-box tests and fuzz runs).
    TestReports,
}

impl ReportFolder {
    fn name(self) -> &'static str {
        match self {
            Self::Investigations => "investigations",
            Self::TestReports => "test-reports",
        }
    }
}

/// At most this many of the newest files of each folder are read for a
/// workspace's list.
const LISTED_FILES: usize = 500;

/// A report file found in the folders.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportFile {
    /// Its folder.
    pub folder: ReportFolder,
    /// Its path.
    pub path: PathBuf,
    /// Its file name's stem.
    pub name: String,
    /// Modified, milliseconds since the epoch.
    pub modified_ms: i64,
}

/// The reports folders.
#[derive(Debug, Clone)]
pub struct ProbeReports {
    home: PathBuf,
}

impl ProbeReports {
    /// In ClaudeControl's home; `None` without one.
    pub fn locate() -> Option<Self> {
        crate::program_configs::home().map(Self::at)
    }

    /// [`ProbeReports::locate`], or why there is no home for reports.
    pub fn located() -> Result<Self, StoreError> {
        Self::locate().ok_or(StoreError::NoReportsHome)
    }

    /// In `home` (the folder holding `investigations/`).
    pub fn at(home: PathBuf) -> Self {
        Self { home }
    }

    /// The folder `folder`.
    pub fn dir(&self, folder: ReportFolder) -> PathBuf {
        self.home.join(folder.name())
    }

    /// ClaudeControl's home these folders are in.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// Writes an investigation of `program` (the path that was run) made
    /// at `at` (stamped in local time, as ClaudeControl does); where it
    /// went.
    pub fn save_investigation(
        &self,
        report: &InvestigationReport,
        program: &str,
        at: Timestamp,
    ) -> Result<PathBuf, StoreError> {
        self.save(ReportFolder::Investigations, report, program, at)
    }

    /// Writes a test or fuzz report of `program` made at `at`.
    pub fn save_test_report(
        &self,
        report: &TestReport,
        program: &str,
        at: Timestamp,
    ) -> Result<PathBuf, StoreError> {
        self.save(ReportFolder::TestReports, report, program, at)
    }

    /// Writes a fuzz run of `program` made at `at` as ClaudeControl's test
    /// report of its one `fuzzing` check, the findings kept.
    pub fn save_fuzz_report(
        &self,
        report: &FuzzReport,
        program: &str,
        at: Timestamp,
    ) -> Result<PathBuf, StoreError> {
        let report = report
            .clone()
            .into_test_report(at.unix_millis() as f64 / 1000.0);
        self.save(ReportFolder::TestReports, &report, program, at)
    }

    fn save(
        &self,
        folder: ReportFolder,
        report: &impl Serialize,
        program: &str,
        at: Timestamp,
    ) -> Result<PathBuf, StoreError> {
        let dir = self.dir(folder);
        std::fs::create_dir_all(&dir).map_err(|source| StoreError::Io {
            action: "could not create",
            path: dir.clone(),
            source,
        })?;
        let text = serde_json::to_string_pretty(report).map_err(|source| StoreError::Encode {
            what: "a report",
            source,
        })?;
        let stamp = switchboard_model::time::naive_stamp(crate::clock::local(at));
        let base = format!("{}_{stamp}", file_stem(program));
        // Two reports in one second keep both; the name is claimed with a
        // new empty file, so a concurrent writer never takes the same one.
        let mut n = 0_u32;
        loop {
            n += 1;
            let name = if n == 1 {
                format!("{base}.json")
            } else {
                format!("{base}_{n}.json")
            };
            let path = dir.join(name);
            #[allow(
                clippy::disallowed_methods,
                reason = "a new empty file made to claim a name (create_new follows no link); nothing is read"
            )]
            let claimed = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path);
            match claimed {
                Ok(_) => {
                    write_atomic(&path, text.as_bytes())?;
                    return Ok(path);
                }
                Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(source) => {
                    return Err(StoreError::Io {
                        action: "could not create",
                        path,
                        source,
                    });
                }
            }
        }
    }

    /// Every report in `folder`, newest first (files that are not `.json`
    /// passed over; a folder that does not exist is empty).
    pub fn list(&self, folder: ReportFolder) -> Result<Vec<ReportFile>, StoreError> {
        let dir = self.dir(folder);
        let mut files: Vec<ReportFile> = crate::walk::files_in(&dir, "json")?
            .into_iter()
            .filter_map(|path| {
                let name = path.file_stem()?.to_str()?.to_owned();
                let modified_ms = path
                    .metadata()
                    .ok()?
                    .modified()
                    .ok()?
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |since| since.as_millis() as i64);
                Some(ReportFile {
                    folder,
                    path,
                    name,
                    modified_ms,
                })
            })
            .collect();
        files.sort_by(|a, b| b.modified_ms.cmp(&a.modified_ms).then(b.name.cmp(&a.name)));
        Ok(files)
    }

    /// The reports written for the workspace at `root` (those that name it;
    /// ClaudeControl's own and other workspaces' are passed over, as are
    /// files that do not read), newest first.
    pub fn for_workspace(&self, root: &Path) -> ReportList {
        let root = root.display().to_string();
        let mut reports = Vec::new();
        for folder in [ReportFolder::Investigations, ReportFolder::TestReports] {
            for file in self
                .list(folder)
                .unwrap_or_default()
                .into_iter()
                .take(LISTED_FILES)
            {
                let Ok(report) = self.load(&file.path) else {
                    continue;
                };
                let summary =
                    |kind, program: &str, headline, failed, run: &Option<String>| ReportSummary {
                        path: file.path.display().to_string(),
                        kind,
                        program: program.to_owned(),
                        when_ms: file.modified_ms,
                        headline,
                        failed,
                        run: run.clone(),
                    };
                match report {
                    ReportView::Investigation(report)
                        if report
                            .switchboard
                            .as_ref()
                            .and_then(|facts| facts.workspace.as_deref())
                            == Some(root.as_str()) =>
                    {
                        reports.push(summary(
                            ReportKind::Investigation,
                            &report.program,
                            investigation_headline(&report),
                            false,
                            &report
                                .switchboard
                                .as_ref()
                                .and_then(|facts| facts.run.clone()),
                        ));
                    }
                    ReportView::Test(report)
                        if report.workspace.as_deref() == Some(root.as_str()) =>
                    {
                        let (headline, failed) = test_headline(&report);
                        reports.push(summary(
                            test_kind(&report),
                            &report.program,
                            headline,
                            failed,
                            &report.run,
                        ));
                    }
                    _ => {}
                }
            }
        }
        reports.sort_by(|a, b| b.when_ms.cmp(&a.when_ms).then(b.path.cmp(&a.path)));
        ReportList {
            reports,
            folder: self.home.display().to_string(),
        }
    }

    /// The report at `path`, which must be a `.json` file directly in one
    /// of the two folders (any other path is refused, so a request can name
    /// no other file).
    pub fn load(&self, path: &Path) -> Result<ReportView, StoreError> {
        let in_folder = |folder| path.parent() == Some(self.dir(folder).as_path());
        let is_json = path
            .extension()
            .is_some_and(|extension| extension == "json");
        if in_folder(ReportFolder::Investigations) && is_json {
            return self
                .load_investigation(path)
                .map(|report| ReportView::Investigation(Box::new(report)));
        }
        if in_folder(ReportFolder::TestReports) && is_json {
            return self
                .load_test_report(path)
                .map(|report| ReportView::Test(Box::new(report)));
        }
        Err(StoreError::NotAReport {
            path: path.to_owned(),
            home: self.home.clone(),
        })
    }

    /// The investigation at `path`.
    pub fn load_investigation(&self, path: &Path) -> Result<InvestigationReport, StoreError> {
        read_json(path)
    }

    /// The test report at `path`.
    pub fn load_test_report(&self, path: &Path) -> Result<TestReport, StoreError> {
        read_json(path)
    }
}

/// A report, read within its own folder (a link out of it is refused).
fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T, StoreError> {
    let folder = path.parent().unwrap_or(Path::new("/"));
    crate::json_file::read(folder, path, "report", &path.display().to_string())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/claudecontrol")
            .join(name)
    }

    #[test]
    fn reports_claude_controls_code_wrote_read_here() {
        let reports = ProbeReports::at(PathBuf::from("/nonexistent"));
        let investigation = reports
            .load_investigation(&fixture("investigation-toy.json"))
            .unwrap();
        assert_eq!(investigation.program, "/tmp/cchome/toy");
        assert_eq!(investigation.prompts, ["toy>"]);
        assert_eq!(investigation.help_commands, ["help", "?", "--help"]);
        assert_eq!(investigation.commands["help"].kind.as_deref(), Some("help"));
        assert!(investigation.switchboard.is_none());
        assert!(!investigation.interaction_log.is_empty());
        let test = reports
            .load_test_report(&fixture("test-report-toy.json"))
            .unwrap();
        assert_eq!(test.summary.total_tests, 7);
        assert_eq!(test.test_results[1].test, "help_system");
        assert!(test.test_results[1].extra.contains_key("working_commands"));
    }

    #[test]
    fn reports_save_under_valid_names_and_read_back() {
        let temp = tempfile::tempdir().unwrap();
        let reports = ProbeReports::at(temp.path().to_owned());
        let at = Timestamp::parse("2026-11-25T18:41:02.000Z").unwrap();
        let report = InvestigationReport {
            program: "'/tmp/a dir/my app' -x".into(),
            ..InvestigationReport::default()
        };
        let first = reports
            .save_investigation(&report, "/tmp/a dir/my app", at)
            .unwrap();
        let second = reports
            .save_investigation(&report, "/tmp/a dir/my app", at)
            .unwrap();
        let stamp = switchboard_model::time::naive_stamp(crate::clock::local(at));
        assert_eq!(
            first,
            temp.path()
                .join(format!("investigations/my_app_{stamp}.json"))
        );
        assert_eq!(
            second,
            temp.path()
                .join(format!("investigations/my_app_{stamp}_2.json"))
        );
        assert_eq!(reports.load_investigation(&first).unwrap(), report);
        let text = std::fs::read_to_string(&first).unwrap();
        assert!(text.starts_with("{\n  \"program\": "), "{text}");
        assert_eq!(reports.list(ReportFolder::Investigations).unwrap().len(), 2);
        assert!(reports.list(ReportFolder::TestReports).unwrap().is_empty());
        // Listed for the workspace they name only; other paths refused.
        assert!(reports.for_workspace(Path::new("/ws")).reports.is_empty());
        let mut ours = report.clone();
        ours.switchboard = Some(switchboard_model::probe::report::RunFacts {
            workspace: Some("/ws".into()),
            run: Some("investigate-toy-42-1".into()),
            ..Default::default()
        });
        reports.save_investigation(&ours, "toy", at).unwrap();
        let listed = reports.for_workspace(Path::new("/ws")).reports;
        assert_eq!(listed.len(), 1);
        assert_eq!(
            listed[0].run.as_deref(),
            Some("investigate-toy-42-1"),
            "the window links the run's sessions to it"
        );
        assert_eq!(listed[0].kind, ReportKind::Investigation);
        assert!(matches!(
            reports.load(Path::new(&listed[0].path)).unwrap(),
            ReportView::Investigation(_)
        ));
        assert!(matches!(
            reports.load(Path::new("/etc/passwd")),
            Err(StoreError::NotAReport { .. })
        ));
        assert!(
            reports
                .load(&temp.path().join("investigations/../x.json"))
                .is_err()
        );
        std::fs::write(temp.path().join("investigations/bad.json"), "{").unwrap();
        assert!(matches!(
            reports.load_investigation(&temp.path().join("investigations/bad.json")),
            Err(StoreError::Corrupt { .. })
        ));
    }
}
