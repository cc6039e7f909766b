//! Text made safe to put into HTML.

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
    #[test]
    fn the_five_special_characters_are_escaped() {
        assert_eq!(
            super::escape(r#"<a href="x" title='y'>&</a> é"#),
            "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt; é"
        );
    }
}
