//! Annotating a delivery: a text selection in the rendered body (markdown
//! in the page, or HTML in its frame) becomes a `text_range` in the body's
//! UTF-16 offsets (through the `data-o` spans the renderer puts around every
//! text run), then a comment or highlight.
//!
//! Nodes of the HTML frame belong to another JavaScript realm, where an
//! `instanceof` check against this page's classes fails, so nodes are told
//! apart by `nodeType`, never by `dyn_ref`.

use leptos::prelude::*;
use switchboard_model::annotation::{AnnotationKind, MappedRun, NewAnnotation, snap_to_text};
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlIFrameElement, Node};

use crate::{ipc, kept::KeptText, tasks, views::composer::Composer};

/// A selection mapped to the body: offsets and the selected text.
#[derive(Debug, Clone, PartialEq)]
pub struct Selected {
    /// First UTF-16 offset.
    pub start: u64,
    /// Offset past the end.
    pub end: u64,
    /// The selected text, for the toolbar.
    pub text: String,
    /// Where the selection is on screen, to float the bar beside it.
    pub place: BarPlace,
}

/// Where the floating selection bar goes, in viewport pixels: above the
/// selection, or below it when there is no room above.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BarPlace {
    /// The bar's left edge.
    pub left: f64,
    /// The selection's top edge (the bar sits just above it)…
    pub top: f64,
    /// …or its bottom edge, when the bar goes below.
    pub bottom: f64,
}

/// Room the bar needs above a selection, in pixels.
const BAR_ROOM: f64 = 64.0;

impl BarPlace {
    /// The bar's inline style: fixed beside the selection, never over the
    /// text, never pushing the body down.
    fn style(self) -> String {
        if self.top >= BAR_ROOM {
            format!(
                "left:{:.0}px;top:{:.0}px;transform:translateY(calc(-100% - 6px))",
                self.left, self.top
            )
        } else {
            format!("left:{:.0}px;top:{:.0}px", self.left, self.bottom + 6.0)
        }
    }
}

/// `node` as an element, if it is one (in this page or in the frame).
fn element(node: &Node) -> Option<&Element> {
    (node.node_type() == Node::ELEMENT_NODE).then(|| node.unchecked_ref())
}

fn offset_of(span: &Element) -> Option<u64> {
    span.get_attribute("data-o")?.parse().ok()
}

fn utf16_len(node: &Node) -> u64 {
    node.text_content()
        .map(|text| text.encode_utf16().count() as u64)
        .unwrap_or(0)
}

/// The body offset of a DOM selection point, if it lies in mapped text.
fn point_offset(node: &Node, offset: u32) -> Option<u64> {
    if node.node_type() == Node::TEXT_NODE {
        let span = node.parent_element()?;
        return Some(offset_of(&span)? + u64::from(offset));
    }
    let element = element(node)?;
    let children = element.child_nodes();
    if offset < children.length() {
        // The point sits before a child: the first mapped text from there.
        let child = children.item(offset)?;
        if let Some(child) = self::element(&child) {
            if let Some(offset) = offset_of(child) {
                return Some(offset);
            }
            return offset_of(&child.query_selector("[data-o]").ok()??);
        }
        return point_offset(&child, 0);
    }
    // The point sits after the last child: the end of the last mapped text.
    let spans = element.query_selector_all("[data-o]").ok()?;
    let last = spans.item(spans.length().checked_sub(1)?)?;
    Some(offset_of(self::element(&last)?)? + utf16_len(&last))
}

/// The current selection inside `body` (in this page or in the delivery's
/// frame), mapped to offsets.
pub fn current_selection(body: &Element) -> Option<Selected> {
    let view = body.owner_document()?.default_view()?;
    let selection = view.get_selection().ok()??;
    if selection.is_collapsed() || selection.range_count() == 0 {
        return None;
    }
    let range = selection.get_range_at(0).ok()?;
    if !body.contains(Some(&range.common_ancestor_container().ok()?)) {
        return None;
    }
    let start = point_offset(&range.start_container().ok()?, range.start_offset().ok()?)?;
    let end = point_offset(&range.end_container().ok()?, range.end_offset().ok()?)?;
    // A browser may put the start at the end of the run before (and the end
    // at the start of the run after): narrow the range to the text itself,
    // so no markup (`**`, backticks, link targets) is stored with it.
    let (start, end) = snap_to_text(&mapped_runs(body), start, end)?;
    let text: String = selection.to_string().into();
    let rect = range.get_bounding_client_rect();
    // In the frame, the selection's rectangle is relative to the frame.
    let (dx, dy) = match view.frame_element().ok().flatten() {
        Some(frame) => {
            let at = frame.get_bounding_client_rect();
            (
                at.left() + f64::from(frame.client_left()),
                at.top() + f64::from(frame.client_top()),
            )
        }
        None => (0.0, 0.0),
    };
    let width = leptos::prelude::window()
        .inner_width()
        .ok()
        .and_then(|width| width.as_f64())
        .unwrap_or(1024.0);
    let place = BarPlace {
        left: (rect.left() + dx).clamp(8.0, (width - 420.0).max(8.0)),
        top: rect.top() + dy,
        bottom: rect.bottom() + dy,
    };
    Some(Selected {
        start,
        end,
        text,
        place,
    })
}

/// Every mapped text run of `body`, in document order.
fn mapped_runs(body: &Element) -> Vec<MappedRun> {
    let Ok(spans) = body.query_selector_all("[data-o]") else {
        return Vec::new();
    };
    (0..spans.length())
        .filter_map(|index| spans.item(index))
        .filter_map(|span| {
            Some(MappedRun {
                offset: offset_of(element(&span)?)?,
                len: utf16_len(&span),
            })
        })
        .collect()
}

/// Once the HTML body's frame has loaded, sizes it to its content, so the
/// page scrolls as one.
pub fn fit_frame(frame: &HtmlIFrameElement) {
    let Some(root) = frame
        .content_document()
        .and_then(|document| document.document_element())
    else {
        return;
    };
    let _ = web_sys::HtmlElement::style(frame)
        .set_property("height", &format!("{}px", root.scroll_height().max(120)));
}

/// The selection in the HTML body's frame, mapped to offsets. The frame is
/// sandboxed without scripts, and a document that may not run script gets
/// no event listeners called either, not even the page's own; so the page
/// reads the frame's selection when the reviewer asks to annotate it.
fn frame_selection(frame: NodeRef<leptos::html::Iframe>) -> Option<Selected> {
    let body = frame.get_untracked()?.content_document()?.body()?;
    current_selection(&body)
}

/// Saves an annotation and reports failure in `error`; `done` runs after,
/// if the view that asked is still there.
pub fn save(new: NewAnnotation, error: RwSignal<Option<String>>, done: Callback<()>) {
    tasks::act(async move {
        match ipc::add_annotation(&new).await {
            Ok(_) => {
                error.set(None);
                done.try_run(());
            }
            Err(failure) => error.set(Some(failure.message)),
        }
    });
}

/// The bar shown while text is selected: comment on it or highlight it.
/// For an HTML body (`frame`), a toolbar above the frame does the same for
/// the text selected in the frame.
#[component]
pub fn SelectionBar(
    delivery_id: String,
    selected: RwSignal<Option<Selected>>,
    on_saved: Callback<()>,
    #[prop(optional)] frame: Option<NodeRef<leptos::html::Iframe>>,
) -> impl IntoView {
    let writing = RwSignal::new(false);
    let text = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let hint = RwSignal::new(false);
    let delivery_id = StoredValue::new(delivery_id);
    let store = Callback::new(move |kind: AnnotationKind| {
        let Some(range) = selected.get_untracked() else {
            return;
        };
        let new = NewAnnotation {
            delivery_id: delivery_id.get_value(),
            kind,
            content: text.get_untracked(),
            range: Some((range.start, range.end)),
        };
        let finished = Callback::new(move |()| {
            writing.set(false);
            text.set(String::new());
            selected.set(None);
            on_saved.try_run(());
        });
        save(new, error, finished);
    });
    // Takes the frame's selection; false (and a hint) when there is none.
    let take_frame_selection = move || {
        let taken = frame.and_then(frame_selection);
        hint.set(taken.is_none());
        let found = taken.is_some();
        selected.set(taken);
        found
    };
    let tools = frame.map(|_| {
        view! {
            <div class="frame-tools" id="frame-tools" role="toolbar" aria-label="Annotate the selected text">
                <span class="muted">"Select text in the page, then"</span>
                <button id="frame-comment" on:click=move |_| {
                    if take_frame_selection() {
                        writing.set(true);
                    }
                }>"Comment"</button>
                <button id="frame-highlight" on:click=move |_| {
                    if take_frame_selection() {
                        store.run(AnnotationKind::Highlight);
                    }
                }>"Highlight"</button>
                {move || hint.get().then(|| view! {
                    <span class="hint" role="status" id="frame-hint">"No text is selected in the page."</span>
                })}
            </div>
        }
    });
    view! { {tools} <FloatingBar selected writing text error store /> }
}

/// The bar beside a selection in the body: Comment (then the comment
/// and Save) or Highlight.
#[component]
fn FloatingBar(
    selected: RwSignal<Option<Selected>>,
    writing: RwSignal<bool>,
    text: RwSignal<String>,
    error: RwSignal<Option<String>>,
    store: Callback<AnnotationKind>,
) -> impl IntoView {
    move || {
        selected.get().map(|range| {
            let excerpt: String = range.text.chars().take(80).collect();
            view! {
                <div class="annotate-bar floating" id="annotate-bar" style=range.place.style()>
                    <span class="excerpt">"“" {excerpt} "”"</span>
                    {move || {
                        if writing.get() {
                            view! {
                                <Composer
                                    id="annotate-text"
                                    rows=2
                                    placeholder="Your comment (Ctrl+Enter saves)"
                                    text
                                    on_submit=move |()| store.run(AnnotationKind::Comment)
                                />
                                <button id="annotate-save" class="primary" on:click=move |_| store.run(AnnotationKind::Comment)>"Save"</button>
                                <button id="annotate-cancel" on:click=move |_| writing.set(false)>"Cancel"</button>
                            }
                                .into_any()
                        } else {
                            view! {
                                <button id="annotate-comment" on:click=move |_| writing.set(true)>"Comment"</button>
                                <button id="annotate-highlight" on:click=move |_| store.run(AnnotationKind::Highlight)>"Highlight"</button>
                            }
                                .into_any()
                        }
                    }}
                    {move || error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
                </div>
            }
        })
    }
}

/// A box for a comment on the delivery as a whole.
#[component]
pub fn GeneralComment(delivery_id: String, on_saved: Callback<()>) -> impl IntoView {
    // What is written is the window's until it is added.
    let text = KeptText::new(format!("comment:{delivery_id}"), String::new()).text;
    let error = RwSignal::new(None::<String>);
    let delivery_id = StoredValue::new(delivery_id);
    let add = move || {
        let new = NewAnnotation {
            delivery_id: delivery_id.get_value(),
            kind: AnnotationKind::Comment,
            content: text.get_untracked(),
            range: None,
        };
        let finished = Callback::new(move |()| {
            text.set(String::new());
            on_saved.try_run(());
        });
        save(new, error, finished);
    };
    view! {
        <div class="general-comment">
            <Composer
                id="general-comment"
                placeholder="Comment on the whole delivery (Ctrl+Enter adds)"
                text
                on_submit=move |()| add()
            />
            <button id="general-comment-add" on:click=move |_| add()>"Add comment"</button>
            {move || error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
        </div>
    }
}
