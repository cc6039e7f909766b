//! Started agents' git worktrees: made on a branch of their own, what
//! they changed since their base, merged into the base (never leaving the
//! developer's checkout half-merged) or discarded (never losing work the
//! developer did not confirm losing). Every step is git's own, its
//! arguments data.

use std::path::{Path, PathBuf};

use switchboard_model::agent::launch::{
    BRANCH_PREFIX, CHANGES_LIMIT, ChangedFile, CommitLine, FileChange, Worktree, WorktreeChanges,
    check_name, check_ref, new_file_diff,
};

use crate::{StoreError, Workspace, git, regular};

/// The most files a review lists.
const FILES_LIMIT: usize = 500;

/// The largest new file whose text a review shows.
const NEW_FILE_LIMIT: u64 = 256 * 1024;

/// Makes a worktree for the agent `name` at `place` (absolute, inside the
/// workspace) on the new branch `switchboard/NAME`, from `base` (default:
/// the workspace's HEAD).
pub fn create(
    workspace: &Workspace,
    name: &str,
    place: &Path,
    base: Option<&str>,
) -> Result<Worktree, StoreError> {
    check_name(name)?;
    if let Some(base) = base {
        check_ref(base)?;
    }
    let root = workspace.root();
    if git::output(root, &["rev-parse", "--is-inside-work-tree"])
        .map(|output| !output.status.success())
        .unwrap_or(true)
    {
        return Err(StoreError::InTheWay(format!(
            "{} is not a git repository: an agent gets a worktree only in one (git init, and a first commit)",
            root.display()
        )));
    }
    let base_label = match base {
        Some(base) => base.to_owned(),
        None => git::current_branch(root).unwrap_or_else(|| "HEAD".to_owned()),
    };
    // A branch is named by its full ref (a tag of the same name must not
    // stand in for it: the review would show one thing and the merge
    // land another).
    let base_commit = if base_is_branch(root, &base_label) {
        git::commit_of(root, &format!("refs/heads/{base_label}"))?
    } else {
        git::commit_of(root, &base_label)?
    };
    let branch = format!("{BRANCH_PREFIX}{name}");
    if git::output(
        root,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("refs/heads/{branch}"),
        ],
    )?
    .status
    .success()
    {
        return Err(StoreError::InTheWay(format!(
            "the branch {branch} already exists: choose another name, or delete the branch"
        )));
    }
    if std::fs::symlink_metadata(place).is_ok() {
        return Err(StoreError::InTheWay(format!(
            "{} already exists: choose another name",
            place.display()
        )));
    }
    let parent = place.parent().unwrap_or(root);
    no_link_between(root, parent)?;
    crate::own_folders::create_dir_all(parent)?;
    no_link_between(root, parent)?;
    let place_text = place.to_string_lossy();
    let added = git::run(
        root,
        &[
            "worktree",
            "add",
            "-b",
            &branch,
            "--",
            &place_text,
            &base_commit,
        ],
    );
    if let Err(error) = added {
        // A branch made before the checkout failed is not left behind.
        let _ = git::output(root, &["branch", "-D", &branch]);
        return Err(error);
    }
    let git_dir = git::run(place, &["rev-parse", "--absolute-git-dir"])?
        .trim()
        .to_owned();
    Ok(Worktree {
        path: place_text.into_owned(),
        branch,
        base: base_label,
        base_commit,
        git_dir,
    })
}

/// Refuses a folder between `root` and `dir` (past the root) that is a
/// symbolic link: a worktree made there could land outside the workspace
/// (a cloned repository can commit such a link).
fn no_link_between(root: &Path, dir: &Path) -> Result<(), StoreError> {
    let Ok(below) = dir.strip_prefix(root) else {
        return Err(StoreError::OutsideWorkspace {
            path: dir.to_owned(),
            target: dir.to_owned(),
        });
    };
    let mut at = root.to_path_buf();
    for part in below.components() {
        at.push(part);
        if std::fs::symlink_metadata(&at).is_ok_and(|metadata| metadata.file_type().is_symlink()) {
            let target = std::fs::read_link(&at).unwrap_or_default();
            return Err(StoreError::OutsideWorkspace { path: at, target });
        }
    }
    Ok(())
}

/// What the agent changed in `worktree` since its base: its commits, and
/// each file changed, committed or not, with its diff — a new file marked
/// when the developer's checkout of the base holds a file of its path
/// that git does not track (merging would replace it).
pub fn changes(workspace: &Workspace, worktree: &Worktree) -> Result<WorktreeChanges, StoreError> {
    let dir = Path::new(&worktree.path);
    let base = worktree.base_commit.as_str();
    let commits = git::run_tree(
        worktree,
        &["log", "--format=%H%x1f%s", &format!("{base}..HEAD"), "--"],
    )?
    .lines()
    .filter_map(|line| {
        let (id, subject) = line.split_once('\u{1f}')?;
        Some(CommitLine {
            id: id.to_owned(),
            subject: subject.to_owned(),
        })
    })
    .collect();
    let mut files = tracked_changes(worktree, base)?;
    let untracked = git::run_tree(
        worktree,
        &["ls-files", "--others", "--exclude-standard", "-z"],
    )?;
    for path in untracked.split('\0').filter(|path| !path.is_empty()) {
        files.push(new_file(dir, path));
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files.truncate(FILES_LIMIT);
    if let Some(checkout) = checked_out_at(workspace.root(), &worktree.base)? {
        for file in &mut files {
            file.replaces_untracked =
                file.change == FileChange::Added && in_checkout(&checkout, &file.path);
        }
    }
    let uncommitted = git::run_tree(
        worktree,
        &["status", "--porcelain", "-z", "--untracked-files=all"],
    )?
    .split('\0')
    .filter(|entry| entry.len() > 3)
    .count();
    let mut changes = WorktreeChanges {
        branch: worktree.branch.clone(),
        base: worktree.base.clone(),
        commits,
        files,
        uncommitted,
        truncated: false,
    };
    let mut total = 0;
    for file in &mut changes.files {
        total += file.diff.len();
        if total > CHANGES_LIMIT {
            file.diff.clear();
            changes.truncated = true;
        }
    }
    Ok(changes)
}

/// The tracked files changed since `base` (commits and working tree), with
/// their counts and diffs.
fn tracked_changes(worktree: &Worktree, base: &str) -> Result<Vec<ChangedFile>, StoreError> {
    let statuses = git::run_tree(
        worktree,
        &["diff", "--name-status", "--no-renames", "-z", base, "--"],
    )?;
    let mut fields = statuses.split('\0').filter(|field| !field.is_empty());
    let mut files = Vec::new();
    while let (Some(letter), Some(path)) = (fields.next(), fields.next()) {
        let change = match letter {
            "A" => FileChange::Added,
            "D" => FileChange::Deleted,
            _ => FileChange::Modified,
        };
        files.push(ChangedFile {
            path: path.to_owned(),
            change,
            added: None,
            removed: None,
            diff: String::new(),
            replaces_untracked: false,
        });
        if files.len() >= FILES_LIMIT {
            break;
        }
    }
    let numstat = git::run_tree(
        worktree,
        &["diff", "--numstat", "--no-renames", "-z", base, "--"],
    )?;
    for entry in numstat.split('\0').filter(|entry| !entry.is_empty()) {
        let mut parts = entry.splitn(3, '\t');
        let (Some(added), Some(removed), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        if let Some(file) = files.iter_mut().find(|file| file.path == path) {
            file.added = added.parse().ok();
            file.removed = removed.parse().ok();
        }
    }
    let mut total = 0;
    for file in &mut files {
        if total > CHANGES_LIMIT {
            break;
        }
        file.diff = git::run_tree(
            worktree,
            &[
                "diff",
                "--no-color",
                "--no-ext-diff",
                "--no-textconv",
                "--no-renames",
                base,
                "--",
                &file.path,
            ],
        )?;
        total += file.diff.len();
    }
    Ok(files)
}

/// A file git does not track yet, shown as new: as git would store it —
/// a regular file inside the worktree by its text, a link by where it
/// points (never the text of what it points at), anything else not at all.
fn new_file(dir: &Path, path: &str) -> ChangedFile {
    let full = dir.join(path);
    let link = std::fs::symlink_metadata(&full)
        .is_ok_and(|meta| meta.file_type().is_symlink())
        .then(|| std::fs::read_link(&full).ok())
        .flatten()
        .map(|target| format!("{}\n", target.display()));
    let text = link.or_else(|| {
        regular::read_in(dir, &full, NEW_FILE_LIMIT + 1, regular::LastLink::Refuse)
            .ok()
            .filter(|bytes| bytes.len() as u64 <= NEW_FILE_LIMIT)
            .and_then(|bytes| String::from_utf8(bytes).ok())
    });
    ChangedFile {
        path: path.to_owned(),
        change: FileChange::Added,
        added: text.as_ref().map(|text| text.lines().count() as u64),
        removed: text.as_ref().map(|_| 0),
        diff: text
            .map(|text| new_file_diff(path, &text))
            .unwrap_or_default(),
        replaces_untracked: false,
    }
}

/// Whether `path` (relative) names anything in the checkout at `checkout`
/// — a file, a link, a folder — without following a link on the way.
fn in_checkout(checkout: &Path, path: &str) -> bool {
    std::fs::symlink_metadata(checkout.join(path)).is_ok()
}

/// The files merging `tree` into `base_commit` adds that the checkout at
/// `checkout` already holds, untracked or ignored (git replaces an
/// ignored one without a word).
fn replaced_in_checkout(
    root: &Path,
    checkout: &Path,
    base_commit: &str,
    tree: &str,
) -> Result<Vec<String>, StoreError> {
    let added = git::run(
        root,
        &[
            "diff",
            "--name-only",
            "--no-renames",
            "--diff-filter=A",
            "-z",
            base_commit,
            tree,
            "--",
        ],
    )?;
    Ok(added
        .split('\0')
        .filter(|path| !path.is_empty() && in_checkout(checkout, path))
        .map(str::to_owned)
        .collect())
}

/// Merges the agent's branch into its base branch. With `commit_first`,
/// uncommitted work in the worktree is committed first (as `message`);
/// without it, uncommitted work refuses the merge. A merge that would
/// conflict is refused with the files named and nothing changed; where the
/// base is checked out, git merges there (refusing, unchanged, when the
/// developer's own changes are in the way), else the base's ref moves to
/// the merge commit. Returns the base's new commit.
pub fn merge(
    workspace: &Workspace,
    worktree: &Worktree,
    name: &str,
    commit_first: bool,
) -> Result<String, StoreError> {
    let dir = Path::new(&worktree.path);
    let base = &worktree.base;
    if !base_is_branch(workspace.root(), base) {
        return Err(StoreError::InTheWay(format!(
            "the agent's base \"{base}\" is not a branch: there is nothing to merge into (merge {} by hand)",
            worktree.branch
        )));
    }
    let dirty = git::run_tree(
        worktree,
        &["status", "--porcelain", "-z", "--untracked-files=all"],
    )?;
    if !dirty.is_empty() {
        if !commit_first {
            return Err(StoreError::Uncommitted {
                name: name.to_owned(),
                files: dirty.split('\0').filter(|entry| entry.len() > 3).count(),
                worktree: dir.to_owned(),
            });
        }
        git::stage_all(worktree)?;
        git::run_tree(
            worktree,
            &[
                "commit",
                "--quiet",
                "--no-verify",
                "-m",
                &format!("Work of agent {name}, committed by Switchboard to merge it"),
            ],
        )?;
    }
    let root = workspace.root();
    let base_commit = git::commit_of(root, &format!("refs/heads/{base}"))?;
    let branch_commit = git::commit_of(root, &format!("refs/heads/{}", worktree.branch))?;
    let ahead = git::run(
        root,
        &[
            "rev-list",
            "--count",
            &format!("{base_commit}..{branch_commit}"),
        ],
    )?;
    if ahead.trim() == "0" {
        return Err(StoreError::InTheWay(format!(
            "{} has nothing {base} does not have: nothing to merge",
            worktree.branch
        )));
    }
    if let Some(busy) = base_busy(root, base)? {
        return Err(StoreError::InTheWay(format!(
            "{base} is {busy}: finish or abort that first, then merge"
        )));
    }
    let tree = merged_tree(root, &base_commit, &branch_commit, base, &worktree.branch)?;
    let message = format!("Merge agent {name} ({})", worktree.branch);
    match checked_out_at(root, base)? {
        Some(checkout) => {
            let replaced = replaced_in_checkout(root, &checkout, &base_commit, &tree)?;
            if !replaced.is_empty() {
                return Err(StoreError::WouldReplace {
                    base: base.clone(),
                    checkout,
                    files: replaced,
                });
            }
            let output = git::output(
                &checkout,
                &[
                    "merge",
                    "--no-ff",
                    "--no-edit",
                    "--no-overwrite-ignore",
                    "-m",
                    &message,
                    &branch_commit,
                ],
            )?;
            if !output.status.success() {
                if checkout.join(".git").exists()
                    && git::output(&checkout, &["rev-parse", "-q", "--verify", "MERGE_HEAD"])?
                        .status
                        .success()
                {
                    let _ = git::output(&checkout, &["merge", "--abort"]);
                }
                return Err(git::failed(&checkout, &["merge"], &output));
            }
            git::commit_of(&checkout, "HEAD")
        }
        None => {
            let commit = git::run(
                root,
                &[
                    "commit-tree",
                    &tree,
                    "-p",
                    &base_commit,
                    "-p",
                    &branch_commit,
                    "-m",
                    &message,
                ],
            )?
            .trim()
            .to_owned();
            git::run(
                root,
                &[
                    "update-ref",
                    &format!("refs/heads/{base}"),
                    &commit,
                    &base_commit,
                ],
            )?;
            Ok(commit)
        }
    }
}

/// The tree of merging `branch_commit` into `base_commit`, or the files
/// that would conflict (git's `merge-tree`, which touches no checkout).
fn merged_tree(
    root: &Path,
    base_commit: &str,
    branch_commit: &str,
    base: &str,
    branch: &str,
) -> Result<String, StoreError> {
    let args = [
        "merge-tree",
        "--write-tree",
        "--name-only",
        "--no-messages",
        "-z",
        base_commit,
        branch_commit,
    ];
    let output = git::output(root, &args)?;
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let mut parts = text.split('\0').filter(|part| !part.is_empty());
    let tree = parts.next().unwrap_or_default().trim().to_owned();
    match output.status.code() {
        Some(0) => Ok(tree),
        Some(1) => Err(StoreError::Conflict {
            branch: branch.to_owned(),
            base: base.to_owned(),
            files: parts.map(str::to_owned).collect(),
        }),
        _ => Err(git::failed(root, &args, &output)),
    }
}

/// What git is in the middle of doing to `branch` in any worktree of the
/// repository (a rebase, a bisect), if anything: git then shows it
/// detached, and moving it underneath would be undone or refused later.
fn base_busy(root: &Path, branch: &str) -> Result<Option<&'static str>, StoreError> {
    let common = git::run(
        root,
        &["rev-parse", "--path-format=absolute", "--git-common-dir"],
    )?;
    let common = PathBuf::from(common.trim());
    let wanted = format!("refs/heads/{branch}");
    let mut git_dirs = vec![common.clone()];
    if let Ok(entries) = std::fs::read_dir(common.join("worktrees")) {
        git_dirs.extend(entries.flatten().map(|entry| entry.path()));
    }
    for dir in git_dirs {
        for (file, doing) in [
            ("rebase-merge/head-name", "being rebased"),
            ("rebase-apply/head-name", "being rebased"),
            ("BISECT_START", "being bisected"),
        ] {
            let named =
                regular::read_to_string_in(&common, &dir.join(file), 4096).unwrap_or_default();
            let named = named.trim();
            if named == wanted || named == branch {
                return Ok(Some(doing));
            }
        }
    }
    Ok(None)
}

/// Whether `base` names a local branch.
fn base_is_branch(root: &Path, base: &str) -> bool {
    git::output(
        root,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("refs/heads/{base}"),
        ],
    )
    .is_ok_and(|output| output.status.success())
}

/// The folder of the worktree that has `branch` checked out, if any.
fn checked_out_at(root: &Path, branch: &str) -> Result<Option<PathBuf>, StoreError> {
    let list = git::run(root, &["worktree", "list", "--porcelain", "-z"])?;
    let wanted = format!("branch refs/heads/{branch}");
    let mut folder = None;
    for field in list.split('\0') {
        if let Some(path) = field.strip_prefix("worktree ") {
            folder = Some(PathBuf::from(path));
        } else if field == wanted {
            return Ok(folder);
        }
    }
    Ok(None)
}

/// The work that removing `worktree` would lose: uncommitted files and
/// commits its base does not have, in words (empty: none).
pub fn unmerged_work(workspace: &Workspace, worktree: &Worktree) -> Vec<String> {
    let dir = Path::new(&worktree.path);
    let mut work = Vec::new();
    if dir.is_dir() {
        let dirty = git::run_tree(
            worktree,
            &["status", "--porcelain", "-z", "--untracked-files=all"],
        )
        .unwrap_or_default();
        let count = dirty.split('\0').filter(|entry| entry.len() > 3).count();
        if count > 0 {
            work.push(format!("{count} file(s) with uncommitted changes"));
        }
    }
    let base = if base_is_branch(workspace.root(), &worktree.base) {
        format!("refs/heads/{}", worktree.base)
    } else {
        worktree.base_commit.clone()
    };
    let ahead = git::run(
        workspace.root(),
        &[
            "rev-list",
            "--count",
            &format!("{base}..refs/heads/{}", worktree.branch),
        ],
    )
    .ok()
    .and_then(|count| count.trim().parse::<u64>().ok())
    .unwrap_or(0);
    if ahead > 0 {
        work.push(format!(
            "{ahead} commit(s) not merged into {}",
            worktree.base
        ));
    }
    work
}

/// Removes `worktree` and its branch. Work not merged (see
/// [`unmerged_work`]) refuses it unless `confirmed`.
pub fn discard(
    workspace: &Workspace,
    worktree: &Worktree,
    confirmed: bool,
) -> Result<(), StoreError> {
    let work = unmerged_work(workspace, worktree);
    if !work.is_empty() && !confirmed {
        return Err(StoreError::WouldLose { work });
    }
    let root = workspace.root();
    if Path::new(&worktree.path).exists() {
        git::run(root, &["worktree", "remove", "--force", &worktree.path])?;
    } else {
        git::run(root, &["worktree", "prune"])?;
    }
    let branch_ref = format!("refs/heads/{}", worktree.branch);
    if git::output(root, &["rev-parse", "--verify", "--quiet", &branch_ref])?
        .status
        .success()
    {
        git::run(root, &["branch", "-D", &worktree.branch])?;
    }
    Ok(())
}
