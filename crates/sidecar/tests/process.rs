//! Drives the real `switchboard-sidecar` process over its stdio.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use std::{
    io::{BufRead, BufReader, Write},
    process::{Command, Stdio},
};

use switchboard_model::sidecar::{PROTOCOL_VERSION, ResponseBody, SidecarResponse};

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
        matches!(garbage.body, ResponseBody::Error { .. }),
        "{garbage:?}"
    );
    let still_alive = exchange(r#"{"id":8,"type":"health"}"#);
    assert_eq!(still_alive.id, 8, "a bad line must not kill the sidecar");
    let bye = exchange(r#"{"id":9,"type":"shutdown"}"#);
    assert_eq!(bye.body, ResponseBody::ShuttingDown);
    assert!(child.wait().unwrap().success(), "shutdown exits cleanly");
}
