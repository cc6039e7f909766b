//! `switchboard rec` of a real interactive program (sqlite3) on a real
//! pseudo-terminal, then `switchboard play` driven by the same client.

use std::path::Path;

use switchboard_model::tape::index::input_bytes;
use switchboard_store::tapes::Tapes;

use crate::terminal::Terminal;

/// The client: what it types at which prompt, the same against the real
/// program and against `play`. Returns the exit status and everything
/// shown before switchboard's own summary line.
fn session(workspace: &Path, args: &[&str], env: &[(&str, &str)], sums: &[&str]) -> (u32, Vec<u8>) {
    let mut terminal = Terminal::start(workspace, args, env);
    terminal.expect("sqlite> ");
    for sum in sums {
        terminal.send(&format!("select {sum};\r"));
        terminal.expect("sqlite> ");
    }
    terminal.send(".exit 3\r");
    let status = terminal.finish();
    let shown = terminal.transcript;
    let summary = shown
        .windows(b"\r\nswitchboard ".len())
        .position(|window| window == b"\r\nswitchboard ")
        .unwrap_or(shown.len());
    (status, shown[..summary].to_vec())
}

/// The same session; returns what was shown after the last prompt
/// (switchboard's summary line).
fn summary(workspace: &Path, args: &[&str], sums: &[&str]) -> String {
    let mut terminal = Terminal::start(workspace, args, &[]);
    terminal.expect("sqlite> ");
    for sum in sums {
        terminal.send(&format!("select {sum};\r"));
        terminal.expect("sqlite> ");
    }
    terminal.send(".exit 3\r");
    terminal.finish();
    terminal.seen
}

/// What a tape's exchanges printed, and what was typed, decoded.
fn tape_text(workspace: &Path, program: &str, name: &str) -> (String, String) {
    let tapes = Tapes::at(workspace.join("tapes"));
    let tape = tapes.get(&format!("{program}/{name}")).unwrap();
    let printed = tape
        .exchanges
        .iter()
        .flat_map(|exchange| &exchange.output.chunks)
        .map(|chunk| String::from_utf8(chunk.bytes()).unwrap())
        .collect();
    let typed = tape
        .exchanges
        .iter()
        .map(|exchange| String::from_utf8(input_bytes(exchange)).unwrap())
        .collect();
    (printed, typed)
}

#[test]
fn a_recorded_sqlite3_session_plays_back_byte_for_byte_with_its_exit_status() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path().canonicalize().unwrap();
    let sums = ["1+2", "6*7"];
    let (recorded_status, recorded) = session(
        &root,
        &["rec", "--name", "sums", "--", "sqlite3"],
        &[],
        &sums,
    );
    assert_eq!(recorded_status, 3, "rec exits as the program did");
    assert!(
        String::from_utf8_lossy(&recorded).contains("SQLite version"),
        "the real program ran: {:?}",
        String::from_utf8_lossy(&recorded)
    );
    let tape = Tapes::at(root.join("tapes")).get("sqlite3/sums").unwrap();
    assert!(
        tape.meta.extra.contains_key("banner"),
        "the banner is on tape"
    );
    assert_eq!(tape.exchanges.len(), 3);
    assert_eq!(
        tape.exchanges[2].exit.as_ref().and_then(|exit| exit.code),
        Some(3)
    );

    let (played_status, played) = session(&root, &["play", "--", "sqlite3"], &[], &sums);
    assert_eq!(played_status, 3, "play exits with the recorded status");
    assert_eq!(
        String::from_utf8_lossy(&played),
        String::from_utf8_lossy(&recorded),
        "play shows what the program showed"
    );
    assert_eq!(played, recorded, "byte for byte");
}

#[test]
fn a_miss_fails_or_hands_over_to_the_real_program_which_records_only_what_is_new() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path().canonicalize().unwrap();
    session(
        &root,
        &["rec", "--name", "first", "--", "sqlite3"],
        &[],
        &["1+2"],
    );

    // not-found: the key looked for, NOT_FOUND's status.
    let mut terminal = Terminal::start(&root, &["play", "--", "sqlite3"], &[]);
    terminal.expect("sqlite> ");
    terminal.send("select 6*7;\r");
    terminal.expect("error[NOT_FOUND]: no tape for \"select 6*7;\\r\"");
    assert_eq!(terminal.finish(), 3);

    // proxy: the real program is brought to the prompt and answers.
    let (status, shown) = session(
        &root,
        &[
            "play",
            "--fallback",
            "proxy",
            "--record",
            "new",
            "--name",
            "more",
            "--",
            "sqlite3",
        ],
        &[],
        &["1+2", "6*7"],
    );
    let shown = String::from_utf8(shown).unwrap();
    assert!(shown.contains("select 6*7;\r\n"), "{shown:?}");
    assert!(
        shown.contains("42\r\n"),
        "the real program answered: {shown:?}"
    );
    assert_eq!(status, 3, "the real program's status");
    let (printed, typed) = tape_text(&root, "sqlite3", "more");
    assert_eq!(typed, "select 6*7;\r", "only the new exchange is recorded");
    assert!(printed.contains("42"));

    // Now both tapes together answer the whole session, no program needed.
    let replayed = summary(&root, &["play", "--", "sqlite3"], &["1+2", "6*7"]);
    assert!(
        replayed.contains("used sqlite3/first.json5, sqlite3/more.json5; unused none"),
        "{replayed:?}"
    );
}

#[test]
fn a_secret_echoed_in_two_reads_is_masked_on_tape_unless_redaction_is_off() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path().canonicalize().unwrap();
    for (name, env) in [
        ("masked", &[][..]),
        ("kept", &[("CLAUDECONTROL_REDACT", "0")][..]),
    ] {
        let mut terminal = Terminal::start(&root, &["rec", "--name", name, "--", "sqlite3"], env);
        terminal.expect("sqlite> ");
        // Two writes, the echo of each seen before the next: the secret
        // reaches the recorder in two reads.
        terminal.send("select 'pass");
        terminal.expect("'pass");
        terminal.send("word=hunter22';\r");
        terminal.expect("sqlite> ");
        terminal.send(".exit 3\r");
        terminal.finish();
    }
    let (printed, typed) = tape_text(&root, "sqlite3", "masked");
    assert!(!printed.contains("hunter22"), "{printed:?}");
    assert!(!typed.contains("hunter22"), "{typed:?}");
    assert!(printed.contains("***"), "{printed:?}");
    let (printed, typed) = tape_text(&root, "sqlite3", "kept");
    assert!(printed.contains("hunter22") && typed.contains("hunter22"));
}

#[test]
fn rec_refuses_to_replace_a_named_tape_unless_told_to() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path().canonicalize().unwrap();
    session(
        &root,
        &["rec", "--name", "one", "--", "sqlite3"],
        &[],
        &["1+2"],
    );
    let refused = crate::switchboard(&root, &["rec", "--name", "one", "--", "sqlite3"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("--record overwrite"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    let (status, _) = session(
        &root,
        &[
            "rec",
            "--name",
            "one",
            "--record",
            "overwrite",
            "--",
            "sqlite3",
        ],
        &[],
        &["2+2"],
    );
    assert_eq!(status, 3);
    let (printed, _) = tape_text(&root, "sqlite3", "one");
    assert!(
        printed.contains("4\r\n") && !printed.contains("1+2"),
        "{printed:?}"
    );
}

#[test]
fn a_resized_terminal_reaches_the_program_and_a_signal_ends_the_tape() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path().canonicalize().unwrap();
    // The program says its size whenever it changes; Ctrl-C ends it.
    let script = "trap 'stty size' WINCH; echo ready; while :; do sleep 0.05; done";
    let mut terminal = Terminal::start(
        &root,
        &["rec", "--name", "sized", "--", "sh", "-c", script],
        &[],
    );
    terminal.expect("ready\r\n");
    terminal.resize(30, 100);
    terminal.expect("30 100\r\n");
    terminal.send("\u{3}");
    assert_eq!(terminal.finish(), 128 + 2, "128 + SIGINT, as a shell says");
    let tape = Tapes::at(root.join("tapes")).get("sh/sized").unwrap();
    let exit = tape.exchanges.last().unwrap().exit.as_ref().unwrap();
    assert_eq!(
        (exit.code, exit.signal.clone()),
        (None, Some(serde_json::json!(2)))
    );
}
