//! `switchboard-sidecar`: serves the sidecar protocol on stdin/stdout.
//! Logs go to stderr; stdout carries only protocol lines. The model is
//! configured by `SWITCHBOARD_MODEL_URL`, `SWITCHBOARD_MODEL` and
//! `SWITCHBOARD_API_KEY`.

fn main() -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(switchboard_sidecar::serve::serve(
        tokio::io::BufReader::new(tokio::io::stdin()),
        std::io::stdout(),
        switchboard_sidecar::model_client::ModelConfig::from_env(),
    ))?;
    Ok(())
}
