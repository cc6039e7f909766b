//! Text made safe to put into HTML.

/// The Content-Security-Policy of every page that shows an agent's HTML
/// (the delivery's frame in the window, an exported page): nothing runs,
/// nothing loads but inline images and styles.
pub const CONTENT_POLICY: &str = "default-src 'none'; img-src data:; style-src 'unsafe-inline'";

/// `text` with the five HTML-special characters escaped, for element
/// content and quoted attribute values alike.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    #[test]
    fn the_five_special_characters_are_escaped() {
        assert_eq!(
            super::escape(r#"<a href="x" title='y'>&</a> é"#),
            "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt; é"
        );
    }
}
