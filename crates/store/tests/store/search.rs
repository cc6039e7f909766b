//! The knowledge index: incremental updates, ranking, bad files, recovery.

use serde_json::json;
use switchboard_model::{
    Timestamp,
    knowledge::search::{HitKind, SearchQuery},
};
use switchboard_store::{
    Workspace,
    search::{INDEX_DIR, SearchIndex, search_workspace},
};

fn now() -> Timestamp {
    Timestamp::parse("2026-11-22T10:00:00Z").unwrap()
}

fn query(text: &str) -> SearchQuery {
    SearchQuery::new(text, 10)
}

fn write(root: &std::path::Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn titles(index: &SearchIndex, text: &str) -> Vec<String> {
    index
        .search(&query(text), now())
        .unwrap()
        .hits
        .into_iter()
        .map(|hit| hit.title)
        .collect()
}

#[test]
fn the_index_follows_creates_modifies_and_deletes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let workspace = Workspace::open(root).unwrap();
    write(
        root,
        ".naide/learnings/build.md",
        "## Cache the cargo registry (2026-11-01)\n\nCI got four minutes faster.\n\n## Pin trunk (2026-11-02)\n\nA new release broke wasm builds.\n",
    );
    write(
        root,
        ".delia/profiles/core.md",
        "# Core\n\nPrefer small modules.\n",
    );
    let mut index = SearchIndex::open(&workspace).unwrap();
    let first = index.sync(&workspace).unwrap();
    assert_eq!(first.indexed.len(), 2);
    assert_eq!(first.entries, 3);
    assert_eq!(
        titles(&index, "cargo registry"),
        ["Cache the cargo registry"]
    );
    assert!(
        !index.sync(&workspace).unwrap().changed(),
        "nothing changed, nothing re-read"
    );

    // Modify one file: only it is re-read, and its old entries go.
    write(
        root,
        ".naide/learnings/build.md",
        "## Vendor the registry (2026-11-03)\n\nOffline builds.\n",
    );
    let second = index.sync(&workspace).unwrap();
    assert_eq!(second.indexed, [".naide/learnings/build.md"]);
    assert!(titles(&index, "cargo").is_empty());
    assert_eq!(titles(&index, "registry"), ["Vendor the registry"]);

    // Create and delete.
    write(
        root,
        ".prompts/plan/auth.md",
        "# Auth plan\n\nOAuth with the registry of clients.\n",
    );
    index.sync(&workspace).unwrap();
    let hits = index.search(&query("registry"), now()).unwrap().hits;
    assert_eq!(hits.len(), 2);
    assert!(
        hits.iter()
            .any(|h| h.kind == HitKind::Spec && h.title == "Auth plan")
    );
    std::fs::remove_file(root.join(".naide/learnings/build.md")).unwrap();
    let third = index.sync(&workspace).unwrap();
    assert_eq!(third.removed, [".naide/learnings/build.md"]);
    assert_eq!(titles(&index, "registry"), ["Auth plan"]);

    // A second process opening the index sees the same.
    let reopened = SearchIndex::open(&workspace).unwrap();
    assert_eq!(titles(&reopened, "modules"), ["Core"]);
    let hits = reopened.search(&query("modules"), now()).unwrap().hits;
    assert_eq!(hits[0].path, ".delia/profiles/core.md");
    assert!(hits[0].snippet.contains("modules"));
    let (start, end) = hits[0].highlights[0];
    assert_eq!(&hits[0].snippet[start..end], "modules");
}

#[test]
fn ranking_weighs_utility_and_recency_beside_relevance() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let bullet = |id: &str, helpful: u32, harmful: u32, last_used: &str| {
        json!({"id": id, "content": "Cache the cargo registry between CI runs", "section": id,
               "helpful_count": helpful, "harmful_count": harmful, "last_used": last_used})
    };
    write(
        root,
        ".delia/playbooks/ci.json",
        &json!({"schema_version": 2, "task_type": "ci", "updated_at": "2026-11-21T00:00:00.000000",
        "bullets": [
            bullet("harmful", 1, 6, "2026-11-21T10:00:00.000000"),
            bullet("old-proven", 8, 0, "2026-07-25T10:00:00.000000"),
            bullet("unvoted", 0, 0, "2026-11-21T10:00:00.000000"),
            bullet("proven", 8, 0, "2026-11-21T10:00:00.000000"),
        ]})
        .to_string(),
    );
    let workspace = Workspace::open(root).unwrap();
    let results = search_workspace(&workspace, &query("cargo registry"), now()).unwrap();
    let order: Vec<_> = results.hits.iter().map(|h| h.title.as_str()).collect();
    assert_eq!(order, ["proven", "unvoted", "old-proven", "harmful"]);
    let proven = &results.hits[0];
    assert_eq!((proven.helpful, proven.harmful), (8, 0));
    assert_eq!(proven.bullet_id.as_deref(), Some("proven"));
    assert_eq!(proven.task_type.as_deref(), Some("ci"));
    let expected = proven.relevance * (8.0_f64 / 9.0).sqrt() * 0.5_f64.powf(1.0 / 30.0 * 0.3);
    assert!(
        (proven.score - expected).abs() < 1e-9,
        "{} vs {expected}",
        proven.score
    );

    let only_profiles = SearchQuery {
        kinds: vec![HitKind::Profile],
        ..query("cargo")
    };
    assert!(
        search_workspace(&workspace, &only_profiles, now())
            .unwrap()
            .hits
            .is_empty()
    );
}

#[test]
fn bad_files_are_reported_at_every_search_and_a_broken_index_is_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        ".delia/playbooks/broken.json",
        "{\"schema_version\": 2, \"bullets\": [",
    );
    write(
        root,
        ".delia/memories/repo.md",
        "The monorepo uses cargo workspaces.\n",
    );
    let workspace = Workspace::open(root).unwrap();
    for _ in 0..2 {
        let results = search_workspace(&workspace, &query("cargo"), now()).unwrap();
        assert_eq!(results.hits.len(), 1);
        assert_eq!(results.warnings.len(), 1, "{:?}", results.warnings);
        assert!(results.warnings[0].contains(".delia/playbooks/broken.json: not valid JSON"));
    }
    assert_eq!(
        std::fs::read_to_string(root.join(".delia/playbooks/broken.json")).unwrap(),
        "{\"schema_version\": 2, \"bullets\": [",
        "never rewritten"
    );

    std::fs::write(root.join(INDEX_DIR).join("meta.json"), "garbage").unwrap();
    let results = search_workspace(&workspace, &query("monorepo"), now()).unwrap();
    assert_eq!(
        results.hits.len(),
        1,
        "the index was rebuilt from the files"
    );
    assert!(root.join(INDEX_DIR).join(".gitignore").exists());
}

/// Every byte under `dir`, files only, for looking for a secret.
fn every_byte_under(dir: &std::path::Path) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                pending.push(entry.path());
            } else if kind.is_file() {
                bytes.extend(std::fs::read(entry.path()).unwrap());
            }
        }
    }
    bytes
}

#[test]
fn symlinks_out_of_the_workspace_are_reported_and_never_read() {
    use std::os::unix::fs::symlink;
    use switchboard_store::knowledge::{
        documents::{self, DocumentKind},
        learnings, playbooks,
    };

    const SECRET: &str = "aws_secret_access_key = SECRETSECRET tokens";
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    let outside = dir.path().join("outside");
    write(&outside, "credentials.md", SECRET);
    write(
        &outside,
        "playbook.json",
        &json!({"schema_version": 2, "bullets": [{"id": "b1", "content": SECRET, "section": "s"}]})
            .to_string(),
    );
    write(
        &root,
        ".naide/learnings/fine.md",
        "## Fine (2026-01-01)\n\ntokens rotate\n",
    );
    for place in [
        ".naide/learnings",
        ".delia/playbooks",
        ".delia/profiles",
        ".prompts/plan",
    ] {
        std::fs::create_dir_all(root.join(place)).unwrap();
    }
    symlink(
        outside.join("credentials.md"),
        root.join(".naide/learnings/leak.md"),
    )
    .unwrap();
    symlink(
        outside.join("playbook.json"),
        root.join(".delia/playbooks/leak.json"),
    )
    .unwrap();
    symlink(
        outside.join("credentials.md"),
        root.join(".delia/profiles/leak.md"),
    )
    .unwrap();
    // A whole spec folder that is a link to outside.
    symlink(&outside, root.join(".prompts/features")).unwrap();
    let workspace = Workspace::open(&root).unwrap();

    let listed = learnings::list(&workspace).unwrap();
    let leak = listed.iter().find(|f| f.path.ends_with("leak.md")).unwrap();
    assert!(leak.file.entries.is_empty());
    assert!(
        leak.file.problems[0].contains("outside the workspace"),
        "{:?}",
        leak.file.problems
    );
    let books = playbooks::list(&workspace).unwrap();
    assert!(books[0].playbook.is_none());
    assert!(
        books[0]
            .error
            .as_deref()
            .unwrap()
            .contains("outside the workspace")
    );
    for kind in [DocumentKind::Profile, DocumentKind::Spec] {
        let documents = documents::list(&workspace, kind).unwrap();
        assert!(
            documents
                .documents
                .iter()
                .all(|d| !d.text.contains("SECRET")),
            "{kind:?}"
        );
        assert!(
            !documents.refused.is_empty(),
            "{kind:?} names the refused file"
        );
    }

    let mut index = SearchIndex::open(&workspace).unwrap();
    let report = index.sync(&workspace).unwrap();
    let refused = report
        .warnings
        .iter()
        .filter(|w| w.contains("outside the workspace"))
        .count();
    assert_eq!(refused, 4, "{:?}", report.warnings);
    let results = index.search(&query("tokens"), now()).unwrap();
    assert_eq!(results.hits.len(), 1, "only the real learning is found");
    assert!(
        titles(&index, "SECRETSECRET").is_empty(),
        "nothing of the secret is indexed"
    );
    let stored = every_byte_under(&root.join(INDEX_DIR));
    assert!(
        !stored
            .windows(12)
            .any(|w| w.eq_ignore_ascii_case(b"secretsecret"))
    );
    // The positive control: a real file with the marker is found.
    write(
        &root,
        ".naide/learnings/real.md",
        "## Real (2026-01-01)\n\nSECRETSECRET\n",
    );
    index.sync(&workspace).unwrap();
    assert_eq!(
        titles(&index, "SECRETSECRET"),
        ["Real"],
        "the check can fail"
    );
}
