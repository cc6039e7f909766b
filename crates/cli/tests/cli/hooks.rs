//! Claude Code's own permission requests answered in Switchboard, through
//! the real Claude Code CLI (npm, the version the setup script pins) whose
//! model is a scripted stand-in on loopback: the hooks `switchboard hooks
//! install` writes run `switchboard hook`, the question appears in the
//! inbox, and the answer decides what Claude Code does.

use std::{
    path::{Path, PathBuf},
    process::Output,
    thread,
    time::Duration,
};

use serde_json::{Value, json};
use switchboard_model::registry::Presence;
use switchboard_model_server::{
    anthropic::{MessagesServer, Turn},
    claude_code::ClaudeCode,
    codex::Codex,
    responses::{ResponsesServer, Turn as CodexTurn},
};
use switchboard_store::{
    Workspace,
    registry::{Registered, Registry},
    window,
};

use crate::{ok_stdout, stored_now, switchboard, when_stored, when_stored_within};

/// A project with Claude Code set up to trust it and Switchboard's hooks
/// installed the way a developer does it.
struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    claude: ClaudeCode,
    /// The runtime folder its Switchboards register in: the test's own, so
    /// a window open on the developer's desktop is never seen.
    runtime: PathBuf,
}

impl Project {
    fn new(wait: u64) -> Self {
        let project = Self::bare();
        let wait = wait.to_string();
        let installed = switchboard(
            &project.root,
            &[
                "hooks",
                "install",
                "claude-code",
                "--write",
                "--wait",
                &wait,
            ],
        );
        assert!(ok_stdout(&installed).contains("settings.local.json"));
        project
    }

    /// The project without hooks, `switchboard mcp` registered instead.
    fn with_mcp() -> Self {
        let project = Self::bare();
        ok_stdout(&switchboard(
            &project.root,
            &["mcp", "install", "claude-code", "--write"],
        ));
        project.claude.enable_project_servers(&["switchboard"]);
        project
    }

    fn bare() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("project")).unwrap();
        let root = dir.path().join("project").canonicalize().unwrap();
        std::fs::create_dir(root.join("build")).unwrap();
        let claude = ClaudeCode::configure(&dir.path().join("claude-config"), &root);
        let runtime = dir.path().join("runtime");
        Self {
            _dir: dir,
            root,
            claude,
            runtime,
        }
    }

    /// `claude -p` in the project against `server`, `switchboard` on PATH.
    fn run(&self, server: &MessagesServer, extra: &[&str]) -> Output {
        let bin = Path::new(env!("CARGO_BIN_EXE_switchboard"))
            .parent()
            .unwrap();
        self.claude
            .print(server, "tidy the build", bin)
            .args(extra)
            .env("SWITCHBOARD_RUNTIME_DIR", &self.runtime)
            .output()
            .unwrap()
    }

    /// Another workspace beside the project, with a window open on it (a
    /// registration, as the window makes) until the guard is dropped.
    fn window_elsewhere(&self) -> (PathBuf, Registered) {
        let other = self.root.parent().unwrap().join("other");
        std::fs::create_dir_all(&other).unwrap();
        let other = other.canonicalize().unwrap();
        let runtime = switchboard_store::runtime::private(self.runtime.clone()).unwrap();
        let registry = Registry::at(runtime.join("workspaces")).unwrap();
        let window = registry
            .register(
                &Workspace::open(&other).unwrap(),
                Presence::Window,
                switchboard_store::clock::now(),
            )
            .unwrap();
        (other, window)
    }

    /// The permission questions in the inbox.
    fn questions(&self) -> Vec<Value> {
        stored_now(&self.root)
            .unwrap_or_default()
            .into_iter()
            .filter(|delivery| delivery.get("agent_request").is_some())
            .collect()
    }

    /// Answers the next open permission question with `answer`.
    fn answer_next(&self, answer: &'static [&'static str]) -> thread::JoinHandle<Value> {
        let root = self.root.clone();
        thread::spawn(move || answer_open_question(&root, answer))
    }
}

/// Answers the open permission question in `root`, once there is one,
/// with `answer` (the arguments of `switchboard answer ID …`), as the
/// developer would; returns the question. The agent asking is a real
/// program starting up on a machine running other tests: it gets a
/// minute to ask.
fn answer_open_question(root: &Path, answer: &[&str]) -> Value {
    let question = when_stored_within(root, Duration::from_secs(60), || {
        stored_now(root)?.into_iter().find(|delivery| {
            delivery.get("agent_request").is_some() && delivery["status"] == "awaiting_feedback"
        })
    });
    let id = question["id"].as_str().unwrap().to_owned();
    ok_stdout(&crate::answer_as_shown(root, &id, answer, &[]));
    question
}

fn rm_build() -> Turn {
    Turn::tool(
        "Bash",
        json!({"command": "rm -rf build", "description": "Remove the build folder"}),
    )
}

fn result_of(output: &Output) -> Value {
    assert!(
        output.status.success(),
        "claude failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn a_command_allowed_in_the_window_runs() {
    let project = Project::new(60);
    let _window = window::hold(&Workspace::open(&project.root).unwrap()).unwrap();
    let server = MessagesServer::start(vec![rm_build(), Turn::text("Done.")]);
    let answered = project.answer_next(&["--value", "true"]);
    let result = result_of(&project.run(&server, &[]));
    let question = answered.join().unwrap();

    assert_eq!(result["result"], "Done.");
    assert!(
        !project.root.join("build").exists(),
        "the allowed command ran"
    );
    assert_eq!(question["title"], "Claude Code wants to run `rm -rf build`");
    let body = question["content"]["body"].as_str().unwrap();
    assert!(
        body.contains("Remove the build folder") && body.contains("```sh\nrm -rf build\n```"),
        "{body}"
    );
    assert_eq!(question["agent_request"]["tool_name"], "Bash");
    assert_eq!(
        question["agent_request"]["cwd"],
        project.root.display().to_string()
    );
    let [closed] = project.questions().try_into().unwrap();
    assert_eq!(closed["status"], "completed");
    // The run is over (SessionEnd): the Agents list says it left.
    let agents: Value = serde_json::from_str(&ok_stdout(&switchboard(
        &project.root,
        &["agents", "--json"],
    )))
    .unwrap();
    assert_eq!(agents[0]["shown"], "gone");
    assert_eq!(agents[0]["record"]["agent"], "claude-code");
    assert!(agents[0]["record"]["waiting_on"].is_null());
}

#[test]
fn a_question_asked_with_no_window_of_its_own_is_answered_from_another_workspaces_window() {
    let project = Project::new(60);
    let (other, window) = project.window_elsewhere();
    let server = MessagesServer::start(vec![rm_build(), Turn::text("Done.")]);
    // The developer, in the other workspace's window, sees it in "All
    // workspaces" and allows it there.
    let runtime = project.runtime.clone();
    let root = project.root.clone();
    let answered = thread::spawn(move || {
        let everywhere = |args: &[&str]| -> Option<Value> {
            let output = std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
                .arg("-C")
                .arg(&other)
                .args(args)
                .env("SWITCHBOARD_RUNTIME_DIR", &runtime)
                .output()
                .unwrap();
            serde_json::from_slice(&output.stdout).ok()
        };
        let listed = when_stored_within(&root, Duration::from_secs(60), || {
            everywhere(&["list", "--all", "--waiting", "--json"])
                .filter(|rows| rows.as_array().is_some_and(|rows| !rows.is_empty()))
        });
        // The agent's row moves with its question (a file of its own, so
        // a moment after the question shows).
        let line = when_stored_within(&root, Duration::from_secs(10), || {
            let lines = everywhere(&["agents", "--all", "--json"])?;
            lines
                .as_array()?
                .iter()
                .find(|line| {
                    line["workspace"] == root.display().to_string()
                        && line["agents"][0]["shown"] == "needs_permission"
                })
                .cloned()
        });
        ok_stdout(&crate::answer_as_shown(
            &root,
            listed[0]["id"].as_str().unwrap(),
            &["--value", "true"],
            &[],
        ));
        (listed, line)
    });
    let result = result_of(&project.run(&server, &[]));
    let (listed, line) = answered.join().unwrap();

    assert_eq!(result["result"], "Done.");
    assert!(
        !project.root.join("build").exists(),
        "the allowed command ran"
    );
    assert_eq!(listed.as_array().map(Vec::len), Some(1));
    assert_eq!(listed[0]["workspace"], project.root.display().to_string());
    assert_eq!(
        listed[0]["title"],
        "Claude Code wants to run `rm -rf build`"
    );
    // While it waited, the project was listed as asking, its agent
    // waiting on the question.
    assert_eq!(line["presences"], json!(["asking"]));
    assert_eq!(line["questions"][0]["id"], listed[0]["id"]);
    assert_eq!(line["agents"][0]["record"]["waiting_on"], listed[0]["id"]);
    drop(window);
}

#[test]
fn with_no_window_anywhere_the_agent_asks_in_its_terminal_and_a_last_window_closing_hands_back() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let runtime = root.join(".test-runtime");
    // No window anywhere: nothing is asked.
    fell_through(&root, hook_process(&root, "60"));

    // A window on another workspace: asked; it closing hands it back.
    let other = root.join("other");
    std::fs::create_dir(&other).unwrap();
    let runtime = switchboard_store::runtime::private(runtime).unwrap();
    let window = Registry::at(runtime.join("workspaces"))
        .unwrap()
        .register(
            &Workspace::open(&other).unwrap(),
            Presence::Window,
            switchboard_store::clock::now(),
        )
        .unwrap();
    let child = hook_process(&root, "60");
    asked(&root);
    drop(window);
    fell_through(&root, child);
}

#[test]
fn a_command_denied_with_a_reason_does_not_run_and_the_model_reads_the_reason() {
    let project = Project::new(60);
    let _window = window::hold(&Workspace::open(&project.root).unwrap()).unwrap();
    let server = MessagesServer::start(vec![rm_build(), Turn::text("Understood.")]);
    let answered = project.answer_next(&[
        "--value",
        "false",
        "--comment",
        "keep the build for the demo",
    ]);
    result_of(&project.run(&server, &[]));
    answered.join().unwrap();

    assert!(
        project.root.join("build").is_dir(),
        "the denied command did not run"
    );
    let results = server.tool_results();
    assert_eq!(results.len(), 1);
    let said = results[0].to_string();
    assert!(said.contains("keep the build for the demo"), "{said}");
    assert_eq!(results[0]["is_error"], true);
}

fn bash(command: &str) -> Turn {
    Turn::tool(
        "Bash",
        json!({"command": command, "description": "As the model asked"}),
    )
}

/// The allow rules in the project's own Claude Code settings.
fn allowed(project: &Project) -> Value {
    let local: Value = serde_json::from_str(
        &std::fs::read_to_string(project.root.join(".claude/settings.local.json")).unwrap(),
    )
    .unwrap();
    assert!(local["hooks"]["PermissionRequest"].is_array());
    local["permissions"]["allow"].clone()
}

#[test]
fn always_allow_keeps_exactly_the_command_shown_and_any_other_is_asked() {
    let project = Project::new(60);
    let _window = window::hold(&Workspace::open(&project.root).unwrap()).unwrap();
    // Claude Code itself would keep `npm run *` for the first: what is
    // kept is the command the developer saw.
    let server = MessagesServer::start(vec![
        bash("npm run test:unit"),
        bash("npm run test:unit"),
        bash("npm run lint"),
        Turn::text("Done."),
    ]);
    let root = project.root.clone();
    let answering = thread::spawn(move || {
        let first = answer_open_question(&root, &["--value", "true", "--remember"]);
        let second = answer_open_question(&root, &["--value", "false"]);
        (first, second)
    });
    result_of(&project.run(&server, &[]));
    let (first, second) = answering.join().unwrap();

    assert_eq!(
        first["agent_request"]["always"],
        json!([{"tool": "Bash", "content": "npm run test:unit"}])
    );
    assert_eq!(second["title"], "Claude Code wants to run `npm run lint`");
    assert_eq!(
        project.questions().len(),
        2,
        "the same command was not asked again"
    );
    assert_eq!(server.tool_results().len(), 3);
    // Claude Code wrote the rule where its own "don't ask again" does,
    // beside Switchboard's hooks.
    assert_eq!(allowed(&project), json!(["Bash(npm run test:unit)"]));
}

#[test]
fn a_command_no_rule_can_keep_exactly_is_never_remembered() {
    let project = Project::new(60);
    let _window = window::hold(&Workspace::open(&project.root).unwrap()).unwrap();
    std::fs::write(project.root.join("build/a.o"), "").unwrap();
    // `*` in a rule is Claude Code's wildcard (`Bash(rm -rf build/*)` also
    // allows `rm -rf build/ src`); a redirection gets a folder, no rule.
    // A pipeline: Claude Code would keep `Bash(sh)`, which runs anything
    // piped to it.
    let server = MessagesServer::start(vec![
        bash("rm -rf build/*"),
        bash("date > year.txt"),
        bash("echo hi | sh"),
        bash("echo 'touch piped.txt' | sh"),
        bash("rm -rf build/*"),
        Turn::text("Done."),
    ]);
    let root = project.root.clone();
    let answering = thread::spawn(move || {
        (0..5)
            .map(|_| answer_open_question(&root, &["--value", "true", "--remember"]))
            .collect::<Vec<_>>()
    });
    result_of(&project.run(&server, &[]));
    let questions = answering.join().unwrap();

    for question in &questions {
        assert!(
            question["agent_request"].get("always").is_none(),
            "no \"always\" offered: {question}"
        );
    }
    assert!(
        project.root.join("year.txt").exists(),
        "allowed once, it ran"
    );
    assert!(
        project.root.join("piped.txt").exists(),
        "asked again, allowed once, it ran"
    );
    assert!(!project.root.join("build/a.o").exists());
    assert_eq!(project.questions().len(), 5, "each asked again");
    assert!(allowed(&project).is_null(), "{}", allowed(&project));
}

#[test]
fn with_no_window_open_the_hook_falls_through_and_nothing_is_asked() {
    let project = Project::new(60);
    let server = MessagesServer::start(vec![rm_build(), Turn::text("Could not.")]);
    let started = std::time::Instant::now();
    result_of(&project.run(&server, &[]));
    // Far below the hook's 60 s: it did not wait for anybody.
    assert!(started.elapsed() < std::time::Duration::from_secs(50));
    assert!(
        project.questions().is_empty(),
        "no question nobody would see"
    );
    // Claude Code decided at its own prompt (none in -p: denied).
    assert!(project.root.join("build").is_dir());
    // The agent was still seen.
    let agents: Value = serde_json::from_str(&ok_stdout(&switchboard(
        &project.root,
        &["agents", "--json"],
    )))
    .unwrap();
    assert_eq!(agents.as_array().unwrap().len(), 1);
}

#[test]
fn a_headless_run_asks_through_the_approve_tool_and_a_denial_stops_the_command() {
    let project = Project::with_mcp();
    let _window = window::hold(&Workspace::open(&project.root).unwrap()).unwrap();
    let server = MessagesServer::start(vec![rm_build(), rm_build(), Turn::text("Stopped.")]);
    let first = project.answer_next(&["--value", "true"]);
    let root = project.root.clone();
    // The second question is answered once the first is closed.
    let second = thread::spawn(move || {
        first.join().unwrap();
        let question = when_stored(&root, || {
            stored_now(&root)?.into_iter().find(|delivery| {
                delivery.get("agent_request").is_some() && delivery["status"] == "awaiting_feedback"
            })
        });
        std::fs::create_dir_all(root.join("build")).unwrap();
        answer_open_question(&root, &["--value", "false", "--comment", "not twice"]);
        question
    });
    let result = result_of(&project.run(
        &server,
        &["--permission-prompt-tool", "mcp__switchboard__approve"],
    ));
    let question = second.join().unwrap();

    assert_eq!(result["result"], "Stopped.");
    assert_eq!(question["agent_request"]["has_terminal"], false);
    assert!(
        question["title"]
            .as_str()
            .unwrap()
            .ends_with("wants to run `rm -rf build`")
    );
    // Allowed, it ran; denied, it did not, and the model read why.
    assert!(
        project.root.join("build").is_dir(),
        "the denied command did not run"
    );
    let results = server.tool_results();
    assert_eq!(results.len(), 2, "{results:?}");
    assert_ne!(results[0]["is_error"], true, "{results:?}");
    assert!(
        results[1].to_string().contains("not twice"),
        "{}",
        results[1]
    );
    assert_eq!(project.questions().len(), 2);
}

/// Runs `switchboard hook` with a permission request on stdin, as Claude
/// Code does, and returns the running process.
fn hook_process(root: &Path, wait: &str) -> std::process::Child {
    let event = json!({
        "session_id": "s-1", "transcript_path": "", "cwd": root,
        "hook_event_name": "PermissionRequest", "tool_name": "Bash",
        "tool_input": {"command": "cargo publish"},
    });
    hook_with(root, wait, &event, &[])
}

/// Runs `switchboard hook --wait WAIT` in `root` with `event` on stdin and
/// `envs` beside the test's environment, and returns the running process.
pub(crate) fn hook_with(
    root: &Path,
    wait: &str,
    event: &Value,
    envs: &[(&str, &str)],
) -> std::process::Child {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["hook", "--agent", "claude-code", "--wait", wait])
        .current_dir(root)
        .env_remove("CLAUDE_PROJECT_DIR")
        // Its own runtime folder, unless the test names one: a window open
        // on the developer's desktop is never seen.
        .env("SWITCHBOARD_RUNTIME_DIR", root.join(".test-runtime"))
        .envs(envs.iter().copied())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(event.to_string().as_bytes())
        .unwrap();
    child
}

/// The open question the hook asked, once it is stored.
pub(crate) fn asked(root: &Path) -> Value {
    when_stored(root, || {
        stored_now(root)?
            .into_iter()
            .find(|delivery| delivery["status"] == "awaiting_feedback")
    })
}

/// The hook decided nothing: no output, exit 0, and its question is gone.
fn fell_through(root: &Path, child: std::process::Child) {
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.stdout.is_empty(),
        "no decision: {}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(
        stored_now(root).unwrap_or_default().is_empty(),
        "the question left the inbox"
    );
}

#[test]
fn answer_in_the_terminal_hands_the_request_back_to_the_agent() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let _window = window::hold(&Workspace::open(&root).unwrap()).unwrap();
    let child = hook_process(&root, "60");
    let question = asked(&root);
    ok_stdout(&switchboard(
        &root,
        &["answer", question["id"].as_str().unwrap(), "--dismiss"],
    ));
    fell_through(&root, child);
}

#[test]
fn a_window_that_closes_hands_the_request_back_to_the_agent() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let window = window::hold(&Workspace::open(&root).unwrap()).unwrap();
    let child = hook_process(&root, "60");
    asked(&root);
    drop(window);
    fell_through(&root, child);
}

#[test]
fn a_request_nobody_answers_in_time_goes_back_to_the_agent() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let _window = window::hold(&Workspace::open(&root).unwrap()).unwrap();
    let child = hook_process(&root, "1");
    fell_through(&root, child);
    // The agent waits at its own prompt, on no question here.
    let agents: Value =
        serde_json::from_str(&ok_stdout(&switchboard(&root, &["agents", "--json"]))).unwrap();
    assert_eq!(agents[0]["shown"], "needs_permission");
    assert!(agents[0]["record"]["waiting_on"].is_null());
}

#[test]
fn a_bad_event_is_told_with_its_code_and_never_denies() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["hook"])
        .current_dir(dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"{\"hook_event_name\": \"Stop\"}")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(1),
        "1, a non-blocking error; never 2"
    );
    assert!(output.stdout.is_empty());
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("error[INVALID_REQUEST]") && said.contains("session_id"),
        "{said}"
    );
}

/// A project with Codex set up to trust it, its model `server`, and
/// Switchboard's hooks installed for it the way a developer does it.
fn codex_project(server: &ResponsesServer) -> (tempfile::TempDir, PathBuf, Codex) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("project/build")).unwrap();
    let root = dir.path().join("project").canonicalize().unwrap();
    let installed = switchboard(&root, &["hooks", "install", "codex", "--write"]);
    assert!(ok_stdout(&installed).contains(".codex/hooks.json"));
    let codex = Codex::configure(&dir.path().join("codex-home"), &root, server);
    (dir, root, codex)
}

/// Fails the test with what Codex said, when no question came from it.
fn codex_asked_nothing(output: &Output) -> Value {
    panic!(
        "no question came from Codex ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    )
}

fn escalated_rm() -> CodexTurn {
    CodexTurn::call(
        "exec_command",
        json!({"cmd": "rm -rf build", "sandbox_permissions": "require_escalated", "justification": "Remove the build"}),
    )
}

#[test]
fn codex_asks_through_the_same_hook_and_a_denial_with_a_reason_reaches_its_model() {
    let server = ResponsesServer::start(vec![escalated_rm(), CodexTurn::text("Left it.")]);
    let (_dir, root, codex) = codex_project(&server);
    let _window = window::hold(&Workspace::open(&root).unwrap()).unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_switchboard"))
        .parent()
        .unwrap();
    let answering = {
        let root = root.clone();
        thread::spawn(move || {
            answer_open_question(
                &root,
                &["--value", "false", "--comment", "the build is needed"],
            )
        })
    };
    let output = codex.exec("tidy up", bin).output().unwrap();
    let question = answering
        .join()
        .unwrap_or_else(|_| codex_asked_nothing(&output));

    assert!(
        output.status.success(),
        "codex failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(question["title"], "Codex wants to run `rm -rf build`");
    assert_eq!(question["agent_request"]["agent"], "codex");
    // Codex keeps no rule a hook can add: no "always allow".
    assert!(question["agent_request"].get("always").is_none());
    assert!(
        root.join("build").is_dir(),
        "the denied command did not run"
    );
    let outputs = server.function_outputs();
    assert_eq!(outputs.len(), 1, "{outputs:?}");
    assert!(
        outputs[0].to_string().contains("the build is needed"),
        "{}",
        outputs[0]
    );
}

#[test]
fn codex_runs_a_command_allowed_in_the_window() {
    let server = ResponsesServer::start(vec![escalated_rm(), CodexTurn::text("Done.")]);
    let (_dir, root, codex) = codex_project(&server);
    let _window = window::hold(&Workspace::open(&root).unwrap()).unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_switchboard"))
        .parent()
        .unwrap();
    let answering = {
        let root = root.clone();
        thread::spawn(move || answer_open_question(&root, &["--value", "true"]))
    };
    let output = codex.exec("tidy up", bin).output().unwrap();
    answering
        .join()
        .unwrap_or_else(|_| codex_asked_nothing(&output));
    assert!(
        output.status.success(),
        "codex failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!root.join("build").exists(), "the allowed command ran");
    // Seen as Codex, with its rollout as the transcript.
    let agents: Value =
        serde_json::from_str(&ok_stdout(&switchboard(&root, &["agents", "--json"]))).unwrap();
    assert_eq!(agents[0]["record"]["agent"], "codex");
    assert!(
        agents[0]["record"]["transcript_path"]
            .as_str()
            .is_some_and(|path| path.ends_with(".jsonl"))
    );
}

/// `switchboard -C root ARGS…` with Codex's home at `codex_home`.
fn switchboard_with_codex(root: &Path, codex_home: &Path, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .arg("-C")
        .arg(root)
        .args(args)
        .env("CODEX_HOME", codex_home)
        .output()
        .unwrap()
}

/// Issue 39, item 10: Codex skips hooks it has not trusted, silently.
/// Installing them says how Codex comes to trust them, and `switchboard
/// agents` says whether it does — by the same rule Codex applies, checked
/// against the real Codex's own listing of the hooks.
#[test]
fn codex_hooks_are_told_untrusted_until_codex_trusts_them_and_again_once_changed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("project")).unwrap();
    let root = dir.path().join("project").canonicalize().unwrap();
    let home = dir.path().join("codex-home");
    std::fs::create_dir_all(&home).unwrap();
    let base = "check_for_update_on_startup = false\n[analytics]\nenabled = false\n\
                [features]\napps = false\nremote_plugin = false\nplugins = false\n";
    std::fs::write(home.join("config.toml"), base).unwrap();

    let installed = ok_stdout(&switchboard_with_codex(
        &root,
        &home,
        &["hooks", "install", "codex", "--write"],
    ));
    assert!(
        installed.contains("/hooks") && installed.contains("--dangerously-bypass-hook-trust"),
        "install says how Codex comes to trust them: {installed}"
    );
    assert!(
        installed.contains(&format!(
            "the project {} is not trusted yet",
            root.display()
        )),
        "{installed}"
    );
    let agents = ok_stdout(&switchboard_with_codex(&root, &home, &["agents"]));
    assert!(agents.contains("is not trusted yet"), "{agents}");
    // The JSON stays the rows; the note goes to stderr.
    let json = switchboard_with_codex(&root, &home, &["agents", "--json"]);
    assert_eq!(ok_stdout(&json), "[]");
    assert!(String::from_utf8_lossy(&json.stderr).contains("is not trusted yet"));

    // The project trusted: each hook still waits for its review.
    let trusted_project = format!(
        "{base}[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
        root.display()
    );
    std::fs::write(home.join("config.toml"), &trusted_project).unwrap();
    let agents = ok_stdout(&switchboard_with_codex(&root, &home, &["agents"]));
    assert!(
        agents.contains("until you trust them (5 not yet trusted)") && agents.contains("/hooks"),
        "{agents}"
    );
    let listed = switchboard_model_server::codex::listed_hooks(&home, &root);
    assert_eq!(listed.len(), 5, "{listed:?}");
    assert!(listed.iter().all(|hook| hook["trustStatus"] == "untrusted"));
    assert!(
        listed
            .iter()
            .any(|hook| hook["eventName"] == "permissionRequest" && hook["timeoutSec"] == 300),
        "Codex reads the timeout Switchboard wrote: {listed:?}"
    );

    // The developer trusts them in Codex (/hooks, t): Codex keeps each
    // hook's hash under its key. Switchboard then has nothing to say.
    let mut trusted = trusted_project.clone();
    for hook in &listed {
        trusted.push_str(&format!(
            "[hooks.state.\"{}\"]\ntrusted_hash = \"{}\"\n",
            hook["key"].as_str().unwrap(),
            hook["currentHash"].as_str().unwrap()
        ));
    }
    std::fs::write(home.join("config.toml"), &trusted).unwrap();
    assert!(
        switchboard_model_server::codex::listed_hooks(&home, &root)
            .iter()
            .all(|hook| hook["trustStatus"] == "trusted"),
        "Codex agrees they are trusted"
    );
    let agents = ok_stdout(&switchboard_with_codex(&root, &home, &["agents"]));
    assert!(!agents.contains("Codex"), "{agents}");

    // Installed again with another wait: the changed hook needs trusting again.
    let again = ok_stdout(&switchboard_with_codex(
        &root,
        &home,
        &["hooks", "install", "codex", "--write", "--wait", "120"],
    ));
    assert!(again.contains("1 changed since trusted"), "{again}");
    let statuses: Vec<String> = switchboard_model_server::codex::listed_hooks(&home, &root)
        .iter()
        .map(|hook| hook["trustStatus"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        statuses
            .iter()
            .filter(|status| *status == "modified")
            .count(),
        1,
        "Codex sees the same change: {statuses:?}"
    );
}

#[test]
fn every_workspace_listed_from_a_runtime_folder_that_cannot_be_used_says_why() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let runtime = switchboard_store::runtime::private(root.join("runtime")).unwrap();
    // Made by hand, open to everyone: windows and hooks refuse it.
    std::fs::create_dir(runtime.join("workspaces")).unwrap();
    std::fs::set_permissions(
        runtime.join("workspaces"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    for args in [
        &["agents", "--all"][..],
        &["list", "--all", "--waiting", "--json"],
    ] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .arg("-C")
            .arg(&root)
            .args(args)
            .env("SWITCHBOARD_RUNTIME_DIR", &runtime)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{args:?}: {stderr}");
        assert!(
            stderr.contains("is not private (mode 755"),
            "{args:?} says why it lists this workspace alone: {stderr}"
        );
    }
}
