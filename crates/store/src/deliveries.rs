//! The inbox's deliveries: `.visual-delivery/data/deliveries.json`.

use std::path::PathBuf;

use switchboard_model::{
    Delivery, IdKind, NewDelivery, Timestamp, export,
    ipc::{DeliveryDetail, DeliveryList},
    render, sort_newest_first,
};

use crate::{
    StoreError, Workspace, annotations, feedback,
    lock::DirLock,
    records::{self, Editable},
};

/// The deliveries file's name inside the inbox data directory.
pub const DELIVERIES_FILE: &str = "deliveries.json";

/// What [`append`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct Appended {
    /// The stored delivery, with its new id.
    pub delivery: Delivery,
    /// Where an unparsable deliveries file was moved before this append
    /// started a fresh one, if that happened.
    pub backed_up: Option<PathBuf>,
}

/// The deliveries in `workspace`, newest first. No data directory means an
/// empty inbox. A file that does not parse is reported in `warnings` and left
/// untouched, as is each record that does not decode.
pub fn list(workspace: &Workspace) -> Result<DeliveryList, StoreError> {
    let path = workspace.inbox_data_dir().join(DELIVERIES_FILE);
    let raw = match records::read_raw(workspace.root(), &path) {
        Ok(raw) => raw,
        Err(error @ StoreError::Corrupt { .. }) => {
            return Ok(DeliveryList {
                deliveries: Vec::new(),
                warnings: vec![format!(
                    "{error}. It is left as it is; the next delivery moves it aside as a .corrupted file."
                )],
            });
        }
        Err(error) => return Err(error),
    };
    let (mut deliveries, warnings) = records::decode_all::<Delivery>(&raw, DELIVERIES_FILE);
    sort_newest_first(&mut deliveries);
    Ok(DeliveryList {
        deliveries,
        warnings,
    })
}

/// Publishes `new` at `now`: validates it, allocates the next
/// `d_{unix}_{seq}` id and appends the record, under the inbox lock, with one
/// atomic write. Records already stored are written back byte for byte.
pub fn append(
    workspace: &Workspace,
    new: NewDelivery,
    now: Timestamp,
) -> Result<Appended, StoreError> {
    new.validate()?;
    let lock = DirLock::acquire_sweeping(workspace.root(), &workspace.inbox_data_dir())?;
    append_locked(&lock, new, Default::default(), now)
}

/// [`append`], the delivery carrying `extra` beside visual-delivery's
/// fields (who sent it, when an agent's token named it).
pub fn append_marked(
    workspace: &Workspace,
    new: NewDelivery,
    extra: serde_json::Map<String, serde_json::Value>,
    now: Timestamp,
) -> Result<Appended, StoreError> {
    new.validate()?;
    let lock = DirLock::acquire_sweeping(workspace.root(), &workspace.inbox_data_dir())?;
    append_locked(&lock, new, extra, now)
}

/// [`append`] for a caller that validated `new` and holds the inbox lock;
/// `extra` is stored beside visual-delivery's fields.
pub(crate) fn append_locked(
    lock: &DirLock,
    new: NewDelivery,
    extra: serde_json::Map<String, serde_json::Value>,
    now: Timestamp,
) -> Result<Appended, StoreError> {
    let (delivery, backed_up) = records::append_one(
        lock,
        DELIVERIES_FILE,
        now,
        IdKind::Delivery,
        "delivery",
        |id| {
            let mut delivery = Delivery::create(new, id, now);
            delivery.extra.extend(extra);
            delivery
        },
    )?;
    Ok(Appended {
        delivery,
        backed_up,
    })
}

/// The delivery with `id`.
pub fn get(workspace: &Workspace, id: &str) -> Result<Delivery, StoreError> {
    let deliveries: Vec<Delivery> = records::read_decoded(workspace, DELIVERIES_FILE)?;
    deliveries
        .into_iter()
        .find(|delivery| delivery.id == id)
        .ok_or_else(|| StoreError::NotFound {
            what: "delivery",
            id: id.to_owned(),
        })
}

/// The delivery with `id`, its body rendered and sanitized, with its
/// annotations and feedback.
pub fn detail(workspace: &Workspace, id: &str) -> Result<DeliveryDetail, StoreError> {
    let delivery = get(workspace, id)?;
    let mut warnings = Vec::new();
    let annotations = tolerate_corrupt(annotations::for_delivery(workspace, id), &mut warnings)?;
    let feedback = tolerate_corrupt(feedback::responses_for(workspace, id), &mut warnings)?;
    let marks: Vec<render::Mark> = annotations
        .iter()
        .filter_map(|annotation| {
            let target = annotation.target.as_ref()?;
            Some(render::Mark {
                start: target.start?,
                end: target.end?,
                id: annotation.id.clone(),
            })
        })
        .collect();
    let rendered = render::render_body(delivery.content.kind, &delivery.content.body, &marks);
    Ok(DeliveryDetail {
        annotations,
        feedback,
        delivery,
        body_html: rendered.html,
        quotes: rendered.quotes,
        warnings,
    })
}

/// The delivery with `id` as a document of `format` to save; refused
/// (`INVALID_REQUEST`) for markdown of an HTML delivery.
pub fn export(
    workspace: &Workspace,
    id: &str,
    format: export::ExportFormat,
) -> Result<export::ExportedText, StoreError> {
    let delivery = get(workspace, id)?;
    export::delivery_document(&delivery, format).ok_or_else(|| StoreError::NotExportable {
        id: id.to_owned(),
        format: format.label().to_owned(),
    })
}

/// [`detail`] read while no change is being written (a shared hold of the
/// inbox's lock), so a reply — its record, the delivery's new status — is
/// seen whole or not at all.
pub fn detail_settled(workspace: &Workspace, id: &str) -> Result<DeliveryDetail, StoreError> {
    let _lock =
        crate::lock::DirLock::acquire_shared(workspace.root(), &workspace.inbox_data_dir())?;
    detail(workspace, id)
}

/// An unparsable side file becomes a warning and an empty list, so the
/// delivery can still be read; the file is left as it is.
fn tolerate_corrupt<T>(
    read: Result<Vec<T>, StoreError>,
    warnings: &mut Vec<String>,
) -> Result<Vec<T>, StoreError> {
    match read {
        Err(error @ StoreError::Corrupt { .. }) => {
            warnings.push(format!(
                "{error}. It is left as it is; the next write moves it aside."
            ));
            Ok(Vec::new())
        }
        other => other,
    }
}

/// Changes delivery `id` under the inbox lock: `change` edits it and says
/// whether it changed (an error refuses the change); it is written back
/// only then. Returns the delivery as it stands, and whether it changed.
fn change_one(
    workspace: &Workspace,
    id: &str,
    now: Timestamp,
    change: impl FnOnce(&mut Delivery) -> Result<bool, StoreError>,
) -> Result<(Delivery, bool), StoreError> {
    let dir = workspace.inbox_data_dir();
    let lock = DirLock::acquire_sweeping(workspace.root(), &dir)?;
    let mut file = Editable::load(&lock, DELIVERIES_FILE, now)?;
    let index = file.position(id).ok_or_else(|| StoreError::NotFound {
        what: "delivery",
        id: id.to_owned(),
    })?;
    let mut delivery: Delivery = file.decode(index)?;
    let changed = change(&mut delivery)?;
    if changed {
        file.replace(index, &delivery, "delivery")?;
        file.save()?;
    }
    Ok((delivery, changed))
}

/// Notes that the developer opened question `id` in the window (once,
/// while it waits), so an agent polling its task hears "opened in the
/// window". Returns whether anything changed.
pub fn mark_opened(workspace: &Workspace, id: &str, now: Timestamp) -> Result<bool, StoreError> {
    change_one(workspace, id, now, |delivery| Ok(delivery.mark_opened(now)))
        .map(|(_, changed)| changed)
}

/// Changes delivery `id` under the inbox lock: `change` edits it and says
/// whether it changed; it is written back only then. Returns whether it
/// changed.
pub fn update(
    workspace: &Workspace,
    id: &str,
    now: Timestamp,
    change: impl FnOnce(&mut Delivery) -> bool,
) -> Result<bool, StoreError> {
    change_one(workspace, id, now, |delivery| Ok(change(delivery))).map(|(_, changed)| changed)
}

/// Closes a delivery by hand (marks it completed without an answer), as
/// visual-delivery's manual completion does. Closing a passive delivery
/// or an already completed one is refused.
pub fn close(workspace: &Workspace, id: &str, now: Timestamp) -> Result<Delivery, StoreError> {
    change_one(workspace, id, now, |delivery| {
        delivery.check_open_for_reply()?;
        delivery.complete(now);
        Ok(true)
    })
    .map(|(delivery, _)| delivery)
}
