//! `switchboard investigate`, `probe`, `fuzz`, `test` and `chain run` on
//! a scripted interactive program (`fixtures/toy`: two modes, help, JSON,
//! a table, a password prompt, a destructive `wipe` that leaves a marker
//! file, a crash on `%s`), each a real process over a real host.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

use serde_json::Value;

use crate::terminal::Terminal;

/// A workspace, a private host folder and ClaudeControl home for one test.
struct Lab {
    temp: tempfile::TempDir,
}

impl Lab {
    fn new() -> Self {
        let lab = Self {
            temp: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(lab.workspace()).unwrap();
        lab
    }

    fn workspace(&self) -> PathBuf {
        self.temp.path().join("ws")
    }

    fn home(&self) -> PathBuf {
        self.temp.path().join("cc")
    }

    fn env(&self) -> Vec<(String, String)> {
        let cli = PathBuf::from(env!("CARGO_BIN_EXE_switchboard"));
        let host = cli.with_file_name("switchboard-session-host");
        assert!(host.is_file(), "{} is missing", host.display());
        vec![
            (
                "SWITCHBOARD_RUNTIME_DIR".into(),
                self.temp.path().join("rt").display().to_string(),
            ),
            (
                "SWITCHBOARD_SESSION_HOST".into(),
                host.display().to_string(),
            ),
            ("SWITCHBOARD_SESSION_HOST_LINGER_SECS".into(), "1".into()),
            (
                "CLAUDE_CONTROL_HOME".into(),
                self.home().display().to_string(),
            ),
            (
                "TOY_MARKER_DIR".into(),
                self.workspace().display().to_string(),
            ),
        ]
    }

    /// The toy program copied to a path with a `/` and spaces in its name.
    fn toy(&self) -> String {
        let dir = self.temp.path().join("a dir");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("my toy");
        std::fs::copy(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/fixtures/toy"),
            &path,
        )
        .unwrap();
        path.display().to_string()
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .arg("-C")
            .arg(self.workspace())
            .args(args)
            .envs(self.env())
            .current_dir(self.workspace())
            .output()
            .unwrap()
    }

    fn json(&self, args: &[&str]) -> (Value, Output) {
        let output = self.run(args);
        let value = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
            panic!(
                "{args:?}: {error}: {}\n{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            )
        });
        (value, output)
    }
}

fn strings(value: &Value) -> Vec<&str> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|each| each.as_str().unwrap())
        .collect()
}

#[test]
fn an_investigation_finds_states_commands_formats_and_exits_and_sends_nothing_destructive() {
    let lab = Lab::new();
    let toy = lab.toy();
    let (report, output) = lab.json(&["investigate", "--timeout", "2", "--json", "--", &toy]);
    assert!(output.status.success());
    assert!(
        !lab.workspace().join("WIPED").exists(),
        "safe mode never sends `wipe`"
    );
    // States by prompt, the mode's way back.
    let states = report["states"].as_object().unwrap();
    let prompts: Vec<&str> = states
        .values()
        .map(|state| state["prompt"].as_str().unwrap())
        .collect();
    assert_eq!(prompts, ["toy>", "toy(config)#"], "{report:#}");
    assert_eq!(
        report["states"]["initial"]["transitions"]["config"],
        "state_1"
    );
    assert_eq!(report["states"]["state_1"]["way_back"], "back");
    assert_eq!(report["entry_state"]["prompt"], "toy>");
    // Commands of both modes, from help.
    for command in [
        "status", "list", "config", "login", "wipe", "quit", "show", "back",
    ] {
        assert!(
            report["commands"].get(command).is_some(),
            "{command}: {report:#}"
        );
    }
    assert_eq!(report["commands"]["status"]["tested"], true);
    assert!(
        report["commands"]["wipe"]["skipped"]
            .as_str()
            .unwrap()
            .contains("destructive")
    );
    assert_eq!(strings(&report["help_commands"]), ["help"]);
    let formats = strings(&report["data_formats"]);
    for format in ["JSON", "Table", "Key-Value"] {
        assert!(formats.contains(&format), "{formats:?}");
    }
    let exits = strings(&report["exit_commands"]);
    assert!(
        exits.contains(&"quit") && exits.contains(&"exit"),
        "{exits:?}"
    );
    assert!(!exits.contains(&"q"), "q is an unknown command there");
    assert!(
        strings(&report["error_messages"])
            .iter()
            .any(|error| error.ends_with("command_not_found"))
    );
    let notes = strings(&report["safety_notes"]).join("\n");
    assert!(
        notes.contains("\"wipe\"") && notes.contains("destructive"),
        "{notes}"
    );
    assert!(
        notes.contains("\"login\"") && notes.contains("secret"),
        "{notes}"
    );
    assert_eq!(report["switchboard"]["interactive"], true);
    // Saved where ClaudeControl saves them, under a name that is a file
    // name, in its key order.
    let path = PathBuf::from(report["report_path"].as_str().unwrap());
    assert_eq!(path.parent().unwrap(), lab.home().join("investigations"));
    assert!(
        path.file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("my_toy_")
    );
    let saved = std::fs::read_to_string(&path).unwrap();
    let keys: Vec<String> = serde_json::from_str::<indexmap::IndexMap<String, Value>>(&saved)
        .unwrap()
        .into_keys()
        .collect();
    assert_eq!(
        keys[..13],
        [
            "program",
            "started_at",
            "completed_at",
            "entry_state",
            "states",
            "commands",
            "prompts",
            "error_messages",
            "help_commands",
            "exit_commands",
            "data_formats",
            "interaction_log",
            "safety_notes"
        ]
    );
}

#[test]
fn unsafe_mode_sends_the_destructive_command() {
    let lab = Lab::new();
    let toy = lab.toy();
    let (report, _) = lab.json(&[
        "investigate",
        "--unsafe",
        "--timeout",
        "2",
        "--no-save",
        "--max-depth",
        "1",
        "--json",
        "--",
        &toy,
    ]);
    assert!(lab.workspace().join("WIPED").exists(), "{report:#}");
    assert_eq!(report["commands"]["wipe"]["tested"], true);
    assert!(report.get("report_path").is_none());
}

#[test]
fn probe_measures_what_it_says() {
    let lab = Lab::new();
    let toy = lab.toy();
    let (found, _) = lab.json(&["probe", "--json", "--", &toy]);
    assert_eq!(found["interactive"], true);
    assert_eq!(found["prompt"], "toy>");
    assert!(strings(&found["commands"]).contains(&"status"));
    // A program that prints and ends is not interactive.
    let (found, _) = lab.json(&["probe", "--json", "--", "echo", "hello"]);
    assert_eq!(found["interactive"], false, "{found:#}");
    assert_eq!(found["ended"], "exit 0");
}

fn findings(report: &Value) -> Vec<(String, String)> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|finding| {
            (
                finding["input"].as_str().unwrap().to_owned(),
                finding["type"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn fuzzing_is_reproducible_from_its_seed_and_each_crash_replays_from_its_tape() {
    let lab = Lab::new();
    let toy = lab.toy();
    let args = [
        "fuzz",
        "--seed",
        "42",
        "--max-inputs",
        "60",
        "--json",
        "--",
        &toy,
    ];
    let (first, output) = lab.json(&args);
    assert_eq!(output.status.code(), Some(1), "a crash fails the run");
    let (second, _) = lab.json(&args);
    assert_eq!(first["inputs"], 60, "as many inputs as asked");
    assert_eq!(
        findings(&first),
        findings(&second),
        "the same seed, the same findings"
    );
    let crash = first["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|finding| finding["type"] == "crash")
        .expect("the %s input crashes it");
    assert_eq!(crash["input"], "%s".repeat(10));
    assert_eq!(crash["exit"]["signal"], 11);
    assert!(first["restarts"].as_u64().unwrap() >= 1, "fuzzing went on");
    // The report is saved as ClaudeControl's test report, findings kept.
    let saved: Value = serde_json::from_str(
        &std::fs::read_to_string(first["report_path"].as_str().unwrap()).unwrap(),
    )
    .unwrap();
    assert_eq!(saved["test_results"][0]["test"], "fuzzing");
    assert_eq!(saved["test_results"][0]["passed"], false);
    assert_eq!(findings(&saved), findings(&first));
    // The crash's tape replays it.
    let tape = crash["tape"].as_str().unwrap();
    assert!(lab.workspace().join(tape).is_file(), "{tape}");
    let env = lab.env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mut terminal = Terminal::start(&lab.workspace(), &["play", "--", &toy], &env);
    terminal.expect("toy> ");
    terminal.send(&format!("{}\r", "%s".repeat(10)));
    let status = terminal.child.wait().unwrap();
    assert_eq!(
        status.exit_code(),
        128 + 11,
        "the recorded crash: {}",
        terminal.seen
    );
}

#[test]
fn fuzzing_a_shell_is_refused_unless_asked_for() {
    let lab = Lab::new();
    let output = lab.run(&["fuzz", "--max-inputs", "1", "--", "bash"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("is a shell") && stderr.contains("--shell"),
        "{stderr}"
    );
}

#[test]
fn the_black_box_checks_give_verdicts_that_hold() {
    let lab = Lab::new();
    let toy = lab.toy();
    let (report, output) = lab.json(&[
        "test",
        "--seed",
        "1",
        "--max-inputs",
        "12",
        "--json",
        "--",
        &toy,
    ]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "the fuzz check fails: it crashes"
    );
    let results: Vec<(&str, bool)> = report["test_results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|result| (result["test"].as_str().unwrap(), result["passed"] == true))
        .collect();
    assert_eq!(
        results,
        [
            ("startup", true),
            ("help_system", true),
            ("invalid_input", true),
            ("exit_behavior", true),
            ("resource_usage", true),
            ("concurrent_sessions", true),
            ("fuzzing", false),
        ],
        "{report:#}"
    );
    // Help is what the question produced: `help` and `?`, not `--help`
    // (the banner it prints then is no help).
    assert_eq!(
        strings(&report["test_results"][1]["working_commands"]),
        ["help", "?"]
    );
    // An empty line is no crash.
    assert_eq!(
        report["test_results"][2]["details"]["''"],
        "Accepted/ignored"
    );
    assert_eq!(report["summary"]["failed"], 1);
}

#[test]
fn a_chain_runs_in_one_shell_so_each_step_sees_the_last() {
    let lab = Lab::new();
    let ws = lab.workspace();
    std::fs::create_dir_all(ws.join("sub dir")).unwrap();
    std::fs::create_dir_all(ws.join(".switchboard/chains")).unwrap();
    std::fs::write(
        ws.join(".switchboard/chains/walk.json"),
        r#"{"name": "walk", "timeout": 10, "commands": [
            {"sequence_order": 1, "command": "cd 'sub dir' && export GREETING=hi"},
            {"sequence_order": 2, "command": "pwd; echo \"$GREETING\"", "expect_pattern": "sub dir"},
            {"sequence_order": 3, "command": "echo only-after-a-match",
             "condition": {"previous_output_matches": "hi"}},
            {"sequence_order": 4, "command": "echo never", "condition": {"previous_status": "failed"}},
            {"sequence_order": 5, "command": "read -s -p 'Password: ' pw; echo; echo got-${#pw}",
             "expect_pattern": "Password: ", "send_text": "s3cret"},
            {"sequence_order": 6, "command": "false"},
            {"sequence_order": 7, "command": "echo skipped-after-failure"},
            {"sequence_order": 8, "command": "echo cleanup", "on_failure": true}
        ]}"#,
    )
    .unwrap();
    let (ran, output) = lab.json(&["chain", "run", "walk", "--json"]);
    assert_eq!(output.status.code(), Some(1), "a step failed");
    let steps = ran["steps"].as_array().unwrap();
    let statuses: Vec<&str> = steps
        .iter()
        .map(|step| step["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses,
        [
            "passed", "passed", "passed", "skipped", "passed", "failed", "skipped", "passed"
        ],
        "{ran:#}"
    );
    assert!(steps[1]["output"].as_str().unwrap().contains("hi"));
    assert_eq!(steps[1]["matched"], true);
    assert!(
        steps[2]["output"]
            .as_str()
            .unwrap()
            .contains("only-after-a-match")
    );
    assert!(steps[4]["output"].as_str().unwrap().contains("got-6"));
    assert_eq!(steps[5]["exit_code"], 1);
    assert_eq!(steps[6]["reason"], "an earlier step failed");
    assert!(steps[7]["output"].as_str().unwrap().contains("cleanup"));
    // The secret never reached the session's log.
    let logs = std::fs::read_dir(ws.join(".switchboard/sessions")).unwrap();
    for log in logs {
        let text = std::fs::read_to_string(log.unwrap().path()).unwrap();
        assert!(!text.contains("s3cret"));
    }
}

#[test]
fn a_program_that_cannot_start_is_an_error_not_a_report() {
    let lab = Lab::new();
    for command in ["investigate", "probe", "fuzz"] {
        let output = lab.run(&[command, "--json", "--", "no-such-program-here"]);
        assert!(!output.status.success(), "{command}");
        let error: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(error["error"]["code"], "NOT_FOUND", "{command}: {error}");
    }
    assert!(
        !lab.home().join("investigations").exists(),
        "no empty report is saved"
    );
}
