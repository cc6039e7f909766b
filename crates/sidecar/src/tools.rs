//! The tools the model may call, per mode, and their execution: writes go
//! through the allow-list and the capability writer; reads and searches
//! stay inside the workspace and skip secrets.

use std::{io::Read, path::Path, sync::Mutex};

use cap_std::{ambient_authority, fs::Dir};
use serde_json::{Value, json};
use switchboard_model::{Timestamp, chat::ChatMode, knowledge::learning};

use crate::{
    allow::AllowList,
    apply_write,
    audit::{AuditEntry, AuditLog, Decision},
    proposals::{self, Proposal, Proposals},
    writer::WorkspaceWriter,
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
    /// A file was written.
    Wrote {
        /// Workspace-relative path.
        path: String,
        /// Bytes written.
        bytes: usize,
    },
    /// A write was refused.
    Refused {
        /// The path asked for.
        path: String,
        /// Why.
        reason: String,
    },
    /// A write was held for the developer's approval.
    Proposed {
        /// The proposal's id.
        proposal: String,
        /// The path asked for.
        path: String,
        /// The content's size.
        bytes: usize,
        /// What the developer is shown.
        preview: String,
    },
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
        "append_learning" if context.mode != ChatMode::Analyzing => {
            append_learning(context, &text("category"), &text("title"), &text("body"))
        }
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
        return propose(context, held, path, bytes, shown);
    }
    match apply_write(
        context.allow,
        context.writer,
        context.audit,
        context.mode,
        path,
        bytes,
        context.now,
    ) {
        Ok(written) => (
            format!("wrote {} ({} bytes)", written.path, written.bytes),
            ToolEffect::Wrote {
                path: written.path,
                bytes: written.bytes,
            },
        ),
        Err(reason) => (
            format!("refused: {reason}"),
            ToolEffect::Refused {
                path: path.to_owned(),
                reason,
            },
        ),
    }
}

fn propose(
    context: &ToolContext<'_>,
    held: &Mutex<Proposals>,
    path: &str,
    bytes: &[u8],
    shown: &str,
) -> (String, ToolEffect) {
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
            ToolEffect::Refused {
                path: path.to_owned(),
                reason,
            },
        );
    }
    let Ok(mut held) = held.lock() else {
        return (
            "error: the proposal list is unavailable".to_owned(),
            ToolEffect::None,
        );
    };
    let proposal = held.hold(Proposal {
        root: context.root.to_owned(),
        mode: context.mode,
        build_globs: context.build_globs.to_vec(),
        path: path.to_owned(),
        content: bytes.to_vec(),
    });
    (
        format!(
            "proposed {path} ({} bytes) for the developer's approval; not written yet",
            bytes.len()
        ),
        ToolEffect::Proposed {
            proposal,
            path: path.to_owned(),
            bytes: bytes.len(),
            preview: proposals::preview(shown),
        },
    )
}

fn append_learning(
    context: &ToolContext<'_>,
    category: &str,
    title: &str,
    body: &str,
) -> (String, ToolEffect) {
    let path = format!(
        ".naide/learnings/{}.md",
        learning::category_file_stem(category)
    );
    let existing = std::fs::read_to_string(context.root.join(&path)).unwrap_or_default();
    let content = learning::append_entry(&existing, title, context.now, body);
    let shown = format!(
        "(appended)\n{}",
        learning::entry_text(title, context.now, body)
    );
    write(context, &path, content.as_bytes(), &shown)
}

fn read(context: &ToolContext<'_>, path: &str) -> String {
    // Reading follows the same lexical rules as writing, and never reads
    // what no mode may write (.env files, .git).
    let everything = match AllowList::for_mode(ChatMode::Building, &["**".to_owned()]) {
        Ok(list) => list,
        Err(error) => return format!("error: {error}"),
    };
    if let Err(refusal) = everything.check(path) {
        return format!("refused: {refusal}");
    }
    let read = || -> std::io::Result<String> {
        let root = Dir::open_ambient_dir(context.root, ambient_authority())?;
        let file = root.open(path)?;
        let mut text = String::new();
        file.take(MAX_READ_BYTES).read_to_string(&mut text)?;
        Ok(text)
    };
    match read() {
        Ok(text) => text,
        Err(error) => format!("error: could not read {path}: {error}"),
    }
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
            let Ok(text) = std::fs::read_to_string(entry.path()) else {
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
