//! HTML bodies mapped back to their source, like markdown: each run of
//! literal text an agent wrote becomes `<span data-o="N">` (N its UTF-16
//! offset in the body) before the body is sanitized, so a selection in the
//! window's frame stores the range of exactly the selected text.
//!
//! html5gum tokenizes the body (the WHATWG tokenizer, with its spans);
//! only text whose rendered characters equal its source characters is
//! mapped. Character references (`&amp;`), carriage returns and NULs are
//! left as they are, unmapped, as is text a reader never selects as
//! written: inside `script`, `style`, `textarea`, `title` and the other raw
//! text elements, and inside `svg` and `math`, where a `span` would change
//! how the parser builds the tree. Whitespace between elements stays as it
//! is too, so tables and lists keep their shape. The sanitizer runs on the
//! result, so mapping never lets anything through it would not.

use html5gum::{DefaultEmitter, Token, Tokenizer};

use std::collections::BTreeMap;

use super::{Mark, Rendered, Utf16Offsets, marked_run, sanitize_html};

/// Elements whose content the tokenizer reads as raw text or RCDATA.
const RAW_TEXT: &[&[u8]] = &[
    b"script",
    b"style",
    b"textarea",
    b"title",
    b"iframe",
    b"xmp",
    b"noembed",
    b"noframes",
    b"noscript",
    b"plaintext",
];

/// Elements that start foreign content.
const FOREIGN: &[&[u8]] = &[b"svg", b"math"];

/// Sanitizes an HTML body like [`super::sanitize_html`], with its literal
/// text in offset spans and each mark's range in `<mark data-a="id …">`.
pub fn render_html_marked(source: &str, marks: &[Mark]) -> Rendered {
    let mut quotes = BTreeMap::new();
    let mut mapped = String::with_capacity(source.len() * 2);
    let mut copied = 0;
    let mut offsets = Utf16Offsets::new(source);
    for (start, end) in literal_runs(source) {
        let Some(text) = source.get(start..end) else {
            continue;
        };
        mapped.push_str(&source[copied..start]);
        let offset = offsets.at(start) as u64;
        mapped.push_str(&marked_run(text, offset, marks, &mut quotes));
        copied = end;
    }
    mapped.push_str(&source[copied..]);
    Rendered {
        html: sanitize_html(&mapped),
        quotes,
    }
}

/// The byte ranges of `source` that are literal text outside raw text and
/// foreign elements, in order, whitespace-only runs left out.
fn literal_runs(source: &str) -> Vec<(usize, usize)> {
    let mut emitter = DefaultEmitter::<usize>::new_with_span();
    emitter.naively_switch_states(true);
    let mut runs = Vec::new();
    let mut raw = false;
    let mut foreign = 0_usize;
    for token in Tokenizer::new_with_emitter(source, emitter).flatten() {
        match token {
            Token::StartTag(tag) => {
                let name = tag.name.as_slice();
                raw = RAW_TEXT.contains(&name);
                if FOREIGN.contains(&name) && !tag.self_closing {
                    foreign += 1;
                }
            }
            Token::EndTag(tag) => {
                raw = false;
                if FOREIGN.contains(&tag.name.as_slice()) {
                    foreign = foreign.saturating_sub(1);
                }
            }
            Token::String(text) if !raw && foreign == 0 => {
                let (start, end) = (text.span.start, text.span.end);
                if let Some(written) = source.get(start..end) {
                    split_literal(written, start, &mut runs);
                }
            }
            _ => {}
        }
    }
    runs
}

/// Adds to `runs` the pieces of the text `written` (starting at byte
/// `base`) that render as written: everything but character references,
/// carriage returns and NULs, and but whitespace-only pieces.
fn split_literal(written: &str, base: usize, runs: &mut Vec<(usize, usize)>) {
    let bytes = written.as_bytes();
    let mut piece = 0;
    let mut at = 0;
    let push = |from: usize, to: usize, runs: &mut Vec<(usize, usize)>| {
        if written[from..to].chars().any(|c| !c.is_ascii_whitespace()) {
            runs.push((base + from, base + to));
        }
    };
    while at < bytes.len() {
        let skip = match bytes[at] {
            // A character reference, or a bare ampersand: as far as a
            // reference could reach, so it is never split.
            b'&' => {
                1 + bytes[at + 1..]
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric() || **b == b'#')
                    .count()
            }
            b'\r' => 1 + usize::from(bytes.get(at + 1) == Some(&b'\n')),
            0 => 1,
            _ => {
                at += 1;
                continue;
            }
        };
        push(piece, at, runs);
        at += skip;
        if bytes.get(at) == Some(&b';') && bytes[at - skip] == b'&' {
            at += 1;
        }
        piece = at;
    }
    push(piece, bytes.len(), runs);
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use proptest::prelude::*;

    use super::*;
    use crate::render::selections::runs;

    /// The UTF-16 slice `offset..offset + len(text)` of `source`.
    fn source_at(source: &str, offset: u64, text: &str) -> String {
        let units: Vec<u16> = source.encode_utf16().collect();
        let len = text.encode_utf16().count();
        String::from_utf16_lossy(&units[offset as usize..offset as usize + len])
    }

    #[test]
    fn literal_text_is_mapped_and_references_are_not() {
        let source = "<p>Tom &amp; <b>Jerry</b>\r\nrun</p>";
        let html = render_html_marked(source, &[]).html;
        assert_eq!(
            runs(&html),
            vec![
                (3, "Tom ".to_owned()),
                (16, "Jerry".to_owned()),
                (27, "run".to_owned())
            ],
            "{html}"
        );
        assert!(html.contains("&amp;"), "the reference is kept: {html}");
    }

    #[test]
    fn raw_text_foreign_content_and_layout_whitespace_are_left_alone() {
        let source = "<table>\n <tr><td>cell</td></tr>\n</table><svg><text>drawn</text></svg>\
                      <textarea>typed</textarea><style>p{}</style><script>x()</script>after";
        let html = render_html_marked(source, &[]).html;
        let texts: Vec<String> = runs(&html).into_iter().map(|(_, text)| text).collect();
        assert_eq!(texts, vec!["cell", "after"], "{html}");
        assert!(!html.contains("<script"), "{html}");
    }

    #[test]
    fn marks_wrap_their_range() {
        let source = "<p>Use <code>PATCH</code> here</p>";
        let marks = [Mark {
            start: 13,
            end: 18,
            id: "a_1_001".into(),
        }];
        let rendered = render_html_marked(source, &marks);
        assert!(
            rendered
                .html
                .contains("<mark data-a=\"a_1_001\"><span data-o=\"13\">PATCH</span></mark>"),
            "{}",
            rendered.html
        );
        let across = [Mark {
            start: 13,
            end: 29,
            id: "a_1_002".into(),
        }];
        assert_eq!(
            &source[13..29],
            "PATCH</code> her",
            "the range runs across the markup"
        );
        let quotes = render_html_marked(source, &across).quotes;
        assert_eq!(
            quotes.get("a_1_002").map(String::as_str),
            Some("PATCH her"),
            "the quote is the text as shown"
        );
    }

    #[test]
    fn hostile_markup_is_still_removed() {
        for payload in [
            "<img src=x onerror=alert(1)>text",
            "<a href=\"javascript:alert(1)\">link</a>",
            "<span data-o=\"0\" onclick=\"alert(1)\">x</span>",
            "<scr<script>ipt>alert(1)</scr</script>ipt>",
            "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\"></p></noscript>",
            "<svg><style><img src=x onerror=alert(1)></style></svg>",
        ] {
            let html = render_html_marked(payload, &[]).html.to_lowercase();
            for banned in ["<script", "onerror", "onclick", "javascript:", "<svg"] {
                assert!(
                    !html.contains(banned),
                    "{payload:?} left {banned:?} in {html:?}"
                );
            }
        }
    }

    /// Pieces of HTML an agent writes: text, references, tags, comments,
    /// raw text, line ends.
    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-zé👋 ]{1,8}",
            Just("&amp;".to_owned()),
            Just("&lt;b&gt;".to_owned()),
            Just("&#x41;".to_owned()),
            Just("&ampx".to_owned()),
            Just(" & ".to_owned()),
            Just("a < b".to_owned()),
            Just("\r\n".to_owned()),
            Just("\r".to_owned()),
            Just("<b>".to_owned()),
            Just("</b>".to_owned()),
            Just("<p class=\"x>y\">".to_owned()),
            Just("<br/>".to_owned()),
            Just("<!-- note -->".to_owned()),
            Just("<script>s<b>t</script>".to_owned()),
            Just("<title>t</title>".to_owned()),
            Just("<svg><text>v</text></svg>".to_owned()),
            Just("<table><tr><td>".to_owned()),
            Just("<pre>".to_owned()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        /// Every mapped run is exactly the source text at its offset, so a
        /// selection inside it stores the characters that were selected.
        #[test]
        fn every_run_is_its_source_text(pieces in proptest::collection::vec(piece(), 1..16)) {
            let source: String = pieces.concat();
            for (offset, text) in runs(&render_html_marked(&source, &[]).html) {
                prop_assert_eq!(source_at(&source, offset, &text), text);
            }
        }
    }
}
