//! `switchboard play` on a real pseudo-terminal, driven the way an
//! expect-style client drives the program it stands in for.

use std::{
    io::{Read, Write},
    path::Path,
    sync::mpsc,
    time::{Duration, Instant},
};

use base64::Engine as _;
use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use serde_json::json;

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

struct Terminal {
    writer: Box<dyn Write + Send>,
    output: mpsc::Receiver<Vec<u8>>,
    seen: String,
    child: Box<dyn portable_pty::Child + Send + Sync>,
}

impl Terminal {
    fn start(workspace: &Path, program: &str) -> Self {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: 24,
                cols: 80,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_switchboard"));
        command.args([
            "-C",
            &workspace.display().to_string(),
            "play",
            "--",
            program,
        ]);
        command.cwd(workspace);
        let child = pty.slave.spawn_command(command).unwrap();
        drop(pty.slave);
        let mut reader = pty.master.try_clone_reader().unwrap();
        let writer = pty.master.take_writer().unwrap();
        let (sender, output) = mpsc::channel();
        std::thread::spawn(move || {
            let _master = pty.master;
            let mut buffer = [0_u8; 4096];
            while let Ok(n) = reader.read(&mut buffer) {
                if n == 0 || sender.send(buffer[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Self {
            writer,
            output,
            seen: String::new(),
            child,
        }
    }

    /// Waits until the screen has shown `text` since the last expectation;
    /// returns all it showed up to and with it.
    fn expect(&mut self, text: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !self.seen.contains(text) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.output.recv_timeout(left) {
                Ok(bytes) => self.seen.push_str(&String::from_utf8_lossy(&bytes)),
                Err(_) => panic!("never saw {text:?}; saw {:?}", self.seen),
            }
        }
        let at = self.seen.find(text).unwrap() + text.len();
        self.seen.drain(..at).collect()
    }

    fn send(&mut self, keys: &str) {
        self.writer.write_all(keys.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }
}

#[test]
fn play_answers_an_expect_client_as_the_program_did() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path().canonicalize().unwrap();
    tape(&root);
    let mut terminal = Terminal::start(&root, "calc");
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
    let mut terminal = Terminal::start(&root, "calc");
    terminal.expect("> ");
    terminal.send("2+2\r");
    terminal.expect("no tape for \"2+2\\r\" at prompt \"> \" (program \"calc\"");
    let status = terminal.child.wait().unwrap();
    assert!(!status.success());
}
