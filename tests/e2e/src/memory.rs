//! What the benchmarks read of processes' memory: a process tree's PSS
//! and USS by process name (from `/proc`), and the app's process.

use std::{collections::BTreeMap, path::Path};

use anyhow::Result;

/// PSS and USS in kB, by process name.
pub type Memory = BTreeMap<String, (f64, f64)>;

/// The PSS column of [`tree_memory`]'s figures.
pub fn pss_of(memory: &Memory) -> BTreeMap<String, f64> {
    memory
        .iter()
        .map(|(name, (pss, _))| (name.clone(), *pss))
        .collect()
}

/// PSS and USS summed over every process.
pub fn summed(memory: &Memory) -> (f64, f64) {
    memory
        .values()
        .fold((0.0, 0.0), |(pss, uss), (p, u)| (pss + p, uss + u))
}

/// PSS in kB of `root` and its descendants, summed by what is mapped: a
/// library's or binary's path, or `[anon]`, `[heap]` and the like.
pub fn tree_pss_by_mapping(root: u32) -> Result<BTreeMap<String, f64>> {
    let mut by_mapping = BTreeMap::new();
    for pid in tree_of(root) {
        let Ok(smaps) = std::fs::read_to_string(format!("/proc/{pid}/smaps")) else {
            continue;
        };
        let mut name = String::new();
        for line in smaps.lines() {
            if let Some(kb) = pss_kb(line) {
                *by_mapping.entry(name.clone()).or_insert(0.0) += kb;
            } else if line
                .split_whitespace()
                .next()
                .is_some_and(|range| range.contains('-') && !range.ends_with(':'))
            {
                // `start-end perms offset dev inode [path]`
                let path = line.split_whitespace().nth(5).unwrap_or("[anon]");
                name = Path::new(path)
                    .file_name()
                    .map_or(path.to_owned(), |file| file.to_string_lossy().into_owned());
            }
        }
    }
    Ok(by_mapping)
}

/// The app process running `app` on `workspace` (started by WebDriver).
pub fn app_pid(app: &Path, workspace: &Path) -> Option<u32> {
    let workspace = workspace.display().to_string();
    processes().into_iter().find_map(|(pid, _)| {
        let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok()?;
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
        (exe == app && String::from_utf8_lossy(&cmdline).contains(&workspace)).then_some(pid)
    })
}

/// Every process: pid and parent pid.
pub fn processes() -> Vec<(u32, u32)> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // `pid (comm) state ppid …`; comm may hold spaces and parens.
            let after = &stat[stat.rfind(')')? + 2..];
            let ppid = after.split_whitespace().nth(1)?.parse().ok()?;
            Some((pid, ppid))
        })
        .collect()
}

/// The kB of a `Pss:` line of smaps or smaps_rollup; `None` for other lines.
pub fn pss_kb(line: &str) -> Option<f64> {
    let rest = line.strip_prefix("Pss:")?;
    Some(
        rest.trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .unwrap_or(0.0),
    )
}

/// `root` and its descendants.
pub fn tree_of(root: u32) -> Vec<u32> {
    let all = processes();
    let mut tree = vec![root];
    let mut at = 0;
    while at < tree.len() {
        let parent = tree[at];
        tree.extend(
            all.iter()
                .filter(|(_, ppid)| *ppid == parent)
                .map(|(pid, _)| *pid),
        );
        at += 1;
    }
    tree
}

/// PSS and USS (private pages: what the process alone costs) in kB of
/// `root` and its descendants, summed by process name.
pub fn tree_memory(root: u32) -> Memory {
    memory_of(&tree_of(root))
}

/// The name a process gave itself (its `comm`, 15 bytes at most).
pub fn name_of(pid: u32) -> Option<String> {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .ok()
        .map(|comm| comm.trim().to_owned())
}

/// PSS and USS in kB of the processes `pids`, summed by process name.
pub fn memory_of(pids: &[u32]) -> Memory {
    let mut by_name = BTreeMap::new();
    for &pid in pids {
        let Ok(rollup) = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")) else {
            continue;
        };
        let pss = rollup.lines().find_map(pss_kb).unwrap_or(0.0);
        let uss: f64 = ["Private_Clean:", "Private_Dirty:"]
            .iter()
            .filter_map(|field| rollup.lines().find_map(|line| kb_of(line, field)))
            .sum();
        let name = name_of(pid).unwrap_or_else(|| pid.to_string());
        let entry = by_name.entry(name).or_insert((0.0, 0.0));
        entry.0 += pss;
        entry.1 += uss;
    }
    by_name
}

/// The kB of a `field` line of smaps_rollup (`Private_Dirty:  12 kB`).
pub fn kb_of(line: &str, field: &str) -> Option<f64> {
    let rest = line.strip_prefix(field)?;
    rest.trim().trim_end_matches("kB").trim().parse().ok()
}
