//! ClaudeControl's program configurations over sessions: a session started
//! from one (its command, then each step's pattern expected and its answer
//! sent), and a session saved as one (the patterns its expects matched,
//! with what was sent after each). The one place both edges (CLI, MCP) do
//! these multi-step changes.

use switchboard_model::{
    ErrorCode, ErrorPayload,
    program::{ProgramSession, config::ProgramConfig},
};
use switchboard_store::program_configs::ProgramConfigs;

use crate::{
    Client,
    protocol::{ExpectOutcome, Input, Pattern, StartRequest},
};

/// Seconds each step waits when the configuration names none.
const STEP_SECS: f64 = 30.0;

fn invalid(message: impl Into<String>) -> ErrorPayload {
    ErrorPayload::new(ErrorCode::InvalidRequest, message)
}

/// The configurations folder, or why there is none.
pub fn folder() -> Result<ProgramConfigs, ErrorPayload> {
    ProgramConfigs::locate().ok_or_else(|| {
        invalid("no home folder: set CLAUDE_CONTROL_HOME to where ClaudeControl keeps its files")
    })
}

/// Starts configuration `name`'s program with `start`'s other settings
/// (its program and arguments, when given, win over the template's) and
/// plays its steps; the session, at the end of its last step.
pub async fn start_with(
    client: &Client,
    name: &str,
    mut start: StartRequest,
) -> Result<ProgramSession, ErrorPayload> {
    let config = folder()?
        .get(name)
        .map_err(|error| ErrorPayload::new(error.code(), error.to_string()))?;
    let steps = config.steps().map_err(|error| invalid(error.to_string()))?;
    if start.program.is_empty() {
        let mut command = config
            .command()
            .map_err(|error| invalid(error.to_string()))?
            .into_iter();
        start.program = command.next().unwrap_or_default();
        start.args = command.collect();
    }
    let timeout = (config.timeout_secs().unwrap_or(STEP_SECS).max(0.0) * 1000.0) as u64;
    let info = client.start(start).await.map_err(|error| error.payload())?;
    for (number, (pattern, answer)) in steps.into_iter().enumerate() {
        let outcome = client
            .expect(
                &info.id,
                vec![Pattern::Regex(pattern.clone())],
                timeout,
                |_| {},
            )
            .await
            .map_err(|error| error.payload())?;
        if !matches!(outcome, ExpectOutcome::Matched { .. }) {
            let why = match outcome {
                ExpectOutcome::Eof { .. } => "the program's output ended",
                _ => "time ran out",
            };
            return Err(invalid(format!(
                "configuration {name:?}, step {}: {pattern:?} never showed ({why}); session {} is left as it is",
                number + 1,
                info.id
            )));
        }
        if let Some(answer) = answer {
            client
                .send(&info.id, Input::Line(answer), false)
                .await
                .map_err(|error| error.payload())?;
        }
    }
    let listed = client.list(None).await.map_err(|error| error.payload())?;
    Ok(listed
        .into_iter()
        .find(|each| each.id == info.id)
        .unwrap_or(info))
}

/// Saves session `session` as configuration `name` (replacing one of
/// that name): its command, and the patterns its expects matched with what
/// was sent after each (secrets as `***`).
pub async fn save(
    client: &Client,
    session: &str,
    name: &str,
) -> Result<(ProgramConfig, std::path::PathBuf), ErrorPayload> {
    let (info, steps) = client
        .history(session)
        .await
        .map_err(|error| error.payload())?;
    let mut command = vec![info.program.clone()];
    command.extend(info.args.iter().cloned());
    let config = ProgramConfig::recorded(
        name,
        &command,
        &steps,
        STEP_SECS as u64,
        format!(
            "Saved by Switchboard from session {} ({} steps)",
            info.label(),
            steps.len()
        ),
    );
    let path = folder()?
        .save(&config)
        .map_err(|error| ErrorPayload::new(error.code(), error.to_string()))?;
    Ok((config, path))
}
