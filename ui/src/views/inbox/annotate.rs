//! Annotating a delivery: a text selection in the rendered markdown becomes
//! a `text_range` in the body's UTF-16 offsets (through the `data-o` spans
//! the renderer puts around every text run), then a comment or highlight.

use leptos::prelude::*;
use switchboard_model::annotation::{AnnotationKind, MappedRun, NewAnnotation, snap_to_text};
use wasm_bindgen::JsCast;
use web_sys::{Element, Node};

use crate::{ipc, tasks};

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
    let element: &Element = node.dyn_ref()?;
    let children = element.child_nodes();
    if offset < children.length() {
        // The point sits before a child: the first mapped text from there.
        let child = children.item(offset)?;
        if let Some(child) = child.dyn_ref::<Element>() {
            if let Some(offset) = offset_of(child) {
                return Some(offset);
            }
            return offset_of(&child.query_selector("[data-o]").ok()??);
        }
        return point_offset(&child, 0);
    }
    // The point sits after the last child: the end of the last mapped text.
    let spans = element.query_selector_all("[data-o]").ok()?;
    let last: Element = spans
        .item(spans.length().checked_sub(1)?)?
        .dyn_into()
        .ok()?;
    Some(offset_of(&last)? + utf16_len(&last))
}

/// The current selection inside `body`, mapped to offsets.
pub fn current_selection(body: &Element) -> Option<Selected> {
    let selection = leptos::prelude::window().get_selection().ok()??;
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
    let width = leptos::prelude::window()
        .inner_width()
        .ok()
        .and_then(|width| width.as_f64())
        .unwrap_or(1024.0);
    let place = BarPlace {
        left: rect.left().clamp(8.0, (width - 420.0).max(8.0)),
        top: rect.top(),
        bottom: rect.bottom(),
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
        .filter_map(|index| spans.item(index)?.dyn_into::<Element>().ok())
        .filter_map(|span| {
            Some(MappedRun {
                offset: offset_of(&span)?,
                len: utf16_len(&span),
            })
        })
        .collect()
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
#[component]
pub fn SelectionBar(
    delivery_id: String,
    selected: RwSignal<Option<Selected>>,
    on_saved: Callback<()>,
) -> impl IntoView {
    let writing = RwSignal::new(false);
    let text = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let delivery_id = StoredValue::new(delivery_id);
    let store = move |kind: AnnotationKind| {
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
    };
    move || {
        selected.get().map(|range| {
            let excerpt: String = range.text.chars().take(80).collect();
            view! {
                <div class="annotate-bar floating" id="annotate-bar" style=range.place.style()>
                    <span class="excerpt">"“" {excerpt} "”"</span>
                    {move || {
                        if writing.get() {
                            view! {
                                <textarea
                                    id="annotate-text"
                                    rows="2"
                                    placeholder="Your comment (Ctrl+Enter saves)"
                                    prop:value=move || text.get()
                                    on:input=move |event| text.set(event_target_value(&event))
                                    on:keydown=move |event| {
                                        if crate::keys::is_submit(&event) {
                                            event.prevent_default();
                                            store(AnnotationKind::Comment);
                                        }
                                    }
                                ></textarea>
                                <button id="annotate-save" class="primary" on:click=move |_| store(AnnotationKind::Comment)>"Save"</button>
                                <button id="annotate-cancel" on:click=move |_| writing.set(false)>"Cancel"</button>
                            }
                                .into_any()
                        } else {
                            view! {
                                <button id="annotate-comment" on:click=move |_| writing.set(true)>"Comment"</button>
                                <button id="annotate-highlight" on:click=move |_| store(AnnotationKind::Highlight)>"Highlight"</button>
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
    let text = RwSignal::new(String::new());
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
            <textarea
                id="general-comment"
                rows="3"
                placeholder="Comment on the whole delivery (Ctrl+Enter adds)"
                prop:value=move || text.get()
                on:input=move |event| text.set(event_target_value(&event))
                on:keydown=move |event| {
                    if crate::keys::is_submit(&event) {
                        event.prevent_default();
                        add();
                    }
                }
            ></textarea>
            <button id="general-comment-add" on:click=move |_| add()>"Add comment"</button>
            {move || error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
        </div>
    }
}
