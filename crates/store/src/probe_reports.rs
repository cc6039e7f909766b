//! ClaudeControl's reports in its home (`$CLAUDE_CONTROL_HOME`, else
//! `~/.claude-control`): investigations in `investigations/` and black-box
//! test and fuzz reports in `test-reports/`, each `{program}_{YYYYmmdd_HHMMSS}.json`
//! indented as its `json.dumps(indent=2)` writes them, written atomically
//! under a file name that is always valid (the program's last path
//! component, cleaned) and never over another report.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize, de::DeserializeOwned};
use switchboard_model::{
    Timestamp,
    probe::{InvestigationReport, file_stem, testing::TestReport},
};

use crate::{StoreError, write_atomic};

/// Which kind of report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReportKind {
    /// `investigations/`.
    Investigation,
    /// `test-reports/` (black-box tests and fuzz runs).
    Test,
}

impl ReportKind {
    fn folder(self) -> &'static str {
        match self {
            Self::Investigation => "investigations",
            Self::Test => "test-reports",
        }
    }
}

/// A report file found in the folders.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportFile {
    /// Its kind.
    pub kind: ReportKind,
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

    /// In `home` (the folder holding `investigations/`).
    pub fn at(home: PathBuf) -> Self {
        Self { home }
    }

    /// The folder of `kind`.
    pub fn dir(&self, kind: ReportKind) -> PathBuf {
        self.home.join(kind.folder())
    }

    /// Writes an investigation of `program` (the path that was run) made
    /// at `at`; where it went.
    pub fn save_investigation(
        &self,
        report: &InvestigationReport,
        program: &str,
        at: Timestamp,
    ) -> Result<PathBuf, StoreError> {
        self.save(ReportKind::Investigation, report, program, at)
    }

    /// Writes a test or fuzz report of `program` made at `at`.
    pub fn save_test_report(
        &self,
        report: &TestReport,
        program: &str,
        at: Timestamp,
    ) -> Result<PathBuf, StoreError> {
        self.save(ReportKind::Test, report, program, at)
    }

    fn save(
        &self,
        kind: ReportKind,
        report: &impl Serialize,
        program: &str,
        at: Timestamp,
    ) -> Result<PathBuf, StoreError> {
        let dir = self.dir(kind);
        std::fs::create_dir_all(&dir).map_err(|source| StoreError::Io {
            action: "could not create",
            path: dir.clone(),
            source,
        })?;
        let text = serde_json::to_string_pretty(report).map_err(|source| StoreError::Encode {
            what: "a report",
            source,
        })?;
        let base = format!("{}_{}", file_stem(program), at.file_stamp());
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
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
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

    /// Every report of `kind`, newest first (files that are not `.json`
    /// passed over; a folder that does not exist is empty).
    pub fn list(&self, kind: ReportKind) -> Result<Vec<ReportFile>, StoreError> {
        let dir = self.dir(kind);
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(StoreError::Io {
                    action: "could not read",
                    path: dir,
                    source,
                });
            }
        };
        let mut files: Vec<ReportFile> = entries
            .filter_map(Result::ok)
            .filter_map(|entry| {
                let path = entry.path();
                let name = path
                    .file_name()?
                    .to_str()?
                    .strip_suffix(".json")?
                    .to_owned();
                let modified_ms = entry
                    .metadata()
                    .ok()?
                    .modified()
                    .ok()?
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |since| since.as_millis() as i64);
                Some(ReportFile {
                    kind,
                    path,
                    name,
                    modified_ms,
                })
            })
            .collect();
        files.sort_by(|a, b| b.modified_ms.cmp(&a.modified_ms).then(b.name.cmp(&a.name)));
        Ok(files)
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

fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T, StoreError> {
    let text = std::fs::read_to_string(path).map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            StoreError::NotFound {
                what: "report",
                id: path.display().to_string(),
            }
        } else {
            StoreError::Io {
                action: "could not read",
                path: path.to_owned(),
                source,
            }
        }
    })?;
    serde_json::from_str(&text).map_err(|error| StoreError::Corrupt {
        path: path.to_owned(),
        reason: error.to_string(),
    })
}

#[cfg(test)]
mod tests {
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
        assert_eq!(
            first,
            temp.path()
                .join("investigations/my_app_20261125_184102.json")
        );
        assert_eq!(
            second,
            temp.path()
                .join("investigations/my_app_20261125_184102_2.json")
        );
        assert_eq!(reports.load_investigation(&first).unwrap(), report);
        let text = std::fs::read_to_string(&first).unwrap();
        assert!(text.starts_with("{\n  \"program\": "), "{text}");
        assert_eq!(reports.list(ReportKind::Investigation).unwrap().len(), 2);
        assert!(reports.list(ReportKind::Test).unwrap().is_empty());
        std::fs::write(temp.path().join("investigations/bad.json"), "{").unwrap();
        assert!(matches!(
            reports.load_investigation(&temp.path().join("investigations/bad.json")),
            Err(StoreError::Corrupt { .. })
        ));
    }
}
