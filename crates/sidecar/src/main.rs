//! `switchboard-sidecar`: serves the sidecar protocol on stdin/stdout.
//! Logs go to stderr; stdout carries only protocol lines. The model is
//! configured in the settings file (OS config directory), overridden by
//! `SWITCHBOARD_MODEL_URL`, `SWITCHBOARD_MODEL`, `SWITCHBOARD_API_KEY` and
//! the other `SWITCHBOARD_*` variables.

fn main() -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(switchboard_sidecar::serve::serve(
        tokio::io::BufReader::new(tokio::io::stdin()),
        std::io::stdout(),
        std::sync::Arc::new(switchboard_store::settings::effective),
    ))?;
    Ok(())
}
