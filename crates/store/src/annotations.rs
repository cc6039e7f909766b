//! Annotations on deliveries: `annotations.json`.

use switchboard_model::{
    Delivery, IdKind, Timestamp,
    annotation::{Annotation, NewAnnotation},
};

use crate::{StoreError, Workspace, deliveries, lock::DirLock, records};

/// The annotations file's name inside the inbox data directory.
pub const ANNOTATIONS_FILE: &str = "annotations.json";

/// Stores `new` after checking it against the delivery's body.
pub fn add(
    workspace: &Workspace,
    new: NewAnnotation,
    now: Timestamp,
) -> Result<Annotation, StoreError> {
    let delivery: Delivery = deliveries::get(workspace, &new.delivery_id)?;
    new.validate(&delivery.content.body)?;
    let dir = workspace.inbox_data_dir();
    let lock = DirLock::acquire_sweeping(workspace.root(), &dir)?;
    let (annotation, _) = records::append_one(
        &lock,
        ANNOTATIONS_FILE,
        now,
        IdKind::Annotation,
        "annotation",
        |id| Annotation::create(new, id, now),
    )?;
    Ok(annotation)
}

/// The annotations of delivery `id`, oldest first.
pub fn for_delivery(workspace: &Workspace, id: &str) -> Result<Vec<Annotation>, StoreError> {
    let annotations: Vec<Annotation> = records::read_decoded(workspace, ANNOTATIONS_FILE)?;
    Ok(annotations
        .into_iter()
        .filter(|annotation| annotation.delivery_id == id)
        .collect())
}
