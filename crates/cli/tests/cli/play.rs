//! `switchboard play` on a real pseudo-terminal, driven the way an
//! expect-style client drives the program it stands in for.

use std::path::Path;

use base64::Engine as _;
use serde_json::json;

use crate::terminal::Terminal;

fn b64(text: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(text)
}

/// A tape of `calc` recorded in `workspace`: a banner, `1+1`, `quit`.
fn tape(workspace: &Path) {
    let chunk =
        |delay: u64, text: &str| json!({"delay_ms": delay, "dataB64": b64(text), "isUtf8": true});
    let line = |prompt: &str,
                input: &str,
                chunks: Vec<serde_json::Value>,
                exit: serde_json::Value| {
        json!({"pre": {"prompt": prompt}, "input": {"type": "line", "dataText": input, "dataBytesB64": null},
               "output": {"chunks": chunks}, "exit": exit, "dur_ms": 5, "annotations": {}})
    };
    let tape = json!({
        "meta": {"createdAt": "2026-11-22T10:00:00.000", "program": "calc", "args": [], "env": {},
                 "cwd": workspace.display().to_string(), "pty": {"rows": 24, "cols": 80}, "tag": null,
                 "latency": 0, "errorRate": 0, "seed": null,
                 "banner": {"chunks": [chunk(5, "calc 1.0\r\n> ")]}},
        "session": {"platform": "linux", "version": "test"},
        "exchanges": [
            line("> ", "1+1\n", vec![chunk(1, "1+1\r\n"), chunk(30, "2\r\n> ")], json!(null)),
            line("> ", "quit\n", vec![chunk(1, "quit\r\nbye\r\n")], json!({"code": 3, "signal": null})),
        ]
    });
    let dir = workspace.join("tapes/calc");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("session.json5"), tape.to_string()).unwrap();
}

#[test]
fn play_answers_an_expect_client_as_the_program_did() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path().canonicalize().unwrap();
    tape(&root);
    let mut terminal = Terminal::start(&root, &["play", "--", "calc"], &[]);
    assert_eq!(terminal.expect("> "), "calc 1.0\r\n> ", "the banner first");
    terminal.send("1+1\r");
    terminal.expect("1+1\r\n2\r\n> ");
    assert!(
        !terminal.seen.contains("1+1"),
        "no echo but the recorded one"
    );
    terminal.send("quit\r");
    terminal.expect("bye\r\n");
    terminal.expect("used calc/session.json5; unused none");
    let status = terminal.child.wait().unwrap();
    assert_eq!(status.exit_code(), 3, "the recorded exit status");
}

#[test]
fn a_miss_fails_with_the_key_it_looked_for() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path().canonicalize().unwrap();
    tape(&root);
    let mut terminal = Terminal::start(&root, &["play", "--", "calc"], &[]);
    terminal.expect("> ");
    terminal.send("2+2\r");
    terminal.expect("error[NOT_FOUND]: no tape for \"2+2\\r\" at prompt \"> \" (program \"calc\"");
    let status = terminal.child.wait().unwrap();
    assert_eq!(status.exit_code(), 3, "NOT_FOUND's exit status");
}

#[test]
fn an_error_rate_of_100_fails_the_first_exchange_after_its_output() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path().canonicalize().unwrap();
    tape(&root);
    let mut terminal = Terminal::start(&root, &["play", "--error-rate", "100", "--", "calc"], &[]);
    terminal.expect("> ");
    terminal.send("1+1\r");
    terminal.expect("2\r\n> ");
    terminal.expect("error[UNAVAILABLE]: a synthetic error after exchange 1 of calc/session.json5");
    let status = terminal.child.wait().unwrap();
    assert_eq!(status.exit_code(), 9, "UNAVAILABLE's exit status");
}
