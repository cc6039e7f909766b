//! Learnings, playbooks, validation and quarantine on real folders.

use serde_json::{Value, json};
use switchboard_model::{
    ErrorCode, Timestamp,
    knowledge::{learning::LearningError, playbook::BulletError, validate::ProblemKind},
};
use switchboard_store::{
    StoreError, Workspace,
    knowledge::{
        documents::{self, DocumentKind},
        learnings, playbooks, quarantine,
    },
};

fn now() -> Timestamp {
    Timestamp::parse("2026-11-22T10:00:00Z").unwrap()
}

fn workspace() -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path()).unwrap();
    (dir, workspace)
}

fn write(dir: &tempfile::TempDir, path: &str, text: &str) {
    let path = dir.path().join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn learnings_of_both_layouts_list_and_append_where_they_belong() {
    let (dir, workspace) = workspace();
    write(
        &dir,
        ".naide/learnings/build-and-tooling.md",
        "# Build\n\n## Cache the registry (2026-01-02)\n\nFaster CI.\n",
    );
    write(
        &dir,
        ".prompts/learnings/ui-and-layout.md",
        "## [2026-02-03T10:00:00Z] Use CSS variables\n\nThemes stay simple.\n",
    );
    let files = learnings::list(&workspace).unwrap();
    let paths: Vec<_> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            ".naide/learnings/build-and-tooling.md",
            ".prompts/learnings/ui-and-layout.md"
        ]
    );
    assert_eq!(files[1].file.entries[0].title, "Use CSS variables");

    let appended = learnings::append(
        &workspace,
        "UI and layout",
        "Keep focus rings",
        "Keyboard users need them.",
        now(),
    )
    .unwrap();
    assert_eq!(
        appended.path, ".prompts/learnings/ui-and-layout.md",
        "the category's own file"
    );
    let text = std::fs::read_to_string(dir.path().join(&appended.path)).unwrap();
    assert_eq!(
        text.lines().nth(appended.line - 1),
        Some("## Keep focus rings (2026-11-22)")
    );
    let fresh =
        learnings::append(&workspace, "Testing", "Real files", "Use temp dirs.", now()).unwrap();
    assert_eq!(fresh.path, ".naide/learnings/testing.md");
    assert_eq!(fresh.line, 1);
    assert!(matches!(
        learnings::append(&workspace, "Testing", " ", "body", now()),
        Err(StoreError::Learning(LearningError::NoTitle))
    ));
}

const CODING: &str = r#"{"schema_version": 2, "task_type": "coding", "updated_at": "2025-12-23T12:00:00.000000",
 "bullets": [{"id": "strat-00000001", "content": "Use pathlib.Path over os.path", "helpful_count": 2, "rank_hint": 7}]}"#;

#[test]
fn votes_edits_and_additions_land_in_delia_format() {
    let (dir, workspace) = workspace();
    write(&dir, ".delia/playbooks/coding.json", CODING);
    let voted = playbooks::vote(&workspace, "coding", "strat-00000001", true, now()).unwrap();
    assert_eq!(voted.helpful_count, 3);
    playbooks::vote(&workspace, "coding", "strat-00000001", false, now()).unwrap();
    playbooks::edit(
        &workspace,
        "coding",
        "strat-00000001",
        "Use pathlib.Path, never os.path",
        now(),
    )
    .unwrap();
    let added = playbooks::add(
        &workspace,
        "testing",
        Some("tests"),
        "Mock the clock in time-based tests",
        now(),
    )
    .unwrap();

    let saved: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join(".delia/playbooks/coding.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(saved["updated_at"], "2026-11-22T10:00:00.000000");
    let bullet = &saved["bullets"][0];
    assert_eq!(
        (
            bullet["helpful_count"].clone(),
            bullet["harmful_count"].clone()
        ),
        (json!(3), json!(1))
    );
    assert_eq!(bullet["content"], "Use pathlib.Path, never os.path");
    assert_eq!(bullet["rank_hint"], 7, "unknown fields survive");

    let testing: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join(".delia/playbooks/testing.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(testing["schema_version"], 2);
    assert_eq!(testing["bullets"][0]["id"], json!(added.id));
    assert_eq!(testing["bullets"][0]["source"], "manual");

    assert!(matches!(
        playbooks::edit(&workspace, "coding", "strat-00000001", "short", now()),
        Err(StoreError::Bullet(BulletError::Length(5)))
    ));
    assert!(matches!(
        playbooks::vote(&workspace, "coding", "strat-404", true, now()),
        Err(error @ StoreError::Bullet(BulletError::Missing { .. }))
            if error.code() == ErrorCode::NotFound
    ));
    assert!(matches!(
        playbooks::add(
            &workspace,
            "../escape",
            None,
            "Long enough content here",
            now()
        ),
        Err(StoreError::Bullet(BulletError::TaskType(_)))
    ));
}

#[test]
fn broken_and_future_playbooks_are_reported_and_never_rewritten() {
    let (dir, workspace) = workspace();
    let broken = "{\"schema_version\": 2, \"bullets\": [";
    let future = r#"{"schema_version": 3, "task_type": "git", "bullets": []}"#;
    write(&dir, ".delia/playbooks/debugging.json", broken);
    write(&dir, ".delia/playbooks/git.json", future);
    let listed = playbooks::list(&workspace).unwrap();
    assert_eq!(listed.len(), 2);
    assert!(
        listed[0]
            .error
            .as_deref()
            .unwrap()
            .contains("not valid JSON")
    );
    assert!(
        listed[1]
            .error
            .as_deref()
            .unwrap()
            .contains("schema_version 3")
    );
    assert!(matches!(
        playbooks::add(&workspace, "git", None, "Rebase before merging", now()),
        Err(StoreError::Corrupt { .. })
    ));
    let report = playbooks::validate(&workspace, None, true, now()).unwrap();
    assert!(report.fixed.is_empty());
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".delia/playbooks/debugging.json")).unwrap(),
        broken
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".delia/playbooks/git.json")).unwrap(),
        future
    );
    let kinds: Vec<_> = report.problems.iter().map(|p| p.kind).collect();
    assert_eq!(
        kinds,
        [
            ProblemKind::Structure,
            ProblemKind::SchemaVersion,
            ProblemKind::Missing,
            ProblemKind::Missing
        ]
    );
}

#[test]
fn validate_fix_migrates_v1_and_leaves_what_it_cannot_fix() {
    let (dir, workspace) = workspace();
    write(
        &dir,
        ".delia/playbooks/testing.json",
        r#"[{"content": "Mock the clock in time-based tests"}, {"id": "strat-00000002", "content": "Hm"}]"#,
    );
    write(&dir, ".delia/profiles/core.md", "# Core\n");
    write(&dir, ".delia/memories/project.md", "Monorepo.\n");
    let before = playbooks::validate(&workspace, None, false, now()).unwrap();
    let kinds: Vec<_> = before.problems.iter().map(|p| p.kind).collect();
    assert_eq!(
        kinds,
        [
            ProblemKind::Legacy,
            ProblemKind::MissingId,
            ProblemKind::ContentLength
        ]
    );
    assert_eq!(before.problems[2].bullet.as_deref(), Some("strat-00000002"));

    let after = playbooks::validate(&workspace, None, true, now()).unwrap();
    assert_eq!(after.fixed, [".delia/playbooks/testing.json"]);
    let kinds: Vec<_> = after.problems.iter().map(|p| p.kind).collect();
    assert_eq!(
        kinds,
        [ProblemKind::ContentLength],
        "only the unfixable is left"
    );
    let saved: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join(".delia/playbooks/testing.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(saved["schema_version"], 2);
    assert_eq!(saved["task_type"], "testing");
    assert!(
        saved["bullets"][0]["id"]
            .as_str()
            .unwrap()
            .starts_with("strat-")
    );
}

#[test]
fn a_workspace_without_delia_has_nothing_missing() {
    let (dir, workspace) = workspace();
    assert!(
        playbooks::validate(&workspace, None, false, now())
            .unwrap()
            .problems
            .is_empty()
    );
    std::fs::create_dir_all(dir.path().join(".delia")).unwrap();
    let kinds: Vec<_> = playbooks::validate(&workspace, None, false, now())
        .unwrap()
        .problems
        .iter()
        .map(|p| p.kind)
        .collect();
    assert_eq!(kinds, [ProblemKind::Missing, ProblemKind::Missing]);
}

#[test]
fn specs_are_listed_at_any_depth_profiles_one_level() {
    let (dir, workspace) = workspace();
    write(&dir, ".prompts/plan/auth.md", "# Auth\n");
    write(&dir, ".prompts/features/login/flow.md", "# Flow\n");
    write(&dir, ".prompts/features/notes.txt", "not markdown");
    write(&dir, ".delia/profiles/core.md", "# Core\n");
    write(&dir, ".delia/profiles/old/ignored.md", "# Old\n");
    let specs = documents::list(&workspace, DocumentKind::Spec)
        .unwrap()
        .documents;
    let paths: Vec<_> = specs.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(
        paths,
        [".prompts/plan/auth.md", ".prompts/features/login/flow.md"]
    );
    assert_eq!(specs[1].name, "flow");
    let profiles = documents::list(&workspace, DocumentKind::Profile)
        .unwrap()
        .documents;
    assert_eq!(profiles.len(), 1);
}

#[test]
fn quarantine_is_listed_and_released() {
    let (_dir, workspace) = workspace();
    assert!(quarantine::list(&workspace).unwrap().is_empty());
    quarantine::set(&workspace, "coding", "strat-1", true, "misleading", now()).unwrap();
    quarantine::set(&workspace, "coding", "strat-2", true, "", now()).unwrap();
    let listed = quarantine::set(&workspace, "coding", "strat-1", false, "", now()).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(quarantine::list(&workspace).unwrap()[0].id, "strat-2");
}

/// Whether a process waits for a lock on the file of inode `inode`
/// (`/proc/locks` lists a blocked request with `->`).
fn someone_waits_on(inode: u64) -> bool {
    std::fs::read_to_string("/proc/locks")
        .unwrap()
        .lines()
        .any(|line| line.contains("->") && line.contains(&format!(":{inode} ")))
}

#[test]
fn a_fix_lists_the_playbooks_under_its_lock_so_one_removed_meanwhile_is_not_read() {
    use std::os::unix::fs::MetadataExt;

    let (dir, workspace) = workspace();
    let old = r#"[{"content": "Mock the clock in time-based tests"}]"#;
    write(&dir, ".delia/playbooks/testing.json", old);
    write(&dir, ".delia/playbooks/gone.json", old);
    let lock_path = dir.path().join(".delia/playbooks/.lock");
    let held = std::fs::File::create(&lock_path).unwrap();
    held.lock().unwrap();
    let fixing = {
        let workspace = workspace.clone();
        std::thread::spawn(move || playbooks::validate(&workspace, None, true, now()))
    };
    // Once the fix waits for the lock, another writer removes a playbook.
    let inode = std::fs::metadata(&lock_path).unwrap().ino();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !someone_waits_on(inode) {
        assert!(std::time::Instant::now() < deadline, "the fix never waited");
        // /proc/locks is the only sign of a waiter: looked at each ms.
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    std::fs::remove_file(dir.path().join(".delia/playbooks/gone.json")).unwrap();
    held.unlock().unwrap();
    let report = fixing.join().unwrap().unwrap();
    assert_eq!(report.checked, 1, "{report:?}");
    assert_eq!(report.fixed, [".delia/playbooks/testing.json"]);
}
