//! Drives the real `switchboard-sidecar` process over its stdio.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.
#![allow(clippy::disallowed_methods)] // Tests read the files they made.

use std::{
    io::{BufRead, BufReader, Write},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use switchboard_model::sidecar::{PROTOCOL_VERSION, ResponseBody, SidecarResponse, WriteEvent};

#[test]
fn answers_health_survives_garbage_and_exits_on_shutdown() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard-sidecar"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut exchange = |line: &str| -> SidecarResponse {
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        let mut answer = String::new();
        stdout.read_line(&mut answer).unwrap();
        serde_json::from_str(&answer).unwrap()
    };

    let health = exchange(r#"{"id":7,"type":"health"}"#);
    assert_eq!(health.id, 7, "the response echoes the request id");
    assert!(
        matches!(health.body, ResponseBody::Health { protocol, .. } if protocol == PROTOCOL_VERSION),
        "{health:?}"
    );
    let garbage = exchange("{not json");
    assert!(
        matches!(
            garbage.body,
            ResponseBody::Error {
                code: switchboard_model::ErrorCode::InvalidRequest,
                ..
            }
        ),
        "{garbage:?}"
    );
    let still_alive = exchange(r#"{"id":8,"type":"health"}"#);
    assert_eq!(still_alive.id, 8, "a bad line must not kill the sidecar");
    let bye = exchange(r#"{"id":9,"type":"shutdown"}"#);
    assert_eq!(bye.body, ResponseBody::ShuttingDown);
    assert!(child.wait().unwrap().success(), "shutdown exits cleanly");
}

/// A sidecar process with its own empty settings, pointed at `url`.
struct Sidecar {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
    _config: tempfile::TempDir,
}

impl Sidecar {
    fn start(url: &str) -> Self {
        Self::start_with(url, &[])
    }

    /// A sidecar with `environment` added (settings' overrides).
    fn start_with(url: &str, environment: &[(&str, &str)]) -> Self {
        let config = tempfile::tempdir().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard-sidecar"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .env("SWITCHBOARD_CONFIG_DIR", config.path())
            .env("SWITCHBOARD_MODEL_URL", url)
            .envs(environment.iter().copied())
            .spawn()
            .unwrap();
        Self {
            stdin: child.stdin.take().unwrap(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            child,
            _config: config,
        }
    }

    fn send(&mut self, request: serde_json::Value) {
        writeln!(self.stdin, "{request}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn next(&mut self) -> SidecarResponse {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap()
    }

    /// Responses up to and including the one `done` picks.
    fn until(&mut self, done: impl Fn(&SidecarResponse) -> bool) -> Vec<SidecarResponse> {
        let mut seen = Vec::new();
        loop {
            let response = self.next();
            let last = done(&response);
            seen.push(response);
            if last {
                return seen;
            }
        }
    }
}

impl Drop for Sidecar {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn dry_run_writes_wait_for_approval_and_models_are_listed() {
    use serde_json::json;
    use switchboard_model::sidecar::ProposalOutcome;
    use switchboard_model_server::{Reply, ScriptedServer, text_chunk, write_file_chunk};

    let workspace = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![
        Reply::sse(&[
            &write_file_chunk(0, "c1", ".prompts/plan/keep.md", "# Keep"),
            &write_file_chunk(1, "c2", ".prompts/plan/drop.md", "# Drop"),
            "[DONE]",
        ]),
        Reply::sse(&[&text_chunk("Two proposals."), "[DONE]"]),
        Reply::status(200, r#"{"object":"list","data":[{"id":"m1"},{"id":"m2"}]}"#),
    ]);
    let mut sidecar = Sidecar::start(&server.url());
    sidecar.send(
        json!({"id": 1, "type": "chat", "workspace": workspace.path(),
        "mode": "Planning", "message": "plan", "dry_run": true}),
    );
    let turn = sidecar.until(|r| matches!(r.body, ResponseBody::ChatDone { .. }));
    let proposals: Vec<(String, String)> = turn
        .iter()
        .filter_map(|r| match &r.body {
            ResponseBody::Write(WriteEvent::Proposed { proposal, path, .. }) => {
                Some((proposal.clone(), path.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(proposals.len(), 2, "{turn:?}");
    assert!(!workspace.path().join(".prompts/plan/keep.md").exists());

    sidecar.send(json!({"id": 2, "type": "apply_write", "proposal": proposals[0].0}));
    let applied = sidecar.next();
    assert_eq!(applied.id, 2);
    assert!(
        matches!(
            &applied.body,
            ResponseBody::ProposalSettled {
                outcome: ProposalOutcome::Applied { bytes: 6 },
                ..
            }
        ),
        "{applied:?}"
    );
    assert_eq!(
        std::fs::read_to_string(workspace.path().join(".prompts/plan/keep.md")).unwrap(),
        "# Keep"
    );
    sidecar.send(json!({"id": 3, "type": "discard_write", "proposal": proposals[1].0}));
    assert!(matches!(
        sidecar.next().body,
        ResponseBody::ProposalSettled {
            outcome: ProposalOutcome::Discarded,
            ..
        }
    ));
    assert!(!workspace.path().join(".prompts/plan/drop.md").exists());
    sidecar.send(json!({"id": 4, "type": "apply_write", "proposal": proposals[1].0}));
    assert!(
        matches!(
            sidecar.next().body,
            ResponseBody::Error { code: switchboard_model::ErrorCode::NotFound, message }
                if message.contains("already settled")
        ),
        "a settled proposal cannot be applied later"
    );
    let audit =
        std::fs::read_to_string(workspace.path().join(".switchboard/audit/writes.jsonl")).unwrap();
    let decisions: Vec<String> = audit
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["decision"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(decisions, ["proposed", "proposed", "written", "discarded"]);
    // The chat keeps both with its answer, and what became of each: it
    // shows them when opened again.
    let stored = switchboard_store::chats::active(
        &switchboard_store::Workspace::open(workspace.path()).unwrap(),
    )
    .unwrap()
    .unwrap();
    let answer = stored.messages.last().unwrap();
    assert_eq!(answer.content, "Two proposals.");
    let kept: Vec<(String, Option<ProposalOutcome>)> = answer
        .writes
        .iter()
        .map(|write| (write.event.path().to_owned(), write.settled.clone()))
        .collect();
    assert_eq!(
        kept,
        [
            (
                ".prompts/plan/keep.md".to_owned(),
                Some(ProposalOutcome::Applied { bytes: 6 })
            ),
            (
                ".prompts/plan/drop.md".to_owned(),
                Some(ProposalOutcome::Discarded)
            ),
        ]
    );

    sidecar.send(json!({"id": 5, "type": "list_models"}));
    let models = sidecar.next();
    assert_eq!(models.id, 5);
    assert_eq!(
        models.body,
        ResponseBody::Models {
            models: vec!["m1".into(), "m2".into()],
            backend: Some(switchboard_model::settings::ResolvedBackend {
                backend: switchboard_model::settings::ModelBackend::OpenaiCompatible,
                reason: "a model server is configured (modelUrl); change it in Settings".into(),
            }),
        }
    );
}

/// Issue 39, item 7: with Building's globs covering them, the model wrote
/// Codex's `.codex/hooks.json` and Claude Code's `.mcp.json` — another
/// agent's hooks and MCP servers, which run commands. Through the real
/// sidecar, under the broadest globs, no agent's settings file is written.
#[test]
fn no_agent_settings_are_written_whatever_the_building_globs() {
    use serde_json::json;
    use switchboard_model_server::{Reply, ScriptedServer, text_chunk, write_file_chunk};

    const SETTINGS: [&str; 16] = [
        ".codex/hooks.json",
        ".mcp.json",
        ".claude/settings.local.json",
        "packages/web/.claude/settings.json",
        ".cursor/hooks.json",
        ".vscode/tasks.json",
        ".gemini/settings.json",
        ".agents/skills/x/SKILL.md",
        ".windsurf/hooks.json",
        ".continue/config.yaml",
        ".aider.conf.yml",
        ".github/hooks/guard.json",
        ".clinerules/hooks/PreToolUse",
        "opencode.json",
        ".Codex/config.toml",
        ".kiro/hooks/x.kiro.hook",
    ];
    let workspace = tempfile::tempdir().unwrap();
    let calls: Vec<String> = SETTINGS
        .iter()
        .enumerate()
        .map(|(index, path)| {
            write_file_chunk(index as u64, &format!("c{index}"), path, "{\"hooks\": {}}")
        })
        .collect();
    let mut first: Vec<&str> = calls.iter().map(String::as_str).collect();
    first.push("[DONE]");
    let control = write_file_chunk(0, "ok", "docs/notes.md", "# Notes");
    let server = ScriptedServer::start(vec![
        Reply::sse(&first),
        Reply::sse(&[&control, "[DONE]"]),
        Reply::sse(&[&text_chunk("Done."), "[DONE]"]),
    ]);
    let mut sidecar = Sidecar::start_with(&server.url(), &[("SWITCHBOARD_BUILD_GLOBS", "**")]);
    sidecar.send(
        json!({"id": 1, "type": "chat", "workspace": workspace.path(),
        "mode": "Building", "message": "set up the agents", "dry_run": false}),
    );
    let turn = sidecar.until(|r| matches!(r.body, ResponseBody::ChatDone { .. }));
    let writes: Vec<&WriteEvent> = turn
        .iter()
        .filter_map(|r| match &r.body {
            ResponseBody::Write(event) => Some(event),
            _ => None,
        })
        .collect();
    for path in SETTINGS {
        let refused = writes.iter().any(|event| {
            matches!(event, WriteEvent::Refused { path: p, reason }
                if p == path && reason.contains("agent's settings or hooks"))
        });
        assert!(
            refused,
            "{path}: the allow-list refuses an agent's settings: {writes:?}"
        );
        assert!(
            !workspace.path().join(path).exists(),
            "{path} must not be written"
        );
    }
    // The positive control: the same globs do reach an ordinary file.
    assert!(
        writes.iter().any(|event| matches!(
            event,
            WriteEvent::Applied { path, .. } if path == "docs/notes.md"
        )),
        "{writes:?}"
    );
    assert_eq!(
        std::fs::read_to_string(workspace.path().join("docs/notes.md")).unwrap(),
        "# Notes"
    );
}

/// Whether some process waits for a lock on the file with inode `inode`
/// (a blocked request shows as `->` in /proc/locks).
fn someone_waits_on(inode: u64) -> bool {
    std::fs::read_to_string("/proc/locks")
        .unwrap_or_default()
        .lines()
        .any(|line| line.contains("->") && line.contains(&format!(":{inode} ")))
}

#[test]
fn stop_ends_a_turn_whose_save_waits_on_a_held_lock_and_the_save_lands_later() {
    use std::os::unix::fs::MetadataExt;

    use serde_json::json;
    use switchboard_model_server::{Reply, ScriptedServer, text_chunk};

    let workspace = tempfile::tempdir().unwrap();
    let chats = workspace.path().join(".naide/chatsessions");
    std::fs::create_dir_all(&chats).unwrap();
    // Another holder (here: a thread of this test) keeps the chat folder's
    // lock until told to let go, or 10 s at most, so a sidecar that cannot
    // read `stop` meanwhile fails the bound below instead of hanging.
    let lock = std::fs::File::create(chats.join(".lock")).unwrap();
    lock.lock().unwrap();
    let inode = lock.metadata().unwrap().ino();
    let (release, released) = std::sync::mpsc::channel::<()>();
    let holder = std::thread::spawn(move || {
        let _ = released.recv_timeout(Duration::from_secs(10));
        drop(lock);
    });

    let server = ScriptedServer::start(vec![Reply::sse(&[&text_chunk("Answer."), "[DONE]"])]);
    let mut sidecar = Sidecar::start(&server.url());
    sidecar.send(
        json!({"id": 1, "type": "chat", "workspace": workspace.path(),
        "mode": "Planning", "message": "hello"}),
    );
    sidecar.until(|r| matches!(&r.body, ResponseBody::Delta { text } if text == "Answer."));
    let deadline = Instant::now() + Duration::from_secs(20);
    while !someone_waits_on(inode) {
        assert!(
            Instant::now() < deadline,
            "the save never waited on the lock"
        );
        std::thread::sleep(Duration::from_millis(5));
    }

    let asked = Instant::now();
    sidecar.send(json!({"id": 2, "type": "stop", "chat": 1}));
    let done = sidecar.until(|r| matches!(r.body, ResponseBody::ChatDone { .. }));
    let took = asked.elapsed();
    assert!(
        matches!(
            done.last().unwrap().body,
            ResponseBody::ChatDone { stopped: true, .. }
        ),
        "{done:?}"
    );
    assert!(took < Duration::from_millis(200), "stop took {took:?}");

    // The save was not dropped: it lands once the lock is free.
    release.send(()).unwrap();
    holder.join().unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let saved = std::fs::read_to_string(chats.join("chat-active.json")).unwrap_or_default();
        if saved.contains("Answer.") && saved.contains("hello") {
            break;
        }
        assert!(Instant::now() < deadline, "the turn was never saved");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn the_client_checks_the_protocol_version_and_refuses_a_mismatch() {
    use std::{os::unix::fs::PermissionsExt, sync::atomic::AtomicU64};

    use switchboard_sidecar::client::{self, Launch, LinkError};

    // The real sidecar passes the check and answers.
    let real = Launch {
        program: Some(env!("CARGO_BIN_EXE_switchboard-sidecar").into()),
        ..Launch::default()
    };
    let mut link = client::start(&real, std::sync::Arc::new(AtomicU64::new(1))).unwrap();
    let id = link
        .requests
        .send(switchboard_model::sidecar::RequestBody::Health)
        .unwrap();
    let answer = link.responses.next().unwrap().unwrap();
    assert_eq!(answer.id, id);
    let _ = link.child.kill();
    let _ = link.child.wait();

    // A sidecar of another version is refused with a sentence that says so.
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("switchboard-sidecar");
    std::fs::write(
        &fake,
        "#!/bin/sh\nread line\necho '{\"id\":1,\"type\":\"health\",\"protocol\":99,\"version\":\"9.0.0\"}'\nsleep 5\n",
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let other = Launch {
        program: Some(fake.clone()),
        ..Launch::default()
    };
    let refused = client::start(&other, std::sync::Arc::new(AtomicU64::new(1)))
        .err()
        .expect("a mismatched sidecar is refused");
    assert!(
        matches!(refused, LinkError::Version { theirs: 99, .. }),
        "{refused}"
    );
    let message = refused.to_string();
    assert!(
        message.contains("protocol 99") && message.contains(&PROTOCOL_VERSION.to_string()),
        "{message}"
    );
    assert_eq!(refused.code(), switchboard_model::ErrorCode::Unavailable);
}
