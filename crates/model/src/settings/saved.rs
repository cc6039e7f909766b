//! What Save says in the window's Settings: what each change does and
//! when — the chat's settings at its next message, the session host's
//! when it next starts, the servers and the browsers' grants at once —
//! or why a server the settings ask for did not start.

use super::{Settings, SettingsView};

/// The note shown after saving `view` over `before` (the settings as they
/// were): `Ok` what happens now, `Err` what did not.
pub fn saved_note(before: &Settings, view: &SettingsView) -> Result<String, String> {
    if let Some(why) = &view.browser_error {
        let http = view
            .http_error
            .as_ref()
            .map(|http| format!("; serving MCP over HTTP did not start either: {http}"))
            .unwrap_or_default();
        return Err(format!(
            "Saved, but serving the inbox to browsers did not start: {why}{http}"
        ));
    }
    if let Some(why) = &view.http_error {
        return Err(format!(
            "Saved, but serving MCP over HTTP did not start: {why}"
        ));
    }
    let after = &view.settings;
    let mut said = Vec::new();
    if chat_part(before) != chat_part(after) {
        said.push("The chat's next message uses its new settings.".to_owned());
    }
    if before.notify_turn_finished != after.notify_turn_finished {
        said.push("Notifications follow the new setting at once.".to_owned());
    }
    if (
        before.max_sessions,
        before.session_idle_secs,
        before.session_max_secs,
    ) != (
        after.max_sessions,
        after.session_idle_secs,
        after.session_max_secs,
    ) {
        said.push(
            "The session host reads its new limits when it next starts (a minute after its last \
             session ends)."
                .to_owned(),
        );
    }
    if (before.serve_http, before.http_port) != (after.serve_http, after.http_port) {
        said.push(match &view.http_url {
            Some(url) => format!("MCP is served over HTTP at {url}."),
            None => "MCP is no longer served over HTTP.".to_owned(),
        });
    }
    if (before.serve_browser, before.browser_port) != (after.serve_browser, after.browser_port) {
        said.push(match &view.browser_url {
            Some(url) => format!(
                "The inbox is served to paired browsers at {url}: pair one with Pair a browser below."
            ),
            None => "The inbox is no longer served to browsers.".to_owned(),
        });
    }
    if (
        before.browser_take_over,
        before.browser_start,
        before.browser_unattended,
    ) != (
        after.browser_take_over,
        after.browser_start,
        after.browser_unattended,
    ) {
        said.push(
            "Paired browsers may do what is ticked from their next action (a page open now \
             shows it when it is next read)."
                .to_owned(),
        );
    }
    if said.is_empty() {
        return Ok("Saved (nothing changed).".to_owned());
    }
    Ok(format!("Saved. {}", said.join(" ")))
}

/// The settings the chat reads at each message.
fn chat_part(settings: &Settings) -> Settings {
    Settings {
        model_url: settings.model_url.clone(),
        model: settings.model.clone(),
        api_key: settings.api_key.clone(),
        first_token_secs: settings.first_token_secs,
        idle_secs: settings.idle_secs,
        context_tokens: settings.context_tokens,
        max_output_tokens: settings.max_output_tokens,
        build_globs: settings.build_globs.clone(),
        dry_run: settings.dry_run,
        model_backend: settings.model_backend,
        claude_code_path: settings.claude_code_path.clone(),
        codex_path: settings.codex_path.clone(),
        ..Settings::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saved(after: Settings, browser_url: Option<&str>) -> SettingsView {
        SettingsView {
            settings: after,
            browser_url: browser_url.map(str::to_owned),
            ..SettingsView::default()
        }
    }

    #[test]
    fn save_says_what_really_happens_to_what_changed() {
        let before = Settings::default();
        let serving = Settings {
            serve_browser: true,
            ..Settings::default()
        };
        let note = saved_note(
            &before,
            &saved(serving.clone(), Some("http://127.0.0.1:8766")),
        )
        .unwrap();
        assert!(
            note.contains("served to paired browsers at http://127.0.0.1:8766")
                && note.contains("Pair a browser")
                && !note.contains("next message"),
            "turning browser serving on is not about the chat: {note}"
        );
        let note = saved_note(&serving, &saved(before.clone(), None)).unwrap();
        assert!(note.contains("no longer served to browsers"), "{note}");
        let chat = Settings {
            model: Some("m".into()),
            ..Settings::default()
        };
        let note = saved_note(&before, &saved(chat, None)).unwrap();
        assert!(note.contains("next message"), "{note}");
        assert_eq!(
            saved_note(&before, &saved(before.clone(), None)).unwrap(),
            "Saved (nothing changed)."
        );
        let failed = SettingsView {
            browser_error: Some("port 8766 is in use".into()),
            ..SettingsView::default()
        };
        assert!(
            saved_note(&before, &failed)
                .unwrap_err()
                .contains("did not start: port 8766 is in use")
        );
    }
}
