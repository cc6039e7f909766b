//! The folders Switchboard keeps in a workspace, made with a `.gitignore`
//! when a write first makes them — never when a workspace is opened — so
//! `git add -A` commits nothing private or this machine's own:
//!
//! - `.switchboard/`: everything but what a team may share. Program
//!   sessions' logs (terminal output), the model's write audit, agents' and
//!   tasks' records (process ids), the search index and the window's lock
//!   are private or this machine's; command chains (`chains/`) and the
//!   knowledge quarantine (`knowledge/`, which bullets the team keeps out of
//!   prompts) are shareable, their locks and temporary files not. A folder a
//!   later version adds is ignored until listed here.
//! - `.visual-delivery/`: its `data/` (agents' deliveries and the
//!   developer's answers); `custom/` (a team's theme) is shareable.
//! - `.naide/chatsessions/`: the chats, whole (`.naide/` also holds
//!   learnings and Naide's project configuration, the team's; the model may
//!   make `.naide/` itself with a learning, so the ignore file sits in the
//!   chats' own folder).
//! - `.claude/worktrees/`: the worktrees of agents Switchboard starts
//!   (where Claude Code keeps its own), each a checkout of its own branch
//!   that this checkout's `git status` would list as untracked.
//!
//! A `.gitignore` the developer changed or removed afterwards is left as it
//! is: it is written only with the folder.

use std::path::Path;

use crate::{StoreError, write_atomic};

/// Each own folder (its path's last components) and the `.gitignore` it
/// is made with.
const OWN_FOLDERS: [(&str, &str); 4] = [
    (
        ".switchboard",
        "# Made by Switchboard with this folder. Private or this machine's own,\n\
         # kept out of git: program sessions' logs, the model's write audit,\n\
         # agents' and tasks' records, the search index, locks. Shareable: command\n\
         # chains and the knowledge quarantine.\n\
         /*\n\
         !/.gitignore\n\
         !/chains/\n\
         !/knowledge/\n\
         .lock\n\
         *.tmp\n",
    ),
    (
        ".visual-delivery",
        "# Made by Switchboard with this folder: deliveries and your answers are\n\
         # kept out of git; custom/ (the theme) is shareable.\n\
         /data/\n",
    ),
    (
        ".naide/chatsessions",
        "# Made by Switchboard with this folder: chats are kept out of git.\n*\n",
    ),
    (
        ".claude/worktrees",
        "# Made by Switchboard with this folder: agents' worktrees are checkouts\n\
         # of their own branches, kept out of this one's git status.\n*\n",
    ),
];

/// `std::fs::create_dir_all`, and when that makes one of Switchboard's own
/// folders (`dir` or an ancestor), its `.gitignore` too.
pub fn create_dir_all(dir: &Path) -> Result<(), StoreError> {
    let made: Vec<(&Path, &str)> = dir
        .ancestors()
        .filter_map(|ancestor| {
            let (_, ignore) = OWN_FOLDERS
                .iter()
                .find(|(own, _)| ancestor.ends_with(own))?;
            (!ancestor.exists()).then_some((ancestor, *ignore))
        })
        .collect();
    std::fs::create_dir_all(dir).map_err(StoreError::io("could not create", dir))?;
    for (folder, ignore) in made {
        write_atomic(&folder.join(".gitignore"), ignore.as_bytes())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use super::*;

    #[test]
    fn a_folder_made_gets_its_ignore_file_and_one_there_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        create_dir_all(&dir.path().join(".switchboard/sessions")).unwrap();
        let ignore = dir.path().join(".switchboard/.gitignore");
        assert!(std::fs::read_to_string(&ignore).unwrap().contains("/*\n"));
        std::fs::remove_file(&ignore).unwrap();
        create_dir_all(&dir.path().join(".switchboard/agents")).unwrap();
        assert!(
            !ignore.exists(),
            "written with the folder only: the developer removed it"
        );
        create_dir_all(&dir.path().join("src/deep")).unwrap();
        assert!(!dir.path().join("src/.gitignore").exists());
        create_dir_all(&dir.path().join(".visual-delivery/data")).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join(".visual-delivery/.gitignore"))
                .unwrap()
                .lines()
                .last(),
            Some("/data/")
        );
        // `.naide/` made by a learning first: the chats' folder still gets one.
        create_dir_all(&dir.path().join(".naide/learnings")).unwrap();
        assert!(!dir.path().join(".naide/.gitignore").exists());
        create_dir_all(&dir.path().join(".naide/chatsessions/trash")).unwrap();
        assert!(dir.path().join(".naide/chatsessions/.gitignore").exists());
    }
}
