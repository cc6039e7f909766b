//! The Settings view as it is drawn: every field sits beside its own label.

use std::sync::Arc;

use anyhow::{Result, ensure};
use switchboard_e2e::Session;

use crate::harness::{Environment, go, trial};

pub fn trials(environment: &Arc<Environment>) -> Vec<libtest_mimic::Trial> {
    vec![trial(
        environment,
        "settings::every_field_sits_beside_its_own_label",
        every_field_sits_beside_its_own_label,
    )]
}

/// For each `label[for]` of the form, where it and its field are drawn:
/// the fields whose label is not on their row, left of them.
const MISPLACED: &str = r#"
const misplaced = [];
for (const label of document.querySelectorAll('.settings-form label[for]')) {
  const field = document.getElementById(label.htmlFor);
  const l = label.getBoundingClientRect();
  const f = field.getBoundingClientRect();
  const shared = Math.min(l.bottom, f.bottom) - Math.max(l.top, f.top);
  if (shared <= 0 || l.right > f.left) {
    misplaced.push(`${label.htmlFor}: "${label.textContent}" at ${l.top}..${l.bottom}, its field at ${f.top}..${f.bottom}`);
  }
}
return [document.querySelectorAll('.settings-form label[for]').length, misplaced];
"#;

/// Issue 39, item 14a: under "Program sessions" a note took a cell of the
/// form's grid, so each number showed beside the next field's label
/// (idle = 20 s was the live-sessions limit).
fn every_field_sits_beside_its_own_label(environment: &Environment) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    environment.with_app(workspace.path(), async |session: &Session| {
        go(session, "settings").await?;
        session.find("#settings-path").await?;
        let answer = session.client.execute(MISPLACED, vec![]).await?;
        let (count, misplaced): (usize, Vec<String>) = serde_json::from_value(answer)?;
        ensure!(
            count >= 12,
            "the form's labelled fields were found: {count}"
        );
        ensure!(
            misplaced.is_empty(),
            "fields drawn away from their labels: {misplaced:#?}"
        );
        Ok(())
    })
}
