//! Fuzzing a program's input: ClaudeControl's fixed inputs, then inputs
//! generated from a seed — the same seed, the same inputs, as many as asked
//! (its generator is unseeded and it stops at 31 whatever is asked) — and
//! what one input's answer is worth reporting.

use serde::{Deserialize, Serialize};

use crate::program::ExitStatus;

/// Inputs when none is asked for.
pub const DEFAULT_MAX_INPUTS: usize = 50;
/// Output longer than this (past the input's own length, which a program
/// may print back) is a `large_output` finding (its 1,000).
pub const LARGE_OUTPUT: usize = 1_000;

/// ClaudeControl's fixed inputs, in its order (`\x00` is the four
/// characters it sends, not a NUL).
pub fn fixed_inputs() -> Vec<String> {
    vec![
        String::new(),
        " ".repeat(100),
        "A".repeat(1000),
        "\\x00".to_owned(),
        "../../../etc/passwd".to_owned(),
        "; ls".to_owned(),
        "' OR '1'='1".to_owned(),
        "<script>alert(1)</script>".to_owned(),
        "%s".repeat(10),
        "-".repeat(50),
        "\n".repeat(10),
    ]
}

/// Families a generated input is drawn from, so a seed reaches more than
/// random letters.
const TOKENS: &[&str] = &[
    "-1",
    "0",
    "99999999999999999999",
    "NaN",
    "null",
    "%n",
    "$(id)",
    "`id`",
    "{{7*7}}",
    "\\",
    "\"",
    "'",
    "..",
    "*",
    "?",
    "&&",
    "|",
    ">",
    "\t",
    "é",
    "😀",
];

/// The first `max` fuzz inputs for `seed`: the fixed ones, then generated
/// ones (printable ASCII, tokens that break parsers, long runs), the same
/// for the same seed on every machine.
pub fn inputs(seed: u64, max: usize) -> Vec<String> {
    let mut all = fixed_inputs();
    all.truncate(max);
    let mut rng = fastrand::Rng::with_seed(seed);
    while all.len() < max {
        let input = match rng.u8(0..10) {
            0..=4 => {
                let len = rng.usize(1..=50);
                (0..len).map(|_| char::from(rng.u8(0x20..0x7f))).collect()
            }
            5..=7 => {
                let count = rng.usize(1..=4);
                let mut text = String::new();
                for _ in 0..count {
                    if !text.is_empty() && rng.bool() {
                        text.push(' ');
                    }
                    text.push_str(TOKENS[rng.usize(0..TOKENS.len())]);
                }
                text
            }
            8 => {
                let c = char::from(rng.u8(0x21..0x7f));
                std::iter::repeat_n(c, rng.usize(200..=5_000)).collect()
            }
            _ => {
                let word = ["help", "status", "get", "set", "list", "show"][rng.usize(0..6)];
                let len = rng.usize(1..=20);
                let arg: String = (0..len).map(|_| char::from(rng.u8(0x20..0x7f))).collect();
                format!("{word} {arg}")
            }
        };
        all.push(input);
    }
    all
}

/// What kind of finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// The program ended abnormally: a signal, or a non-zero exit status.
    Crash,
    /// It answered with an error.
    Error,
    /// It did not answer in time, nor end.
    NoResponse,
    /// It answered with more than [`LARGE_OUTPUT`] characters (besides the
    /// input's own).
    LargeOutput,
}

impl FindingKind {
    /// Its name in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Crash => "crash",
            Self::Error => "error",
            Self::NoResponse => "no_response",
            Self::LargeOutput => "large_output",
        }
    }
}

/// One finding, with the exact input that caused it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// The input (sent as a line).
    pub input: String,
    /// What happened.
    #[serde(rename = "type")]
    pub kind: FindingKind,
    /// The output it caused, cut to 500 characters.
    #[serde(default)]
    pub output: String,
    /// How long the output was.
    #[serde(default)]
    pub output_size: usize,
    /// The exit status of a crash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<ExitStatus>,
    /// Error kinds the output matched.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// Which input it was (0-based, in the seed's order).
    pub index: usize,
    /// The tape that replays a crash (relative to the workspace, or
    /// absolute).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tape: Option<String>,
}

/// How one input was answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// The program answered (at a prompt or after going quiet).
    Output(String),
    /// The program ended after printing this.
    Ended(String, ExitStatus),
    /// Nothing came in time and it is still running.
    Silent,
}

/// Whether an exit status is abnormal: a signal, or a code other than 0.
pub fn abnormal(exit: &ExitStatus) -> bool {
    exit.signal.is_some() || exit.code.is_some_and(|code| code != 0)
}

/// What input `index` (`input`) answered with `answer` is worth reporting;
/// `errors` are the error kinds its output shows (the caller reads them).
/// A program that ends normally (status 0) after an input is not a crash.
pub fn finding(index: usize, input: &str, answer: &Answer, errors: Vec<String>) -> Option<Finding> {
    let (kind, output, exit) = match answer {
        Answer::Ended(output, exit) if abnormal(exit) => (FindingKind::Crash, output, Some(*exit)),
        Answer::Ended(..) => return None,
        Answer::Silent => (FindingKind::NoResponse, &String::new(), None),
        Answer::Output(output) if output.chars().count() > LARGE_OUTPUT + input.chars().count() => {
            (FindingKind::LargeOutput, output, None)
        }
        Answer::Output(output) if !errors.is_empty() => (FindingKind::Error, output, None),
        Answer::Output(_) => return None,
    };
    Some(Finding {
        input: input.to_owned(),
        kind,
        output: super::sample(output),
        output_size: output.len(),
        exit,
        errors,
        index,
        tape: None,
    })
}

/// A fuzz run's result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FuzzReport {
    /// The command line fuzzed.
    pub program: String,
    /// The seed the inputs came from.
    pub seed: u64,
    /// Inputs sent.
    pub inputs: usize,
    /// What was found, in input order.
    pub findings: Vec<Finding>,
    /// Times the program was started again after it ended.
    pub restarts: usize,
    /// Wall time, milliseconds.
    pub duration_ms: u64,
    /// The workspace it was run for (absolute), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The run its sessions belong to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
}

impl FuzzReport {
    /// Findings of `kind`.
    pub fn count(&self, kind: FindingKind) -> usize {
        self.findings
            .iter()
            .filter(|finding| finding.kind == kind)
            .count()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn a_seed_gives_the_same_inputs_and_as_many_as_asked() {
        let a = inputs(7, 200);
        assert_eq!(a.len(), 200);
        assert_eq!(a, inputs(7, 200));
        assert_ne!(a[11..], inputs(8, 200)[11..]);
        assert_eq!(inputs(7, 3), a[..3]);
        assert_eq!(a[..11], fixed_inputs()[..]);
        assert!(inputs(1, 0).is_empty());
    }

    #[test]
    fn a_crash_is_an_abnormal_end() {
        let clean = ExitStatus {
            code: Some(0),
            signal: None,
        };
        let segv = ExitStatus {
            code: None,
            signal: Some(11),
        };
        assert_eq!(
            finding(0, "", &Answer::Ended(String::new(), clean), vec![]),
            None
        );
        let crash = finding(3, "boom", &Answer::Ended("x".into(), segv), vec![]).unwrap();
        assert_eq!(
            (crash.kind, crash.exit, crash.index),
            (FindingKind::Crash, Some(segv), 3)
        );
        assert_eq!(
            finding(0, "a", &Answer::Silent, vec![]).unwrap().kind,
            FindingKind::NoResponse
        );
        assert_eq!(finding(0, "a", &Answer::Output("ok".into()), vec![]), None);
        assert_eq!(
            finding(
                0,
                "a",
                &Answer::Output("bad".into()),
                vec!["invalid_input".into()]
            )
            .unwrap()
            .kind,
            FindingKind::Error
        );
        let big = finding(0, "a", &Answer::Output("x".repeat(2000)), vec![]).unwrap();
        assert_eq!(
            (big.kind, big.output_size, big.output.len()),
            (FindingKind::LargeOutput, 2000, 500)
        );
        let json = serde_json::to_value(&crash).unwrap();
        assert_eq!(json["type"], "crash");
        assert_eq!(json["input"], "boom");
    }
}
