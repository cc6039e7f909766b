//! What an OS notification shows of text someone else wrote (a question's
//! title, an agent's last words, a program's command line): as it was
//! written, never as instructions to the notification server. On the
//! freedesktop servers (Linux, the BSDs) a notification's body is markup —
//! `<a href=…>` is a link, `<img src=…>` an image fetched, a stray `&` empties
//! the body on some servers — so there it is escaped; everywhere, the
//! characters that act on text (controls, bidirectional overrides) are shown
//! as their escapes.

use crate::terminal_text::printable;

/// A notification's title (plain text on every server): `text` with the
/// characters that would act on it shown as their escapes.
pub fn title(text: &str) -> String {
    printable(text).into_owned()
}

/// A notification's body from `text`, for a server whose bodies are markup
/// when `markup` (the freedesktop servers): `&`, `<` and `>` as entities, so
/// the text reads as written and nothing in it is a link or an image.
pub fn body(text: &str, markup: bool) -> String {
    let shown = printable(text);
    if !markup {
        return shown.into_owned();
    }
    let mut escaped = String::with_capacity(shown.len() + 8);
    for c in shown.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            c => escaped.push(c),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_on_a_markup_server_reads_as_written_and_links_nothing() {
        let title = "tidy wants to run `curl <a href=\"https://x.example\">docs</a> && sh`";
        assert_eq!(
            body(title, true),
            "tidy wants to run `curl &lt;a href=\"https://x.example\"&gt;docs&lt;/a&gt; &amp;&amp; sh`"
        );
        // Elsewhere (macOS, Windows) bodies are plain text: left as written.
        assert_eq!(body(title, false), title);
        // Entities already in the text are shown, not decoded.
        assert_eq!(body("&lt;", true), "&amp;lt;");
    }

    #[test]
    fn controls_and_reordering_characters_are_shown_never_obeyed() {
        assert_eq!(title("run \u{1b}[2Kls\u{202e}"), "run \\x1b[2Kls\\u{202e}");
        assert_eq!(body("a\rb", false), "a\\rb");
        assert_eq!(body("two\nlines", true), "two\nlines");
    }
}
