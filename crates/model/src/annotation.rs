//! Annotations: the developer's comments and highlights on a delivery
//! (`annotations.json`).
//!
//! Text ranges are offsets into the delivery body in UTF-16 code units, the
//! unit of JavaScript strings and DOM selections, so ranges written by the
//! original web UI and by Switchboard's window mean the same characters.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use thiserror::Error;

use crate::{EntityId, Timestamp};

/// Comment or highlight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnnotationKind {
    /// A remark, with text.
    Comment,
    /// A marked passage; the text may be empty.
    Highlight,
}

/// What part of the body an annotation refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    /// Offsets `start..end` into the body.
    TextRange,
    /// A line of the body.
    Line,
    /// A section of the body.
    Section,
}

/// The part of the body an annotation is attached to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnnotationTarget {
    /// The kind of reference.
    #[serde(rename = "type")]
    pub kind: TargetKind,
    /// First UTF-16 offset (inclusive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<u64>,
    /// Last UTF-16 offset (exclusive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<u64>,
    /// Fields written by other tools that this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One record of `annotations.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Annotation {
    /// `a_{unix}_{seq}`.
    pub id: String,
    /// The annotated delivery.
    pub delivery_id: String,
    /// Comment or highlight.
    #[serde(rename = "type")]
    pub kind: AnnotationKind,
    /// The remark.
    pub content: String,
    /// The annotated part; `None` for a general comment.
    #[serde(default)]
    pub target: Option<AnnotationTarget>,
    /// When it was made.
    pub created_at: Timestamp,
    /// Fields written by other tools that this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An annotation as the developer makes it; the store adds id and time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewAnnotation {
    /// The delivery annotated.
    pub delivery_id: String,
    /// Comment or highlight.
    pub kind: AnnotationKind,
    /// The remark.
    pub content: String,
    /// A text range `(start, end)` in UTF-16 offsets, or `None` for a
    /// general comment.
    pub range: Option<(u64, u64)>,
}

/// Why an annotation cannot be stored.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AnnotationError {
    /// A comment without text.
    #[error("a comment needs text")]
    EmptyComment,
    /// A range whose end is not after its start.
    #[error("the range {start}..{end} is empty or reversed")]
    EmptyRange {
        /// Start offset.
        start: u64,
        /// End offset.
        end: u64,
    },
    /// A range past the end of the body.
    #[error("the range {start}..{end} runs past the end of the body ({length} UTF-16 units)")]
    OutOfBody {
        /// Start offset.
        start: u64,
        /// End offset.
        end: u64,
        /// The body's length.
        length: u64,
    },
}

/// The length of `text` in UTF-16 code units.
pub fn utf16_len(text: &str) -> u64 {
    text.encode_utf16().count() as u64
}

impl NewAnnotation {
    /// Checks this annotation against the body it annotates.
    pub fn validate(&self, body: &str) -> Result<(), AnnotationError> {
        if self.kind == AnnotationKind::Comment && self.content.trim().is_empty() {
            return Err(AnnotationError::EmptyComment);
        }
        if let Some((start, end)) = self.range {
            if end <= start {
                return Err(AnnotationError::EmptyRange { start, end });
            }
            let length = utf16_len(body);
            if end > length {
                return Err(AnnotationError::OutOfBody { start, end, length });
            }
        }
        Ok(())
    }
}

impl Annotation {
    /// Builds the stored record for a validated `new` annotation.
    pub fn create(new: NewAnnotation, id: EntityId, now: Timestamp) -> Self {
        Self {
            id: id.to_string(),
            delivery_id: new.delivery_id,
            kind: new.kind,
            content: new.content,
            target: new.range.map(|(start, end)| AnnotationTarget {
                kind: TargetKind::TextRange,
                start: Some(start),
                end: Some(end),
                extra: Map::new(),
            }),
            created_at: now,
            extra: Map::new(),
        }
    }
}

/// A run of mapped text in rendered markdown (a `span[data-o]`): its
/// UTF-16 offset in the source and its UTF-16 length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MappedRun {
    /// Where its text starts in the source.
    pub offset: u64,
    /// Its length.
    pub len: u64,
}

/// Narrows a selection `start..end` (source offsets as the window's
/// selection points gave them) to the text it covers: a start that sits at
/// the end of a run (as a browser reports a selection that begins at a
/// bold word) moves to the start of the next run, and an end at the start
/// of a run moves to the end of the run before, so markup between runs
/// (`**`, `` ` ``, `](url)`, table pipes) never enters the stored range.
/// `None` when no mapped text is covered.
pub fn snap_to_text(runs: &[MappedRun], start: u64, end: u64) -> Option<(u64, u64)> {
    let mut runs: Vec<MappedRun> = runs.iter().copied().filter(|run| run.len > 0).collect();
    runs.sort_by_key(|run| run.offset);
    let start = runs.iter().find_map(|run| {
        if (run.offset..run.offset + run.len).contains(&start) {
            Some(start)
        } else {
            (run.offset > start).then_some(run.offset)
        }
    })?;
    let end = runs.iter().rev().find_map(|run| {
        if end > run.offset && end <= run.offset + run.len {
            Some(end)
        } else {
            (run.offset + run.len < end).then_some(run.offset + run.len)
        }
    })?;
    (start < end).then_some((start, end))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn seed_annotations_round_trip() {
        let seed = serde_json::json!([
            {"id": "a_1738850500_001", "delivery_id": "d_1738850400_001", "type": "comment",
             "content": "This endpoint should use PATCH, not PUT",
             "target": {"type": "text_range", "start": 45, "end": 78},
             "created_at": "2026-02-06T14:30:00.000Z"},
            {"id": "a_1738850500_002", "delivery_id": "d_1738850400_001", "type": "comment",
             "content": "Good approach overall", "target": null,
             "created_at": "2026-02-06T14:31:00.000Z"}
        ]);
        let parsed: Vec<Annotation> = serde_json::from_value(seed.clone()).unwrap();
        assert_eq!(parsed[0].target.as_ref().unwrap().end, Some(78));
        assert_eq!(serde_json::to_value(&parsed).unwrap(), seed);
    }

    #[test]
    fn ranges_are_checked_in_utf16_units() {
        let body = "héllo 👋 world"; // the emoji is two UTF-16 units
        assert_eq!(utf16_len(body), 14);
        let new = |range| NewAnnotation {
            delivery_id: "d_1_001".into(),
            kind: AnnotationKind::Highlight,
            content: String::new(),
            range,
        };
        assert!(new(Some((6, 8))).validate(body).is_ok(), "the emoji itself");
        assert!(new(Some((0, 14))).validate(body).is_ok());
        assert!(matches!(
            new(Some((0, 15))).validate(body),
            Err(AnnotationError::OutOfBody { .. })
        ));
        assert!(matches!(
            new(Some((5, 5))).validate(body),
            Err(AnnotationError::EmptyRange { .. })
        ));
        assert!(
            new(None).validate(body).is_ok(),
            "a highlight of nothing is a general mark"
        );
        let comment = NewAnnotation {
            kind: AnnotationKind::Comment,
            content: " ".into(),
            ..new(None)
        };
        assert_eq!(comment.validate(body), Err(AnnotationError::EmptyComment));
    }
}
