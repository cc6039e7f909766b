//! Tapes on disk: ClaudeControl's layout and form, a broken tape listed
//! without stopping the rest, and its lock on `<tape>.json5.tmp`.

use std::{
    fs,
    io::{BufRead, BufReader, Write},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use switchboard_model::tape::codec;
use switchboard_store::tapes::Tapes;

const HOLD: &str = "SWITCHBOARD_TEST_HOLD_FLOCK";

/// A tape as ClaudeControl writes it.
const WRITTEN: &str = concat!(
    r#"{"meta":{"createdAt":"2025-09-20T10:00:00.%f","program":"bc","args":["-q"],"env":{},"cwd":"/w","pty":{"rows":24,"cols":80},"tag":null,"latency":0,"errorRate":0,"seed":null},"#,
    r#""session":{"platform":"linux","version":"0.1.0"},"exchanges":[{"pre":{"prompt":null},"input":{"type":"line","dataText":"1+1\n","dataBytesB64":null},"#,
    r#""output":{"chunks":[{"delay_ms":2,"dataB64":"Mg0K","isUtf8":true}]},"exit":null,"dur_ms":3,"annotations":{}}]}"#,
    "\n"
);

/// Not a test of its own: when the environment names a file, this process
/// stands in for ClaudeControl's writer, holding `flock` on it.
#[test]
fn flock_helper() {
    let Ok(path) = std::env::var(HOLD) else {
        return;
    };
    let file = fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .unwrap();
    file.lock().unwrap();
    let mut out = std::io::stdout();
    writeln!(out, "held").unwrap();
    out.flush().unwrap();
    let mut line = String::new();
    let _ = std::io::stdin().read_line(&mut line);
}

#[test]
fn a_broken_tape_is_listed_and_the_others_load() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tapes");
    fs::create_dir_all(root.join("bc")).unwrap();
    fs::create_dir_all(root.join("psql")).unwrap();
    fs::write(root.join("bc/sum.json5"), WRITTEN).unwrap();
    let truncated = &WRITTEN[..WRITTEN.len() / 2];
    fs::write(root.join("bc/cut.json5"), truncated).unwrap();
    fs::write(
        root.join("psql/hand.json5"),
        "// by hand\n{meta: {program: 'psql', args: [], env: {}, cwd: '/'}, exchanges: [],}\n",
    )
    .unwrap();
    fs::write(
        root.join("psql/latin1.json5"),
        b"{meta: {program: 'caf\xe9'}}",
    )
    .unwrap();
    fs::write(root.join("bc/sum.json5.tmp"), "half a write").unwrap();

    let loaded = Tapes::at(&root).load().unwrap();
    let paths: Vec<&str> = loaded.tapes.iter().map(|tape| tape.path.as_str()).collect();
    assert_eq!(paths, ["bc/sum.json5", "psql/hand.json5"]);
    let problems: Vec<(&str, usize, usize)> = loaded
        .problems
        .iter()
        .map(|problem| (problem.path.as_str(), problem.line, problem.column))
        .collect();
    assert_eq!(problems[0].0, "bc/cut.json5");
    assert_eq!(problems[0].1, 1);
    assert!(problems[0].2 > 1, "the column where it ends: {problems:?}");
    assert_eq!(
        problems[1],
        ("psql/latin1.json5", 1, 22),
        "at the byte that is not UTF-8"
    );
    assert_eq!(loaded.problems[1].reason, "the file is not UTF-8 text");
    assert_eq!(
        fs::read_to_string(root.join("bc/cut.json5")).unwrap(),
        truncated,
        "left as it was"
    );
    assert!(
        Tapes::at(dir.path().join("none"))
            .load()
            .unwrap()
            .tapes
            .is_empty()
    );
}

#[test]
fn a_tape_past_the_limit_is_a_problem_never_read() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tapes");
    fs::create_dir_all(root.join("bc")).unwrap();
    fs::write(root.join("bc/sum.json5"), WRITTEN).unwrap();
    // Sparse: past the limit on disk's word, nothing written.
    fs::File::create(root.join("bc/huge.json5"))
        .unwrap()
        .set_len(switchboard_store::tapes::TAPE_LIMIT + 1)
        .unwrap();
    let loaded = Tapes::at(&root).load().unwrap();
    assert_eq!(loaded.tapes.len(), 1);
    assert_eq!(loaded.problems[0].path, "bc/huge.json5");
    assert!(
        loaded.problems[0].reason.contains("more than"),
        "{}",
        loaded.problems[0].reason
    );
    let refused = Tapes::at(&root).get("bc/huge").unwrap_err();
    assert!(format!("{refused:?}").contains("more than"), "{refused:?}");
}

#[test]
fn tapes_are_written_in_claudecontrols_form_under_its_lock() {
    let dir = tempfile::tempdir().unwrap();
    let tapes = Tapes::at(dir.path().join("tapes"));
    let tape = codec::decode(WRITTEN).unwrap();
    let path = tapes.path_for("/usr/bin/bc", "sum").unwrap();
    assert_eq!(path, dir.path().join("tapes/bc/sum.json5"));
    for (program, name) in [("bc", "../up"), ("bc", ".hidden"), ("", "x"), ("bc", "a/b")] {
        assert!(
            tapes.path_for(program, name).is_err(),
            "{program:?} {name:?}"
        );
    }

    // ClaudeControl's writer holds the lock: ours waits for it.
    let lock = dir.path().join("tapes/bc/sum.json5.tmp");
    let mut helper = hold(&lock);
    let writer = {
        let (tapes, path, tape) = (tapes.clone(), path.clone(), tape.clone());
        std::thread::spawn(move || {
            tapes.write(&path, &tape).unwrap();
            Instant::now()
        })
    };
    // Long enough for the writer to have tried (it retries every 250 ms):
    // nothing may be written while the lock is held.
    std::thread::sleep(Duration::from_millis(600));
    assert!(
        !path.exists(),
        "no write while ClaudeControl holds the lock"
    );
    let released = Instant::now();
    drop(helper.stdin.take());
    helper.wait().unwrap();
    let written = writer.join().unwrap();
    assert!(written >= released);
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        WRITTEN,
        "byte for byte its form"
    );
    assert!(!lock.exists(), "the temp file became the tape");
}

#[test]
fn a_note_is_kept_in_the_exchanges_annotations_and_removed_when_empty() {
    let dir = tempfile::tempdir().unwrap();
    let tapes = Tapes::at(dir.path().join("tapes"));
    let path = tapes.path_for("bc", "sum").unwrap();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, WRITTEN).unwrap();

    tapes.annotate("bc/sum", 0, "  slow here ").unwrap();
    let tape = tapes.get("bc/sum").unwrap();
    assert_eq!(tape.exchanges[0].annotations["note"], "slow here");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.contains(r#""annotations":{"note":"slow here"}"#),
        "{text}"
    );

    tapes.annotate("bc/sum", 0, "").unwrap();
    assert!(
        tapes.get("bc/sum").unwrap().exchanges[0]
            .annotations
            .is_empty()
    );
    let error = tapes.annotate("bc/sum", 7, "x").unwrap_err();
    assert!(error.to_string().contains("not 8"), "{error}");
    let missing = tapes.annotate("bc/none", 0, "x").unwrap_err();
    assert_eq!(missing.code(), switchboard_model::ErrorCode::NotFound);
}

/// Starts a stand-in for ClaudeControl's writer holding the lock `lock`.
fn hold(lock: &std::path::Path) -> std::process::Child {
    fs::create_dir_all(lock.parent().unwrap()).unwrap();
    let mut helper = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "tapes::flock_helper",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(HOLD, lock)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let said = BufReader::new(helper.stdout.as_mut().unwrap())
        .lines()
        .map(Result::unwrap)
        .find(|line| line.trim_end().ends_with("held"));
    assert!(said.is_some(), "the helper holds the lock");
    helper
}

#[test]
fn redacting_in_place_masks_what_a_recorder_wrote_meanwhile_and_loses_none_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let tapes = Tapes::at(dir.path().join("tapes"));
    let path = tapes.path_for("bc", "sum").unwrap();
    let secret = |n: usize| {
        let mut tape = codec::decode(WRITTEN).unwrap();
        let exchange = tape.exchanges[0].clone();
        tape.exchanges = (0..n)
            .map(|k| {
                let mut exchange = exchange.clone();
                exchange.input.data_text = Some(format!("password=hunter{k}\n"));
                exchange
            })
            .collect();
        codec::encode(&tape).unwrap()
    };
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, secret(1)).unwrap();

    // A recorder (ClaudeControl) is rewriting the tape, holding its lock.
    let mut recorder = hold(&dir.path().join("tapes/bc/sum.json5.tmp"));
    let redacting = {
        let tapes = tapes.clone();
        std::thread::spawn(move || tapes.redact(true).unwrap())
    };
    // Time for the redaction to read the folder and wait for the lock;
    // were it quicker, the test only gets easier.
    std::thread::sleep(Duration::from_millis(600));
    fs::write(&path, secret(2)).unwrap();
    drop(recorder.stdin.take());
    recorder.wait().unwrap();
    let redacted = redacting.join().unwrap();

    assert!(redacted.problems.is_empty());
    assert_eq!(redacted.holding, [("bc/sum.json5".to_owned(), 2)]);
    let tape = tapes.get("bc/sum").unwrap();
    assert_eq!(
        tape.exchanges.len(),
        2,
        "the recorder's second exchange kept"
    );
    for exchange in &tape.exchanges {
        let input = exchange.input.data_text.as_deref().unwrap();
        assert!(!input.contains("hunter"), "{input}");
    }
}

#[test]
fn a_new_recording_never_replaces_a_tape_written_under_its_name_meanwhile() {
    use switchboard_model::tape::{
        index::Context,
        record::{RecordMode, Recorder},
    };
    use switchboard_store::tapes::RecordTarget;

    let dir = tempfile::tempdir().unwrap();
    let tapes = Tapes::at(dir.path().join("tapes"));
    let path = tapes.path_for("bc", "sum").unwrap();
    let recording = || {
        let mut recorder = Recorder::new();
        recorder.output(b"bc 1.07\r\n", Duration::from_millis(1));
        recorder.input(b"2+2\r", Duration::from_millis(5));
        recorder.output(b"2+2\r\n4\r\n", Duration::from_millis(6));
        recorder.finish(None, true)
    };
    let target = RecordTarget {
        path: path.clone(),
        mode: RecordMode::New,
        context: Context {
            program: "bc".into(),
            args: vec!["-q".into()],
            cwd: "/elsewhere".into(),
            ..Context::default()
        },
        pty: None,
    };
    // Someone else's tape already has this name.
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, WRITTEN).unwrap();

    let saved = tapes.save_recording(&target, recording()).unwrap();
    let second = dir.path().join("tapes/bc/sum-2.json5");
    assert_eq!(saved.written, Some((second.clone(), 1)));
    assert_eq!(fs::read_to_string(&path).unwrap(), WRITTEN, "theirs kept");
    let tape = tapes.get("bc/sum-2").unwrap();
    assert_eq!(tape.exchanges[0].input.data_text.as_deref(), Some("2+2\r"));
    assert!(!tape.meta.banner().is_empty(), "the banner came along");

    // Recorded again: everything is on tape now, nothing is written.
    let again = tapes.save_recording(&target, recording()).unwrap();
    assert_eq!(again.written, None, "{again}");
    assert_eq!(again.known, 1);
    assert!(!dir.path().join("tapes/bc/sum-3.json5").exists());
}

#[test]
fn an_exchange_that_cannot_be_replaced_in_its_tape_goes_to_the_new_tape_and_says_why() {
    use switchboard_model::tape::{
        index::Context,
        record::{RecordMode, Recorder},
    };
    use switchboard_store::tapes::RecordTarget;

    let dir = tempfile::tempdir().unwrap();
    let tapes = Tapes::at(dir.path().join("tapes"));
    let recording = || {
        let mut recorder = Recorder::new();
        recorder.output(b"bc 1.07\r\n", Duration::from_millis(1));
        recorder.input(b"2+2\r", Duration::from_millis(5));
        recorder.output(b"2+2\r\n4\r\n", Duration::from_millis(6));
        recorder.finish(None, true)
    };
    let target = |name: &str, mode| RecordTarget {
        path: tapes.path_for("bc", name).unwrap(),
        mode,
        context: Context {
            program: "bc".into(),
            args: vec!["-q".into()],
            cwd: "/elsewhere".into(),
            ..Context::default()
        },
        pty: None,
    };
    let first = tapes
        .save_recording(&target("sum", RecordMode::New), recording())
        .unwrap();
    assert_eq!(first.written.map(|(_, count)| count), Some(1));
    // The tape's writers' lock cannot be taken: its lock file is a folder.
    fs::create_dir(dir.path().join("tapes/bc/sum.json5.tmp")).unwrap();

    let saved = tapes
        .save_recording(&target("again", RecordMode::Overwrite), recording())
        .unwrap();

    assert!(saved.replaced.is_empty(), "{saved}");
    assert_eq!(saved.unplaced.len(), 1, "{saved}");
    assert_eq!(saved.unplaced[0].0, "bc/sum.json5");
    assert!(saved.unplaced[0].1.contains("sum.json5.tmp"), "{saved}");
    assert!(
        saved
            .to_string()
            .contains("could not replace in bc/sum.json5"),
        "{saved}"
    );
    let again = tapes.get("bc/again").unwrap();
    assert_eq!(
        again.exchanges[0].input.data_text.as_deref(),
        Some("2+2\r"),
        "the exchange is kept in the new tape"
    );
}
