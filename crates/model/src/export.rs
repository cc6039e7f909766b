//! Documents the developer saves out of the window: a delivery as markdown
//! or as a standalone HTML page, a chat as markdown, and the file name the
//! save dialog proposes for each.

use serde::{Deserialize, Serialize};

use crate::{
    ContentType, Delivery,
    chat::{ChatSession, Role},
    html,
};

/// What an export is written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    /// A `.md` file.
    Markdown,
    /// A `.html` file: one page, nothing loaded from elsewhere.
    Html,
}

impl ExportFormat {
    /// The file name extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Markdown => "md",
            Self::Html => "html",
        }
    }

    /// How the save dialog names files of this format.
    pub fn label(self) -> &'static str {
        match self {
            Self::Markdown => "Markdown",
            Self::Html => "HTML page",
        }
    }
}

/// The formats a delivery can be saved as: markdown only when it was
/// written in markdown (an HTML body is not turned back into markdown).
pub fn delivery_formats(delivery: &Delivery) -> &'static [ExportFormat] {
    match delivery.content.kind {
        ContentType::Markdown => &[ExportFormat::Markdown, ExportFormat::Html],
        ContentType::Html => &[ExportFormat::Html],
    }
}

/// The file name proposed for `title` in `format`: the title's letters and
/// digits, other runs of characters as one `-`, at most 60 characters;
/// `export` when nothing is left. Never a path: no `/`, no leading dot.
pub fn file_name(title: &str, format: ExportFormat) -> String {
    let mut stem = String::new();
    for character in title.chars() {
        if character.is_alphanumeric() {
            stem.extend(character.to_lowercase());
        } else if !stem.is_empty() && !stem.ends_with('-') {
            stem.push('-');
        }
        if stem.chars().count() >= 60 {
            break;
        }
    }
    let stem = stem.trim_end_matches('-');
    let stem = if stem.is_empty() { "export" } else { stem };
    format!("{stem}.{}", format.extension())
}

/// A markdown delivery as a markdown file: its title as the heading, what
/// it is and when it came, then its body as the agent wrote it.
pub fn delivery_markdown(delivery: &Delivery) -> String {
    format!(
        "# {}\n\n_{} delivery · {} · {}_\n\n{}\n",
        delivery.title.trim().replace(['\r', '\n'], " "),
        delivery.mode.as_str(),
        delivery.shown_status().replace('_', " "),
        delivery.created_at,
        delivery.content.body.trim_end(),
    )
}

/// A standalone HTML page around `body_html`, which must already be
/// sanitized. Its own policy lets nothing run and nothing load but inline
/// images and styles, wherever it is opened.
pub fn html_document(title: &str, body_html: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\">\n\
         <title>{title}</title>\n\
         <style>body{{max-width:52rem;margin:2rem auto;padding:0 1rem;font:15px/1.55 system-ui,sans-serif;overflow-wrap:anywhere}}pre{{overflow:auto;padding:.6rem .8rem;background:#f4f4f4}}table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:.2rem .5rem}}</style>\n\
         </head>\n<body>\n<h1>{title}</h1>\n{body_html}\n</body>\n</html>\n",
        title = html::escape(title.trim()),
        policy = html::CONTENT_POLICY,
    )
}

/// A chat as markdown: a heading with the workspace and mode, then each
/// message under who wrote it and when.
pub fn chat_markdown(session: &ChatSession) -> String {
    let project = if session.project_name.is_empty() {
        "Chat".to_owned()
    } else {
        format!("Chat in {}", session.project_name)
    };
    let mut out = format!(
        "# {project}\n\n_{} mode · started {}_\n",
        session.mode.as_str(),
        session.created_at
    );
    for message in &session.messages {
        let who = match message.role {
            Role::User => "You",
            Role::Assistant => "Assistant",
            Role::Command => "Command",
        };
        out.push_str(&format!(
            "\n## {who} · {}\n\n{}\n",
            message.timestamp,
            message.content.trim_end()
        ));
        if message.stopped {
            out.push_str("\n_Stopped here by the developer._\n");
        }
    }
    out
}

/// `delivery` as a document of `format`, named after its title; `None`
/// when it cannot be saved as that (see [`delivery_formats`]). The HTML
/// page holds the body rendered and sanitized as the window shows it,
/// without annotations.
#[cfg(feature = "render")]
pub fn delivery_document(delivery: &Delivery, format: ExportFormat) -> Option<ExportedText> {
    if !delivery_formats(delivery).contains(&format) {
        return None;
    }
    let text = match format {
        ExportFormat::Markdown => delivery_markdown(delivery),
        ExportFormat::Html => {
            let body =
                crate::render::render_body(delivery.content.kind, &delivery.content.body, &[]);
            html_document(&delivery.title, &body.html)
        }
    };
    Some(ExportedText {
        file_name: file_name(&delivery.title, format),
        text,
    })
}

/// The chat `session` as a markdown document, named after the day it began.
pub fn chat_document(session: &ChatSession) -> ExportedText {
    ExportedText {
        file_name: file_name(
            &format!("chat {}", session.created_at.date()),
            ExportFormat::Markdown,
        ),
        text: chat_markdown(session),
    }
}

/// Asks the shell for a delivery as a document to save.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeliveryExportRequest {
    /// The delivery.
    pub id: String,
    /// As what.
    pub format: ExportFormat,
}

/// A document ready to save: the name to propose and the text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportedText {
    /// The file name the save dialog proposes.
    pub file_name: String,
    /// The whole file.
    pub text: String,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    fn delivery(kind: &str, title: &str, body: &str) -> Delivery {
        serde_json::from_value(serde_json::json!({
            "id": "d_1738850400_001", "mode": "blocking", "status": "awaiting_feedback",
            "title": title, "content": {"type": kind, "body": body},
            "feedback_schema": null, "created_at": "2025-02-06T14:00:00.000Z",
            "completed_at": null,
        }))
        .expect("a delivery")
    }

    #[test]
    fn file_names_are_plain_names_from_the_title() {
        assert_eq!(
            file_name("Deploy plan: v2 (draft)", ExportFormat::Markdown),
            "deploy-plan-v2-draft.md"
        );
        assert_eq!(
            file_name("../../etc/passwd", ExportFormat::Html),
            "etc-passwd.html"
        );
        assert_eq!(file_name(".hidden", ExportFormat::Html), "hidden.html");
        assert_eq!(file_name("  ", ExportFormat::Markdown), "export.md");
        assert_eq!(
            file_name("Überblick Ä", ExportFormat::Markdown),
            "überblick-ä.md"
        );
        let long = file_name(&"word ".repeat(40), ExportFormat::Html);
        assert!(long.len() <= 60 + ".html".len(), "{long}");
        assert!(!long.contains("-.html"), "{long}");
    }

    #[test]
    fn a_markdown_delivery_exports_as_either_an_html_one_as_html() {
        let markdown = delivery("markdown", "Plan", "# Steps\n\n1. Do it\n");
        assert_eq!(
            delivery_formats(&markdown),
            [ExportFormat::Markdown, ExportFormat::Html]
        );
        assert_eq!(
            delivery_markdown(&markdown),
            "# Plan\n\n_blocking delivery · awaiting feedback · 2025-02-06T14:00:00.000Z_\n\n# Steps\n\n1. Do it\n"
        );
        let html = delivery("html", "Report", "<p>x</p>");
        assert_eq!(delivery_formats(&html), [ExportFormat::Html]);
    }

    #[cfg(feature = "render")]
    #[test]
    fn a_delivery_document_is_offered_only_in_its_formats_and_sanitized() {
        let html = delivery("html", "Report", "<p>ok</p><script>alert(1)</script>");
        assert_eq!(delivery_document(&html, ExportFormat::Markdown), None);
        let page = delivery_document(&html, ExportFormat::Html).expect("an HTML page");
        assert_eq!(page.file_name, "report.html");
        assert!(page.text.contains("ok</"), "{}", page.text);
        assert!(!page.text.contains("<script"), "{}", page.text);
        let markdown = delivery("markdown", "Plan", "1. Do it\n");
        let document = delivery_document(&markdown, ExportFormat::Markdown).expect("markdown");
        assert_eq!(document.text, delivery_markdown(&markdown));
        assert_eq!(document.file_name, "plan.md");
    }

    #[test]
    fn an_html_page_escapes_its_title_and_forbids_script() {
        let page = html_document("<script>alert(1)</script> & co", "<p>body</p>");
        assert!(page.contains("<title>&lt;script&gt;alert(1)&lt;/script&gt; &amp; co</title>"));
        assert!(!page.contains("<script>"));
        assert!(page.contains("default-src 'none'"));
        assert!(page.contains("<p>body</p>"));
    }

    #[test]
    fn a_chat_exports_each_message_under_its_author_and_says_where_it_was_stopped() {
        let session: ChatSession = serde_json::from_value(serde_json::json!({
            "id": "s1", "projectName": "acme", "mode": "Planning",
            "messages": [
                {"id": "m1", "role": "user", "content": "Plan the cache", "timestamp": "2025-02-06T14:00:00.000Z"},
                {"id": "m2", "role": "assistant", "content": "1. Measure\n", "timestamp": "2025-02-06T14:00:05.000Z", "stopped": true},
            ],
            "createdAt": "2025-02-06T13:59:00.000Z", "updatedAt": "2025-02-06T14:00:05.000Z",
        }))
        .expect("a session");
        assert_eq!(
            chat_markdown(&session),
            "# Chat in acme\n\n_planning mode · started 2025-02-06T13:59:00.000Z_\n\
             \n## You · 2025-02-06T14:00:00.000Z\n\nPlan the cache\n\
             \n## Assistant · 2025-02-06T14:00:05.000Z\n\n1. Measure\n\
             \n_Stopped here by the developer._\n"
        );
    }
}
