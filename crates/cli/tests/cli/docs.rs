//! Issue 41: the user guide is README.md (the front door) and one page per
//! area under `docs/`. Every relative link in README.md, ARCHITECTURE.md
//! and `docs/*.md` leads to a file that exists and, with an anchor, to a
//! heading of that file as GitHub names it; and README.md stays short.

use std::{
    collections::{BTreeMap, HashMap},
    fs,
    path::{Component, Path, PathBuf},
};

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// The front door's bound: past it, README.md is turning back into the
/// manual the `docs/` pages replaced.
const README_MAX_LINES: usize = 200;

/// The repository's root, two folders above this crate.
fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// README.md, ARCHITECTURE.md and every `docs/*.md`, as paths relative to
/// the repository's root.
fn documents(root: &Path) -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .map(|path| PathBuf::from("docs").join(path.file_name().unwrap()))
        .collect();
    pages.sort();
    let mut all = vec![PathBuf::from("README.md"), PathBuf::from("ARCHITECTURE.md")];
    all.extend(pages);
    all
}

/// One link or image of a document: where it points and on which line.
struct Link {
    line: usize,
    target: String,
}

/// What a document holds for this test: its links and the anchors its
/// headings produce.
struct Document {
    links: Vec<Link>,
    anchors: Vec<String>,
}

/// The anchor GitHub gives a heading's text: lowercased, letters, digits,
/// spaces, `-` and `_` kept and every other character dropped, each space
/// a `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// Reads a document's links and headings with a real markdown parser, so
/// that code blocks, inline code and reference links count as GitHub
/// renders them.
fn parse(text: &str) -> Document {
    let line_of = |offset: usize| text[..offset].matches('\n').count() + 1;
    let mut links = Vec::new();
    let mut anchors = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut heading: Option<String> = None;
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES;
    for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
        match event {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                links.push(Link {
                    line: line_of(range.start),
                    target: dest_url.to_string(),
                });
            }
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::Text(part) | Event::Code(part) => {
                if let Some(heading) = heading.as_mut() {
                    heading.push_str(&part);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let base = anchor(&heading.take().unwrap_or_default());
                // GitHub numbers a repeated heading's anchor: `x`, `x-1`, …
                let count = seen.entry(base.clone()).or_insert(0);
                anchors.push(match *count {
                    0 => base.clone(),
                    n => format!("{base}-{n}"),
                });
                *count += 1;
            }
            _ => {}
        }
    }
    Document { links, anchors }
}

/// `target` resolved against the folder of `from`, both relative to the
/// repository's root, with `.` and `..` taken out.
fn resolve(from: &Path, target: &str) -> PathBuf {
    let mut path = PathBuf::new();
    for part in from
        .parent()
        .unwrap_or(Path::new(""))
        .join(target)
        .components()
    {
        match part {
            Component::ParentDir => {
                path.pop();
            }
            Component::CurDir => {}
            other => path.push(other),
        }
    }
    path
}

/// Whether a link leaves the repository (a web page, a mail address).
fn is_external(target: &str) -> bool {
    let lower = target.to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://") || lower.starts_with("mailto:")
}

/// `path` (relative to `root`) parsed, once.
fn load<'a>(root: &Path, path: &Path, parsed: &'a mut BTreeMap<PathBuf, Document>) -> &'a Document {
    parsed
        .entry(path.to_path_buf())
        .or_insert_with(|| parse(&fs::read_to_string(root.join(path)).unwrap()))
}

/// Every broken relative link of `documents` (paths relative to `root`),
/// as `file:line: target (why)`.
fn broken_links(root: &Path, documents: &[PathBuf]) -> Vec<String> {
    let mut parsed: BTreeMap<PathBuf, Document> = BTreeMap::new();
    let mut broken = Vec::new();
    for document in documents {
        let links: Vec<(usize, String)> = load(root, document, &mut parsed)
            .links
            .iter()
            .map(|link| (link.line, link.target.clone()))
            .collect();
        for (line, target) in links {
            if is_external(&target) {
                continue;
            }
            let (file, fragment) = match target.split_once('#') {
                Some((file, fragment)) => (file, Some(fragment)),
                None => (target.as_str(), None),
            };
            let linked = if file.is_empty() {
                document.clone()
            } else {
                resolve(document, file)
            };
            let place = format!("{}:{line}: {target}", document.display());
            if !root.join(&linked).exists() {
                broken.push(format!("{place} (no file {})", linked.display()));
                continue;
            }
            let Some(fragment) = fragment else { continue };
            if linked.extension().is_none_or(|ext| ext != "md") {
                continue;
            }
            if !load(root, &linked, &mut parsed)
                .anchors
                .iter()
                .any(|anchor| anchor == fragment)
            {
                broken.push(format!(
                    "{place} (no heading of {} makes #{fragment})",
                    linked.display()
                ));
            }
        }
    }
    broken
}

#[test]
fn every_relative_link_leads_to_a_file_and_a_heading() {
    let root = repository();
    let documents = documents(&root);
    assert!(
        documents.len() > 2,
        "the user guide's pages are in docs/: found only {documents:?}"
    );
    let broken = broken_links(&root, &documents);
    assert!(
        broken.is_empty(),
        "a reader following these links finds nothing there:\n{}",
        broken.join("\n")
    );
}

#[test]
fn every_guide_page_is_linked_from_the_readme() {
    let root = repository();
    let readme = parse(&fs::read_to_string(root.join("README.md")).unwrap());
    let linked: Vec<PathBuf> = readme
        .links
        .iter()
        .filter(|link| !is_external(&link.target))
        .map(|link| {
            resolve(
                Path::new("README.md"),
                link.target.split('#').next().unwrap(),
            )
        })
        .collect();
    let missing: Vec<PathBuf> = documents(&root)
        .into_iter()
        .filter(|page| page.starts_with("docs") && !linked.contains(page))
        .collect();
    assert!(
        missing.is_empty(),
        "README.md's contents should list every page of the guide; missing: {missing:?}"
    );
}

#[test]
fn the_readme_stays_a_front_door() {
    let text = fs::read_to_string(repository().join("README.md")).unwrap();
    let lines = text.lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md is {lines} lines: the reference belongs in docs/, the README at most \
         {README_MAX_LINES}"
    );
}

#[test]
fn anchors_are_made_as_github_makes_them() {
    let cases = [
        ("Agents: the CLI", "agents-the-cli"),
        (
            "Investigate, test and fuzz a program; command chains",
            "investigate-test-and-fuzz-a-program-command-chains",
        ),
        ("Over HTTP, with tokens", "over-http-with-tokens"),
        (
            "`switchboard mcp` — the server",
            "switchboard-mcp--the-server",
        ),
        ("snake_case and kebab-case", "snake_case-and-kebab-case"),
    ];
    for (heading, expected) in cases {
        assert_eq!(anchor(heading), expected, "GitHub's anchor for {heading:?}");
    }
    let document = parse("# Same\n\n## Same\n\n## Other\n\n### Same\n");
    assert_eq!(
        document.anchors,
        ["same", "same-1", "other", "same-2"],
        "a repeated heading's anchor is numbered, as on GitHub"
    );
}
