//! ClaudeControl's seven black-box checks (startup, help, invalid input,
//! exit, resources, concurrent sessions, fuzz), by its names and keys, with
//! verdicts a person can trust: a crash is an abnormal end (a signal or a
//! non-zero status), never "it exited after an empty line"; help is only
//! what the question produced, never the banner.

use std::time::Instant;

use serde_json::json;
use switchboard_model::{
    ErrorPayload,
    probe::{
        fuzz::abnormal,
        reading::{self, HELP_ARGUMENTS},
        testing::{TestReport, TestResult, fuzzing_result},
    },
    program::Key,
};

use super::{Conversation, ProbeError, Reply, Target, Timing, fuzz};
use switchboard_session::{
    Client,
    protocol::{Input, WaitFor},
};

/// How the checks go.
#[derive(Debug, Clone)]
pub struct Options {
    /// Timing of each answer.
    pub timing: Timing,
    /// The fuzz check's seed.
    pub seed: u64,
    /// The fuzz check's inputs.
    pub max_inputs: usize,
    /// Crash tapes go into this workspace.
    pub tapes_in: Option<std::path::PathBuf>,
    /// Fuzz a shell anyway.
    pub allow_shell: bool,
}

/// Runs the seven checks on `target`; the report (not saved).
pub async fn test(
    client: &Client,
    target: &Target,
    options: &Options,
    progress: &mut (dyn FnMut(&str) + Send),
) -> Result<TestReport, ProbeError> {
    let timing = options.timing;
    type Check<'c> = std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<TestResult, ProbeError>> + Send + 'c>,
    >;
    // Each runs when its turn comes (a future does nothing until awaited).
    let checks: [(&str, Check<'_>); 6] = [
        ("startup", Box::pin(startup(client, target, timing))),
        ("help_system", Box::pin(help(client, target, timing))),
        (
            "invalid_input",
            Box::pin(invalid_input(client, target, timing)),
        ),
        ("exit_behavior", Box::pin(exits(client, target, timing))),
        (
            "resource_usage",
            Box::pin(resources(client, target, timing)),
        ),
        (
            "concurrent_sessions",
            Box::pin(concurrent(client, target, timing)),
        ),
    ];
    let mut results = Vec::new();
    for (name, check) in checks {
        progress(name);
        results.push(or_error(name, check.await));
    }
    progress("fuzzing");
    let fuzzed = fuzz::fuzz(
        client,
        target,
        &fuzz::Options {
            seed: options.seed,
            max_inputs: options.max_inputs,
            timing: options.timing,
            allow_shell: options.allow_shell,
            tapes_in: options.tapes_in.clone(),
        },
        progress,
    )
    .await;
    let mut findings = Vec::new();
    results.push(match fuzzed {
        Ok(report) => {
            let result = fuzzing_result(&report);
            findings = report.findings;
            result
        }
        Err(error) => failed("fuzzing", &error),
    });
    let mut report = TestReport::new(
        target.command_line(),
        switchboard_store::clock::now().unix_millis() as f64 / 1000.0,
        results,
    );
    report.findings = findings;
    report.seed = Some(options.seed);
    report.workspace = target.workspace.clone();
    report.run = target.run();
    Ok(report)
}

fn failed(test: &str, error: &ErrorPayload) -> TestResult {
    TestResult {
        error: Some(error.message.clone()),
        ..TestResult::new(test, false, format!("could not run: {}", error.message))
    }
}

fn or_error(test: &str, result: Result<TestResult, ProbeError>) -> TestResult {
    result.unwrap_or_else(|error| failed(test, &error))
}

async fn startup(
    client: &Client,
    target: &Target,
    timing: Timing,
) -> Result<TestResult, ProbeError> {
    let mut talk = Conversation::new(client, "test", target, timing);
    let banner = talk.start().await?;
    talk.stop().await;
    let output = banner.output();
    let errors = reading::errors(output);
    let (started, verdict) = match &banner {
        Reply::Ended { exit, .. } if abnormal(exit) => {
            (false, format!("it ended at start-up ({exit})"))
        }
        Reply::Ended { exit, .. } => (
            false,
            format!("it ended at start-up ({exit}): not an interactive program"),
        ),
        Reply::Hung { .. } => (true, "it started but its output never settled".to_owned()),
        Reply::Prompt { prompt, .. } => (true, format!("it started and shows {prompt:?}")),
        Reply::Secret { prompt, .. } => (
            true,
            format!("it started and asks for a secret ({prompt:?})"),
        ),
        Reply::Quiet { .. } => (true, "it started and waits without a prompt".to_owned()),
    };
    let passed = started && errors.is_empty();
    let verdict = if started && !errors.is_empty() {
        format!(
            "{verdict}, but its start-up output shows an error ({})",
            errors[0].0
        )
    } else {
        verdict
    };
    Ok(TestResult::new("startup", passed, verdict)
        .detail("started", started)
        .detail("has_output", !output.trim().is_empty())
        .detail("output_length", output.len())
        .detail("has_prompt", banner.prompt().is_some())
        .detail("prompt", banner.prompt())
        .detail("has_errors", !errors.is_empty()))
}

async fn help(client: &Client, target: &Target, timing: Timing) -> Result<TestResult, ProbeError> {
    let mut talk = Conversation::new(client, "test", target, timing);
    let mut working: Vec<String> = Vec::new();
    let mut details = serde_json::Map::new();
    for argument in HELP_ARGUMENTS {
        let reply = talk.start_with(&[argument]).await?;
        talk.stop().await;
        let said = if reading::is_help_for(reply.output(), argument) {
            working.push((*argument).to_owned());
            "Found help content (as an argument)"
        } else {
            "No help (as an argument)"
        };
        details.insert((*argument).to_owned(), json!(said));
    }
    for request in ["help", "?", "\\h", "man"] {
        if talk.session().is_none() {
            let banner = talk.start().await?;
            if matches!(banner, Reply::Ended { .. }) {
                details.insert(request.to_owned(), json!("The program ended at start-up"));
                continue;
            }
        }
        let reply = talk.ask_line(request).await?;
        let said = match &reply {
            Reply::Ended { exit, .. } => format!("It ended the program ({exit})"),
            Reply::Hung { .. } => "No answer".to_owned(),
            other if reading::is_help_for(other.output(), request) => {
                working.push(request.to_owned());
                "Found help content".to_owned()
            }
            other if other.output().trim().is_empty() => "No/minimal output".to_owned(),
            _ => "No help indicators".to_owned(),
        };
        details.insert(request.to_owned(), json!(said));
        if matches!(reply, Reply::Hung { .. } | Reply::Secret { .. }) {
            talk.stop().await;
        }
    }
    talk.stop().await;
    let passed = !working.is_empty();
    let mut result = TestResult::new(
        "help_system",
        passed,
        if passed {
            format!("help answers {}", working.join(", "))
        } else {
            "no request produced help".to_owned()
        },
    )
    .with("working_commands", working);
    result.details = details.into_iter().collect();
    Ok(result)
}

async fn invalid_input(
    client: &Client,
    target: &Target,
    timing: Timing,
) -> Result<TestResult, ProbeError> {
    let inputs: [(String, Input); 5] = [
        (
            "'this_command_does_not_exist'".into(),
            Input::Line("this_command_does_not_exist".into()),
        ),
        ("'!!!###$$$'".into(), Input::Line("!!!###$$$".into())),
        ("'aaaa…' (1000)".into(), Input::Line("a".repeat(1000))),
        ("''".into(), Input::Line(String::new())),
        (
            "'\\x00\\x01\\x02'".into(),
            Input::Text("\u{1}\u{2}\r".into()),
        ),
    ];
    let mut talk = Conversation::new(client, "test", target, timing);
    let mut crashes = Vec::new();
    let mut good_errors = Vec::new();
    let mut details = serde_json::Map::new();
    for (label, input) in inputs {
        if talk.session().is_none() && matches!(talk.start().await?, Reply::Ended { .. }) {
            details.insert(label, json!("The program ended at start-up"));
            continue;
        }
        let reply = talk.ask(input).await?;
        let said = match &reply {
            Reply::Ended { exit, .. } if abnormal(exit) => {
                crashes.push(label.clone());
                format!("CRASHED ({exit})")
            }
            Reply::Ended { exit, .. } => format!("Exited normally ({exit}): not a crash"),
            Reply::Hung { .. } => {
                talk.stop().await;
                "No answer".to_owned()
            }
            other if !reading::errors(other.output()).is_empty() => {
                good_errors.push(label.clone());
                "Proper error handling".to_owned()
            }
            _ => "Accepted/ignored".to_owned(),
        };
        details.insert(label, json!(said));
    }
    talk.stop().await;
    let passed = crashes.is_empty();
    let mut result = TestResult::new(
        "invalid_input",
        passed,
        if passed {
            format!(
                "no crash; {} of 5 inputs answered with an error",
                good_errors.len()
            )
        } else {
            format!("crashed on {}", crashes.join(", "))
        },
    )
    .with("crashes", crashes)
    .with("good_errors", good_errors);
    result.details = details.into_iter().collect();
    Ok(result)
}

async fn exits(client: &Client, target: &Target, timing: Timing) -> Result<TestResult, ProbeError> {
    let mut talk = Conversation::new(client, "test", target, timing);
    let mut working = Vec::new();
    let mut details = serde_json::Map::new();
    let candidates: Vec<(String, Input)> = ["exit", "quit", "q", "bye", "\\q", ".exit", ":q"]
        .iter()
        .map(|each| ((*each).to_owned(), Input::Line((*each).to_owned())))
        .chain([("ctrl-d".to_owned(), Input::Key(Key::Ctrl(4)))])
        .collect();
    for (label, input) in candidates {
        if matches!(talk.start().await?, Reply::Ended { .. }) {
            details.insert(label, json!("The program ended at start-up"));
            continue;
        }
        let reply = talk.ask(input).await?;
        let ended = match reply {
            Reply::Ended { exit, .. } => Some(exit),
            _ => talk.ended(timing.quiet_ms).await?,
        };
        let said = match ended {
            Some(exit) if abnormal(&exit) => format!("Ended abnormally ({exit})"),
            Some(exit) => {
                working.push(label.clone());
                format!("Clean exit ({exit})")
            }
            None => "Still running".to_owned(),
        };
        details.insert(label, json!(said));
        talk.stop().await;
    }
    let passed = !working.is_empty();
    let mut result = TestResult::new(
        "exit_behavior",
        passed,
        if passed {
            format!("it ends cleanly on {}", working.join(", "))
        } else {
            "no usual exit ends it".to_owned()
        },
    )
    .with("working_exits", working);
    result.details = details.into_iter().collect();
    Ok(result)
}

/// CPU time (ticks) and resident memory (KiB) of process `pid`.
#[allow(
    clippy::disallowed_methods,
    reason = "the kernel's own files, not the workspace's"
)]
fn usage(pid: u32) -> Option<(u64, u64, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces) in parentheses.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|value| value.split_whitespace().next())
            .and_then(|value| value.parse::<u64>().ok())
    };
    Some((ticks, field("VmRSS:")?, field("Threads:").unwrap_or(0)))
}

/// Clock ticks per second (`sysconf(_SC_CLK_TCK)`; 100 on Linux).
const TICKS_PER_SEC: f64 = 100.0;

async fn resources(
    client: &Client,
    target: &Target,
    timing: Timing,
) -> Result<TestResult, ProbeError> {
    let mut talk = Conversation::new(client, "test", target, timing);
    if let Reply::Ended { exit, .. } = talk.start().await? {
        return Ok(TestResult::new(
            "resource_usage",
            false,
            format!("it ended at start-up ({exit}); nothing to measure"),
        ));
    }
    let Some((pid, id)) = talk
        .session()
        .and_then(|info| Some((info.pid?, info.id.clone())))
    else {
        talk.stop().await;
        return Ok(TestResult::new(
            "resource_usage",
            false,
            "its process id is unknown",
        ));
    };
    // Idle: the program's CPU over a measured quiet second.
    let before = usage(pid);
    let idle_began = Instant::now();
    let _ = client.wait(&id, WaitFor::Quiet(1_000), 3_000, |_| {}).await;
    let idle_secs = idle_began.elapsed().as_secs_f64().max(0.001);
    let idle = usage(pid);
    // Busy: the CPU it used to answer `help`.
    let busy_began = Instant::now();
    let reply = talk.ask_line("help").await?;
    let busy_secs = busy_began.elapsed().as_secs_f64().max(0.001);
    let after = if talk.session().is_some() {
        usage(pid)
    } else {
        None
    };
    talk.stop().await;
    let (Some(before), Some(idle)) = (before, idle) else {
        return Ok(TestResult::new(
            "resource_usage",
            false,
            "its process could not be read in /proc",
        ));
    };
    let cpu = |from: u64, to: u64, secs: f64| {
        ((to.saturating_sub(from)) as f64 / TICKS_PER_SEC / secs * 1000.0).round() / 10.0
    };
    let idle_cpu = cpu(before.0, idle.0, idle_secs);
    let memory_mb = (idle.1 as f64 / 1024.0 * 10.0).round() / 10.0;
    let mut result = TestResult::new("resource_usage", true, "")
        .detail("cpu_percent", idle_cpu)
        .detail("memory_mb", memory_mb)
        .detail("num_threads", idle.2);
    if let Some(after) = after {
        result = result.detail("cpu_after_activity", cpu(idle.0, after.0, busy_secs));
    }
    let (passed, verdict) = if memory_mb > 500.0 {
        (false, format!("High memory usage: {memory_mb} MB resident"))
    } else if idle_cpu > 80.0 {
        (false, format!("High CPU usage while idle: {idle_cpu} %"))
    } else if let Reply::Ended { exit, .. } = reply
        && abnormal(&exit)
    {
        (false, format!("it crashed answering help ({exit})"))
    } else {
        (
            true,
            format!("{memory_mb} MB resident, {idle_cpu} % CPU while idle"),
        )
    };
    if !passed {
        result = result.detail("issue", verdict.clone());
    }
    result.passed = passed;
    result.verdict = Some(verdict);
    Ok(result)
}

async fn concurrent(
    client: &Client,
    target: &Target,
    timing: Timing,
) -> Result<TestResult, ProbeError> {
    let mut talks: Vec<Conversation<'_>> = (0..3)
        .map(|_| Conversation::new(client, "test", target, timing))
        .collect();
    let mut result = TestResult::new("concurrent_sessions", true, "");
    let mut started = 0;
    for (n, talk) in talks.iter_mut().enumerate() {
        let reply = talk.start().await?;
        let alive = !matches!(reply, Reply::Ended { .. });
        result = result.detail(
            &format!("session_{n}"),
            if alive { "started" } else { "ended" },
        );
        started += usize::from(alive);
    }
    let mut responsive = 0;
    for (n, talk) in talks.iter_mut().enumerate() {
        if talk.session().is_none() {
            result = result.detail(&format!("session_{n}_alive"), false);
            continue;
        }
        let reply = talk.ask_line("help").await?;
        let answered = match &reply {
            Reply::Prompt { .. } | Reply::Secret { .. } => true,
            Reply::Quiet { output } => !output.trim().is_empty(),
            Reply::Ended { exit, .. } => !abnormal(exit),
            Reply::Hung { .. } => false,
        };
        responsive += usize::from(answered);
        result = result
            .detail(&format!("session_{n}_alive"), true)
            .detail(&format!("session_{n}_responsive"), answered);
    }
    for talk in &mut talks {
        talk.stop().await;
    }
    result.passed = started == 3 && responsive == 3;
    result.verdict = Some(format!(
        "{started} of 3 side-by-side sessions started, {responsive} answered"
    ));
    Ok(result)
}
