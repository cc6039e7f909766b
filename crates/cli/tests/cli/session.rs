//! `switchboard session …` as agents use it: each step a process of its
//! own, the sessions held by a real host between them.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

use serde_json::Value;

/// A private host folder and workspace for one test.
struct Sessions {
    temp: tempfile::TempDir,
}

impl Sessions {
    fn new() -> Self {
        Self {
            temp: tempfile::tempdir().unwrap(),
        }
    }

    fn workspace(&self) -> PathBuf {
        let dir = self.temp.path().join("ws");
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// `switchboard -C WORKSPACE session ARGS…` with the test's host.
    fn run(&self, workspace: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
        let cli = PathBuf::from(env!("CARGO_BIN_EXE_switchboard"));
        let host = cli.with_file_name("switchboard-session-host");
        assert!(
            host.is_file(),
            "{} is missing: build the workspace (make test does)",
            host.display()
        );
        Command::new(cli)
            .arg("-C")
            .arg(workspace)
            .arg("session")
            .args(args)
            .env("SWITCHBOARD_RUNTIME_DIR", self.temp.path().join("rt"))
            .env("SWITCHBOARD_SESSION_HOST", host)
            .env("SWITCHBOARD_SESSION_HOST_LINGER_SECS", "1")
            .envs(env.iter().copied())
            .current_dir(workspace)
            .output()
            .unwrap()
    }

    fn ok(&self, workspace: &Path, args: &[&str]) -> String {
        let output = self.run(workspace, args, &[]);
        assert!(
            output.status.success(),
            "session {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    }

    fn json(&self, workspace: &Path, args: &[&str]) -> Value {
        serde_json::from_str(&self.ok(workspace, args)).unwrap()
    }
}

#[test]
fn one_process_starts_and_others_send_expect_read_and_kill() {
    let sessions = Sessions::new();
    let ws = sessions.workspace();
    let id = sessions.ok(
        &ws,
        &[
            "start",
            "--name",
            "py",
            "--env",
            "GREETING=hi there",
            "--",
            "python3",
            "-i",
            "-q",
        ],
    );
    let id = id.trim();
    assert!(id.starts_with("ps-"), "{id}");
    sessions.ok(&ws, &["wait", "py", "--for", "prompt"]);
    sessions.ok(
        &ws,
        &[
            "send",
            "py",
            "--line",
            "import os; print(os.environ['GREETING'].upper())",
        ],
    );
    let matched = sessions.json(&ws, &["expect", id, "HI THERE", "--exact", "--json"]);
    assert_eq!(matched["outcome"], "matched");
    assert_eq!(matched["matched"], "HI THERE");
    // The echo of the line (which holds "GREETING") is not in what came before.
    assert!(
        !matched["before"].as_str().unwrap().contains("GREETING"),
        "{matched}"
    );
    let read = sessions.json(&ws, &["read", "py", "--json"]);
    let cursor = read["cursor"].as_u64().unwrap();
    assert_eq!(read["missed"], 0);
    sessions.ok(&ws, &["send", "py", "--line", "print(2**10)"]);
    sessions.ok(&ws, &["wait", "py", "--for", "prompt"]);
    let since = sessions.json(
        &ws,
        &["read", "py", "--since", &cursor.to_string(), "--json"],
    );
    let text = since["text"].as_str().unwrap();
    assert!(
        text.contains("1024") && !text.contains("HI THERE"),
        "{text:?}"
    );
    // Listed under this workspace, not under another, and with --all.
    let listed = sessions.json(&ws, &["list", "--json"]);
    assert_eq!(listed["sessions"][0]["name"], "py");
    assert_eq!(listed["sessions"][0]["state"], "running");
    let elsewhere = sessions.temp.path().to_owned();
    let other = sessions.json(&elsewhere, &["list", "--json"]);
    assert_eq!(other["sessions"].as_array().unwrap().len(), 0);
    let all = sessions.json(&elsewhere, &["list", "--all", "--json"]);
    assert_eq!(all["sessions"].as_array().unwrap().len(), 1);
    sessions.ok(&ws, &["send", "py", "--key", "ctrl-d"]);
    let exit = sessions.json(&ws, &["wait", "py", "--for", "exit", "--json"]);
    assert_eq!(exit["exit"]["code"], 0, "{exit}");
}

#[test]
fn timeouts_missing_sessions_and_bad_input_have_their_own_status() {
    let sessions = Sessions::new();
    let ws = sessions.workspace();
    sessions.ok(&ws, &["start", "--name", "cat", "--", "cat"]);
    let timeout = sessions.run(&ws, &["expect", "cat", "never", "--timeout", "0.3"], &[]);
    assert_eq!(timeout.status.code(), Some(124));
    let missing = sessions.run(&ws, &["send", "nobody", "x"], &[]);
    assert_eq!(missing.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&missing.stderr).starts_with("error[NOT_FOUND]"));
    let bad = sessions.run(&ws, &["send", "cat", "--key", "hyper-x"], &[]);
    assert_eq!(bad.status.code(), Some(2));
    let json = sessions.run(&ws, &["start", "--name", "cat", "--json", "--", "cat"], &[]);
    let error: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        error["error"]["code"], "INVALID_REQUEST",
        "names are unique among live sessions"
    );
    let killed = sessions.json(&ws, &["kill", "cat", "--json"]);
    assert_eq!(killed["state"], "killed");
    assert_eq!(killed["ended_by"], "killed");
}

#[test]
fn run_answers_a_program_and_never_leaves_it_behind() {
    let sessions = Sessions::new();
    let ws = sessions.workspace();
    let cli = env!("CARGO_BIN_EXE_switchboard");
    let output = Command::new(cli)
        .args([
            "run",
            "--expect",
            ">>> ",
            "--send",
            "print(6*7)",
            "--expect",
            "^42",
        ])
        .args([
            "--send",
            "raise SystemExit(4)",
            "--exact",
            "--timeout",
            "2",
            "--",
            "python3",
            "-i",
            "-q",
        ])
        .current_dir(&ws)
        .output()
        .unwrap();
    // With --exact, "^42" is text that never shows: the run says so.
    assert_eq!(output.status.code(), Some(124), "{output:?}");
    let output = Command::new(cli)
        .args([
            "run",
            "--expect",
            ">>> ",
            "--send",
            "print(6*7)",
            "--expect",
            "^42$",
        ])
        .args([
            "--send",
            "raise SystemExit(4)",
            "--json",
            "--",
            "python3",
            "-i",
            "-q",
        ])
        .current_dir(&ws)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(4), "the program's status");
    let ran: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(ran["exit_code"], 4);
    assert_eq!(ran["timed_out"], false);
    assert!(ran["output"].as_str().unwrap().contains("42"));
    // Past its time the program is ended, not left running.
    let pid_file = ws.join("pid");
    let script = format!("echo $$ > {}; exec sleep 30", pid_file.display());
    let output = Command::new(cli)
        .args(["run", "--timeout", "0.5", "--", "sh", "-c", &script])
        .current_dir(&ws)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(124));
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()));
    assert!(stat.is_err(), "the program was left behind: {stat:?}");
}

#[test]
fn attach_gives_the_terminal_to_the_developer_until_ctrl_bracket() {
    use std::io::{Read, Write};
    let sessions = Sessions::new();
    let ws = sessions.workspace();
    sessions.ok(&ws, &["start", "--name", "py", "--", "python3", "-i", "-q"]);
    sessions.ok(&ws, &["wait", "py", "--for", "prompt"]);
    let cli = PathBuf::from(env!("CARGO_BIN_EXE_switchboard"));
    let mut attached = Command::new(&cli)
        .args(["session", "attach", "py"])
        .env("SWITCHBOARD_RUNTIME_DIR", sessions.temp.path().join("rt"))
        .current_dir(&ws)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = attached.stdin.take().unwrap();
    let mut stdout = attached.stdout.take().unwrap();
    let (seen_tx, seen) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        let mut buffer = [0_u8; 4096];
        let mut all = String::new();
        while let Ok(read) = stdout.read(&mut buffer) {
            if read == 0 {
                break;
            }
            all.push_str(&String::from_utf8_lossy(&buffer[..read]));
            let _ = seen_tx.send(all.clone());
        }
    });
    let wait_for = |text: &str| loop {
        let all = seen
            .recv_timeout(std::time::Duration::from_secs(20))
            .unwrap();
        if all.contains(text) {
            return all;
        }
    };
    // The repaint shows the screen as it is.
    wait_for(">>>");
    // While attached, the developer has it: an agent's send waits.
    let refused = sessions.run(&ws, &["send", "py", "--line", "print('agent')"], &[]);
    assert_eq!(refused.status.code(), Some(9));
    stdin.write_all(b"print(6*70)\r").unwrap();
    wait_for("420");
    stdin.write_all(&[0x1d]).unwrap();
    let status = attached.wait().unwrap();
    assert!(status.success());
    let mut stderr = String::new();
    attached
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(stderr.contains("detached from py: running"), "{stderr}");
    // Handed back on detach.
    sessions.ok(&ws, &["send", "py", "--line", "print('agent again')"]);
    sessions.ok(&ws, &["expect", "py", "agent again", "--exact"]);
    sessions.ok(&ws, &["kill", "py"]);
}

#[test]
fn claude_control_configs_start_sessions_and_sessions_save_as_configs() {
    let sessions = Sessions::new();
    let ws = sessions.workspace();
    let home = sessions.temp.path().join("cc-home");
    std::fs::create_dir_all(home.join("programs")).unwrap();
    // Its docs' shape.
    std::fs::write(
        home.join("programs/py.json"),
        r#"{"name": "py", "command_template": "python3 -i -q", "typical_timeout": 10,
            "expect_sequences": [{"pattern": ">>> ", "response": "x = 6*7"},
                                 {"pattern": ">>> ", "response": null}]}"#,
    )
    .unwrap();
    let home_env = [("CLAUDE_CONTROL_HOME", home.to_str().unwrap())];
    let started = sessions.run(
        &ws,
        &["start", "--name", "c", "--config", "py", "--json"],
        &home_env,
    );
    assert!(
        started.status.success(),
        "{}",
        String::from_utf8_lossy(&started.stderr)
    );
    let info: Value = serde_json::from_slice(&started.stdout).unwrap();
    assert_eq!(info["program"], "python3");
    sessions.ok(&ws, &["send", "c", "--line", "print(x)"]);
    sessions.ok(&ws, &["expect", "c", "^42$"]);
    let saved = sessions.run(&ws, &["save-config", "c", "again", "--json"], &home_env);
    assert!(
        saved.status.success(),
        "{}",
        String::from_utf8_lossy(&saved.stderr)
    );
    let file: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join("programs/again.json")).unwrap())
            .unwrap();
    // Its code's shape, which its `config show` reads.
    assert_eq!(file["name"], "again");
    assert_eq!(file["command_template"], "python3 -i -q");
    let steps = file["expect_sequences"].as_array().unwrap();
    assert_eq!(steps.len(), 3, "{file:#}");
    assert_eq!(steps[0]["step"], 1);
    assert_eq!(steps[0]["expect"], ">>> ");
    assert_eq!(steps[0]["sent"], "x = 6*7");
    assert_eq!(steps[1]["sent"], "print(x)");
    assert_eq!(steps[2]["expect"], "^42$");
    // The saved configuration plays back.
    let again = sessions.run(
        &ws,
        &["start", "--name", "d", "--config", "again"],
        &home_env,
    );
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let missing = sessions.run(&ws, &["start", "--config", "nope"], &home_env);
    assert_eq!(missing.status.code(), Some(3));
    for name in ["c", "d"] {
        sessions.ok(&ws, &["kill", name]);
    }
}

#[test]
fn a_session_is_recorded_from_its_log_into_a_tape_that_plays() {
    let sessions = Sessions::new();
    let ws = sessions.workspace();
    sessions.ok(&ws, &["start", "--name", "calc", "--", "bc", "-q"]);
    sessions.ok(&ws, &["send", "calc", "--line", "6*7"]);
    sessions.ok(&ws, &["expect", "calc", "^42$", "--timeout", "10"]);
    sessions.ok(&ws, &["send", "calc", "--line", "quit"]);
    sessions.ok(&ws, &["wait", "calc", "--for", "exit", "--timeout", "10"]);

    let said = sessions.json(&ws, &["record", "calc", "--json"]);
    assert_eq!(
        said["tape"],
        ws.join("tapes/bc/calc.json5").display().to_string()
    );
    assert_eq!(said["exchanges"], 2, "{said}");
    // Recorded again: all of it is on tape already.
    let again = sessions.ok(&ws, &["record", "calc"]);
    assert!(again.contains("2 already on tape (kept)"), "{again}");
    let missing = sessions.run(&ws, &["record", "nothing-by-this-name"], &[]);
    assert_eq!(missing.status.code(), Some(3), "NOT_FOUND");

    // The tape answers in bc's place: `play` fails on anything not on it.
    let cli = env!("CARGO_BIN_EXE_switchboard");
    sessions.ok(
        &ws,
        &[
            "start", "--name", "replay", "--", cli, "play", "--", "bc", "-q",
        ],
    );
    sessions.ok(&ws, &["send", "replay", "--line", "6*7"]);
    sessions.ok(&ws, &["expect", "replay", "^42$", "--timeout", "10"]);
    sessions.ok(&ws, &["kill", "replay"]);
}

/// Issue 39, item 14b: a secret on a session's command line showed in clear
/// in `session list`, the window and the log. The program still gets it.
#[test]
fn a_secret_on_the_command_line_reaches_the_program_and_nothing_else() {
    let sessions = Sessions::new();
    let ws = sessions.workspace();
    let secret = "sk-live-4f9c2b7e";
    // Both values arrive whole (the script names neither).
    let check = format!(
        "test \"$API_KEY\" = \"$2\" && test ${{#2}} = {} && echo the-program-got-it; sleep 30",
        secret.len()
    );
    let id = sessions.ok(
        &ws,
        &[
            "start",
            "--name",
            "keyed",
            "--",
            "env",
            &format!("API_KEY={secret}"),
            "sh",
            "-c",
            &check,
            "sh",
            "--password",
            secret,
        ],
    );
    let id = id.trim().to_owned();
    let got = sessions.json(&ws, &["expect", "keyed", "the-program-got-it", "--json"]);
    assert_eq!(got["outcome"], "matched", "{got}");

    let table = sessions.ok(&ws, &["list"]);
    assert!(
        table.contains("API_KEY=***") && table.contains("--password ***"),
        "{table}"
    );
    let listed = sessions.ok(&ws, &["list", "--json"]);
    let log = std::fs::read_to_string(ws.join(".switchboard/sessions").join(format!("{id}.cast")))
        .unwrap();
    let header = log.lines().next().unwrap();
    for (what, text) in [("list", &table), ("list --json", &listed), ("log", &log)] {
        assert!(!text.contains(secret), "{what} shows the secret: {text}");
    }
    assert!(header.contains("API_KEY=***"), "{header}");
    sessions.ok(&ws, &["kill", "keyed"]);
}
