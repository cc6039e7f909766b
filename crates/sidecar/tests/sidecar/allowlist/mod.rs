//! The write allow-list under attack: a corpus of hostile paths and a
//! property test, each run through the real writer in a workspace full of
//! symlinks that point outside it. The invariant: not one byte lands
//! outside the mode's allow-list, inside or outside the workspace.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.
#![allow(clippy::disallowed_methods)] // Tests read the files they made.

use std::{
    collections::BTreeMap,
    fs,
    os::unix::fs::symlink,
    path::{Path, PathBuf},
};

use proptest::prelude::*;
use switchboard_model::{Timestamp, chat::ChatMode};
use switchboard_sidecar::{
    allow::AllowList, apply_write, audit::AuditLog, writer::WorkspaceWriter,
};

const MARKER: &[u8] = b"PWNED by a model write";
/// The sidecar's own audit log, the one file a refused write may change.
const AUDIT_LOG: &str = ".switchboard/audit/writes.jsonl";
/// Files of Switchboard and other tools planted in the arena.
const STATE_FILES: [&str; 9] = [
    ".visual-delivery/data/sessions.json",
    ".naide/chatsessions/chat-active.json",
    ".naide/project-config.json",
    ".prompts/system/base.md",
    ".delia/playbooks/coding.json",
    ".opencode/opencode-teams/tasks/team/1.json",
    ".claude/settings.json",
    "tapes/bash/session.json5",
    ".switchboard/knowledge/quarantine.json",
];
/// Building's globs in the broadest configuration a user could choose.
const EVERYTHING: &[&str] = &["**"];

/// A workspace beside a folder it must never touch, with symlinks from
/// allowed places to outside.
struct Arena {
    _temp: tempfile::TempDir,
    workspace: PathBuf,
    outside: PathBuf,
}

impl Arena {
    fn new() -> Self {
        let temp = tempfile::tempdir().unwrap();
        let workspace = temp.path().join("workspace");
        let outside = temp.path().join("outside");
        fs::create_dir_all(outside.join("deep")).unwrap();
        fs::write(outside.join("target.md"), "original").unwrap();
        for dir in [
            ".prompts/plan",
            ".prompts/features",
            ".naide/learnings",
            "src",
        ] {
            fs::create_dir_all(workspace.join(dir)).unwrap();
        }
        // App and tool state a broad glob must still never reach.
        for file in STATE_FILES {
            let path = workspace.join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, "state").unwrap();
        }
        symlink(&outside, workspace.join(".prompts/plan/evil")).unwrap();
        symlink("../../..", workspace.join(".prompts/plan/rel")).unwrap();
        symlink("loop", workspace.join(".prompts/plan/loop")).unwrap();
        // Inside the workspace, but somewhere Planning may not write.
        symlink("../../src", workspace.join(".prompts/plan/to-src")).unwrap();
        symlink(&outside, workspace.join(".prompts/features-link")).unwrap();
        symlink(
            outside.join("target.md"),
            workspace.join(".naide/learnings/file-link.md"),
        )
        .unwrap();
        symlink(&outside, workspace.join(".naide/learnings/dir-link")).unwrap();
        symlink(&outside, workspace.join("src-link")).unwrap();
        Self {
            _temp: temp,
            workspace,
            outside,
        }
    }

    /// Tries one write and checks the invariant; `globs` are Building's.
    fn attempt(&self, mode: ChatMode, globs: &[&str], path: &str) {
        let globs: Vec<String> = globs.iter().map(|g| (*g).to_owned()).collect();
        let allow = AllowList::for_mode(mode, &globs).unwrap();
        let writer = WorkspaceWriter::open(&self.workspace).unwrap();
        let audit = AuditLog::new(&self.workspace);
        let before = self.snapshots();
        let _ = apply_write(
            &allow,
            &writer,
            &audit,
            mode,
            path,
            MARKER,
            Timestamp::EPOCH,
        );
        self.verify(&allow, &format!("{mode:?} {path:?}"), &before);
    }

    fn snapshots(&self) -> (BTreeMap<String, Entry>, BTreeMap<String, Entry>) {
        (snapshot(&self.outside), snapshot(&self.workspace))
    }

    /// Nothing outside changed, and every file that changed inside is one
    /// `allow` permits.
    fn verify(
        &self,
        allow: &AllowList,
        what: &str,
        before: &(BTreeMap<String, Entry>, BTreeMap<String, Entry>),
    ) {
        let (outside_before, inside_before) = before;
        assert_eq!(
            &snapshot(&self.outside),
            outside_before,
            "{what} changed a file outside the workspace"
        );
        for (relative, entry) in snapshot(&self.workspace) {
            // Folders hold no bytes; the sidecar's own audit log is its own.
            let unchanged = inside_before.get(&relative) == Some(&entry);
            if unchanged || entry == Entry::Dir || relative == AUDIT_LOG {
                continue;
            }
            assert!(
                allow.check(&relative).is_ok(),
                "{what} wrote {relative:?}, outside the allow-list"
            );
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    File(Vec<u8>),
    Link(PathBuf),
    Dir,
}

/// Every entry under `root`, symlinks recorded and never followed.
fn snapshot(root: &Path) -> BTreeMap<String, Entry> {
    let mut entries = BTreeMap::new();
    let mut pending = vec![root.to_owned()];
    while let Some(dir) = pending.pop() {
        for child in fs::read_dir(&dir).unwrap() {
            let path = child.unwrap().path();
            let relative = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let meta = fs::symlink_metadata(&path).unwrap();
            let entry = if meta.file_type().is_symlink() {
                Entry::Link(fs::read_link(&path).unwrap())
            } else if meta.is_dir() {
                pending.push(path.clone());
                Entry::Dir
            } else {
                Entry::File(fs::read(&path).unwrap())
            };
            entries.insert(relative, entry);
        }
    }
    entries
}

/// The corpus, with `\0`, `\t`, `\n`, `\r`, `\\` and `\u{…}` decoded.
fn corpus() -> Vec<String> {
    include_str!("hostile_paths.txt")
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(decode)
        .collect()
}

fn decode(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('0') => out.push('\0'),
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            Some('u') => {
                let hex: String = chars.by_ref().skip(1).take_while(|c| *c != '}').collect();
                out.push(char::from_u32(u32::from_str_radix(&hex, 16).unwrap()).unwrap());
            }
            other => panic!("unknown escape \\{other:?} in {line:?}"),
        }
    }
    out
}

#[test]
fn no_corpus_path_writes_outside_the_allow_list_in_any_mode() {
    let paths = corpus();
    assert!(
        paths.len() >= 100,
        "the corpus keeps at least 100 hostile paths, has {}",
        paths.len()
    );
    let configurations: [(ChatMode, &[&str]); 4] = [
        (ChatMode::Planning, &[]),
        (ChatMode::Building, &[]),
        (ChatMode::Building, EVERYTHING),
        (ChatMode::Analyzing, &[]),
    ];
    for (mode, globs) in configurations {
        let arena = Arena::new();
        for path in &paths {
            arena.attempt(mode, globs, path);
        }
    }
}

#[test]
fn a_broad_glob_writes_ordinary_files_but_no_state_whatever_the_case() {
    let arena = Arena::new();
    let allow = AllowList::for_mode(ChatMode::Building, &["**".to_owned()]).unwrap();
    let writer = WorkspaceWriter::open(&arena.workspace).unwrap();
    let audit = AuditLog::new(&arena.workspace);
    let write = |path: &str| {
        apply_write(
            &allow,
            &writer,
            &audit,
            ChatMode::Building,
            path,
            MARKER,
            Timestamp::EPOCH,
        )
    };
    // The positive control: a broad glob does reach ordinary files.
    write("docs/notes.md").unwrap();
    for file in STATE_FILES {
        let shouted = file.to_uppercase();
        for path in [file, shouted.as_str()] {
            let refusal = write(path).unwrap_err();
            assert!(refusal.refused(), "the allow-list's, not the file system's");
            assert!(
                refusal.reason.contains("never writable"),
                "{path}: {refusal}"
            );
        }
        assert_eq!(fs::read(arena.workspace.join(file)).unwrap(), b"state");
    }
    assert!(
        write(AUDIT_LOG).is_err(),
        "the audit log is not the model's"
    );
}

#[test]
fn symlinks_are_never_followed_even_inside_allowed_folders() {
    let arena = Arena::new();
    let allow = AllowList::for_mode(ChatMode::Planning, &[]).unwrap();
    let writer = WorkspaceWriter::open(&arena.workspace).unwrap();
    let audit = AuditLog::new(&arena.workspace);
    let refused = apply_write(
        &allow,
        &writer,
        &audit,
        ChatMode::Planning,
        ".prompts/plan/evil/pwned.md",
        MARKER,
        Timestamp::EPOCH,
    );
    assert!(
        refused.is_err(),
        "a folder symlink to outside is not entered"
    );
    // A symlink at the final name is replaced by the file, not written through.
    apply_write(
        &allow,
        &writer,
        &audit,
        ChatMode::Planning,
        ".naide/learnings/file-link.md",
        MARKER,
        Timestamp::EPOCH,
    )
    .unwrap();
    assert_eq!(
        fs::read_to_string(arena.outside.join("target.md")).unwrap(),
        "original"
    );
    let replaced =
        fs::symlink_metadata(arena.workspace.join(".naide/learnings/file-link.md")).unwrap();
    assert!(
        replaced.is_file(),
        "the link itself was replaced by a regular file"
    );
}

#[test]
fn allowed_writes_land_and_every_decision_is_audited() {
    let arena = Arena::new();
    let allow = AllowList::for_mode(ChatMode::Planning, &[]).unwrap();
    let writer = WorkspaceWriter::open(&arena.workspace).unwrap();
    let audit = AuditLog::new(&arena.workspace);
    let written = apply_write(
        &allow,
        &writer,
        &audit,
        ChatMode::Planning,
        ".prompts/plan/new/auth.md",
        b"# Auth",
        Timestamp::EPOCH,
    )
    .unwrap();
    assert_eq!(written.bytes, 6);
    assert_eq!(
        fs::read_to_string(arena.workspace.join(".prompts/plan/new/auth.md")).unwrap(),
        "# Auth"
    );
    let refusal = apply_write(
        &allow,
        &writer,
        &audit,
        ChatMode::Planning,
        "src/main.rs",
        b"fn main() {}",
        Timestamp::EPOCH,
    )
    .unwrap_err();
    assert!(refusal.reason.contains("planning"), "{refusal}");
    let log = fs::read_to_string(arena.workspace.join(".switchboard/audit/writes.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = log
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["decision"], "written");
    assert_eq!(
        lines[0]["sha256"],
        switchboard_sidecar::writer::sha256_hex(b"# Auth")
    );
    assert_eq!(lines[1]["decision"], "refused");
    assert_eq!(lines[1]["path"], "src/main.rs");
    assert!(
        lines[1]["reason"]
            .as_str()
            .unwrap()
            .contains("outside what planning mode may write")
    );
    let leftovers: Vec<_> = fs::read_dir(arena.workspace.join(".prompts/plan/new"))
        .unwrap()
        .collect();
    assert_eq!(leftovers.len(), 1, "no temporary file is left behind");
}

fn component() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(".prompts".to_owned()),
        Just("plan".to_owned()),
        Just("features".to_owned()),
        Just(".naide".to_owned()),
        Just("learnings".to_owned()),
        Just("src".to_owned()),
        Just("..".to_owned()),
        Just(".".to_owned()),
        Just(String::new()),
        Just("evil".to_owned()),
        Just("rel".to_owned()),
        Just("loop".to_owned()),
        Just("to-src".to_owned()),
        Just("dir-link".to_owned()),
        Just("file-link.md".to_owned()),
        Just("src-link".to_owned()),
        Just("outside".to_owned()),
        Just("%2e%2e".to_owned()),
        Just("\u{FF0E}\u{FF0E}".to_owned()),
        Just(".git".to_owned()),
        Just(".env".to_owned()),
        Just("x.md".to_owned()),
        Just("x\0y".to_owned()),
        Just(".GIT".to_owned()),
        Just(".ENV".to_owned()),
        Just("Cargo.LOCK".to_owned()),
        Just(".switchboard".to_owned()),
        Just(".Visual-Delivery".to_owned()),
        Just("data".to_owned()),
        Just("chatsessions".to_owned()),
        Just("system".to_owned()),
        Just(".delia".to_owned()),
        Just(".opencode".to_owned()),
        Just("tapes".to_owned()),
        Just("sessions.json".to_owned()),
        "[a-z.]{1,6}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn generated_paths_never_write_outside_the_allow_list(
        parts in proptest::collection::vec(component(), 1..7),
        separator in prop_oneof![Just("/"), Just("\\"), Just("//")],
        leading in prop_oneof![Just(""), Just("/"), Just("./"), Just("../")],
        mode in prop_oneof![Just(ChatMode::Planning), Just(ChatMode::Building), Just(ChatMode::Analyzing)],
        broad in any::<bool>(),
    ) {
        let arena = Arena::new();
        let path = format!("{leading}{}", parts.join(separator));
        arena.attempt(mode, if broad { EVERYTHING } else { &[] }, &path);
    }
}

/// The invariant check itself can fail: a stray write outside the
/// allow-list, made behind the writer's back, is caught.
#[test]
#[should_panic(expected = "outside the allow-list")]
fn the_invariant_check_catches_a_stray_write() {
    let arena = Arena::new();
    let allow = AllowList::for_mode(ChatMode::Planning, &[]).unwrap();
    let before = arena.snapshots();
    fs::write(arena.workspace.join("src/stray.rs"), MARKER).unwrap();
    arena.verify(&allow, "control", &before);
}

#[test]
#[should_panic(expected = "changed a file outside the workspace")]
fn the_invariant_check_catches_a_write_outside() {
    let arena = Arena::new();
    let allow = AllowList::for_mode(ChatMode::Planning, &[]).unwrap();
    let before = arena.snapshots();
    fs::write(arena.outside.join("target.md"), MARKER).unwrap();
    arena.verify(&allow, "control", &before);
}

#[test]
#[should_panic(expected = "outside the allow-list")]
fn the_invariant_check_catches_a_state_write_under_a_broad_glob() {
    let arena = Arena::new();
    let allow = AllowList::for_mode(ChatMode::Building, &["**".to_owned()]).unwrap();
    let before = arena.snapshots();
    fs::write(arena.workspace.join(".delia/playbooks/coding.json"), MARKER).unwrap();
    arena.verify(&allow, "control", &before);
}
