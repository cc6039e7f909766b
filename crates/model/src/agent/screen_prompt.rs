//! What a started agent asks in its own terminal that no hook carries —
//! Claude Code's "is this a folder you trust?" on a folder it does not
//! know, its "use this API key?", Codex's "trust this folder?" — told
//! apart by the words on its screen, each with the keys that answer it.
//! Screens that ask nothing of consequence (a theme picker, security
//! notes) are passed with their default.

use serde::{Deserialize, Serialize};

use crate::{agent::AgentKind, program::Key};

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
    /// The label of "no" and the keys that answer it (`None`: the screen
    /// has only one way on, taken without asking).
    pub no: Option<(String, Vec<Key>)>,
}

/// One known screen: words that tell it, and its prompt.
struct Known {
    agent: AgentKind,
    kind: &'static str,
    /// Any of these on the screen tells it.
    tells: &'static [&'static str],
    question: &'static str,
    detail: &'static str,
    yes: (&'static str, &'static [Key]),
    no: Option<(&'static str, &'static [Key])>,
}

/// The screens Claude Code 2.1.332 and Codex 0.171 show that no hook
/// carries (their words as they draw them).
const KNOWN: &[Known] = &[
    Known {
        agent: AgentKind::ClaudeCode,
        kind: "claude-code-trust",
        tells: &["Quick safety check", "Yes, I trust this folder"],
        question: "Does Claude Code trust this folder?",
        detail: "Claude Code asks before it works in a folder it does not know: it will be able to read, edit and run files there. No ends it.",
        yes: ("Yes, I trust this folder", &[Key::Down, Key::Enter]),
        no: Some(("No, exit", &[Key::Esc])),
    },
    Known {
        agent: AgentKind::ClaudeCode,
        kind: "claude-code-api-key",
        tells: &["Do you want to use this API key?"],
        question: "May Claude Code use the API key in its environment?",
        detail: "Claude Code found ANTHROPIC_API_KEY in the environment it was started with and asks whether to use it. No leaves it signed out.",
        yes: ("Yes, use it", &[Key::Up, Key::Enter]),
        no: Some(("No", &[Key::Enter])),
    },
    Known {
        agent: AgentKind::ClaudeCode,
        kind: "claude-code-theme",
        tells: &["Choose the text style that looks best"],
        question: "Claude Code's first start: its text style",
        detail: "Its default is kept.",
        yes: ("Continue", &[Key::Enter]),
        no: None,
    },
    Known {
        agent: AgentKind::ClaudeCode,
        kind: "claude-code-security-notes",
        tells: &["Security notes:"],
        question: "Claude Code's first start: its security notes",
        detail: "Read past.",
        yes: ("Continue", &[Key::Enter]),
        no: None,
    },
    Known {
        agent: AgentKind::Codex,
        kind: "codex-trust",
        tells: &["Trust this folder?"],
        question: "Does Codex trust this folder?",
        detail: "Codex asks before it works in a folder it does not know: it will be able to read, edit and run files there (subject to its sandbox and approvals). No leaves it waiting in its own terminal.",
        yes: ("Trust and continue", &[Key::Enter]),
        no: Some(("No", &[Key::Esc])),
    },
];

/// The prompt `agent`'s `screen` (its text, row by row) shows, if it is a
/// known one.
pub fn recognise(agent: AgentKind, screen: &str) -> Option<ScreenPrompt> {
    let known = KNOWN.iter().find(|known| {
        known.agent == agent && known.tells.iter().any(|words| screen.contains(words))
    })?;
    Some(ScreenPrompt {
        kind: known.kind.to_owned(),
        question: known.question.to_owned(),
        detail: known.detail.to_owned(),
        yes: (known.yes.0.to_owned(), known.yes.1.to_vec()),
        no: known
            .no
            .map(|(label, keys)| (label.to_owned(), keys.to_vec())),
    })
}

impl ScreenPrompt {
    /// Whether it asks the developer (else its one way on is taken).
    pub fn asks(&self) -> bool {
        self.no.is_some()
    }

    /// Its question's form: a confirm with the screen's own words.
    pub fn form(&self) -> serde_json::Value {
        let no = self.no.as_ref().map_or("No", |(label, _)| label.as_str());
        serde_json::json!({
            "type": "confirm",
            "prompt": self.question,
            "confirm_label": self.yes.0,
            "cancel_label": no,
        })
    }

    /// The keys that type `yes` (or no).
    pub fn keys(&self, yes: bool) -> &[Key] {
        match (&self.no, yes) {
            (Some((_, keys)), false) => keys,
            _ => &self.yes.1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claude Code 2.1.332's trust screen, as a 40×120 terminal shows it.
    const CLAUDE_TRUST: &str = " Accessing workspace:\n /w/.claude/worktrees/fix\n Quick safety check: Is this a project you created or one you trust?\n Claude Code'll be able to read, edit, and execute files here.\n ❯ No, exit\n   Yes, I trust this folder\n Enter to confirm · Esc to cancel";

    #[test]
    fn a_trust_screen_is_a_question_whose_yes_moves_off_the_default_exit() {
        let prompt = recognise(AgentKind::ClaudeCode, CLAUDE_TRUST).unwrap();
        assert_eq!(prompt.kind, "claude-code-trust");
        assert!(prompt.asks());
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
    fn screens_that_ask_nothing_of_consequence_are_passed_and_others_ignored() {
        let theme = recognise(
            AgentKind::ClaudeCode,
            " Choose the text style that looks best with your terminal",
        )
        .unwrap();
        assert!(!theme.asks());
        assert_eq!(theme.keys(false), [Key::Enter]);
        assert!(
            recognise(
                AgentKind::ClaudeCode,
                "❯ \n⏸ manual mode on · ? for shortcuts"
            )
            .is_none()
        );
        let codex = recognise(
            AgentKind::Codex,
            "Folder access\nTrust this folder? Codex can read",
        )
        .unwrap();
        assert_eq!(codex.keys(true), [Key::Enter]);
    }
}
