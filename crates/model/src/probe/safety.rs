//! Which commands an investigation may send. Safe by default: a command
//! whose name or description reads destructive is never sent, whatever
//! else it may do (ClaudeControl blocks only six substrings and sent
//! `crash` to its own fixture); a command that ends the program is kept for
//! the exit probe; help requests and the rest are read-only enough to try.

/// Verbs that destroy, change or stop things: a command named with one of
/// them, or described with one, is not sent in safe mode.
const DESTRUCTIVE: &[&str] = &[
    "delete",
    "del",
    "remove",
    "rm",
    "rmdir",
    "unlink",
    "wipe",
    "erase",
    "drop",
    "destroy",
    "truncate",
    "reset",
    "format",
    "kill",
    "shutdown",
    "halt",
    "reboot",
    "poweroff",
    "purge",
    "prune",
    "overwrite",
    "flush",
    "uninstall",
    "revoke",
    "terminate",
    "crash",
    "abort",
    "panic",
    "mkfs",
    "fdisk",
    "dd",
    "shred",
    "clear",
    "clean",
    "write",
    "save",
    "commit",
    "push",
    "send",
    "exec",
    "run",
    "shell",
    "system",
];

/// Words that name starting another program (a spreadsheet, an editor, a
/// browser): not read-only, and it may never come back.
const LAUNCHES: &[&str] = &[
    "excel",
    "spreadsheet",
    "editor",
    "edit",
    "browser",
    "launch",
    "spawn",
    "xdg",
    "vim",
    "emacs",
];

/// Verbs that mean the same in a description only in these forms (`format`
/// in "output format" is a noun there, so descriptions are read for the
/// unambiguous ones).
const DESTRUCTIVE_IN_DESCRIPTIONS: &[&str] = &[
    "delete",
    "remove",
    "wipe",
    "erase",
    "drop",
    "destroy",
    "truncate",
    "reset",
    "kill",
    "shutdown",
    "purge",
    "prune",
    "overwrite",
    "uninstall",
    "revoke",
    "terminate",
    "crash",
    "abort",
    "shred",
    "reboot",
];

/// Inputs that usually end a program and mean nothing else
/// (ClaudeControl's list without `close`, `end`, `stop` and `:q!`, which
/// may do something else in a program; its `ctrl-c`/`ctrl-d` are sent as
/// the control characters they name, besides these).
pub const EXIT_COMMANDS: &[&str] = &[
    "exit", "quit", "q", "bye", "logout", "\\q", "\\quit", ".exit", ".quit", ":q", ":quit",
    "exit()", "quit()",
];

/// Inputs that may lead back from a mode to the state that opened it.
pub const BACK_COMMANDS: &[&str] = &[
    "back", "exit", "end", "quit", "up", "..", "cd ..", "done", "q", "return", "leave", "bye",
];

/// The words of `text`, lower-cased: runs of letters and digits.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
}

/// Whether `word` is `verb` or one of its plain inflections.
fn inflects(word: &str, verb: &str) -> bool {
    if word == verb {
        return true;
    }
    let Some(rest) = word.strip_prefix(verb.trim_end_matches('e')) else {
        return false;
    };
    let rest = if verb.ends_with('e') {
        rest.strip_prefix('e').map_or(rest, |after| after)
    } else {
        // A doubled last consonant: dropped, stopping.
        verb.chars()
            .last()
            .and_then(|last| rest.strip_prefix(last))
            .filter(|after| matches!(*after, "ed" | "ing" | "er"))
            .unwrap_or(rest)
    };
    matches!(
        rest,
        "" | "s" | "es" | "d" | "ed" | "ing" | "r" | "er" | "ion"
    )
}

/// Why `name` (described as `description`) reads destructive, or `None`.
pub fn destructive(name: &str, description: &str) -> Option<String> {
    for word in words(name) {
        if let Some(verb) = DESTRUCTIVE.iter().find(|verb| inflects(&word, verb)) {
            return Some(format!("its name reads destructive ({verb:?})"));
        }
    }
    for word in words(name).chain(words(description)) {
        if LAUNCHES.iter().any(|launch| inflects(&word, launch)) {
            return Some(format!("it may start another program ({word:?})"));
        }
    }
    for word in words(description) {
        if DESTRUCTIVE_IN_DESCRIPTIONS
            .iter()
            .any(|verb| inflects(&word, verb))
        {
            return Some(format!("its description reads destructive ({word:?})"));
        }
    }
    None
}

/// Whether a prompt asks for a secret (ClaudeControl's pattern library:
/// password, passphrase, a PIN), whatever the terminal's echo says yet.
pub fn asks_secret(prompt: &str) -> bool {
    let lower = prompt.trim().to_lowercase();
    let ends = lower.ends_with(':') || lower.ends_with('?') || lower.ends_with('>');
    ends && [
        "password",
        "passphrase",
        "passcode",
        "pin",
        "secret",
        "token",
    ]
    .iter()
    .any(|word| words(&lower).any(|each| each == *word || each.ends_with(word)))
}

/// Whether `name` is one of the usual ways out of a program (kept for the
/// exit probe rather than sent while exploring).
pub fn is_exit(name: &str) -> bool {
    let name = name.trim().to_lowercase();
    EXIT_COMMANDS.contains(&name.as_str()) || matches!(name.as_str(), "logoff" | "end" | "stop")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn destructive_names_and_descriptions_are_caught() {
        for (name, description) in [
            ("delete", ""),
            ("rm", "remove a file"),
            ("drop_table", ""),
            ("wipe-all", ""),
            ("crash", "make it fail"),
            ("FORMAT", ""),
            ("tidy", "Deletes every record"),
            ("go", "removes the cache"),
            ("reset", ""),
            ("purge", ""),
            ("x", "the table is dropped"),
            (
                ".excel",
                "Display the output of next command in spreadsheet",
            ),
            ("open", "open the file in an editor"),
        ] {
            assert!(
                destructive(name, description).is_some(),
                "{name} {description}"
            );
        }
        for (name, description) in [
            ("status", "Show status as JSON"),
            ("list", "List the items"),
            ("help", "Show this help"),
            ("config", "Enter configuration mode"),
            ("fmt", "print the output format"),
            ("version", "Show the version"),
            ("dump", "print the records"),
            ("address", ""),
        ] {
            assert_eq!(destructive(name, description), None, "{name} {description}");
        }
    }

    #[test]
    fn secret_prompts_are_known() {
        assert!(asks_secret("Password:"));
        assert!(asks_secret("[sudo] password for ann: "));
        assert!(asks_secret("Enter passphrase for key '/x':"));
        assert!(asks_secret("PIN?"));
        assert!(!asks_secret("toy> "));
        assert!(!asks_secret("password reset done"));
    }

    #[test]
    fn exits_are_known() {
        assert!(is_exit("quit"));
        assert!(is_exit(".exit"));
        assert!(!is_exit("status"));
    }
}
