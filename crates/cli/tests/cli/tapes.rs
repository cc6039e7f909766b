//! `switchboard tapes list|validate` on a real tapes folder.

use std::fs;

use crate::{ok_stdout, switchboard};

const WRITTEN: &str = concat!(
    r#"{"meta":{"createdAt":"2025-09-20T10:00:00.%f","program":"bc","args":["-q"],"env":{},"cwd":"/w","pty":{"rows":24,"cols":80},"tag":null,"latency":0,"errorRate":0,"seed":null},"#,
    r#""session":{"platform":"linux","version":"0.1.0"},"exchanges":[{"pre":{"prompt":null},"input":{"type":"line","dataText":"1+1\n","dataBytesB64":null},"#,
    r#""output":{"chunks":[{"delay_ms":2,"dataB64":"Mg0K","isUtf8":true}]},"exit":null,"dur_ms":3,"annotations":{}}]}"#,
    "\n"
);

#[test]
fn tapes_are_listed_and_validated_with_their_places() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path();
    fs::create_dir_all(root.join("tapes/bc")).unwrap();
    fs::write(root.join("tapes/bc/sum.json5"), WRITTEN).unwrap();
    let listed = ok_stdout(&switchboard(root, &["tapes", "list"]));
    assert_eq!(listed, "bc/sum.json5  bc -q  1 exchange(s)");
    let clean = switchboard(root, &["tapes", "validate", "--strict"]);
    assert!(clean.status.success());
    assert!(
        String::from_utf8_lossy(&clean.stdout).contains("1 tape(s) checked strictly, 0 finding(s)")
    );

    fs::write(
        root.join("tapes/bc/hand.json5"),
        "{\n  meta: {program: 'bc', args: [], env: {}, cwd: '/'},\n  session: {},\n  exchanges: [{input: {type: 'line', dataText: 'q'}, note: 'mine'}],\n}\n",
    )
    .unwrap();
    fs::write(root.join("tapes/bc/cut.json5"), &WRITTEN[..40]).unwrap();
    let loose = switchboard(root, &["tapes", "validate"]);
    assert_eq!(loose.status.code(), Some(1));
    let said = String::from_utf8_lossy(&loose.stdout);
    let first = said.lines().next().unwrap();
    assert!(
        first.starts_with("bc/cut.json5:1:") && first.contains("EOF"),
        "a truncated tape, with where: {said}"
    );
    let strict = switchboard(root, &["tapes", "validate", "--strict", "--json"]);
    assert_eq!(strict.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&strict.stdout).unwrap();
    let hand: Vec<&serde_json::Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|finding| finding["path"] == "bc/hand.json5")
        .collect();
    assert!(
        hand.iter().any(
            |f| f["reason"] == "exchanges[0].note: an exchange takes no key \"note\""
                && f["line"] == 4
        ),
        "{hand:?}"
    );
    let listed = switchboard(root, &["tapes", "list"]);
    let warned = String::from_utf8_lossy(&listed.stderr);
    assert!(warned.contains("bc/cut.json5:1:"), "{warned}");
    assert_eq!(
        String::from_utf8_lossy(&listed.stdout).lines().count(),
        2,
        "the others still list"
    );
}

#[test]
fn tapes_are_redacted_diffed_and_exported() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path();
    fs::create_dir_all(root.join("tapes/bc")).unwrap();
    fs::write(root.join("tapes/bc/sum.json5"), WRITTEN).unwrap();
    // "token: ab" + "c123 ok", a secret split across two reads.
    let secret = WRITTEN
        .replace(r#""dataText":"1+1\n""#, r#""dataText":"password=hunter2\n""#)
        .replace(
            r#"[{"delay_ms":2,"dataB64":"Mg0K","isUtf8":true}]"#,
            r#"[{"delay_ms":2,"dataB64":"dG9rZW46IGFi","isUtf8":true},{"delay_ms":1,"dataB64":"YzEyMyBvaw==","isUtf8":true}]"#,
        );
    fs::write(root.join("tapes/bc/login.json5"), &secret).unwrap();

    let dry = ok_stdout(&switchboard(root, &["tapes", "redact"]));
    assert!(
        dry.starts_with("bc/login.json5: 3 read(s) or input(s) hold secrets"),
        "{dry}"
    );
    assert_eq!(
        fs::read_to_string(root.join("tapes/bc/login.json5")).unwrap(),
        secret,
        "a dry run writes nothing"
    );
    ok_stdout(&switchboard(root, &["tapes", "redact", "--inplace"]));
    let masked = fs::read_to_string(root.join("tapes/bc/login.json5")).unwrap();
    assert!(
        masked.contains(r#""dataText":"password=***\n""#),
        "{masked}"
    );
    assert!(!masked.contains("hunter2") && !masked.contains("dG9rZW46IGFi"));
    assert_eq!(
        fs::read_to_string(root.join("tapes/bc/sum.json5")).unwrap(),
        WRITTEN,
        "untouched"
    );
    let strict = switchboard(root, &["tapes", "validate", "--strict"]);
    assert!(
        strict.status.success(),
        "{}",
        String::from_utf8_lossy(&strict.stdout)
    );

    let same = switchboard(root, &["tapes", "diff", "bc/sum", "bc/sum.json5"]);
    assert!(same.status.success() && same.stdout.is_empty());
    let differ = switchboard(root, &["tapes", "diff", "bc/sum", "bc/login"]);
    assert_eq!(differ.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&differ.stdout).starts_with("exchange 1 input:"));
    let missing = switchboard(root, &["tapes", "diff", "bc/sum", "bc/nope"]);
    assert_eq!(missing.status.code(), Some(3), "NOT_FOUND");

    let cast = ok_stdout(&switchboard(root, &["tapes", "export", "bc/sum", "--cast"]));
    let lines: Vec<serde_json::Value> = cast
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines[0]["version"], 3);
    assert_eq!(lines[1], serde_json::json!([0.0, "i", "1+1\n"]));
    assert_eq!(lines[2], serde_json::json!([0.002, "o", "2\r\n"]));
}
