//! Reading what a program printed: whether it is help, the commands a help
//! text lists, the formats and errors an output shows (ClaudeControl's
//! pattern library, with real checks where it only matched brackets).

use std::sync::LazyLock;

use regex::Regex;

/// Help requests typed inside a program, in the order tried
/// (ClaudeControl's, without the argument forms, which are asked as
/// arguments).
pub const HELP_REQUESTS: &[&str] = &[
    "help", "?", "h", "commands", "usage", "\\h", "\\?", ".help", "info", "about", "man", "manual",
];

/// Help asked for as arguments.
pub const HELP_ARGUMENTS: &[&str] = &["--help", "-h"];

/// Shorter than this, an answer that shows an error is not help.
const SHORT_ANSWER: usize = 600;

/// Words that mark help text (its `HELP_PATTERNS`).
const HELP_WORDS: &[&str] = &[
    "usage",
    "commands",
    "options",
    "available",
    "help",
    "syntax",
    "example",
    "arguments",
    "argument",
    "flags",
    "flag",
];

fn compile(pattern: &str) -> Regex {
    // The patterns are literals of this file, each used by its tests.
    Regex::new(pattern).unwrap_or_else(|error| unreachable!("fixed pattern: {error}"))
}

static COMMAND_LINES: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        // name - description, name : description (dash or colon spaced)
        r"^\s*(?:[•*]\s*)?([A-Za-z.\\:][\w.\\:-]{0,19})((?:\s+(?:<[^>]*>|\[[^\]]*\]))*)\s+(?:[-–—]|:)\s+(\S.*)$",
        // [name] description
        r"^\s*\[([A-Za-z][\w.-]{0,19})\]\s+(\S.*)$",
        // name: description
        r"^\s*(?:[•*]\s*)?([A-Za-z.\\][\w.\\-]{0,19}):\s+(\S.*)$",
        // name  description (two spaces or more, perhaps with <args>)
        r"^\s{1,8}(?:[•*]\s*)?([A-Za-z.\\:][\w.\\:-]{0,19})((?:\s+(?:<[^>]*>|\[[^\]]*\]|\?[^?\s]+\?|[A-Z][A-Z_]+))*)\s{2,}(\S.*)$",
        // .name  description, from the line's start (meta-commands: sqlite3's
        // `.help`, psql's `\?`)
        r"^([.\\][\w.-]{1,19})((?: \S+)*?)\s{2,}(\S.*)$",
    ]
    .iter()
    .map(|pattern| compile(pattern))
    .collect()
});

/// Words that head sections of a help text, never commands.
const NOT_COMMANDS: &[&str] = &[
    "usage",
    "commands",
    "options",
    "example",
    "examples",
    "note",
    "notes",
    "available",
    "syntax",
    "arguments",
    "flags",
    "see",
    "type",
    "version",
    "warning",
    "error",
    "copyright",
];

/// One command a help text lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// Its name.
    pub name: String,
    /// Its arguments as shown (`<name> [n]`), if any.
    pub arguments: String,
    /// What it does.
    pub description: String,
}

/// The commands `output` lists, once each, in order: lines of the forms
/// `name - description`, `name : description`, `name: description`,
/// `[name] description`, `• name description` and indented `name
/// description` columns, names of letters, digits and `. _ - \ :`.
pub fn listed_commands(output: &str) -> Vec<Listed> {
    let mut found: Vec<Listed> = Vec::new();
    for line in output.lines() {
        let line = crate::program::prompt::strip_escapes(line);
        for pattern in COMMAND_LINES.iter() {
            let Some(caps) = pattern.captures(&line) else {
                continue;
            };
            let name = caps.get(1).map_or("", |m| m.as_str());
            let (arguments, description) = match caps.len() {
                4 => (
                    caps.get(2).map_or("", |m| m.as_str()).trim(),
                    caps.get(3).map_or("", |m| m.as_str()),
                ),
                _ => ("", caps.get(2).map_or("", |m| m.as_str())),
            };
            let lower = name.to_lowercase();
            if NOT_COMMANDS.contains(&lower.trim_end_matches(':'))
                || name.ends_with(':')
                || name.starts_with('-')
            {
                break;
            }
            if !found.iter().any(|known| known.name == name) {
                found.push(Listed {
                    name: name.to_owned(),
                    arguments: arguments.to_owned(),
                    description: description.trim().to_owned(),
                });
            }
            break;
        }
    }
    found
}

/// Whether `output` — what a help request alone caused — is help: at least
/// 20 characters with two of the help words, or a list of two commands or
/// more.
pub fn is_help(output: &str) -> bool {
    is_help_for(output, "")
}

/// [`is_help`] of the answer to `request`: the request printed back (in an
/// error, say) is not a help word, and an error that lists fewer than
/// three commands is an error, not help.
pub fn is_help_for(output: &str, request: &str) -> bool {
    let text = output.trim();
    let cleaned;
    let text = if request.trim().is_empty() {
        text
    } else {
        cleaned = text.replace(request.trim(), " ");
        cleaned.as_str()
    };
    if text.chars().count() < 20 {
        return false;
    }
    let listed = listed_commands(text).len();
    // A short answer that is an error is an error (a long help text may
    // well mention errors).
    if listed < 3 && text.chars().count() < SHORT_ANSWER && !errors(text).is_empty() {
        return false;
    }
    let lower = text.to_lowercase();
    let words = HELP_WORDS
        .iter()
        .filter(|word| {
            lower
                .split(|c: char| !c.is_alphanumeric())
                .any(|each| each == **word)
        })
        .count();
    words >= 2 || listed >= 2
}

/// Kinds of error ClaudeControl's pattern library knows, with the
/// patterns, plus input the program refused.
static ERRORS: LazyLock<Vec<(&'static str, Regex)>> = LazyLock::new(|| {
    [
        (
            "command_not_found",
            r"(?i)command not found|no such file or directory|not recognized as|unknown command|unrecognized command|invalid command|no such command",
        ),
        (
            "permission_denied",
            r"(?i)permission denied|access denied|operation not permitted",
        ),
        (
            "connection_failed",
            r"(?i)connection refused|connection timed out|could not resolve|name or service not known",
        ),
        (
            "authentication_failed",
            r"(?i)authentication failed|invalid credentials|login incorrect",
        ),
        (
            "invalid_input",
            r"(?i)\berror\b|\binvalid\b|syntax error|unexpected|traceback|exception|not allowed|bad (?:input|argument|command)",
        ),
    ]
    .into_iter()
    .map(|(kind, pattern)| (kind, compile(pattern)))
    .collect()
});

/// The kinds of error `output` shows, each with the pattern that matched.
pub fn errors(output: &str) -> Vec<(&'static str, String)> {
    ERRORS
        .iter()
        .filter(|(_, pattern)| pattern.is_match(output))
        .map(|(kind, pattern)| (*kind, pattern.as_str().to_owned()))
        .collect()
}

static XML: LazyLock<Regex> =
    LazyLock::new(|| compile(r"<([A-Za-z][\w.-]*)(?:\s[^<>]*)?>[^<]*</([A-Za-z][\w.-]*)>"));
static TABLE_ROW: LazyLock<Regex> = LazyLock::new(|| compile(r"^\s*\|.*\|.*\|\s*$"));
static TABLE_RULE: LazyLock<Regex> = LazyLock::new(|| compile(r"^\s*[+|]?(?:-{3,}[+|])+-*\s*$"));
static CSV_ROW: LazyLock<Regex> = LazyLock::new(|| compile(r"^[^,\s][^,]*(?:,[^,]*){2,}$"));
static KEY_VALUE: LazyLock<Regex> =
    LazyLock::new(|| compile(r"^\s*[A-Za-z][\w .-]{0,30}\s*[:=]\s*\S"));

/// Whether some `{…}` or `[…]` in `text` parses as a JSON object or a
/// non-empty array.
fn has_json(text: &str) -> bool {
    text.char_indices()
        .filter(|(_, c)| matches!(c, '{' | '['))
        .take(64)
        .any(|(at, _)| {
            let mut values =
                serde_json::Deserializer::from_str(&text[at..]).into_iter::<serde_json::Value>();
            match values.next() {
                Some(Ok(serde_json::Value::Object(_))) => true,
                Some(Ok(serde_json::Value::Array(items))) => !items.is_empty(),
                _ => false,
            }
        })
}

/// The formats `output` is in, by ClaudeControl's names: `JSON` (a value
/// that really parses), `XML` (an element that closes), `Table` (two rows
/// between bars, or a ruled table), `CSV` (two lines of the same three or
/// more fields), `Key-Value` (two `key: value` lines).
pub fn formats(output: &str) -> Vec<&'static str> {
    let text: String = output
        .lines()
        .map(|line| crate::program::prompt::strip_escapes(line) + "\n")
        .collect();
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    if has_json(&text) {
        found.push("JSON");
    }
    if XML
        .captures_iter(&text)
        .any(|caps| caps.get(1).map(|m| m.as_str()) == caps.get(2).map(|m| m.as_str()))
    {
        found.push("XML");
    }
    let rows = lines.iter().filter(|line| TABLE_ROW.is_match(line)).count();
    let rules = lines
        .iter()
        .filter(|line| TABLE_RULE.is_match(line))
        .count();
    if rows >= 2 || (rules >= 1 && lines.len() >= 3 && rows + rules >= 2) {
        found.push("Table");
    }
    let csv: Vec<usize> = lines
        .iter()
        .filter(|line| CSV_ROW.is_match(line) && !line.contains(": "))
        .map(|line| line.matches(',').count())
        .collect();
    if csv
        .windows(2)
        .any(|pair| pair[0] == pair[1] && pair[0] >= 2)
    {
        found.push("CSV");
    }
    if !found.contains(&"JSON") && lines.iter().filter(|line| KEY_VALUE.is_match(line)).count() >= 2
    {
        found.push("Key-Value");
    }
    found
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    const HELP: &str = "Commands:\r\n  help            show this help\r\n  status          print the status as JSON\r\n  config          enter configuration mode\r\n  wipe - delete all data\r\n  get <key> [n]   read a key\r\n  [login] log in with a password\r\n  quit: leave\r\nUsage: type a command and press Enter\r\n";

    #[test]
    fn help_lists_its_commands() {
        let listed = listed_commands(HELP);
        let names: Vec<&str> = listed.iter().map(|each| each.name.as_str()).collect();
        assert_eq!(
            names,
            ["help", "status", "config", "wipe", "get", "login", "quit"]
        );
        assert_eq!(listed[3].description, "delete all data");
        assert_eq!(listed[4].arguments, "<key> [n]");
        assert_eq!(listed[4].description, "read a key");
        assert!(is_help(HELP));
        // A banner is not help; neither is an error about the request.
        assert!(!is_help("Welcome to calc 1.0\r\n"));
        assert!(!is_help("unknown command: ?"));
        // Python's answer to `.help`: the request echoed in an error.
        let python =
            "  File \"<stdin>\", line 1\r\n    .help\r\n    ^\r\nSyntaxError: invalid syntax\r\n";
        assert!(!is_help_for(python, ".help"));
        // sqlite3's meta-commands start their lines.
        let sqlite = ".archive ...             Manage SQL archives\r\n.backup ?DB? FILE        Backup DB (default \"main\") to FILE\r\n.bail on|off             Stop after hitting an error.  Default OFF\r\n.excel                   Display the output of next command in spreadsheet\r\n";
        let names: Vec<String> = listed_commands(sqlite)
            .into_iter()
            .map(|each| each.name)
            .collect();
        assert_eq!(names, [".archive", ".backup", ".bail", ".excel"]);
        assert!(is_help_for(sqlite, ".help"));
        // A long usage text that mentions errors is still help.
        let usage = format!(
            "Usage: node [options] [ script.js ] [arguments]\nOptions:\n{}",
            "  --unhandled-rejections=...  define unhandled rejections behavior: throw, warn or error\n".repeat(8)
        );
        assert!(is_help_for(&usage, "--help"));
        // Prose does not list commands.
        assert!(listed_commands("This is a sentence - with a dash in it.").is_empty());
    }

    #[test]
    fn formats_are_checked_not_guessed() {
        assert_eq!(formats("{\"a\": 1, \"b\": [1,2]}\r\n"), ["JSON"]);
        assert!(formats("[not json]").is_empty());
        assert_eq!(formats("<r><a>1</a></r>"), ["XML"]);
        assert!(formats("<a>1</b>").is_empty());
        assert_eq!(formats("| a | b |\n| 1 | 2 |\n"), ["Table"]);
        assert_eq!(formats("name,age,city\nann,3,x\n"), ["CSV"]);
        assert_eq!(formats("name: calc\nversion: 1.0\n"), ["Key-Value"]);
        assert!(formats("hello world").is_empty());
    }

    #[test]
    fn errors_are_named() {
        let kinds: Vec<&str> = errors("bash: foo: command not found")
            .into_iter()
            .map(|(kind, _)| kind)
            .collect();
        assert_eq!(kinds, ["command_not_found"]);
        assert_eq!(errors("Error: bad value")[0].0, "invalid_input");
        assert!(errors("42").is_empty());
    }
}
