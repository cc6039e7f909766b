//! The window's own page, as a browser gets it: the files `make ui` built
//! (embedded at compile time), with a shim before the boot script that
//! sends the page's commands and events to this server, and the one
//! Content-Security-Policy every response carries.

use sha2::{Digest as _, Sha256};

mod built {
    include!(concat!(env!("OUT_DIR"), "/page.rs"));
}

/// The shim: the page's Tauri calls over fetch and server-sent events.
pub const SHIM: &str = include_str!("shim.js");

/// The page and its policy, made once when the server starts.
#[derive(Debug)]
pub struct Page {
    /// `index.html` with the shim's `<script>` before the boot script.
    pub html: String,
    /// The Content-Security-Policy: scripts from here and the boot
    /// script by its hash only, nothing fetched from elsewhere, no frame
    /// of this page anywhere, no form sent anywhere.
    pub policy: String,
}

impl Page {
    /// The built page, or one saying how to build it.
    pub fn load() -> Self {
        let index = file("index.html")
            .map(|bytes| String::from_utf8_lossy(bytes).into_owned())
            .unwrap_or_else(|| {
                "<!DOCTYPE html><meta charset=\"utf-8\"><title>Switchboard</title><p>This \
                 switchboard was built without its page: run <code>make ui</code>, then build \
                 the CLI again.</p>"
                    .to_owned()
            });
        Self::of(&index)
    }

    /// The page made of `index`: the shim put before its boot script, and
    /// the policy allowing that script by its hash.
    fn of(index: &str) -> Self {
        let html = match index.find("<script>") {
            Some(at) => format!(
                "{}<script src=\"/shim.js\"></script>\n    {}",
                &index[..at],
                &index[at..]
            ),
            None => index.to_owned(),
        };
        let boot_hash = inline_script(index)
            .map(|script| {
                use base64::Engine as _;
                format!(
                    " 'sha256-{}'",
                    base64::engine::general_purpose::STANDARD.encode(Sha256::digest(script))
                )
            })
            .unwrap_or_default();
        let policy = format!(
            "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'{boot_hash}; \
             style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; \
             connect-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'none'; \
             frame-ancestors 'none'"
        );
        Self { html, policy }
    }
}

/// The built file `name`, if there is one.
pub fn file(name: &str) -> Option<&'static [u8]> {
    built::FILES
        .iter()
        .find(|(file, _)| *file == name)
        .map(|(_, bytes)| *bytes)
}

/// The text of the page's first inline `<script>` (the boot script).
fn inline_script(html: &str) -> Option<&str> {
    let start = html.find("<script>")? + "<script>".len();
    let end = start + html[start..].find("</script>")?;
    Some(&html[start..end])
}

/// The content type of a built file, by its name.
pub fn content_type(name: &str) -> &'static str {
    match name.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("css") => "text/css; charset=utf-8",
        Some("png") => "image/png",
        Some("svg") => "image/svg+xml",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn the_boot_script_is_allowed_by_its_hash_and_the_shim_comes_first() {
        let page = Page::of("<body><div></div><script>boot()</script></body>");
        assert_eq!(
            page.html,
            "<body><div></div><script src=\"/shim.js\"></script>\n    <script>boot()</script></body>"
        );
        // The SHA-256 of `boot()`, in base64, and no other inline script.
        assert!(
            page.policy.contains(
                "script-src 'self' 'wasm-unsafe-eval' 'sha256-MeZS89WlF0u+o0hCvHTBt4q1WHU+U+sJKgbdRUc36mY=';"
            ),
            "{}",
            page.policy
        );
        assert!(
            page.policy.contains("frame-ancestors 'none'"),
            "{}",
            page.policy
        );
        assert_eq!(content_type("x_bg.wasm"), "application/wasm");
    }

    #[test]
    fn the_shim_tells_the_page_its_connection_by_the_models_event_and_states() {
        use switchboard_model::browser::{Connection, EVENT_CONNECTION};
        assert!(
            SHIM.contains(&format!("\"{EVENT_CONNECTION}\"")),
            "the shim's event is the one the page listens to"
        );
        for state in [
            Connection::Connecting,
            Connection::Connected,
            Connection::Reconnecting,
            Connection::Unpaired,
        ] {
            let name = serde_json::to_string(&state).unwrap_or_default();
            assert!(
                SHIM.contains(&name),
                "the shim says {name} as the page reads it"
            );
        }
    }
}
