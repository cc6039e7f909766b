//! `switchboard-sidecar`: serves the sidecar protocol on stdin/stdout.
//! Logs go to stderr; stdout carries only protocol lines.

fn main() -> anyhow::Result<()> {
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    switchboard_sidecar::serve(stdin, stdout)?;
    Ok(())
}
