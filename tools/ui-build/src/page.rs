//! The window's page: `ui/index.html` with its styles put inline and its
//! boot script's blanks filled — the names of the built files, and the
//! shell commands and start phase it calls, taken from `model::ipc` so the
//! page calls the shell by the names it answers to.

use switchboard_model::ipc::{CMD_LIST_DELIVERIES, CMD_UI_PHASE, StartPhase};

/// The marker `ui/index.html` holds where its styles go.
pub const STYLES_MARKER: &str = "<!-- styles -->";

/// What the page is assembled from besides its template.
pub struct Parts<'a> {
    /// The stylesheet, put inline in a `<style>` element.
    pub css: &'a str,
    /// The file name of wasm-bindgen's JavaScript loader.
    pub js: &'a str,
    /// The file name of the wasm module.
    pub wasm: &'a str,
}

/// Why a page could not be assembled.
#[derive(Debug, PartialEq, Eq)]
pub enum PageError {
    /// The template lacks the styles marker, or holds it more than once.
    Styles,
    /// A blank the template names that nothing fills (or one left open).
    Unknown(String),
    /// A blank the page needs that the template lacks.
    Missing(&'static str),
    /// The stylesheet would end its `<style>` element early.
    ClosesStyle,
}

impl std::fmt::Display for PageError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Styles => write!(formatter, "the page needs {STYLES_MARKER} exactly once"),
            Self::Unknown(blank) => {
                write!(formatter, "the page names an unknown blank {{{{{blank}}}}}")
            }
            Self::Missing(blank) => write!(formatter, "the page lacks the blank {{{{{blank}}}}}"),
            Self::ClosesStyle => write!(formatter, "the stylesheet holds </style>"),
        }
    }
}

impl std::error::Error for PageError {}

/// The page from `template` and `parts`.
pub fn assemble(template: &str, parts: &Parts<'_>) -> Result<String, PageError> {
    if template.matches(STYLES_MARKER).count() != 1 {
        return Err(PageError::Styles);
    }
    if parts.css.to_ascii_lowercase().contains("</style") {
        return Err(PageError::ClosesStyle);
    }
    let blanks: [(&'static str, &str); 5] = [
        ("js", parts.js),
        ("wasm", parts.wasm),
        ("cmd_list_deliveries", CMD_LIST_DELIVERIES),
        ("cmd_ui_phase", CMD_UI_PHASE),
        ("phase_frame_painted", StartPhase::FramePainted.as_str()),
    ];
    let mut page = String::with_capacity(template.len() + parts.css.len());
    let mut rest = template;
    let mut filled = Vec::new();
    while let Some(open) = rest.find("{{") {
        page.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let close = after
            .find("}}")
            .ok_or_else(|| PageError::Unknown(after.chars().take(20).collect()))?;
        let name = &after[..close];
        let (blank, value) = blanks
            .iter()
            .find(|(blank, _)| *blank == name)
            .ok_or_else(|| PageError::Unknown(name.to_owned()))?;
        page.push_str(value);
        filled.push(*blank);
        rest = &after[close + 2..];
    }
    page.push_str(rest);
    if let Some((blank, _)) = blanks.iter().find(|(blank, _)| !filled.contains(blank)) {
        return Err(PageError::Missing(blank));
    }
    Ok(page.replace(STYLES_MARKER, &format!("<style>\n{}</style>", parts.css)))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use super::*;

    const PARTS: Parts<'static> = Parts {
        css: "body { color: red; }\n",
        js: "switchboard-ui-00ff.js",
        wasm: "switchboard-ui-00ff_bg.wasm",
    };

    /// The real page, as the build reads it.
    const PAGE: &str = include_str!("../../../ui/index.html");

    #[test]
    fn the_real_page_calls_the_shell_by_the_names_it_answers_to_and_loads_the_built_files() {
        let page = assemble(PAGE, &PARTS).unwrap();
        for called in [
            format!("invoke(\"{CMD_LIST_DELIVERIES}\")"),
            format!("invoke(\"{CMD_UI_PHASE}\""),
            format!("phase: \"{}\"", StartPhase::FramePainted.as_str()),
            "fetch(\"./switchboard-ui-00ff_bg.wasm\")".to_owned(),
            "import(\"./switchboard-ui-00ff.js\")".to_owned(),
            "<style>\nbody { color: red; }\n</style>".to_owned(),
        ] {
            assert!(page.contains(&called), "the page lacks {called}");
        }
        assert!(!page.contains("{{") && !page.contains(STYLES_MARKER));
    }

    #[test]
    fn a_blank_unknown_missing_or_left_open_and_a_style_that_closes_early_are_refused() {
        let full = "<!-- styles -->{{js}}{{wasm}}{{cmd_list_deliveries}}{{cmd_ui_phase}}{{phase_frame_painted}}";
        assert!(assemble(full, &PARTS).is_ok());
        assert_eq!(
            assemble(&format!("{full}{{{{base}}}}"), &PARTS),
            Err(PageError::Unknown("base".into()))
        );
        assert_eq!(
            assemble(&full.replace("{{wasm}}", ""), &PARTS),
            Err(PageError::Missing("wasm"))
        );
        assert!(matches!(
            assemble(&format!("{full}{{{{js"), &PARTS),
            Err(PageError::Unknown(_))
        ));
        assert_eq!(
            assemble(&full.replace("<!-- styles -->", ""), &PARTS),
            Err(PageError::Styles)
        );
        let hostile = Parts {
            css: "a {} </STYLE><script>alert(1)</script>",
            ..PARTS
        };
        assert_eq!(assemble(full, &hostile), Err(PageError::ClosesStyle));
    }
}
