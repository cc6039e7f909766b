//! The chat on the agent backends, through the real agent CLIs (the
//! versions the setup script installs) whose models are scripted
//! stand-ins on loopback: Claude Code on a Messages API stand-in
//! ([`claude_code`]), Codex on a Responses API stand-in ([`codex`]).

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.
#![allow(clippy::disallowed_methods)] // Tests read the files they made.

mod claude_code;
mod codex;

use std::{
    io::{BufRead, BufReader, Write},
    path::Path,
    process::{Command, Stdio},
};

use serde_json::{Value, json};
use switchboard_model::sidecar::{ResponseBody, SidecarResponse, WriteEvent};

/// A sidecar whose settings and environment a test chose.
struct Sidecar {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
}

impl Sidecar {
    /// With `settings` as its `settings.json` in `config`, `backend` set
    /// (`SWITCHBOARD_MODEL_BACKEND`) or to be found, `env` added and
    /// `removed` taken out of its environment.
    fn launch(
        config: &Path,
        settings: Value,
        backend: Option<&str>,
        env: &[(&'static str, String)],
        removed: &[&str],
    ) -> Self {
        std::fs::write(config.join("settings.json"), settings.to_string()).unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_switchboard-sidecar"));
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .env("SWITCHBOARD_CONFIG_DIR", config)
            .env_remove("SWITCHBOARD_MODEL_URL")
            .env_remove("SWITCHBOARD_MODEL_BACKEND")
            .envs(env.iter().map(|(key, value)| (*key, value)));
        for key in removed {
            command.env_remove(key);
        }
        if let Some(backend) = backend {
            command.env("SWITCHBOARD_MODEL_BACKEND", backend);
        }
        let mut child = command.spawn().unwrap();
        Self {
            stdin: child.stdin.take().unwrap(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            child,
        }
    }

    /// Chat turn `id` with `message` in `mode`: its responses up to the
    /// end (done or failed).
    fn chat(
        &mut self,
        id: u64,
        workspace: &Path,
        mode: &str,
        message: &str,
    ) -> Vec<SidecarResponse> {
        self.send(json!({"id": id, "type": "chat", "workspace": workspace,
            "mode": mode, "message": message}));
        self.until(|response| {
            response.id == id
                && matches!(
                    response.body,
                    ResponseBody::ChatDone { .. } | ResponseBody::Error { .. }
                )
        })
    }

    /// `list_models` as request `id`: its answer.
    fn models(&mut self, id: u64) -> ResponseBody {
        self.send(json!({"id": id, "type": "list_models"}));
        self.until(|response| response.id == id).pop().unwrap().body
    }

    fn send(&mut self, request: Value) {
        writeln!(self.stdin, "{request}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Responses up to and including the one `done` picks.
    fn until(&mut self, done: impl Fn(&SidecarResponse) -> bool) -> Vec<SidecarResponse> {
        let mut seen = Vec::new();
        loop {
            let mut line = String::new();
            self.stdout.read_line(&mut line).unwrap();
            assert!(!line.is_empty(), "the sidecar ended; so far: {seen:?}");
            let response: SidecarResponse = serde_json::from_str(&line).unwrap();
            let last = done(&response);
            seen.push(response);
            if last {
                return seen;
            }
        }
    }

    /// Sends `stop` for chat `chat` once its answer has begun, and returns
    /// the turn's end.
    fn stop_once_answering(&mut self, chat: u64) -> ResponseBody {
        self.until(|response| matches!(response.body, ResponseBody::Delta { .. }));
        self.send(json!({"id": chat + 1000, "type": "stop", "chat": chat}));
        self.until(|response| {
            matches!(
                response.body,
                ResponseBody::ChatDone { .. } | ResponseBody::Error { .. }
            )
        })
        .pop()
        .unwrap()
        .body
    }
}

impl Drop for Sidecar {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The code and message a turn failed with.
fn failure(turn: &[SidecarResponse]) -> (switchboard_model::ErrorCode, String) {
    match &turn.last().unwrap().body {
        ResponseBody::Error { code, message } => (*code, message.clone()),
        other => panic!("the turn did not fail: {other:?}"),
    }
}

/// The reply a turn ended with (it must have ended well, not stopped).
fn reply(turn: &[SidecarResponse]) -> String {
    match &turn.last().unwrap().body {
        ResponseBody::ChatDone { reply, stopped, .. } => {
            assert!(!stopped);
            reply.clone()
        }
        other => panic!("the turn failed: {other:?}"),
    }
}

/// Everything a turn streamed as deltas.
fn streamed(turn: &[SidecarResponse]) -> String {
    turn.iter()
        .filter_map(|response| match &response.body {
            ResponseBody::Delta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// The writes a turn reported.
fn writes(turn: &[SidecarResponse]) -> Vec<&WriteEvent> {
    turn.iter()
        .filter_map(|response| match &response.body {
            ResponseBody::Write(event) => Some(event),
            _ => None,
        })
        .collect()
}

/// The turn wrote `.prompts/plan/idea.md` (`# Idea`) and was refused
/// `src/main.rs`: both reported, in that order, and audited.
fn planned_and_was_refused_the_code(turn: &[SidecarResponse], workspace: &Path) {
    assert_eq!(
        std::fs::read_to_string(workspace.join(".prompts/plan/idea.md")).unwrap(),
        "# Idea\n"
    );
    assert!(!workspace.join("src/main.rs").exists());
    let writes = writes(turn);
    assert_eq!(writes.len(), 2, "{writes:?}");
    assert!(
        matches!(writes[0], WriteEvent::Applied { .. }),
        "{writes:?}"
    );
    assert!(
        matches!(writes[1], WriteEvent::Refused { .. }),
        "{writes:?}"
    );
    assert_eq!(audited(workspace), ["written", "refused"]);
}

/// The decisions in the workspace's write audit log, in order.
fn audited(workspace: &Path) -> Vec<String> {
    let audit = std::fs::read_to_string(workspace.join(".switchboard/audit/writes.jsonl")).unwrap();
    audit
        .lines()
        .map(|line| {
            serde_json::from_str::<Value>(line).unwrap()["decision"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// The names of the sidecar's own tools in `mode`, sorted.
fn our_tools(mode: switchboard_model::chat::ChatMode) -> Vec<String> {
    let mut names: Vec<String> = switchboard_sidecar::tools::definitions(mode)
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

/// Waits (up to 10 s) until `ended` says the agent's process has gone.
fn until_ended(ended: impl Fn() -> bool, what: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !ended() {
        assert!(std::time::Instant::now() < deadline, "{what}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Makes `path` a shell script of `body`.
fn script(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A temporary folder with `project` (canonical, with `src/`) and an empty
/// `switchboard-config`.
fn folders() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("project");
    std::fs::create_dir_all(workspace.join("src")).unwrap();
    let config = dir.path().join("switchboard-config");
    std::fs::create_dir_all(&config).unwrap();
    let workspace = workspace.canonicalize().unwrap();
    (dir, workspace, config)
}
