//! The tools the model may call, per mode, and their execution: writes go
//! through the allow-list and the capability writer; reads and searches
//! stay inside the workspace and skip secrets.

use std::{io::Read, path::Path, sync::Mutex};

use serde_json::{Value, json};
use switchboard_model::{Timestamp, chat::ChatMode, knowledge::learning, sidecar::WriteEvent};
use switchboard_store::{Workspace, knowledge::learnings, regular};

use crate::{
    NewLearning, NotWritten,
    allow::AllowList,
    apply_learning, apply_write,
    audit::{AuditEntry, AuditLog, Decision},
    proposals::{self, Change, Proposal, Proposals},
    writer::{WorkspaceWriter, Written},
};

/// Largest file `read_file` returns, in bytes.
const MAX_READ_BYTES: u64 = 64 * 1024;
/// Most matches `search_files` returns.
const MAX_MATCHES: usize = 30;
/// Folders `search_files` never enters.
const SKIPPED_DIRS: [&str; 5] = [".git", "node_modules", "target", ".switchboard", "dist"];

fn tool(name: &str, description: &str, properties: Value, required: &[&str]) -> Value {
    json!({"type": "function", "function": {
        "name": name, "description": description,
        "parameters": {"type": "object", "properties": properties, "required": required}
    }})
}

/// The tools offered in `mode`, in the API's `tools` form.
pub fn definitions(mode: ChatMode) -> Vec<Value> {
    let mut tools = vec![
        tool(
            "read_file",
            "Read a text file of the workspace.",
            json!({"path": {"type": "string"}}),
            &["path"],
        ),
        tool(
            "search_files",
            "Find lines containing a text in the workspace's files.",
            json!({"query": {"type": "string"}}),
            &["query"],
        ),
    ];
    if mode != ChatMode::Analyzing {
        tools.push(tool(
            "write_file",
            "Create or replace a file (only where this mode may write).",
            json!({"path": {"type": "string"}, "content": {"type": "string"}}),
            &["path", "content"],
        ));
        tools.push(tool(
            "append_learning",
            "Record a lasting lesson in .naide/learnings/<category>.md.",
            json!({"category": {"type": "string"}, "title": {"type": "string"}, "body": {"type": "string"}}),
            &["category", "title", "body"],
        ));
    }
    tools
}

/// What running a tool did, for the chat and for the model.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolEffect {
    /// Nothing visible beyond the result.
    None,
    /// A write, applied, refused or held for the developer's approval.
    Write(WriteEvent),
}

/// Everything a tool needs.
pub struct ToolContext<'a> {
    /// The workspace folder.
    pub root: &'a Path,
    /// The turn's mode.
    pub mode: ChatMode,
    /// The mode's allow-list.
    pub allow: &'a AllowList,
    /// The capability writer.
    pub writer: &'a WorkspaceWriter,
    /// The audit log.
    pub audit: &'a AuditLog,
    /// The time of the turn.
    pub now: Timestamp,
    /// Building's globs in force (kept with proposals).
    pub build_globs: &'a [String],
    /// Where writes are held in a dry run; `None` applies them at once.
    pub proposals: Option<&'a Mutex<Proposals>>,
}

/// Runs tool `name` with JSON `arguments`; returns the text the model gets
/// back and what happened.
pub fn run(context: &ToolContext<'_>, name: &str, arguments: &str) -> (String, ToolEffect) {
    let arguments: Value = match serde_json::from_str(arguments) {
        Ok(arguments) => arguments,
        Err(error) => {
            return (
                format!("error: the arguments are not JSON: {error}"),
                ToolEffect::None,
            );
        }
    };
    let text = |key: &str| {
        arguments
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    match name {
        "write_file" if context.mode != ChatMode::Analyzing => {
            let content = text("content");
            write(context, &text("path"), content.as_bytes(), &content)
        }
        "append_learning" if context.mode != ChatMode::Analyzing => append_learning(
            context,
            NewLearning {
                category: text("category"),
                title: text("title"),
                body: text("body"),
            },
        ),
        "read_file" => (read(context, &text("path")), ToolEffect::None),
        "search_files" => (search(context.root, &text("query")), ToolEffect::None),
        other => (
            format!("error: no tool {other:?} in {} mode", context.mode.as_str()),
            ToolEffect::None,
        ),
    }
}

/// Applies a write, or in a dry run holds it for approval once the
/// allow-list has passed it; `shown` is what the developer sees of it.
fn write(context: &ToolContext<'_>, path: &str, bytes: &[u8], shown: &str) -> (String, ToolEffect) {
    if let Some(held) = context.proposals {
        return propose(context, held, path, Change::Write(bytes.to_vec()), shown);
    }
    let outcome = apply_write(
        context.allow,
        context.writer,
        context.audit,
        context.mode,
        path,
        bytes,
        context.now,
    );
    applied(path, outcome)
}

/// The result of a write or append, for the model and the chat.
fn applied(path: &str, outcome: Result<Written, NotWritten>) -> (String, ToolEffect) {
    match outcome {
        Ok(written) => (
            format!("wrote {} ({} bytes)", written.path, written.bytes),
            ToolEffect::Write(WriteEvent::Applied {
                path: written.path,
                bytes: written.bytes,
            }),
        ),
        Err(not_written) => (
            format!(
                "{}: {}",
                if not_written.refused() {
                    "refused"
                } else {
                    "failed"
                },
                not_written.reason
            ),
            ToolEffect::Write(WriteEvent::Refused {
                path: path.to_owned(),
                reason: not_written.reason,
            }),
        ),
    }
}

fn propose(
    context: &ToolContext<'_>,
    held: &Mutex<Proposals>,
    path: &str,
    change: Change,
    shown: &str,
) -> (String, ToolEffect) {
    let bytes = &change.audited(context.now);
    let (decision, reason) = match context.allow.check(path) {
        Ok(_) => (Decision::Proposed, None),
        Err(refusal) => (Decision::Refused, Some(refusal.to_string())),
    };
    context.audit.record_or_warn(&AuditEntry::of(
        context.now,
        context.mode,
        path,
        bytes,
        decision,
        reason.clone(),
    ));
    if let Some(reason) = reason {
        return (
            format!("refused: {reason}"),
            ToolEffect::Write(WriteEvent::Refused {
                path: path.to_owned(),
                reason,
            }),
        );
    }
    let Ok(mut held) = held.lock() else {
        return (
            "error: the proposal list is unavailable".to_owned(),
            ToolEffect::None,
        );
    };
    let proposal = held.hold(
        Proposal {
            root: context.root.to_owned(),
            mode: context.mode,
            build_globs: context.build_globs.to_vec(),
            path: path.to_owned(),
            change,
        },
        context.now,
    );
    (
        format!(
            "proposed {path} ({} bytes) for the developer's approval; not written yet",
            bytes.len()
        ),
        ToolEffect::Write(WriteEvent::Proposed {
            proposal,
            path: path.to_owned(),
            bytes: bytes.len(),
            preview: proposals::preview(shown),
        }),
    )
}

/// Appends a learning through the store (its lock and layout); in a dry
/// run the proposal holds the entry, appended to the file as it is then.
fn append_learning(context: &ToolContext<'_>, learning: NewLearning) -> (String, ToolEffect) {
    let workspace = match Workspace::open(context.root) {
        Ok(workspace) => workspace,
        Err(error) => return (format!("error: {error}"), ToolEffect::None),
    };
    let path = learnings::target_path(&workspace, &learning.category);
    if let Some(held) = context.proposals {
        let shown = format!(
            "(appended)\n{}",
            learning::entry_text(&learning.title, context.now, &learning.body)
        );
        return propose(context, held, &path, Change::Learning(learning), &shown);
    }
    let outcome = apply_learning(
        context.allow,
        context.audit,
        &workspace,
        context.mode,
        &learning,
        context.now,
    );
    applied(&path, outcome)
}

fn read(context: &ToolContext<'_>, path: &str) -> String {
    // Reading follows the same lexical rules as writing, and never reads
    // secrets (.env files, .git) — by where a path really leads too: a
    // link named notes.txt that leads to .env is .env.
    if let Err(refusal) = context.allow.check_read(path) {
        return format!("refused: {refusal}");
    }
    let real = match real_path(context.root, path) {
        Ok(real) => real,
        Err(error) => return format!("error: could not read {path}: {error}"),
    };
    if let Err(refusal) = context.allow.check_read(&real) {
        return format!("refused: {path} leads to {real}: {refusal}");
    }
    // The store's one reader of workspace files: a regular file only,
    // opened without waiting (a FIFO there never holds the turn), beneath
    // the workspace, by the names just judged — no link swapped in on the
    // way meanwhile, no other name (a hard link) for the file.
    let read = || -> std::io::Result<String> {
        let file = regular::open_unlinked_in(context.root, Path::new(&real))?;
        let mut bytes = Vec::new();
        file.take(MAX_READ_BYTES).read_to_end(&mut bytes)?;
        String::from_utf8(bytes)
            .map_err(|error| std::io::Error::new(std::io::ErrorKind::InvalidData, error))
    };
    match read() {
        Ok(text) => text,
        Err(error) => format!("error: could not read {path}: {error}"),
    }
}

/// Where `path` (relative to the workspace `root`) really leads, every
/// link resolved, relative to `root` with `/` between its names; refused
/// when that is outside it.
fn real_path(root: &Path, path: &str) -> std::io::Result<String> {
    let root = root.canonicalize()?;
    let real = root.join(path).canonicalize()?;
    let inside = real.strip_prefix(&root).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            "it leads outside the workspace",
        )
    })?;
    let names: Option<Vec<&str>> = inside
        .components()
        .map(|part| part.as_os_str().to_str())
        .collect();
    names.map(|names| names.join("/")).ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidData, "its name is not UTF-8")
    })
}

fn search(root: &Path, query: &str) -> String {
    if query.trim().is_empty() {
        return "error: empty query".to_owned();
    }
    let needle = query.to_lowercase();
    let mut matches = Vec::new();
    let mut pending = vec![root.to_owned()];
    'walk: while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|entry| entry.file_name());
        for entry in entries {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if !SKIPPED_DIRS.contains(&name.as_str()) {
                    pending.push(entry.path());
                }
                continue;
            }
            if !kind.is_file()
                || name.starts_with(".env")
                || entry.metadata().map_or(true, |m| m.len() > 256 * 1024)
            {
                continue;
            }
            let Ok(text) =
                switchboard_store::regular::read_to_string_in(root, &entry.path(), 256 * 1024)
            else {
                continue;
            };
            let relative = entry
                .path()
                .strip_prefix(root)
                .unwrap_or(&entry.path())
                .to_string_lossy()
                .into_owned();
            for (number, line) in text.lines().enumerate() {
                if line.to_lowercase().contains(&needle) {
                    matches.push(format!("{relative}:{}: {}", number + 1, line.trim()));
                    if matches.len() >= MAX_MATCHES {
                        break 'walk;
                    }
                }
            }
        }
    }
    if matches.is_empty() {
        format!("no matches for {query:?}")
    } else {
        matches.join("\n")
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use switchboard_model::knowledge::learning::parse;

    use super::*;

    /// Runs `append_learning` as the model would call it, in Planning.
    fn tool_append(root: &Path, proposals: Option<&Mutex<Proposals>>, title: &str) -> ToolEffect {
        let allow = AllowList::for_mode(ChatMode::Planning, &[]).unwrap();
        let writer = WorkspaceWriter::open(root).unwrap();
        let audit = AuditLog::new(root);
        let context = ToolContext {
            root,
            mode: ChatMode::Planning,
            allow: &allow,
            writer: &writer,
            audit: &audit,
            now: Timestamp::EPOCH,
            build_globs: &[],
            proposals,
        };
        let arguments = json!({"category": "build", "title": title, "body": "a lesson"});
        run(&context, "append_learning", &arguments.to_string()).1
    }

    #[test]
    fn the_tool_and_the_window_appending_at_once_lose_no_entry() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".naide/learnings")).unwrap();
        let root = dir.path().to_owned();
        let workspace = Workspace::open(&root).unwrap();
        std::thread::scope(|scope| {
            for writer in 0..4 {
                let root = &root;
                let workspace = &workspace;
                scope.spawn(move || {
                    for n in 0..50 {
                        let effect = tool_append(root, None, &format!("tool {writer}-{n}"));
                        assert!(
                            matches!(effect, ToolEffect::Write(WriteEvent::Applied { .. })),
                            "{effect:?}"
                        );
                    }
                });
                scope.spawn(move || {
                    for n in 0..50 {
                        // What the window's Add does: the store's append.
                        learnings::append(
                            workspace,
                            "build",
                            &format!("window {writer}-{n}"),
                            "a lesson",
                            Timestamp::EPOCH,
                        )
                        .unwrap();
                    }
                });
            }
        });
        let text = std::fs::read_to_string(root.join(".naide/learnings/build.md")).unwrap();
        let parsed = parse("build", &text);
        assert_eq!(parsed.entries.len(), 400, "every entry is kept");
        let mut titles: Vec<_> = parsed.entries.iter().map(|e| e.title.clone()).collect();
        titles.sort();
        titles.dedup();
        assert_eq!(titles.len(), 400, "each entry once");
    }

    #[test]
    fn a_file_that_is_not_utf8_is_refused_and_left_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let learnings = dir.path().join(".naide/learnings");
        std::fs::create_dir_all(&learnings).unwrap();
        let bytes = b"## Latin-1 (2024-01-01)\n\ncaf\xe9 au lait\n".to_vec();
        std::fs::write(learnings.join("build.md"), &bytes).unwrap();
        match tool_append(dir.path(), None, "new") {
            ToolEffect::Write(WriteEvent::Refused { path, reason }) => {
                assert_eq!(path, ".naide/learnings/build.md");
                assert!(reason.contains("not UTF-8"), "{reason}");
            }
            other => panic!("expected a refusal, got {other:?}"),
        }
        assert_eq!(std::fs::read(learnings.join("build.md")).unwrap(), bytes);
        let audit =
            std::fs::read_to_string(dir.path().join(".switchboard/audit/writes.jsonl")).unwrap();
        assert!(audit.contains("\"decision\":\"failed\""), "{audit}");
    }

    #[test]
    fn a_dry_run_holds_the_entry_and_applies_it_to_the_file_as_it_is_then() {
        let dir = tempfile::tempdir().unwrap();
        let learnings_dir = dir.path().join(".naide/learnings");
        std::fs::create_dir_all(&learnings_dir).unwrap();
        let held = Mutex::new(Proposals::default());
        let ToolEffect::Write(WriteEvent::Proposed {
            proposal, preview, ..
        }) = tool_append(dir.path(), Some(&held), "held")
        else {
            panic!("a dry run proposes");
        };
        assert!(preview.contains("held"), "{preview}");
        assert!(
            !learnings_dir.join("build.md").exists(),
            "nothing written yet"
        );
        // Another entry lands meanwhile; applying keeps it.
        let workspace = Workspace::open(dir.path()).unwrap();
        learnings::append(&workspace, "build", "meanwhile", "x", Timestamp::EPOCH).unwrap();
        let taken = held.lock().unwrap().take(&proposal).unwrap();
        proposals::settle(&proposal, taken, true, Timestamp::EPOCH, |_| {});
        let text = std::fs::read_to_string(learnings_dir.join("build.md")).unwrap();
        let titles: Vec<_> = parse("build", &text)
            .entries
            .into_iter()
            .map(|e| e.title)
            .collect();
        assert_eq!(titles, ["meanwhile", "held"]);
    }

    #[test]
    fn read_file_reads_no_secret_through_a_link_and_waits_on_no_fifo() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join(".env"), "TOKEN=sk-secret\n").unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/config"), "[credential]\n").unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/main.rs"), "fn main() {}\n").unwrap();
        // A cloned repository's links: a harmless name to a secret, a
        // folder to .git, and a FIFO nobody writes.
        std::os::unix::fs::symlink(".env", root.join("notes.txt")).unwrap();
        std::os::unix::fs::symlink(".git", root.join("docs")).unwrap();
        std::os::unix::fs::symlink("/etc/hostname", root.join("host")).unwrap();
        std::fs::hard_link(root.join(".env"), root.join("readme.txt")).unwrap();
        assert!(
            std::process::Command::new("mkfifo")
                .arg(root.join("pipe"))
                .status()
                .unwrap()
                .success()
        );
        let allow = AllowList::for_mode(ChatMode::Planning, &[]).unwrap();
        let writer = WorkspaceWriter::open(root).unwrap();
        let audit = AuditLog::new(root);
        let context = ToolContext {
            root,
            mode: ChatMode::Planning,
            allow: &allow,
            writer: &writer,
            audit: &audit,
            now: Timestamp::EPOCH,
            build_globs: &[],
            proposals: None,
        };
        let read = |path: &str| run(&context, "read_file", &json!({ "path": path }).to_string()).0;
        assert_eq!(read("src/main.rs"), "fn main() {}\n");
        for path in [
            "notes.txt",
            "docs/config",
            "host",
            "pipe",
            ".env",
            "readme.txt",
        ] {
            let said = read(path);
            assert!(
                said.starts_with("refused: ") || said.starts_with("error: "),
                "{path}: {said}"
            );
            assert!(
                !said.contains("sk-secret") && !said.contains("credential"),
                "{path}: {said}"
            );
        }
        assert!(
            read("notes.txt").contains("leads to .env"),
            "{}",
            read("notes.txt")
        );
    }
}
