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
