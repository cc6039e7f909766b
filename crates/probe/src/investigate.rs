//! An investigation: what a program is — its prompts, commands, modes,
//! output formats, errors and the inputs that really end it — learnt by
//! asking it, safely.
//!
//! Help is asked as arguments (`--help`, `-h`, each in a run of its own)
//! and inside the program (`help`, `?`, …); only output the question caused
//! counts (the banner is read before the first question, and each answer
//! ends at the program's prompt). Commands its help lists are sent one by
//! one — never one whose name or description reads destructive, unless
//! `unsafe_mode` — and a command that changes the prompt opens a state
//! (deduplicated by prompt) that is explored in turn; the investigator
//! returns to the parent state by a way back the child offers, else by
//! starting the program again and replaying the path, so siblings are
//! explored too. A password prompt or a hang ends that branch, never the
//! investigation; everything skipped is in `safety_notes`.

use std::time::Instant;

use switchboard_model::probe::{
    CommandInfo, InvestigationReport, Probe, ProgramState,
    reading::{self, HELP_ARGUMENTS, HELP_REQUESTS},
    report::{ENTRY_STATE, RunFacts},
    safety::{self, BACK_COMMANDS, EXIT_COMMANDS},
    sample,
};
use switchboard_model::program::Key;

use super::{Conversation, ProbeError, Reply, Target, Timing, iso_now};
use switchboard_session::{Client, protocol::Input};

/// How an investigation goes.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Timing of each answer.
    pub timing: Timing,
    /// How many modes deep to explore (the entry state is depth 0).
    pub max_depth: usize,
    /// Send commands that read destructive too.
    pub unsafe_mode: bool,
    /// At most this many commands sent per state.
    pub max_commands: usize,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            timing: Timing::default(),
            max_depth: 3,
            unsafe_mode: false,
            max_commands: 25,
        }
    }
}

/// What `reply` printed, when it is help (`reading::is_help_for` the
/// `request` that caused it).
fn help_of<'r>(reply: &'r Reply, request: &str) -> Option<&'r str> {
    match reply {
        Reply::Prompt { output, .. } | Reply::Quiet { output } | Reply::Ended { output, .. }
            if reading::is_help_for(output, request) =>
        {
            Some(output)
        }
        _ => None,
    }
}

/// The prompt of a start-up that went quiet without one: its last line, or
/// `unknown` (a program that shows no prompt).
fn quiet_prompt(output: &str) -> String {
    let line = switchboard_model::program::prompt::last_line(output);
    if line.trim().is_empty() {
        "unknown".to_owned()
    } else {
        line.trim_end().to_owned()
    }
}

/// Where the program is after `reply`, from `at` before it: at the prompt
/// it shows; where it was when it answered without one (nothing says it
/// moved); nowhere known once it ended or hung.
fn after(at: Option<String>, reply: &Reply) -> Option<String> {
    match reply {
        Reply::Prompt { prompt, .. } | Reply::Secret { prompt, .. } => Some(prompt.clone()),
        Reply::Quiet { .. } => at,
        Reply::Ended { .. } | Reply::Hung { .. } => None,
    }
}

/// Where the program is once started.
fn started_at(banner: &Reply) -> Option<String> {
    match banner {
        Reply::Quiet { output } => Some(quiet_prompt(output)),
        other => after(None, other),
    }
}

struct Investigation<'a, 'p> {
    talk: Conversation<'a>,
    report: InvestigationReport,
    options: Options,
    progress: &'p mut (dyn FnMut(&str) + Send),
    /// Outputs seen, for the formats.
    outputs: Vec<String>,
    /// The prompt shown now, if known.
    at: Option<String>,
}

/// Investigates `target`; the report (not saved: the caller saves it).
pub async fn investigate(
    client: &Client,
    target: &Target,
    options: Options,
    progress: &mut (dyn FnMut(&str) + Send),
) -> Result<InvestigationReport, ProbeError> {
    let began = Instant::now();
    let mut run = Investigation {
        talk: Conversation::new(client, "investigate", target, options.timing),
        report: InvestigationReport {
            program: target.command_line(),
            started_at: iso_now(),
            ..InvestigationReport::default()
        },
        options,
        progress,
        outputs: Vec::new(),
        at: None,
    };
    let outcome = run.go().await;
    run.talk.stop().await;
    // A program that could not be started at all has no report to give.
    if let Err(error) = outcome.as_ref()
        && run.talk.starts == 0
    {
        return Err(error.clone());
    }
    if let Err(error) = &outcome {
        run.report
            .safety_notes
            .push(format!("the investigation stopped: {}", error.message));
    }
    let mut formats: Vec<String> = Vec::new();
    for output in &run.outputs {
        for format in reading::formats(output) {
            InvestigationReport::note(&mut formats, format);
        }
    }
    run.report.data_formats = formats;
    run.report.entry_state = run.report.states.get(ENTRY_STATE).cloned();
    run.report.completed_at = Some(iso_now());
    let facts = run.report.switchboard.get_or_insert_with(RunFacts::default);
    facts.argv = std::iter::once(target.program.clone())
        .chain(target.args.iter().cloned())
        .collect();
    facts.unsafe_mode = options.unsafe_mode;
    facts.exchanges = run.talk.exchanges;
    facts.starts = run.talk.starts;
    facts.duration_ms = u64::try_from(began.elapsed().as_millis()).unwrap_or(u64::MAX);
    facts.workspace = target.workspace.clone();
    facts.run = target.run();
    Ok(run.report)
}

impl Investigation<'_, '_> {
    fn say(&mut self, text: &str) {
        (self.progress)(text);
    }

    fn log_reply(&mut self, input: Option<&str>, reply: &Reply) {
        if let Some(input) = input {
            self.report.log(iso_now(), "SEND", input, "");
            // Interactive, measured: it stayed up and answered a line.
            let answered = match reply {
                Reply::Prompt { .. } | Reply::Secret { .. } => true,
                Reply::Quiet { output } => !output.trim().is_empty(),
                Reply::Ended { .. } | Reply::Hung { .. } => false,
            };
            if answered {
                self.facts().interactive = true;
            }
        }
        let action = if input.is_some() { "RECV" } else { "START" };
        self.report.log(iso_now(), action, "", reply.output());
    }

    fn facts(&mut self) -> &mut RunFacts {
        self.report
            .switchboard
            .get_or_insert_with(RunFacts::default)
    }

    async fn go(&mut self) -> Result<(), ProbeError> {
        self.argument_help().await?;
        self.say("starting the program");
        let banner = self.talk.start().await?;
        self.log_reply(None, &banner);
        let prompt = match &banner {
            Reply::Prompt { prompt, .. } => prompt.clone(),
            Reply::Quiet { output } => quiet_prompt(output),
            Reply::Secret { prompt, .. } => {
                self.report.safety_notes.push(format!(
                    "the program asked for a secret at start-up ({prompt:?}); nothing was typed"
                ));
                self.add_state(ENTRY_STATE, prompt, None);
                return Ok(());
            }
            Reply::Ended { exit, .. } => {
                self.report.safety_notes.push(format!(
                    "the program ended at start-up ({exit}): it is not interactive"
                ));
                self.add_state(ENTRY_STATE, "unknown", None);
                return Ok(());
            }
            Reply::Hung { .. } => {
                self.report.safety_notes.push(format!(
                    "the program showed nothing that settled within {} s of starting",
                    self.options.timing.start_ms / 1000
                ));
                self.add_state(ENTRY_STATE, "unknown", None);
                return Ok(());
            }
        };
        self.at = Some(prompt.clone());
        self.add_state(ENTRY_STATE, &prompt, None);
        self.explore(ENTRY_STATE.to_owned(), Vec::new(), 0).await?;
        self.exits().await?;
        Ok(())
    }

    fn add_state(&mut self, name: &str, prompt: &str, parent: Option<&str>) {
        let mut state = ProgramState::new(name, prompt);
        state.parent = parent.map(str::to_owned);
        if prompt != "unknown" {
            InvestigationReport::note(&mut self.report.prompts, prompt);
        }
        self.report.states.insert(name.to_owned(), state);
    }

    fn state(&mut self, name: &str) -> &mut ProgramState {
        self.report
            .states
            .entry(name.to_owned())
            .or_insert_with(|| ProgramState::new(name, "unknown"))
    }

    /// `--help` and `-h` as arguments, each in a run of its own.
    async fn argument_help(&mut self) -> Result<(), ProbeError> {
        for argument in HELP_ARGUMENTS {
            self.say(&format!("asking for help as an argument ({argument})"));
            let reply = self.talk.start_with(&[argument]).await?;
            self.talk.stop().await;
            self.report.log(iso_now(), "SEND", argument, "");
            self.report.log(iso_now(), "RECV", "", reply.output());
            if let Some(help) = help_of(&reply, argument) {
                InvestigationReport::note(&mut self.report.help_commands, *argument);
                self.report.commands.insert(
                    (*argument).to_owned(),
                    CommandInfo {
                        kind: Some("help".into()),
                        description: Some("Display help information (as an argument)".into()),
                        output_sample: Some(sample(help)),
                        tested: Some(true),
                        output_length: Some(help.len()),
                        ..CommandInfo::default()
                    },
                );
                self.facts().argument_help = Some(sample(help));
                break;
            }
        }
        Ok(())
    }

    /// Back at state `name` (its prompt on screen), starting the program
    /// again and replaying `path` when needed.
    async fn return_to(&mut self, prompt: &str, path: &[String]) -> Result<bool, ProbeError> {
        if self.at.as_deref() == Some(prompt) && self.talk.session().is_some() {
            return Ok(true);
        }
        if self.at.is_some() && self.talk.session().is_some() {
            // Half way through an input (a continuation prompt): an
            // interrupt is how people cancel it, a line editor redraws its
            // prompt at the next Enter, and a statement that waits for its
            // end (SQL's) ends at a `;`.
            for input in [
                Input::Key(Key::Ctrl(3)),
                Input::Line(String::new()),
                Input::Line(";".to_owned()),
            ] {
                let reply = self.talk.nudge(input).await?;
                self.at = after(self.at.take(), &reply);
                if self.talk.session().is_none() {
                    break;
                }
                if self.at.as_deref() == Some(prompt) && reply.prompt().is_some() {
                    return Ok(true);
                }
            }
        }
        self.say("starting the program again to get back");
        let banner = self.talk.start().await?;
        self.at = started_at(&banner);
        for command in path {
            let reply = self.talk.ask_line(command).await?;
            self.at = after(self.at.take(), &reply);
        }
        Ok(self.at.as_deref() == Some(prompt) && self.talk.session().is_some())
    }

    /// Asks for help in state `name`, then sends its commands, exploring
    /// the states they open.
    async fn explore(
        &mut self,
        name: String,
        path: Vec<String>,
        depth: usize,
    ) -> Result<(), ProbeError> {
        let prompt = self.state(&name).prompt.clone();
        // Help inside the program.
        for request in HELP_REQUESTS {
            if !self.return_to(&prompt, &path).await? {
                self.report.safety_notes.push(format!(
                    "could not get back to {name} ({prompt:?}); its exploration ended"
                ));
                return Ok(());
            }
            self.say(&format!("asking {request:?} in {name}"));
            let reply = self.talk.ask_line(request).await?;
            self.log_reply(Some(request), &reply);
            self.at = after(self.at.take(), &reply);
            let same_state = reply.prompt() == Some(prompt.as_str());
            if let Some(help) = help_of(&reply, request)
                .filter(|_| same_state)
                .map(str::to_owned)
            {
                InvestigationReport::note(&mut self.report.help_commands, *request);
                self.report
                    .commands
                    .entry((*request).to_owned())
                    .or_insert(CommandInfo {
                        kind: Some("help".into()),
                        description: Some("Display help information".into()),
                        output_sample: Some(sample(&help)),
                        tested: Some(true),
                        output_length: Some(help.len()),
                        state: Some(name.clone()),
                        ..CommandInfo::default()
                    });
                for listed in reading::listed_commands(&help) {
                    self.state(&name).add_command(&listed.name);
                    self.report
                        .commands
                        .entry(listed.name.clone())
                        .or_insert(CommandInfo {
                            description: Some(listed.description.clone()),
                            discovered_from: Some("help".into()),
                            state: Some(name.clone()),
                            ..CommandInfo::default()
                        });
                }
                break;
            }
            if let Reply::Ended { exit, .. } = &reply {
                self.report
                    .safety_notes
                    .push(format!("{request:?} ended the program in {name} ({exit})"));
            }
        }
        // How it says no: one command that cannot exist.
        if self.return_to(&prompt, &path).await? {
            let nonsense = "no_such_command_xyzzy";
            self.say(&format!("sending a command that does not exist in {name}"));
            let reply = self.talk.ask_line(nonsense).await?;
            self.log_reply(Some(nonsense), &reply);
            self.at = after(self.at.take(), &reply);
            for (kind, pattern) in reading::errors(reply.output()) {
                InvestigationReport::note(
                    &mut self.report.error_messages,
                    format!("{nonsense}: {kind}"),
                );
                InvestigationReport::note(&mut self.state(&name).error_patterns, pattern);
            }
            if !reply.output().trim().is_empty() {
                self.state(&name).add_sample(reply.output());
            }
        }
        // Its commands.
        let commands = self.state(&name).commands.clone();
        let mut sent = 0;
        for command in commands {
            if HELP_REQUESTS.contains(&command.as_str()) {
                continue;
            }
            let description = self
                .report
                .commands
                .get(&command)
                .and_then(|info| info.description.clone())
                .unwrap_or_default();
            if safety::is_exit(&command) {
                self.skip(
                    &command,
                    &name,
                    "it would end the program: left for the exit probe",
                );
                continue;
            }
            if !self.options.unsafe_mode
                && let Some(why) = safety::destructive(&command, &description)
            {
                self.skip(&command, &name, &why);
                continue;
            }
            if sent == self.options.max_commands {
                self.skip(&command, &name, "over the commands tried per state");
                continue;
            }
            if !self.return_to(&prompt, &path).await? {
                self.report.safety_notes.push(format!(
                    "could not get back to {name} ({prompt:?}); its exploration ended"
                ));
                return Ok(());
            }
            sent += 1;
            self.say(&format!("sending {command:?} in {name}"));
            let reply = self.talk.ask_line(&command).await?;
            self.log_reply(Some(&command), &reply);
            self.at = after(self.at.take(), &reply);
            self.learn(&command, &name, &reply);
            match &reply {
                Reply::Secret { prompt: asked, .. } => {
                    self.report.safety_notes.push(format!(
                        "{command:?} in {name} asked for a secret ({asked:?}); nothing was typed and that branch ended"
                    ));
                    self.at = None;
                    self.talk.stop().await;
                }
                Reply::Hung { .. } => {
                    self.report.safety_notes.push(format!(
                        "{command:?} in {name} did not answer within {} s; that branch ended",
                        self.options.timing.answer_ms / 1000
                    ));
                    self.at = None;
                    self.talk.stop().await;
                }
                Reply::Ended { exit, .. } => {
                    InvestigationReport::note(&mut self.report.exit_commands, command.clone());
                    self.report
                        .safety_notes
                        .push(format!("{command:?} in {name} ended the program ({exit})"));
                }
                Reply::Prompt { prompt: shown, .. } if *shown != prompt => {
                    let shown = shown.clone();
                    self.opened(&name, &command, &shown, &path, depth).await?;
                }
                Reply::Prompt { .. } | Reply::Quiet { .. } => {}
            }
        }
        Ok(())
    }

    fn skip(&mut self, command: &str, state: &str, why: &str) {
        if let Some(info) = self.report.commands.get_mut(command) {
            info.skipped = Some(why.to_owned());
        }
        self.report
            .safety_notes
            .push(format!("skipped {command:?} in {state}: {why}"));
    }

    /// What an answer says about `command`.
    fn learn(&mut self, command: &str, state: &str, reply: &Reply) {
        let output = reply.output().to_owned();
        let info = self.report.commands.entry(command.to_owned()).or_default();
        info.tested = Some(true);
        info.output_length = Some(output.len());
        if info.output_sample.is_none() && !output.trim().is_empty() {
            info.output_sample = Some(sample(&output));
        }
        if output.trim().is_empty() {
            return;
        }
        for (kind, pattern) in reading::errors(&output) {
            InvestigationReport::note(
                &mut self.report.error_messages,
                format!("{command}: {kind}"),
            );
            InvestigationReport::note(&mut self.state(state).error_patterns, pattern);
        }
        self.state(state).add_sample(&output);
        self.outputs.push(output);
    }

    /// `command` in state `parent` showed prompt `shown`: a state, new or
    /// known; a new one is explored, then the way back is found.
    async fn opened(
        &mut self,
        parent: &str,
        command: &str,
        shown: &str,
        path: &[String],
        depth: usize,
    ) -> Result<(), ProbeError> {
        let known = self.report.state_at(shown).map(|state| state.name.clone());
        let child = match known {
            Some(name) => {
                self.state(parent)
                    .transitions
                    .insert(command.to_owned(), name);
                return Ok(());
            }
            None => self.report.next_state_name(),
        };
        self.add_state(&child, shown, Some(parent));
        self.state(parent)
            .transitions
            .insert(command.to_owned(), child.clone());
        let mut child_path = path.to_vec();
        child_path.push(command.to_owned());
        if depth + 1 < self.options.max_depth {
            Box::pin(self.explore(child.clone(), child_path.clone(), depth + 1)).await?;
        } else {
            self.report.safety_notes.push(format!(
                "{child} ({shown:?}) is deeper than --max-depth {}; not explored",
                self.options.max_depth
            ));
        }
        // The way back, if the child offers one.
        let parent_prompt = self.state(parent).prompt.clone();
        let offered = self.state(&child).commands.clone();
        let mut candidates: Vec<String> = offered
            .iter()
            .filter(|name| BACK_COMMANDS.contains(&name.as_str()))
            .cloned()
            .collect();
        for generic in ["back", "exit", "end", "..", "up", "quit"] {
            if !candidates.iter().any(|known| known == generic) {
                candidates.push(generic.to_owned());
            }
        }
        for back in candidates {
            if !self.return_to(shown, &child_path).await? {
                break;
            }
            self.say(&format!("looking for the way back from {child} ({back:?})"));
            let reply = self.talk.ask_line(&back).await?;
            self.log_reply(Some(&back), &reply);
            self.at = after(self.at.take(), &reply);
            match reply {
                Reply::Prompt { prompt, .. } if prompt == parent_prompt => {
                    self.state(&child).way_back = Some(back.clone());
                    self.state(&child)
                        .transitions
                        .insert(back, parent.to_owned());
                    return Ok(());
                }
                Reply::Ended { .. } => {
                    self.report.safety_notes.push(format!(
                        "{back:?} in {child} ended the program instead of going back"
                    ));
                }
                _ => {}
            }
        }
        self.report.safety_notes.push(format!(
            "no way back from {child} to {parent}: the program is started again to get there"
        ));
        Ok(())
    }

    /// The inputs that really end the program, each tried at the entry
    /// state (the program started again after one ended it).
    async fn exits(&mut self) -> Result<(), ProbeError> {
        let entry = self.state(ENTRY_STATE).prompt.clone();
        let listed: Vec<String> = self
            .report
            .commands
            .keys()
            .filter(|name| safety::is_exit(name))
            .cloned()
            .collect();
        let mut candidates: Vec<Input> = listed.iter().cloned().map(Input::Line).collect();
        for standard in EXIT_COMMANDS {
            if !listed.iter().any(|known| known == standard) {
                candidates.push(Input::Line((*standard).to_owned()));
            }
        }
        candidates.push(Input::Key(Key::Ctrl(4)));
        candidates.push(Input::Key(Key::Ctrl(3)));
        for input in candidates {
            let label = match &input {
                Input::Line(text) | Input::Text(text) => text.clone(),
                Input::Key(key) => key.name(),
            };
            if self.report.exit_commands.contains(&label) {
                continue;
            }
            if !self.return_to(&entry, &[]).await? {
                break;
            }
            self.say(&format!("trying {label:?} as a way out"));
            if let Some(info) = self.report.commands.get_mut(&label) {
                // Held back while exploring; sent now.
                info.skipped = None;
                info.tested = Some(true);
            }
            let reply = self.talk.ask(input).await?;
            self.log_reply(Some(&label), &reply);
            self.at = after(self.at.take(), &reply);
            // One that went quiet may still be on its way out.
            let ended = match reply {
                Reply::Ended { exit, .. } => Some(exit),
                Reply::Quiet { .. } => {
                    let fitted = self.talk.timing.quiet_ms;
                    let wait = fitted
                        .saturating_mul(5)
                        .max(50)
                        .min(self.options.timing.quiet_ms);
                    self.talk.ended(wait).await?
                }
                _ => None,
            };
            if let Some(exit) = ended {
                self.at = None;
                InvestigationReport::note(&mut self.report.exit_commands, label.clone());
                // Ctrl-C ending it by SIGINT is what it is for.
                if !switchboard_model::probe::fuzz::abnormal(&exit)
                    || (label == "ctrl-c" && exit.signal == Some(2))
                {
                    continue;
                }
                self.report
                    .safety_notes
                    .push(format!("{label:?} ended the program abnormally ({exit})"));
            }
        }
        Ok(())
    }
}

/// A quick look: does it start, answer, show a prompt, list commands?
pub async fn probe(client: &Client, target: &Target, timing: Timing) -> Result<Probe, ProbeError> {
    let mut talk = Conversation::new(client, "probe", target, timing);
    let mut found = Probe {
        program: target.command_line(),
        ..Probe::default()
    };
    let banner = talk.start().await?;
    found.startup_output = sample(banner.output());
    found.responsive = !banner.output().trim().is_empty();
    found.prompt = banner.prompt().map(str::to_owned);
    match &banner {
        Reply::Ended { exit, .. } => {
            found.ended = Some(exit.to_string());
            return Ok(found);
        }
        Reply::Secret { .. } | Reply::Hung { .. } => {
            found.alive = true;
            talk.stop().await;
            return Ok(found);
        }
        Reply::Prompt { .. } | Reply::Quiet { .. } => {}
    }
    let result = async {
        let reply = talk.ask_line("help").await?;
        let answered = !reply.output().trim().is_empty() || reply.prompt().is_some();
        found.responsive |= answered;
        match &reply {
            Reply::Ended { exit, .. } => found.ended = Some(exit.to_string()),
            Reply::Hung { .. } => found.alive = true,
            _ => {
                found.alive = true;
                found.interactive = answered;
                if found.prompt.is_none() {
                    found.prompt = reply.prompt().map(str::to_owned);
                }
                if let Some(help) = help_of(&reply, "help") {
                    found.help_command = Some("help".into());
                    found.commands = reading::listed_commands(help)
                        .into_iter()
                        .map(|listed| listed.name)
                        .collect();
                }
            }
        }
        Ok::<(), ProbeError>(())
    }
    .await;
    talk.stop().await;
    result.map(|()| found)
}
