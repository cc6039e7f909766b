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

/// A tape ClaudeControl's own `Session(record=NEW)` wrote (see
/// `fixtures/claudecontrol/README.md`), put in `workspace` as recorded
/// there: its folder is the one it names.
fn claudecontrol_tape(workspace: &Path, program: &str) -> serde_json::Value {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cli/fixtures/claudecontrol")
        .join(program);
    let file = std::fs::read_dir(&folder).unwrap().next().unwrap().unwrap();
    let text = std::fs::read_to_string(file.path()).unwrap();
    let recorded_in = "\"cwd\":\"/tmp/cc-fixtures\"";
    assert!(text.contains(recorded_in));
    let here = format!("\"cwd\":{}", json!(workspace.display().to_string()));
    let dir = workspace.join("tapes").join(program);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(file.file_name()), text.replace(recorded_in, &here)).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// What the program showed, by exchange: the first prompt (ClaudeControl
/// records none of what came before the first send), then each output.
fn recorded_screens(tape: &serde_json::Value) -> (Vec<u8>, Vec<(String, Vec<u8>)>) {
    let exchanges = tape["exchanges"].as_array().unwrap();
    let first = exchanges[0]["pre"]["prompt"].as_str().unwrap_or("");
    let opening = if first.trim().is_empty() { "" } else { first };
    let steps = exchanges
        .iter()
        .map(|exchange| {
            let input = exchange["input"]["dataText"].as_str().unwrap();
            let output = exchange["output"]["chunks"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|chunk| {
                    base64::engine::general_purpose::STANDARD
                        .decode(chunk["dataB64"].as_str().unwrap())
                        .unwrap()
                })
                .collect();
            (input.replace('\n', "\r"), output)
        })
        .collect();
    (opening.as_bytes().to_vec(), steps)
}

/// Plays each of ClaudeControl's tapes to a client that waits for each
/// answer before it types the next input (`waits`), or that types every
/// input at once; the screen is the
/// recording, byte for byte, and the status the recorded one.
fn claudecontrol_tapes_play(waits: bool) {
    for (program, args) in [("bc", &["-q"][..]), ("python3", &["-i"]), ("sqlite3", &[])] {
        let workspace = tempfile::tempdir().unwrap();
        let root = workspace.path().canonicalize().unwrap();
        let tape = claudecontrol_tape(&root, program);
        let (opening, steps) = recorded_screens(&tape);
        let mut command = vec!["play", "--", program];
        command.extend(args);
        let mut terminal = Terminal::start(&root, &command, &[]);
        let mut expected = opening;
        // Typed before the player has the terminal, keys would be echoed
        // by the terminal itself (bc's tape has no prompt to wait for).
        terminal.wait_raw();
        if waits {
            for (input, output) in &steps {
                terminal.expect_bytes(&expected);
                terminal.send(input);
                expected.extend_from_slice(output);
            }
        } else {
            let typed: String = steps.iter().map(|(input, _)| input.as_str()).collect();
            terminal.send(&typed);
            for (_, output) in &steps {
                expected.extend_from_slice(output);
            }
        }
        let status = terminal.finish();
        let shown = &terminal.transcript;
        assert!(
            shown.starts_with(&expected),
            "{program}: played {:?}\nrecorded {:?}",
            String::from_utf8_lossy(shown),
            String::from_utf8_lossy(&expected)
        );
        let after = String::from_utf8_lossy(&shown[expected.len()..]).into_owned();
        assert!(
            after.trim_start().starts_with("switchboard play: used ") && !after.contains("error"),
            "{program}: only the summary follows: {after:?}"
        );
        assert_eq!(status, 0, "{program}: the recorded exit status");
    }
}

/// Issue 30: a raw send of bytes that are not UTF-8 with its line end
/// (`/wo=`: 0xff and a line feed, as ClaudeControl records a `send` of
/// them) plays once all its bytes are typed, and the session goes on.
#[test]
fn a_raw_input_that_is_not_utf8_plays_whole() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path().canonicalize().unwrap();
    let mut tape = claudecontrol_tape(&root, "python3");
    // What python3 -i printed for it (echo, then its error), read by read.
    let answer = "\u{ff}\r\n  File \"<stdin>\", line 0\r\n    \r\nSyntaxError: (unicode error) 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte\r\n>>> ";
    let raw = json!({"pre": {"prompt": ">>> "},
        "input": {"type": "raw", "dataText": null, "dataBytesB64": "/wo="},
        "output": {"chunks": [{"delay_ms": 3, "dataB64": b64(answer), "isUtf8": true}]},
        "exit": null, "dur_ms": 4, "annotations": {}});
    let exchanges = tape["exchanges"].as_array_mut().unwrap();
    let at = exchanges.len() - 1;
    exchanges.insert(at, raw);
    tape["meta"]["cwd"] = json!(root.display().to_string());
    let file = std::fs::read_dir(root.join("tapes/python3"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::write(&file, tape.to_string()).unwrap();

    let mut terminal = Terminal::start(&root, &["play", "--", "python3", "-i"], &[]);
    terminal.wait_raw();
    terminal.expect(">>> ");
    terminal.send_bytes(b"\xff\n");
    terminal.expect("invalid start byte\r\n>>> ");
    terminal.send("exit()\r");
    let status = terminal.finish();
    let after = String::from_utf8_lossy(&terminal.transcript).into_owned();
    assert!(!after.contains("NOT_FOUND"), "{after:?}");
    assert_eq!(status, 0, "the recorded exit: {after:?}");
}

#[test]
fn claudecontrol_tapes_play_to_a_client_that_waits_for_each_prompt() {
    claudecontrol_tapes_play(true);
}

#[test]
fn claudecontrol_tapes_play_to_a_client_that_sends_without_waiting() {
    claudecontrol_tapes_play(false);
}
