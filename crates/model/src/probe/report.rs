//! An investigation report as ClaudeControl writes one
//! (`investigations/{program}_{stamp}.json`): the keys and order of its
//! `InvestigationReport.to_dict`, so its own `load_investigation` reads
//! ours, and ours reads its. Switchboard's additions come after its keys
//! (each state's parent and way back, each command's state and why it was
//! skipped, the run's own facts under `switchboard`), where its reader
//! passes them over.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// At most this many output samples per state (its `to_dict` cut).
pub const MAX_SAMPLES: usize = 5;
/// At most this many interactions kept (its `to_dict` keeps the last 100).
pub const MAX_INTERACTIONS: usize = 100;
/// The entry state's name.
pub const ENTRY_STATE: &str = "initial";

/// A state of the program: what it shows as its prompt there, the commands
/// found there and where they lead.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProgramState {
    /// `initial`, then `state_1`, `state_2`, … in discovery order.
    pub name: String,
    /// Its prompt (trailing spaces trimmed), or `unknown`.
    pub prompt: String,
    /// Commands found in this state, in discovery order.
    #[serde(default)]
    pub commands: Vec<String>,
    /// Command → the state it opens.
    #[serde(default)]
    pub transitions: IndexMap<String, String>,
    /// A few outputs seen here.
    #[serde(default)]
    pub output_samples: Vec<String>,
    /// Error patterns its output matched.
    #[serde(default)]
    pub error_patterns: Vec<String>,
    /// The state this one was opened from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// The command that returns to the parent, when one did; `None` with a
    /// parent: only restarting the program got back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub way_back: Option<String>,
}

impl ProgramState {
    /// A state first seen at `prompt`.
    pub fn new(name: impl Into<String>, prompt: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            prompt: prompt.into(),
            ..Self::default()
        }
    }

    /// Notes `command` as found here (once).
    pub fn add_command(&mut self, command: &str) {
        if !self.commands.iter().any(|known| known == command) {
            self.commands.push(command.to_owned());
        }
    }

    /// Keeps `output` as a sample while there are fewer than
    /// [`MAX_SAMPLES`].
    pub fn add_sample(&mut self, output: &str) {
        if self.output_samples.len() < MAX_SAMPLES && !output.trim().is_empty() {
            self.output_samples.push(super::sample(output));
        }
    }
}

/// What was learnt of one command.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CommandInfo {
    /// `help` for a help request that produced help.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Its description in the help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Where it was found (`help`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discovered_from: Option<String>,
    /// What it printed, cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_sample: Option<String>,
    /// Whether it was sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tested: Option<bool>,
    /// How much it printed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_length: Option<usize>,
    /// The state whose help listed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// Why it was not sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Anything else (another writer's keys).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One step of the conversation with the program.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interaction {
    /// A naive ISO time (`2026-11-25T18:41:02.123456`).
    pub timestamp: String,
    /// `START`, `SEND` or `RECV`.
    pub action: String,
    /// What was sent.
    #[serde(default)]
    pub input: String,
    /// What came back, cut to 500 characters.
    #[serde(default)]
    pub output: String,
}

/// Switchboard's own facts about a run, after ClaudeControl's keys.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunFacts {
    /// The program and its arguments as run.
    pub argv: Vec<String>,
    /// The destructive-command filter was lifted.
    #[serde(default)]
    pub unsafe_mode: bool,
    /// Inputs sent in all.
    #[serde(default)]
    pub exchanges: usize,
    /// Times the program was started (restarts to get back to a state
    /// included).
    #[serde(default)]
    pub starts: usize,
    /// Wall time, milliseconds.
    #[serde(default)]
    pub duration_ms: u64,
    /// What `--help`/`-h` as arguments printed, when it was help.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argument_help: Option<String>,
    /// Whether the program waits for input at a prompt (measured: it stayed
    /// up and answered a line).
    #[serde(default)]
    pub interactive: bool,
    /// The workspace it was run for (absolute), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The run its sessions belong to (their `run`), so the window links
    /// them to this report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
}

/// An investigation report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InvestigationReport {
    /// The command line investigated.
    pub program: String,
    /// When it began (naive ISO).
    pub started_at: String,
    /// When it ended.
    pub completed_at: Option<String>,
    /// The state the program starts in.
    pub entry_state: Option<ProgramState>,
    /// Every state found, by name, in discovery order.
    #[serde(default)]
    pub states: IndexMap<String, ProgramState>,
    /// Every command found, by name.
    #[serde(default)]
    pub commands: IndexMap<String, CommandInfo>,
    /// Distinct prompts, in discovery order.
    #[serde(default)]
    pub prompts: Vec<String>,
    /// `command: error kind` for each error an output showed.
    #[serde(default)]
    pub error_messages: Vec<String>,
    /// Help requests that produced help.
    #[serde(default)]
    pub help_commands: Vec<String>,
    /// Inputs that really ended the program.
    #[serde(default)]
    pub exit_commands: Vec<String>,
    /// Formats outputs were in (`JSON`, `XML`, `Table`, `CSV`, `Key-Value`).
    #[serde(default)]
    pub data_formats: Vec<String>,
    /// The last [`MAX_INTERACTIONS`] interactions.
    #[serde(default)]
    pub interaction_log: Vec<Interaction>,
    /// What was not done and why (commands skipped, branches ended).
    #[serde(default)]
    pub safety_notes: Vec<String>,
    /// Switchboard's facts (absent in ClaudeControl's reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switchboard: Option<RunFacts>,
}

impl InvestigationReport {
    /// Adds `text` to `list` unless it is there.
    pub fn note(list: &mut Vec<String>, text: impl Into<String>) {
        let text = text.into();
        if !list.contains(&text) {
            list.push(text);
        }
    }

    /// Logs an interaction, keeping the last [`MAX_INTERACTIONS`].
    pub fn log(&mut self, timestamp: String, action: &str, input: &str, output: &str) {
        self.interaction_log.push(Interaction {
            timestamp,
            action: action.to_owned(),
            input: input.to_owned(),
            output: super::sample(output),
        });
        if self.interaction_log.len() > MAX_INTERACTIONS {
            let extra = self.interaction_log.len() - MAX_INTERACTIONS;
            self.interaction_log.drain(..extra);
        }
    }

    /// The state whose prompt is `prompt`, if one was found.
    pub fn state_at(&self, prompt: &str) -> Option<&ProgramState> {
        self.states.values().find(|state| state.prompt == prompt)
    }

    /// A name for the next new state.
    pub fn next_state_name(&self) -> String {
        format!("state_{}", self.states.len())
    }

    /// A summary a person reads at a terminal.
    pub fn summary(&self) -> String {
        let mut lines = vec![format!("Investigation of {}", self.program)];
        if let Some(facts) = &self.switchboard {
            lines.push(format!(
                "{} inputs over {} start(s) in {:.1} s; {}",
                facts.exchanges,
                facts.starts,
                facts.duration_ms as f64 / 1000.0,
                if facts.interactive {
                    "interactive"
                } else {
                    "not interactive"
                }
            ));
        }
        lines.push(format!("States ({}):", self.states.len()));
        for state in self.states.values() {
            let back = match (&state.parent, &state.way_back) {
                (Some(parent), Some(way)) => format!(" (from {parent}; back with {way:?})"),
                (Some(parent), None) => format!(" (from {parent}; no way back)"),
                _ => String::new(),
            };
            lines.push(format!("  {} {:?}{back}", state.name, state.prompt));
            for (command, target) in &state.transitions {
                lines.push(format!("    {command} → {target}"));
            }
        }
        lines.push(format!("Commands ({}):", self.commands.len()));
        for (name, info) in &self.commands {
            let description = info.description.as_deref().unwrap_or("");
            let skipped = info
                .skipped
                .as_deref()
                .map(|why| format!(" [not sent: {why}]"))
                .unwrap_or_default();
            lines.push(format!("  {name}  {description}{skipped}"));
        }
        let list = |label: &str, items: &[String]| {
            format!(
                "{label}: {}",
                if items.is_empty() {
                    "none".to_owned()
                } else {
                    items.join(", ")
                }
            )
        };
        lines.push(list("Help", &self.help_commands));
        lines.push(list("Exit", &self.exit_commands));
        lines.push(list("Formats", &self.data_formats));
        lines.push(list("Errors", &self.error_messages));
        if !self.safety_notes.is_empty() {
            lines.push("Safety notes:".to_owned());
            lines.extend(self.safety_notes.iter().map(|note| format!("  - {note}")));
        }
        lines.join("\n")
    }
}

/// A quick look at a program (`probe`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Probe {
    /// The command line.
    pub program: String,
    /// It printed something or answered a line.
    pub responsive: bool,
    /// It stayed up after start-up and answered a line at its prompt
    /// (measured, not assumed).
    pub interactive: bool,
    /// Its prompt, when it showed one.
    pub prompt: Option<String>,
    /// Still running when the probe ended (before it was stopped).
    pub alive: bool,
    /// How it ended, when it did by itself (`exit 0`, `signal 11`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<String>,
    /// The help request that produced help, if any.
    pub help_command: Option<String>,
    /// Commands its help listed.
    pub commands: Vec<String>,
    /// What it printed at start-up, cut.
    pub startup_output: String,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn reports_keep_claude_controls_key_order_and_read_its_reports() {
        // A report as its `to_dict` writes one (keys of its own only).
        let theirs = r#"{"program": "python3", "started_at": "2025-09-01T10:00:00.123456",
            "completed_at": "2025-09-01T10:00:05", "entry_state": {"name": "initial",
            "prompt": ">>>", "commands": ["help"], "transitions": {}, "output_samples": [],
            "error_patterns": []}, "states": {"initial": {"name": "initial", "prompt": ">>>",
            "commands": [], "transitions": {"x": "state_1"}, "output_samples": [],
            "error_patterns": []}}, "commands": {"help": {"type": "help",
            "description": "Display help information", "output_sample": "Welcome"},
            "zz": {"description": "d", "discovered_from": "help"}},
            "prompts": [">>>"], "error_messages": [], "help_commands": ["help"],
            "exit_commands": [], "data_formats": ["JSON"], "interaction_log": [{"timestamp":
            "2025-09-01T10:00:00.2", "action": "START", "input": "", "output": "Python"}],
            "safety_notes": []}"#;
        let report: InvestigationReport = serde_json::from_str(theirs).unwrap();
        assert_eq!(report.commands.keys().collect::<Vec<_>>(), ["help", "zz"]);
        assert_eq!(report.states["initial"].transitions["x"], "state_1");
        let text = serde_json::to_string(&report).unwrap();
        let written: IndexMap<String, Value> = serde_json::from_str(&text).unwrap();
        assert_eq!(
            written.keys().collect::<Vec<_>>(),
            [
                "program",
                "started_at",
                "completed_at",
                "entry_state",
                "states",
                "commands",
                "prompts",
                "error_messages",
                "help_commands",
                "exit_commands",
                "data_formats",
                "interaction_log",
                "safety_notes",
            ]
        );
    }

    #[test]
    fn the_log_keeps_the_last_hundred() {
        let mut report = InvestigationReport::default();
        for n in 0..150 {
            report.log(String::new(), "SEND", &n.to_string(), &"x".repeat(900));
        }
        assert_eq!(report.interaction_log.len(), MAX_INTERACTIONS);
        assert_eq!(report.interaction_log[0].input, "50");
        assert_eq!(report.interaction_log[0].output.len(), 500);
    }
}
