//! `switchboard deliver` and `list`: publishing, formats, recovery.

use std::{fs, path::Path, process::Command};

use serde_json::Value;

use crate::{stored, switchboard};

#[test]
fn deliver_creates_the_data_folder_and_prints_a_seed_format_id() {
    let workspace = tempfile::tempdir().unwrap();
    let output = switchboard(
        workspace.path(),
        &[
            "deliver",
            "--title",
            "Build done",
            "--content",
            "# All green",
        ],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let id = String::from_utf8(output.stdout).unwrap().trim().to_owned();
    let parts: Vec<_> = id.split('_').collect();
    assert_eq!(parts.len(), 3, "id {id} is d_{{unix}}_{{seq}}");
    assert_eq!(parts[0], "d");
    assert_eq!(
        parts[2].len(),
        3,
        "sequence is zero-padded to three digits: {id}"
    );

    let records = stored(workspace.path());
    assert_eq!(records.len(), 1);
    let record = &records[0];
    assert_eq!(record["id"], id.as_str());
    assert_eq!(record["mode"], "passive");
    assert_eq!(
        record["status"], "delivered",
        "passive deliveries are delivered at once"
    );
    assert_eq!(
        record["content"],
        serde_json::json!({"type": "markdown", "body": "# All green"})
    );
    assert_eq!(record["feedback_schema"], Value::Null);
    assert_eq!(record["completed_at"], Value::Null);
    let created = record["created_at"].as_str().unwrap();
    assert!(
        created.ends_with('Z') && created.len() == 24,
        "seed timestamp form: {created}"
    );
}

#[test]
fn deliver_reads_the_body_from_a_file_or_stdin() {
    let workspace = tempfile::tempdir().unwrap();
    let body_file = workspace.path().join("report.html");
    fs::write(&body_file, "<h1>Report</h1>").unwrap();
    let from_file = switchboard(
        workspace.path(),
        &[
            "deliver",
            "--title",
            "File",
            "--type",
            "html",
            "--content-file",
            body_file.to_str().unwrap(),
        ],
    );
    assert!(from_file.status.success());

    let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .arg("-C")
        .arg(workspace.path())
        .args(["deliver", "--title", "Stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"piped *body*")
        .unwrap();
    assert!(child.wait_with_output().unwrap().status.success());

    let records = stored(workspace.path());
    assert_eq!(records[0]["content"]["type"], "html");
    assert_eq!(records[0]["content"]["body"], "<h1>Report</h1>");
    assert_eq!(records[1]["content"]["body"], "piped *body*");
}

#[test]
fn existing_records_survive_byte_for_byte_including_unknown_fields() {
    let workspace = tempfile::tempdir().unwrap();
    let data = workspace.path().join(".visual-delivery/data");
    fs::create_dir_all(&data).unwrap();
    let existing = "[\n  {\n    \"id\": \"d_1738850400_001\",\n    \"mode\": \"passive\",\n    \"status\": \"delivered\",\n    \"title\": \"Old\",\n    \"content\": {\n      \"type\": \"markdown\",\n      \"body\": \"kept\"\n    },\n    \"feedback_schema\": null,\n    \"created_at\": \"2026-02-06T14:00:00.000Z\",\n    \"completed_at\": null,\n    \"from_a_newer_tool\": {\n      \"x\": 1\n    }\n  },\n  {\n    \"weird\": true\n  }";
    fs::write(data.join("deliveries.json"), format!("{existing}\n]\n")).unwrap();
    let output = switchboard(
        workspace.path(),
        &["deliver", "--title", "New", "--content", "x"],
    );
    assert!(output.status.success());
    let text = fs::read_to_string(data.join("deliveries.json")).unwrap();
    assert!(
        text.starts_with(&format!("{existing},\n  {{")),
        "old records must be kept verbatim:\n{text}"
    );
    assert_eq!(stored(workspace.path()).len(), 3);

    let listed = switchboard(workspace.path(), &["list", "--json"]);
    let listed: Vec<Value> = serde_json::from_slice(&listed.stdout).unwrap();
    let titles: Vec<_> = listed
        .iter()
        .map(|d| d["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        ["New", "Old"],
        "newest first; the undecodable record is only warned about"
    );
}

#[test]
fn a_corrupt_file_is_moved_aside_and_delivery_goes_on() {
    let workspace = tempfile::tempdir().unwrap();
    let data = workspace.path().join(".visual-delivery/data");
    fs::create_dir_all(&data).unwrap();
    fs::write(data.join("deliveries.json"), "[{\"id\": \"d_1_001\", trunc").unwrap();

    let listed = switchboard(workspace.path(), &["list"]);
    assert!(
        listed.status.success(),
        "listing a corrupt file warns, it does not fail"
    );
    assert!(String::from_utf8_lossy(&listed.stderr).contains("not a valid data file"));

    let output = switchboard(
        workspace.path(),
        &["deliver", "--title", "After", "--content", "x"],
    );
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains(".corrupted."));
    let backups: Vec<_> = fs::read_dir(&data)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("deliveries.json.corrupted."))
        .collect();
    assert_eq!(backups.len(), 1, "the unparsable file is kept: {backups:?}");
    assert_eq!(
        fs::read_to_string(data.join(&backups[0])).unwrap(),
        "[{\"id\": \"d_1_001\", trunc",
        "the backup holds the original bytes"
    );
    assert_eq!(stored(workspace.path()).len(), 1);
}

#[test]
fn a_missing_workspace_is_a_clear_error() {
    let output = switchboard(Path::new("/nonexistent/switchboard-test"), &["list"]);
    assert_eq!(output.status.code(), Some(6), "IO exits 6");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("error[IO]: workspace /nonexistent/switchboard-test"),
        "{stderr}"
    );
    // Under --json the error is one JSON object on stdout.
    let output = switchboard(
        Path::new("/nonexistent/switchboard-test"),
        &["list", "--json"],
    );
    let line: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("one JSON error on stdout");
    assert_eq!(line["error"]["code"], "IO");
    assert!(
        line["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/nonexistent/switchboard-test")
    );
}

#[test]
fn an_unknown_id_is_not_found_with_its_exit_code() {
    let workspace = tempfile::tempdir().unwrap();
    let output = switchboard(workspace.path(), &["show", "d_1_404", "--json"]);
    assert_eq!(output.status.code(), Some(3));
    let line: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(line["error"]["code"], "NOT_FOUND");
}

#[test]
fn show_quotes_each_annotated_range_as_the_window_shows_it() {
    let workspace = tempfile::tempdir().unwrap();
    let body = "<p>The <b>cache layer</b> cuts p95 latency.</p>";
    let output = switchboard(
        workspace.path(),
        &[
            "deliver",
            "--title",
            "Page",
            "--type",
            "html",
            "--content",
            body,
        ],
    );
    assert!(output.status.success());
    let id = String::from_utf8(output.stdout).unwrap().trim().to_owned();
    // An annotation as the original web UI or the window writes it: a
    // range in the body that runs across `</b>` (the body is ASCII, so
    // byte and UTF-16 offsets agree).
    let start = body.find("cache").unwrap();
    let end = start + "cache layer</b> cuts".len();
    let annotations = serde_json::json!([{
        "id": "a_1_001", "delivery_id": id, "type": "comment", "content": "Which cache?",
        "target": {"type": "text_range", "start": start, "end": end},
        "created_at": "2026-02-06T14:30:00.000Z"
    }]);
    fs::write(
        workspace
            .path()
            .join(".visual-delivery/data/annotations.json"),
        annotations.to_string(),
    )
    .unwrap();

    let output = switchboard(workspace.path(), &["show", &id]);
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains(&format!(
            "annotation a_1_001 [{start}..{end}] “cache layer cuts”: Which cache?"
        )),
        "{text}"
    );
    let output = switchboard(workspace.path(), &["show", &id, "--json"]);
    let shown: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(shown["quotes"]["a_1_001"], "cache layer cuts");
    assert_eq!(
        shown["annotations"][0]["target"]["end"], end,
        "the record itself is as stored"
    );
}
