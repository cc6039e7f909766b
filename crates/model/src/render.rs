//! Delivery bodies turned into HTML that is safe to put in the app's page.
//!
//! Markdown is rendered with pulldown-cmark (tables, task lists,
//! strikethrough, footnotes) and every result, markdown or HTML, is cleaned
//! by ammonia: no scripts, no event handlers, no `javascript:` URLs, no
//! frames, no forms, no styles. The app's CSP forbids inline script as a
//! second wall.
//!
//! Fenced code blocks in a known language are highlighted by syntect as
//! `<span class="hl-…">` runs (only `hl-` classes survive the sanitizer, so
//! a body cannot borrow the app's own classes).
//!
//! Each run of literal text in rendered markdown is wrapped in
//! `<span data-o="N">`, N being the UTF-16 offset of that text in the
//! markdown source, so a selection in the window maps back to the
//! `text_range` offsets annotations store.

use std::{
    borrow::Cow,
    cell::RefCell,
    collections::{BTreeMap, HashSet},
    ops::Range,
    sync::OnceLock,
};

use pulldown_cmark::{CodeBlockKind, CowStr, Event, Options, Parser, Tag, TagEnd, html};
use syntect::{
    html::{ClassStyle, line_tokens_to_classed_spans},
    parsing::{ParseState, ScopeStack, SyntaxSet},
    util::LinesWithEndings,
};

mod html_body;

pub use html_body::render_html_marked;

use crate::{ContentType, html::escape};

/// The attribute carrying a text run's source offset.
pub const OFFSET_ATTRIBUTE: &str = "data-o";

/// The attribute on a `<mark>` naming the annotations it shows.
pub const MARK_ATTRIBUTE: &str = "data-a";

/// An annotated range to mark: UTF-16 offsets `start..end` and its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    /// First offset (inclusive).
    pub start: u64,
    /// Last offset (exclusive).
    pub end: u64,
    /// The annotation id.
    pub id: String,
}

/// A body rendered for the window.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rendered {
    /// The sanitized HTML, text runs in offset spans, marks in `<mark>`.
    pub html: String,
    /// For each mark id, the text its range covers as shown: the selected
    /// words without the markup between them (`**`, `</b>`).
    pub quotes: BTreeMap<String, String>,
}

/// Renders a delivery body of `kind` with `marks`: markdown through
/// [`render_markdown_marked`], HTML through [`render_html_marked`].
pub fn render_body(kind: ContentType, source: &str, marks: &[Mark]) -> Rendered {
    match kind {
        ContentType::Markdown => render_markdown_marked(source, marks),
        ContentType::Html => render_html_marked(source, marks),
    }
}

fn sanitizer() -> ammonia::Builder<'static> {
    let mut builder = ammonia::Builder::default();
    builder
        .add_tag_attributes("span", [OFFSET_ATTRIBUTE])
        .add_tags(["mark"])
        .add_tag_attributes("mark", [MARK_ATTRIBUTE])
        .add_tag_attributes("code", ["class"])
        .add_tag_attributes("span", ["class"])
        .attribute_filter(keep_own_classes)
        .add_tags(["input"])
        .add_tag_attributes("input", ["type", "checked", "disabled"])
        .url_schemes(HashSet::from(["http", "https", "mailto"]))
        .link_rel(Some("noopener noreferrer"));
    builder
}

/// Keeps only highlighting (`hl-…`) and language (`language-…`) classes.
fn keep_own_classes<'a>(element: &str, attribute: &str, value: &'a str) -> Option<Cow<'a, str>> {
    if attribute != "class" {
        return Some(Cow::Borrowed(value));
    }
    let prefix = if element == "code" {
        "language-"
    } else {
        "hl-"
    };
    let kept: Vec<&str> = value
        .split_whitespace()
        .filter(|class| class.starts_with(prefix))
        .collect();
    (!kept.is_empty()).then(|| Cow::Owned(kept.join(" ")))
}

fn syntaxes() -> &'static SyntaxSet {
    static SYNTAXES: OnceLock<SyntaxSet> = OnceLock::new();
    SYNTAXES.get_or_init(SyntaxSet::load_defaults_newlines)
}

/// A code block's text as the parser gave it: each piece with the byte
/// where it starts in the source, when it is the source's own text.
type CodePieces<'a> = Vec<(CowStr<'a>, Option<usize>)>;

/// The code block `pieces` highlighted as `language` (`None` for an unknown
/// language), every run of text wrapped by `run(text, source byte)` when
/// it is mapped, escaped otherwise, so a selection in code maps back to the
/// source like any other text.
fn highlight(
    pieces: &CodePieces<'_>,
    language: &str,
    run: &mut dyn FnMut(&str, usize) -> String,
) -> Option<String> {
    let syntaxes = syntaxes();
    let syntax = syntaxes.find_syntax_by_token(language)?;
    let mut state = ParseState::new(syntax);
    let mut stack = ScopeStack::new();
    let style = ClassStyle::SpacedPrefixed { prefix: "hl-" };
    let mut html = String::new();
    let mut open = 0_isize;
    let mut text = |html: &mut String, piece: &str, at: Option<usize>| match at {
        Some(at) if !piece.is_empty() => html.push_str(&run(piece, at)),
        _ => html.push_str(&escape(piece)),
    };
    for (piece, start) in pieces {
        let mut line_start = 0;
        for line in LinesWithEndings::from(piece) {
            let at = |within: usize| start.map(|start| start + line_start + within);
            let ops = state.parse_line(line, syntaxes).ok()?;
            let mut done = 0;
            for (index, op) in &ops {
                if *index > done {
                    text(&mut html, &line[done..*index], at(done));
                    done = *index;
                }
                let (tags, delta) =
                    line_tokens_to_classed_spans("", &[(0, op.clone())], style, &mut stack).ok()?;
                html.push_str(&tags);
                open += delta;
            }
            text(&mut html, &line[done..], at(done));
            line_start += line.len();
        }
    }
    for _ in 0..open.max(0) {
        html.push_str("</span>");
    }
    Some(html)
}

/// A fenced code block being read: language, text events, start.
type OpenBlock<'a> = (CowStr<'a>, Vec<(Event<'a>, Range<usize>)>, Range<usize>);

/// Replaces each fenced code block in a known language by its highlighted
/// HTML, its text still mapped through `run`; other events (and code in an
/// unknown language) pass through with their source ranges.
fn highlight_code_blocks<'a>(
    source: &str,
    events: impl Iterator<Item = (Event<'a>, Range<usize>)>,
    run: &mut dyn FnMut(&str, usize) -> String,
) -> Vec<(Event<'a>, Range<usize>)> {
    let mut out = Vec::new();
    // The open block: its language, its text events, where it starts.
    let mut block: Option<OpenBlock<'a>> = None;
    for (event, range) in events {
        match (event, &mut block) {
            (Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(language))), None)
                if !language.is_empty() =>
            {
                block = Some((language, Vec::new(), range));
            }
            (Event::Text(text), Some((_, pieces, _))) => pieces.push((Event::Text(text), range)),
            (Event::End(TagEnd::CodeBlock), Some(_)) => {
                let Some((language, pieces, start)) = block.take() else {
                    continue;
                };
                let token = language.split_whitespace().next().unwrap_or_default();
                let code: CodePieces<'a> = pieces
                    .iter()
                    .filter_map(|(event, range)| match event {
                        Event::Text(text) => {
                            let mapped = source.get(range.clone()) == Some(text.as_ref());
                            Some((text.clone(), mapped.then_some(range.start)))
                        }
                        _ => None,
                    })
                    .collect();
                match highlight(&code, token, run) {
                    Some(html) => out.push((
                        Event::Html(CowStr::from(format!(
                            "<pre><code class=\"language-{}\">{html}</code></pre>\n",
                            escape(token)
                        ))),
                        start,
                    )),
                    None => {
                        // Unknown language: the block as it was, its text
                        // mapped like any other.
                        out.push((
                            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(language))),
                            start.clone(),
                        ));
                        out.extend(pieces);
                        out.push((Event::End(TagEnd::CodeBlock), range));
                    }
                }
            }
            (event, _) => out.push((event, range)),
        }
    }
    out
}

/// Cleans an HTML fragment for display in the app's own page.
pub fn sanitize_html(html: &str) -> String {
    sanitizer().clean(html).to_string()
}

/// Renders markdown to sanitized HTML with source-offset spans.
pub fn render_markdown(source: &str) -> String {
    render_markdown_marked(source, &[]).html
}

/// Renders markdown like [`render_markdown`], wrapping the text of each
/// mark's range in `<mark data-a="id …">`. Every text node stays the only
/// child of its `span[data-o]`, so selections keep mapping to offsets.
pub fn render_markdown_marked(source: &str, marks: &[Mark]) -> Rendered {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_FOOTNOTES;
    let quotes = RefCell::new(BTreeMap::new());
    let mut code_offsets = Utf16Offsets::new(source);
    let mut code_run = |text: &str, byte: usize| {
        let offset = code_offsets.at(byte) as u64;
        marked_run(text, offset, marks, &mut quotes.borrow_mut())
    };
    let highlighted = highlight_code_blocks(
        source,
        Parser::new_ext(source, options).into_offset_iter(),
        &mut code_run,
    );
    let highlighted = keep_glob_stars(source, highlighted);
    let mut offsets = Utf16Offsets::new(source);
    let events = highlighted.into_iter().map(|(event, range)| match event {
        Event::Text(text)
            if !range.is_empty() && source.get(range.clone()) == Some(text.as_ref()) =>
        {
            let offset = offsets.at(range.start);
            Event::InlineHtml(CowStr::from(marked_run(
                &text,
                offset as u64,
                marks,
                &mut quotes.borrow_mut(),
            )))
        }
        // Inline code: the text inside the backticks is mapped too, so a
        // selection in it stores exactly the code.
        Event::Code(code) => match source
            .get(range.clone())
            .and_then(|raw| raw.find(code.as_ref()))
        {
            Some(at) if !code.is_empty() => {
                let offset = offsets.at(range.start + at);
                Event::InlineHtml(CowStr::from(format!(
                    "<code>{}</code>",
                    marked_run(&code, offset as u64, marks, &mut quotes.borrow_mut())
                )))
            }
            _ => Event::Code(code),
        },
        other => other,
    });
    let mut unsafe_html = String::with_capacity(source.len() * 2);
    html::push_html(&mut unsafe_html, events);
    Rendered {
        html: sanitize_html(&unsafe_html),
        quotes: quotes.into_inner(),
    }
}

/// Emphasis whose `*` delimiters belong to a glob or path given as plain
/// text (`src/** and docs/**`, `*.rs or src/*`) turned back into the
/// literal stars: a delimiter that follows a `/` (the opening one, or the
/// closing one), or a closing one followed by `/`, is a path's, not
/// emphasis — which, in CommonMark, `/` on both sides cannot tell.
/// Emphasis of a path (`**/etc/hosts**`, `*src/main.rs*`) stays.
fn keep_glob_stars<'a>(
    source: &str,
    mut events: Vec<(Event<'a>, Range<usize>)>,
) -> Vec<(Event<'a>, Range<usize>)> {
    let char_before = |at: usize| source.get(..at).and_then(|text| text.chars().next_back());
    let char_after = |at: usize| source.get(at..).and_then(|text| text.chars().next());
    let mut index = 0;
    while index < events.len() {
        let (event, range) = &events[index];
        let width = match event {
            Event::Start(Tag::Strong) => 2,
            Event::Start(Tag::Emphasis) => 1,
            _ => {
                index += 1;
                continue;
            }
        };
        let range = range.clone();
        let stars = source.get(range.start..range.start + width) == Some(&"**"[..width])
            && source.get(range.end.saturating_sub(width)..range.end) == Some(&"**"[..width]);
        let closing = range.end.saturating_sub(width);
        let glob = stars
            && (char_before(range.start) == Some('/')
                || char_before(closing) == Some('/')
                || char_after(range.end) == Some('/'));
        if glob && let Some(end) = matching_end(&events, index) {
            let delimiter = CowStr::Borrowed(&"**"[..width]);
            events[index] = (
                Event::Text(delimiter.clone()),
                range.start..range.start + width,
            );
            events[end] = (Event::Text(delimiter), closing..range.end);
        }
        index += 1;
    }
    events
}

/// The index of the event that ends the element `events[start]` starts.
fn matching_end(events: &[(Event<'_>, Range<usize>)], start: usize) -> Option<usize> {
    let mut depth = 0_usize;
    for (index, (event, _)) in events.iter().enumerate().skip(start) {
        match event {
            Event::Start(_) => depth += 1,
            Event::End(_) => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(index);
                }
            }
            _ => {}
        }
    }
    None
}

/// One text run starting at UTF-16 `offset`, split where marks begin and
/// end, each piece in its own offset span, marked pieces in `<mark>` (and
/// added to their marks' `quotes`).
fn marked_run(
    text: &str,
    offset: u64,
    marks: &[Mark],
    quotes: &mut BTreeMap<String, String>,
) -> String {
    let length = text.encode_utf16().count() as u64;
    let mut cuts = vec![0, length];
    for mark in marks {
        for edge in [mark.start, mark.end] {
            if edge > offset && edge < offset + length {
                cuts.push(edge - offset);
            }
        }
    }
    cuts.sort_unstable();
    cuts.dedup();
    let mut html = String::new();
    let mut pieces = text.chars();
    let mut position = 0_u64;
    for window in cuts.windows(2) {
        let (from, to) = (window[0], window[1]);
        let mut piece = String::new();
        while position < to {
            let Some(character) = pieces.next() else {
                break;
            };
            position += character.len_utf16() as u64;
            piece.push(character);
        }
        let (start, end) = (offset + from, offset + to);
        let ids: Vec<&str> = marks
            .iter()
            .filter(|mark| mark.start < end && mark.end > start)
            .map(|mark| mark.id.as_str())
            .collect();
        let span = format!(
            "<span {OFFSET_ATTRIBUTE}=\"{start}\">{}</span>",
            escape(&piece)
        );
        for id in &ids {
            quotes.entry((*id).to_owned()).or_default().push_str(&piece);
        }
        if ids.is_empty() {
            html.push_str(&span);
        } else {
            html.push_str(&format!(
                "<mark {MARK_ATTRIBUTE}=\"{}\">{span}</mark>",
                escape(&ids.join(" "))
            ));
        }
    }
    html
}

/// Converts byte offsets to UTF-16 offsets, fast for increasing positions
/// (and correct, if slower, for any).
struct Utf16Offsets<'a> {
    source: &'a str,
    byte: usize,
    utf16: usize,
}

impl<'a> Utf16Offsets<'a> {
    fn new(source: &'a str) -> Self {
        Self {
            source,
            byte: 0,
            utf16: 0,
        }
    }

    fn at(&mut self, byte: usize) -> usize {
        if byte < self.byte {
            self.byte = 0;
            self.utf16 = 0;
        }
        let stretch = self.source.get(self.byte..byte).unwrap_or_default();
        self.utf16 += stretch.encode_utf16().count();
        self.byte = byte;
        self.utf16
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn a_diff_block_marks_its_added_removed_and_header_lines() {
        let html = render_markdown(
            "```diff\n--- /dev/null\n+++ b/notes.md\n@@ -0,0 +1 @@\n-old\n+new\n```\n",
        );
        for class in ["hl-inserted", "hl-deleted", "hl-range"] {
            assert!(html.contains(class), "{class}: {html}");
        }
    }

    #[test]
    fn renders_gfm_tables_task_lists_and_code() {
        let html = render_markdown(
            "| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n- [ ] todo\n\n```rust\nfn main() {}\n```\n",
        );
        assert!(html.contains("<table>"), "{html}");
        assert!(html.contains("type=\"checkbox\""), "{html}");
        assert!(html.contains("class=\"language-rust\""), "{html}");
    }

    #[test]
    fn known_languages_are_highlighted_with_prefixed_classes() {
        let html = render_markdown(
            "```rust\nfn main() { let x = \"hi\"; }\n```\n\n```nosuchlang\nplain <b>\n```\n",
        );
        assert!(html.contains("<span class=\"hl-"), "{html}");
        assert!(
            html.contains("hl-keyword") || html.contains("hl-storage"),
            "{html}"
        );
        assert!(
            html.contains("plain &lt;b&gt;"),
            "unknown languages stay plain and escaped: {html}"
        );
        let borrowed = render_markdown(
            "<span class=\"alert-bar hl-x\">x</span><code class=\"nav-item language-js\">y</code>",
        );
        assert!(borrowed.contains("class=\"hl-x\""), "{borrowed}");
        assert!(borrowed.contains("class=\"language-js\""), "{borrowed}");
        assert!(
            !borrowed.contains("alert-bar") && !borrowed.contains("nav-item"),
            "{borrowed}"
        );
    }

    #[test]
    fn text_runs_carry_their_utf16_source_offset() {
        let source = "# Tïtle 👋\n\nSome *emphasis* here.";
        let html = render_markdown(source);
        // "Some " starts after "# Tïtle 👋\n\n": 10 UTF-16 units + 2 newlines.
        assert!(html.contains("<span data-o=\"12\">Some </span>"), "{html}");
        let emphasis_at = source.encode_utf16().count() - "emphasis* here.".len();
        assert!(
            html.contains(&format!("<span data-o=\"{emphasis_at}\">emphasis</span>")),
            "{html}"
        );
    }

    /// Issue 39, item 14e: a chat answer's `src/**` and `docs/**` in plain
    /// text came out as bold ` and docs/`.
    #[test]
    fn globs_in_text_keep_their_stars_and_emphasis_stays_emphasis() {
        let text = |html: &str| -> String {
            let mut plain = String::new();
            let mut inside = false;
            for character in html.chars() {
                match character {
                    '<' => inside = true,
                    '>' => inside = false,
                    c if !inside => plain.push(c),
                    _ => {}
                }
            }
            plain.trim().to_owned()
        };
        for glob in [
            "Building may write src/** and docs/**.",
            "Match *.rs or src/* here.",
            "src/*.rs or lib/*.rs",
            "use **/*.rs or **/*.toml",
            "tests/**/*.rs and crates/**/*.rs",
            "src/**/*.rs",
            "globs src/**/*.rs, docs/**/*.md",
            "Globs: src/**/*.rs and tests/**",
            "paths like a/**/b/**/c",
            "In code: `src/**` and `docs/**`.",
        ] {
            let html = render_markdown(glob);
            assert!(
                !html.contains("<strong>") && !html.contains("<em>"),
                "{glob}: {html}"
            );
            assert_eq!(text(&html), glob.replace('`', ""), "{glob}: {html}");
        }
        // The stars are the source's own text, mapped like any other.
        let html = render_markdown("src/**/x and docs/**/y");
        assert!(html.contains("<span data-o=\"4\">**</span>"), "{html}");
        for (emphasis, tag) in [
            ("**bold** words", "<strong>"),
            ("an *italic* word", "<em>"),
            ("**/etc/hosts** is read", "<strong>"),
            ("see *src/main.rs* first", "<em>"),
            ("**and/or**", "<strong>"),
        ] {
            let html = render_markdown(emphasis);
            assert!(html.contains(tag), "{emphasis}: {html}");
        }
    }

    #[test]
    fn escaped_text_gets_no_offset_rather_than_a_wrong_one() {
        let html = render_markdown("a &amp; b");
        assert_eq!(
            html, "<p><span data-o=\"0\">a </span>&amp;<span data-o=\"7\"> b</span></p>\n",
            "the entity, whose text differs from its source, is left unmapped"
        );
    }

    #[test]
    fn marks_split_runs_and_keep_offsets() {
        let source = "Hello brave new world";
        let marks = [
            Mark {
                start: 6,
                end: 15,
                id: "a_1_001".into(),
            },
            Mark {
                start: 12,
                end: 21,
                id: "a_1_002".into(),
            },
        ];
        let rendered = render_markdown_marked(source, &marks);
        assert_eq!(
            rendered.quotes.get("a_1_002").map(String::as_str),
            Some("new world")
        );
        let html = rendered.html;
        assert_eq!(
            html,
            concat!(
                "<p><span data-o=\"0\">Hello </span>",
                "<mark data-a=\"a_1_001\"><span data-o=\"6\">brave </span></mark>",
                "<mark data-a=\"a_1_001 a_1_002\"><span data-o=\"12\">new</span></mark>",
                "<mark data-a=\"a_1_002\"><span data-o=\"15\"> world</span></mark></p>\n"
            )
        );
    }

    #[test]
    fn marks_count_utf16_units() {
        let html = render_markdown_marked(
            "a👋b",
            &[Mark {
                start: 1,
                end: 3,
                id: "x".into(),
            }],
        )
        .html;
        assert!(
            html.contains(
                "<mark data-a=\"x\"><span data-o=\"1\">👋</span></mark><span data-o=\"3\">b</span>"
            ),
            "{html}"
        );
    }

    #[test]
    fn hostile_markup_is_removed() {
        let hostile = [
            "<script>alert(1)</script>",
            "<img src=x onerror=alert(1)>",
            "[x](javascript:alert(1))",
            "<a href=\"JaVaScRiPt:alert(1)\">x</a>",
            "<iframe src=\"https://example.com\"></iframe>",
            "<svg><script>alert(1)</script></svg>",
            "<div style=\"background:url(javascript:alert(1))\">x</div>",
            "<form action=\"https://example.com\"><input name=q></form>",
            "<object data=\"x.swf\"></object>",
            "<math><mi xlink:href=\"javascript:alert(1)\">x</mi></math>",
        ];
        for payload in hostile {
            let html = render_markdown(payload).to_lowercase();
            for banned in [
                "<script",
                "onerror",
                "javascript:",
                "<iframe",
                "style=",
                "<form",
                "<object",
                "xlink:href",
            ] {
                assert!(
                    !html.contains(banned),
                    "{payload:?} left {banned:?} in {html:?}"
                );
            }
        }
    }
}

/// Selections in rendered markdown, as a browser reports them, map to
/// exactly the selected text in the source.
#[cfg(test)]
mod selections {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use proptest::prelude::*;

    use super::render_markdown;
    use crate::annotation::{MappedRun, snap_to_text};

    /// The mapped runs of rendered HTML, in document order: offset, text.
    pub(crate) fn runs(html: &str) -> Vec<(u64, String)> {
        let mut found = Vec::new();
        let mut rest = html;
        while let Some(at) = rest.find("<span data-o=\"") {
            rest = &rest[at + "<span data-o=\"".len()..];
            let quote = rest.find('"').unwrap();
            let offset: u64 = rest[..quote].parse().unwrap();
            let body = &rest[quote + 2..];
            let close = body.find("</span>").unwrap();
            let text = body[..close]
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&amp;", "&");
            found.push((offset, text));
            rest = &body[close..];
        }
        found
    }

    fn word() -> impl Strategy<Value = String> {
        "[a-z]{1,6}"
    }

    /// One inline piece in each form the issue names.
    fn inline() -> impl Strategy<Value = String> {
        prop_oneof![
            word(),
            word().prop_map(|w| format!("**{w}**")),
            word().prop_map(|w| format!("*{w}*")),
            word().prop_map(|w| format!("`{w}`")),
            (word(), word()).prop_map(|(t, u)| format!("[{t}](https://x.test/{u})")),
            (word(), word()).prop_map(|(a, b)| format!("**{a} {b}**")),
        ]
    }

    fn markdown() -> impl Strategy<Value = String> {
        let paragraph = proptest::collection::vec(inline(), 1..8).prop_map(|p| p.join(" "));
        let table = proptest::collection::vec((inline(), inline()), 1..4).prop_map(|rows| {
            let mut table = String::from("| a | b |\n|---|---|\n");
            for (left, right) in rows {
                table.push_str(&format!("| {left} | {right} |\n"));
            }
            table
        });
        let code = (
            word(),
            word(),
            prop_oneof![Just("rust"), Just("python"), Just("zzz")],
        )
            .prop_map(|(a, b, language)| {
                format!("```{language}\nlet {a} = \"{b}\"; // {a}\n{b}({a})\n```")
            });
        proptest::collection::vec(prop_oneof![paragraph, table, code], 1..4)
            .prop_map(|blocks| blocks.join("\n\n"))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

        #[test]
        fn a_selection_stores_exactly_the_selected_text(
            source in markdown(),
            picks in (any::<prop::sample::Index>(), any::<prop::sample::Index>()),
            browser_style in (any::<bool>(), any::<bool>()),
        ) {
            let runs = runs(&render_markdown(&source));
            let visible: String = runs.iter().map(|(_, text)| text.as_str()).collect();
            prop_assume!(visible.len() >= 2);
            let (a, b) = (picks.0.index(visible.len()), picks.1.index(visible.len()));
            let (i, j) = (a.min(b), a.max(b) + 1);
            // Where visible index `at` lies: (run, position in it).
            let starts: Vec<usize> = runs
                .iter()
                .scan(0, |total, (_, text)| {
                    let start = *total;
                    *total += text.len();
                    Some(start)
                })
                .collect();
            let run_of = |at: usize| starts.iter().rposition(|start| *start <= at).unwrap();
            // The start point: inside its run, or (as WebKit reports a
            // selection that begins a run) at the end of the run before.
            let k = run_of(i);
            let start = if i == starts[k] && k > 0 && browser_style.0 {
                runs[k - 1].0 + runs[k - 1].1.len() as u64
            } else {
                runs[k].0 + (i - starts[k]) as u64
            };
            // The end point: inside its run, or at the start of the next.
            let k = run_of(j - 1);
            let end = if j == starts[k] + runs[k].1.len() && k + 1 < runs.len() && browser_style.1 {
                runs[k + 1].0
            } else {
                runs[k].0 + (j - starts[k]) as u64
            };
            let mapped: Vec<MappedRun> = runs
                .iter()
                .map(|(offset, text)| MappedRun { offset: *offset, len: text.len() as u64 })
                .collect();
            let (from, to) = snap_to_text(&mapped, start.min(end), start.max(end)).unwrap();
            // The stored range's text, markup left out, is the selection.
            let covered: String = runs
                .iter()
                .filter_map(|(offset, text)| {
                    let (lo, hi) = (from.max(*offset), to.min(offset + text.len() as u64));
                    (lo < hi).then(|| text[(lo - offset) as usize..(hi - offset) as usize].to_owned())
                })
                .collect();
            prop_assert_eq!(&covered, &visible[i..j]);
            // And no markup at either edge: both ends lie in mapped text.
            let inside = |at: u64| mapped.iter().any(|run| (run.offset..run.offset + run.len).contains(&at));
            prop_assert!(inside(from), "starts in markup: {:?}", &source[from as usize..]);
            prop_assert!(inside(to - 1), "ends in markup: {:?}", &source[..to as usize]);
        }
    }

    #[test]
    fn the_bold_words_of_the_report_store_only_themselves() {
        let source = "All **42 tests** pass.";
        let runs = runs(&render_markdown(source));
        let mapped: Vec<MappedRun> = runs
            .iter()
            .map(|(offset, text)| MappedRun {
                offset: *offset,
                len: text.len() as u64,
            })
            .collect();
        // WebKit: from the end of "All " to the start of " pass.".
        let (from, to) = snap_to_text(&mapped, 4, 16).unwrap();
        assert_eq!(&source[from as usize..to as usize], "42 tests");
        let fenced = "Intro\n\n```rust\nlet answer = 42;\n```\n";
        let runs = runs_of(fenced);
        let code: String = runs
            .iter()
            .filter(|(offset, _)| *offset >= 14)
            .map(|(_, text)| text.as_str())
            .collect();
        assert_eq!(
            code, "let answer = 42;\n",
            "highlighted code is mapped: {runs:?}"
        );
        assert!(
            render_markdown(fenced).contains("hl-"),
            "and still highlighted"
        );
        let inline_code = "Run `cargo test` now";
        let runs = runs_of(inline_code);
        assert!(
            runs.iter()
                .any(|(offset, text)| text == "cargo test" && *offset == 5)
        );
    }

    fn runs_of(source: &str) -> Vec<(u64, String)> {
        runs(&render_markdown(source))
    }
}
