//! Many writers at once, and writers killed mid-write: nothing acknowledged
//! is ever lost and every file always parses.

use std::{
    collections::BTreeSet,
    process::{Command, Stdio},
    time::Duration,
};

use serde_json::Value;

use crate::{Lcg, stored, switchboard};

#[test]
fn eight_processes_times_250_deliveries_give_2000_unique_ids() {
    let workspace = tempfile::tempdir().unwrap();
    let path = workspace.path().to_owned();
    let writers: Vec<_> = (0..8)
        .map(|writer| {
            let path = path.clone();
            std::thread::spawn(move || {
                (0..250)
                    .map(|n| {
                        let title = format!("w{writer}-{n}");
                        let output =
                            switchboard(&path, &["deliver", "--title", &title, "--content", "x"]);
                        assert!(
                            output.status.success(),
                            "{}",
                            String::from_utf8_lossy(&output.stderr)
                        );
                        String::from_utf8(output.stdout).unwrap().trim().to_owned()
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let printed: Vec<String> = writers
        .into_iter()
        .flat_map(|w| w.join().unwrap())
        .collect();
    let records = stored(&path);
    assert_eq!(records.len(), 2000, "every acknowledged delivery is stored");
    let ids: BTreeSet<_> = records
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids.len(), 2000, "ids are unique across processes");
    assert_eq!(
        ids,
        printed.into_iter().collect(),
        "the stored ids are the printed ones"
    );
}

#[test]
fn writers_killed_at_random_points_never_corrupt_or_lose_data() {
    let workspace = tempfile::tempdir().unwrap();
    let mut random = Lcg(0x5eed);
    let mut acknowledged = BTreeSet::new();
    for round in 0..200 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .arg("-C")
            .arg(workspace.path())
            .args([
                "deliver",
                "--title",
                &format!("round {round}"),
                "--content",
                "x",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Every fourth writer finishes and every fourth dies at once, so both
        // outcomes occur whatever the disk's speed; the rest die at a random
        // point of their write.
        match round % 4 {
            0 => {}
            1 => {
                let _ = child.kill(); // SIGKILL on Unix
            }
            _ => {
                std::thread::sleep(Duration::from_micros(random.below(8_000)));
                let _ = child.kill();
            }
        }
        let output = child.wait_with_output().unwrap();
        let id = String::from_utf8(output.stdout).unwrap().trim().to_owned();
        if output.status.success() && !id.is_empty() {
            acknowledged.insert(id);
        }
        let file = workspace
            .path()
            .join(".visual-delivery/data/deliveries.json");
        if file.exists() {
            let text = std::fs::read_to_string(&file).unwrap();
            let parsed: Result<Vec<Value>, _> = serde_json::from_str(&text);
            assert!(
                parsed.is_ok(),
                "round {round}: deliveries.json must always parse"
            );
        }
    }
    let stored_ids: BTreeSet<_> = stored(workspace.path())
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        acknowledged.is_subset(&stored_ids),
        "acknowledged but missing: {:?}",
        acknowledged.difference(&stored_ids).collect::<Vec<_>>()
    );
    assert!(
        !acknowledged.is_empty(),
        "some writers finished, or the test proves nothing"
    );
    assert!(
        acknowledged.len() < 200,
        "some writers were killed, or the test proves nothing"
    );
    let leftovers: Vec<_> = std::fs::read_dir(workspace.path().join(".visual-delivery/data"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains("corrupted"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "no file was ever corrupt: {leftovers:?}"
    );

    // The next writer clears what killed writers left behind (one planted
    // orphan makes sure there is something), and nothing else.
    let data = workspace.path().join(".visual-delivery/data");
    std::fs::write(data.join(".deliveries.json.AbC123.tmp"), "[{\"half").unwrap();
    std::fs::write(data.join("notes.tmp"), "another tool's").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .arg("-C")
        .arg(workspace.path())
        .args(["deliver", "--title", "after", "--content", "x"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let temps: Vec<_> = std::fs::read_dir(workspace.path().join(".visual-delivery/data"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".tmp"))
        .collect();
    assert_eq!(
        temps,
        ["notes.tmp"],
        "orphaned temp files are swept, others kept"
    );
}
