//! What a started agent asks in its own terminal before its session
//! starts, that no hook carries — Claude Code's "is this a folder you
//! trust?" on a folder it does not know, its "use this API key?", Codex's
//! "trust this folder?" — told apart by the whole dialog at the bottom of
//! its screen (its words and its footer, nothing else below), each with
//! the keys that answer it. Words anywhere else on the screen are what
//! tools print, and count for nothing; a screen that shows a permission
//! menu is never one of these.

use serde::{Deserialize, Serialize};

use crate::{agent::AgentKind, program::Key};

/// The field an inbox question about a start-up screen carries: the
/// launch and the screen's kind.
pub const SCREEN_FIELD: &str = "agent_screen";

/// A question an agent's screen shows, and how each answer is typed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScreenPrompt {
    /// Which prompt (`claude-code-trust`, …): the same prompt still on the
    /// screen is not asked twice.
    pub kind: String,
    /// The question, for the inbox.
    pub question: String,
    /// What answering it means, for the inbox.
    pub detail: String,
    /// The label of "yes" and the keys that answer it.
    pub yes: (String, Vec<Key>),
    /// The label of "no" and the keys that answer it.
    pub no: (String, Vec<Key>),
}

/// One known screen: words that tell it, and its prompt.
struct Known {
    agent: AgentKind,
    kind: &'static str,
    /// Each of these is in the dialog (its last [`DIALOG_LINES`] lines).
    tells: &'static [&'static str],
    /// The dialog's last line.
    footer: &'static str,
    question: &'static str,
    detail: &'static str,
    yes: (&'static str, &'static [Key]),
    no: (&'static str, &'static [Key]),
}

/// The screens Claude Code 2.1.332 and Codex 0.171 show that no hook
/// carries (their words as they draw them).
const KNOWN: &[Known] = &[
    Known {
        agent: AgentKind::ClaudeCode,
        kind: "claude-code-trust",
        tells: &[
            "Quick safety check",
            "❯ No, exit",
            "Yes, I trust this folder",
        ],
        footer: "Enter to confirm · Esc to cancel",
        question: "Does Claude Code trust this folder?",
        detail: "Claude Code asks before it works in a folder it does not know: it will be able to read, edit and run files there. No ends it.",
        yes: ("Yes, I trust this folder", &[Key::Down, Key::Enter]),
        no: ("No, exit", &[Key::Esc]),
    },
    Known {
        agent: AgentKind::ClaudeCode,
        kind: "claude-code-api-key",
        tells: &["Do you want to use this API key?", "No (recommended)"],
        footer: "Enter to confirm · Esc to cancel",
        question: "May Claude Code use the API key in its environment?",
        detail: "Claude Code found ANTHROPIC_API_KEY in the environment it was started with and asks whether to use it. No leaves it signed out.",
        yes: ("Yes, use it", &[Key::Up, Key::Enter]),
        no: ("No", &[Key::Enter]),
    },
    Known {
        agent: AgentKind::Codex,
        kind: "codex-trust",
        tells: &["Trust this folder?", "1. Trust and continue"],
        footer: "enter continue · esc back",
        question: "Does Codex trust this folder?",
        detail: "Codex asks before it works in a folder it does not know: it will be able to read, edit and run files there (subject to its sandbox and approvals). No leaves it waiting in its own terminal.",
        yes: ("Trust and continue", &[Key::Enter]),
        no: ("No", &[Key::Esc]),
    },
];

/// How many of the screen's last non-blank lines a dialog is read from.
const DIALOG_LINES: usize = 16;

/// Words that make a screen a permission menu, never a start-up dialog.
const PERMISSION_MENU: &[&str] = &[
    "Do you want to proceed?",
    "Would you like to run the following command?",
];

/// The prompt `agent`'s `screen` (its text, row by row) shows, if it is a
/// known one: its footer the screen's last non-blank line, each of its
/// words in the lines above, and no permission menu on the screen.
pub fn recognise(agent: AgentKind, screen: &str) -> Option<ScreenPrompt> {
    if PERMISSION_MENU.iter().any(|words| screen.contains(words)) {
        return None;
    }
    let lines: Vec<&str> = screen
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect();
    let last = *lines.last()?;
    let dialog = &lines[lines.len().saturating_sub(DIALOG_LINES)..];
    let known = KNOWN.iter().find(|known| {
        known.agent == agent
            && last == known.footer
            && known
                .tells
                .iter()
                .all(|words| dialog.iter().any(|line| line.contains(words)))
    })?;
    Some(ScreenPrompt {
        kind: known.kind.to_owned(),
        question: known.question.to_owned(),
        detail: known.detail.to_owned(),
        yes: (known.yes.0.to_owned(), known.yes.1.to_vec()),
        no: (known.no.0.to_owned(), known.no.1.to_vec()),
    })
}

/// How many of the screen's last non-blank lines the agent's own prompt
/// (its input box and the hints under it) is read from.
const READY_LINES: usize = 4;

/// The hint Claude Code 2.1.332 and Codex 0.171 draw under their own
/// prompt while it waits for the developer's words.
const READY_HINT: &str = "? for shortcuts";

/// Whether `agent`'s `screen` shows its own prompt waiting for words: its
/// hint in the last lines (or Claude Code's input box the screen's last
/// lines, as it is drawn once a turn is over), and no start-up dialog or
/// permission menu. A dialog takes the input box's place.
pub fn ready_for_prompt(agent: AgentKind, screen: &str) -> bool {
    if agent == AgentKind::Mcp
        || recognise(agent, screen).is_some()
        || PERMISSION_MENU.iter().any(|words| screen.contains(words))
    {
        return false;
    }
    let lines: Vec<&str> = screen
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect();
    lines[lines.len().saturating_sub(READY_LINES)..]
        .iter()
        .any(|line| line.contains(READY_HINT))
        || (agent == AgentKind::ClaudeCode && input_box_last(&lines))
}

/// Whether `lines` (trimmed, none blank) end with Claude Code's input box:
/// a rule, its `❯` line, a rule.
fn input_box_last(lines: &[&str]) -> bool {
    let rule = |line: &str| line.chars().all(|c| c == '\u{2500}');
    matches!(lines, [.., top, input, bottom]
        if rule(top) && input.starts_with('\u{276f}') && rule(bottom))
}

/// `screen` as a question quotes it: a line that shows a key — Claude
/// Code's "use this API key?" shows the end of one — is left out, so no
/// part of a secret reaches the inbox.
pub fn quoted(screen: &str) -> String {
    screen
        .lines()
        .map(|line| {
            let shows_key = line.contains("API_KEY")
                || line
                    .split_whitespace()
                    .any(|word| word.starts_with("sk-") || word.contains("...sk"));
            if shows_key {
                "  (a key: not shown here)"
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

impl ScreenPrompt {
    /// Its question's form: a confirm with the screen's own words.
    pub fn form(&self) -> serde_json::Value {
        serde_json::json!({
            "type": "confirm",
            "prompt": self.question,
            "confirm_label": self.yes.0,
            "cancel_label": self.no.0,
        })
    }

    /// The keys that type `yes` (or no).
    pub fn keys(&self, yes: bool) -> &[Key] {
        if yes { &self.yes.1 } else { &self.no.1 }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    /// Claude Code 2.1.332's trust screen, as a 40×120 terminal shows it.
    const CLAUDE_TRUST: &str = " Accessing workspace:\n /w/.claude/worktrees/fix\n Quick safety check: Is this a project you created or one you trust?\n Claude Code'll be able to read, edit, and execute files here.\n ❯ No, exit\n   Yes, I trust this folder\n Enter to confirm · Esc to cancel";

    #[test]
    fn a_trust_screen_is_a_question_whose_yes_moves_off_the_default_exit() {
        let prompt = recognise(AgentKind::ClaudeCode, CLAUDE_TRUST).unwrap();
        assert_eq!(prompt.kind, "claude-code-trust");
        // Its default (Enter) exits: yes goes down first.
        assert_eq!(prompt.keys(true), [Key::Down, Key::Enter]);
        assert_eq!(prompt.keys(false), [Key::Esc]);
        assert_eq!(prompt.form()["confirm_label"], "Yes, I trust this folder");
        assert!(
            recognise(AgentKind::Codex, CLAUDE_TRUST).is_none(),
            "Claude Code's words"
        );
    }

    #[test]
    fn a_quoted_screen_shows_no_part_of_a_key() {
        let screen = " Detected a custom API key in your environment\n ANTHROPIC_API_KEY: sk-ant-...Zx9q-secret-tail\n Do you want to use this API key?";
        let quoted = quoted(screen);
        assert!(
            !quoted.contains("secret-tail") && !quoted.contains("sk-"),
            "{quoted}"
        );
        assert!(quoted.contains("Do you want to use this API key?"));
    }

    #[test]
    fn words_a_tool_prints_or_a_permission_menu_are_never_a_dialog() {
        // A command's description quoting the dialog, inside Claude Code's
        // own permission menu.
        let menu = " Bash command\n Quick safety check ❯ No, exit Yes, I trust this folder\n touch x\n Do you want to proceed?\n ❯ 1. Yes\n   4. No\n Enter to confirm · Esc to cancel";
        assert!(recognise(AgentKind::ClaudeCode, menu).is_none());
        // The dialog's words with something drawn below them.
        let quoted = format!("{CLAUDE_TRUST}\n$ echo done");
        assert!(recognise(AgentKind::ClaudeCode, &quoted).is_none());
        // Its footer alone.
        assert!(recognise(AgentKind::ClaudeCode, " Enter to confirm · Esc to cancel").is_none());
        assert!(
            recognise(
                AgentKind::ClaudeCode,
                "❯ \n⏸ manual mode on · ? for shortcuts"
            )
            .is_none()
        );
        let codex = "Folder access\n/w\nTrust this folder? Codex can read\n› 1. Trust and continue\n  2. Back\n\n  enter continue · esc back";
        assert_eq!(
            recognise(AgentKind::Codex, codex).unwrap().keys(true),
            [Key::Enter]
        );
    }

    #[test]
    fn the_agents_own_prompt_is_ready_when_its_hint_is_under_it_and_nothing_asks() {
        let codex = "  >_ OpenAI Codex (v0.171.0)\n     /tmp/project\n\n\n\u{203a} Ask Codex to do anything\n\n  gpt-5 default \u{b7} /tmp/project\n  \u{2190} for agents \u{b7} ? for shortcuts\n";
        assert!(ready_for_prompt(AgentKind::Codex, codex));
        let drawing = "  >_ OpenAI Codex (v0.171.0)\n     /tmp/project\n";
        assert!(
            !ready_for_prompt(AgentKind::Codex, drawing),
            "still drawing"
        );
        let tool_printed = format!("? for shortcuts\n{}", "output line\n".repeat(10));
        assert!(
            !ready_for_prompt(AgentKind::Codex, &tool_printed),
            "words high on the screen are what a tool printed"
        );
        let asking = format!("{codex}\nWould you like to run the following command?\n");
        assert!(!ready_for_prompt(AgentKind::Codex, &asking));
    }

    #[test]
    fn claude_codes_input_box_at_the_bottom_is_its_prompt_and_a_menu_in_its_place_is_not() {
        let rule = "\u{2500}".repeat(40);
        let turn_over = format!(
            " \u{2590}\u{259b}\u{2588}\u{2588}\u{2588}\u{259c}\u{258c}   Claude Code v2.1.332\n\n\u{276f} Say hi.\n\n\u{25cf} Hi.\n\n\u{273b} Brewed for 0s\n\n\n      \u{25d0} medium \u{b7} /effort\n{rule}\n\u{276f}\n{rule}\n"
        );
        assert!(ready_for_prompt(AgentKind::ClaudeCode, &turn_over));
        assert!(
            !ready_for_prompt(AgentKind::Codex, &turn_over),
            "Claude Code's box alone"
        );
        let menu = format!(
            "\u{276f} Go\n\n{rule}\n Bash command\n\n   touch ran\n\n Do you want to proceed?\n \u{276f} 1. Yes\n   2. Yes, and don't ask again\n   3. No\n\n Esc to cancel\n"
        );
        assert!(!ready_for_prompt(AgentKind::ClaudeCode, &menu));
        let trust = format!(
            "{rule}\n Quick safety check\n\n \u{276f} 1. Yes, I trust this folder\n   2. No, exit\n\n Enter to confirm \u{b7} Esc to cancel\n"
        );
        assert!(!ready_for_prompt(AgentKind::ClaudeCode, &trust));
        // A tool's output drawn like a box, with a menu above it: asked.
        let bait = format!("Do you want to proceed?\n{rule}\n\u{276f}\n{rule}\n");
        assert!(!ready_for_prompt(AgentKind::ClaudeCode, &bait));
    }
}
