//! Running git for the worktrees of started agents, one way: its
//! arguments are data (never a shell line), it never prompts, no hook runs
//! (the repository's, or one an agent wrote into its worktree and pointed
//! a relative `core.hooksPath` at), no file monitor or external diff runs,
//! a worktree's attributes (and so its filters and diff drivers) are read
//! from its base commit, never from what the agent wrote, a repository
//! nested in it (whose configuration is the agent's) is never looked
//! inside, git's own variables in our environment are not passed on, and
//! what it says on failure becomes a [`StoreError::Git`].

use std::{
    path::Path,
    process::{Command, Output, Stdio},
};

use switchboard_model::agent::launch::Worktree;

use crate::StoreError;

/// How much of git's own words an error keeps.
const SAID_LIMIT: usize = 2000;

/// git in `dir` with `args`: its output, or what it said when it failed.
pub(crate) fn run(dir: &Path, args: &[&str]) -> Result<String, StoreError> {
    let output = output(dir, args)?;
    if output.status.success() {
        return Ok(String::from_utf8_lossy(&output.stdout).into_owned());
    }
    Err(failed(dir, args, &output))
}

/// The hooks folder git is pointed at: one that holds no hook.
const NO_HOOKS: &str = "core.hooksPath=/dev/null";

/// git's variables that would send a run elsewhere than it names, or run
/// a program (a Switchboard started from a git hook inherits them).
const GIT_PLACES: [&str; 9] = [
    "GIT_EXTERNAL_DIFF",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_CEILING_DIRECTORIES",
];

/// git in `dir` with `args`, however it ended.
pub(crate) fn output(dir: &Path, args: &[&str]) -> Result<Output, StoreError> {
    output_with(dir, args, None, None)
}

/// [`output`], with the attributes read from the tree `attributes` (a
/// commit) when given, instead of the working tree's `.gitattributes`
/// (`GIT_ATTR_SOURCE`, git 2.40 and later), and `input` on its stdin.
fn output_with(
    dir: &Path,
    args: &[&str],
    attributes: Option<&str>,
    input: Option<&[u8]>,
) -> Result<Output, StoreError> {
    let mut command = Command::new("git");
    command
        .arg("-C")
        .arg(dir)
        // No hook or file monitor a configuration names runs (external
        // diffs and text conversions are turned off where a diff is made).
        .args(["-c", NO_HOOKS, "-c", "core.fsmonitor=false"])
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_EDITOR", "true")
        .env("GIT_PAGER", "cat")
        .env("LC_ALL", "C")
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for variable in GIT_PLACES {
        command.env_remove(variable);
    }
    if let Some(commit) = attributes {
        command.env("GIT_ATTR_SOURCE", commit);
    }
    let could_not = |error: std::io::Error| StoreError::Git {
        action: action(args),
        dir: dir.to_owned(),
        said: format!("could not run git ({error}); is git installed?"),
    };
    let mut child = command.spawn().map_err(could_not)?;
    if let (Some(input), Some(mut stdin)) = (input, child.stdin.take()) {
        // Written beside git's reading (stdout and stderr are read when
        // it ends): a list as long as git's own output.
        let input = input.to_vec();
        std::thread::spawn(move || {
            use std::io::Write;
            let _ = stdin.write_all(&input);
        });
    }
    child.wait_with_output().map_err(could_not)
}

/// The error for a git run that failed.
pub(crate) fn failed(dir: &Path, args: &[&str], output: &Output) -> StoreError {
    let mut said = String::from_utf8_lossy(&output.stderr).trim().to_owned();
    if said.is_empty() {
        said = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    }
    if said.len() > SAID_LIMIT {
        let mut cut = said.len() - SAID_LIMIT;
        while !said.is_char_boundary(cut) {
            cut += 1;
        }
        said = format!("…{}", &said[cut..]);
    }
    StoreError::Git {
        action: action(args),
        dir: dir.to_owned(),
        said,
    }
}

/// The subcommand an error names: `worktree add`, `merge`.
fn action(args: &[&str]) -> String {
    args.iter()
        .take_while(|arg| !arg.starts_with('-'))
        .take(2)
        .copied()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The commit `reference` names in `dir`'s repository, in full.
pub(crate) fn commit_of(dir: &Path, reference: &str) -> Result<String, StoreError> {
    let spec = format!("{reference}^{{commit}}");
    Ok(run(
        dir,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            &spec,
        ],
    )
    .map_err(|_| {
        StoreError::InTheWay(format!(
            "\"{reference}\" names no commit in {}",
            dir.display()
        ))
    })?
    .trim()
    .to_owned())
}

/// The branch checked out in `dir`, if one is: its name under
/// `refs/heads/`, never shortened to what a tag could also be.
pub(crate) fn current_branch(dir: &Path) -> Option<String> {
    let output = output(dir, &["symbolic-ref", "--quiet", "HEAD"]).ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
        .and_then(|full| full.strip_prefix("refs/heads/").map(str::to_owned))
        .filter(|branch| !branch.is_empty())
}

/// The setting that keeps git out of the repositories nested in a
/// worktree: a submodule's commit is compared, its files never looked at —
/// looking runs `git status` inside it, whose configuration (a filter, a
/// `core.attributesFile`, an `include.path`) is the agent's to write.
const NO_NESTED_LOOK: &str = "diff.ignoreSubmodules=dirty";

/// The options that run git in `worktree` with its recorded git folder.
fn tree_options(worktree: &Worktree) -> Vec<String> {
    let mut options = vec!["-c".to_owned(), NO_NESTED_LOOK.to_owned()];
    if !worktree.git_dir.is_empty() {
        options.extend([
            format!("--git-dir={}", worktree.git_dir),
            format!("--work-tree={}", worktree.path),
        ]);
    }
    options
}

/// [`run`] in `worktree`, with the git folder recorded when it was made
/// and the attributes of its base commit.
pub(crate) fn run_tree(worktree: &Worktree, args: &[&str]) -> Result<String, StoreError> {
    run_tree_with(worktree, args, None)
}

/// [`run_tree`] with `input` on git's stdin.
fn run_tree_with(
    worktree: &Worktree,
    args: &[&str],
    input: Option<&[u8]>,
) -> Result<String, StoreError> {
    let options = tree_options(worktree);
    let mut all: Vec<&str> = options.iter().map(String::as_str).collect();
    all.extend_from_slice(args);
    let dir = Path::new(&worktree.path);
    let output = output_with(dir, &all, Some(&worktree.base_commit), input)?;
    if output.status.success() {
        return Ok(String::from_utf8_lossy(&output.stdout).into_owned());
    }
    Err(failed(dir, &all, &output))
}

/// Stages every change of `worktree` — changed, removed and new files, a
/// nested repository by its commit — as `git add --all` would, but without
/// `git add`, which runs `git status` inside every nested repository (its
/// configuration the agent's): the paths git lists are given to
/// `update-index`, which records a nested repository's commit only.
pub(crate) fn stage_all(worktree: &Worktree) -> Result<(), StoreError> {
    let changed = run_tree(
        worktree,
        &["diff", "--name-only", "--no-renames", "-z", "HEAD", "--"],
    )?;
    let new = run_tree(
        worktree,
        &["ls-files", "--others", "--exclude-standard", "-z"],
    )?;
    let mut paths = Vec::new();
    for path in changed.split('\0').chain(new.split('\0')) {
        // A nested repository is listed as its folder.
        let path = path.trim_end_matches('/');
        if !path.is_empty() {
            paths.extend_from_slice(path.as_bytes());
            paths.push(0);
        }
    }
    if paths.is_empty() {
        return Ok(());
    }
    run_tree_with(
        worktree,
        &["update-index", "--add", "--remove", "-z", "--stdin"],
        Some(&paths),
    )?;
    Ok(())
}
