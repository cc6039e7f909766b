//! The inbox's deliveries: `.visual-delivery/data/deliveries.json`.

use std::path::PathBuf;

use serde::Deserialize;
use switchboard_model::{
    Delivery, EntityId, IdKind, NewDelivery, Timestamp, ipc::DeliveryList, sort_newest_first,
};

use crate::{
    StoreError, Workspace,
    lock::DirLock,
    records::{self, RawRecord},
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
    let raw = match records::read_raw(&path) {
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

/// Publishes `new` at `now`: allocates the next `d_{unix}_{seq}` id and
/// appends the record, under the inbox lock, with one atomic write. Records
/// already stored are written back byte for byte.
pub fn append(
    workspace: &Workspace,
    new: NewDelivery,
    now: Timestamp,
) -> Result<Appended, StoreError> {
    let dir = workspace.inbox_data_dir();
    let path = dir.join(DELIVERIES_FILE);
    let _lock = DirLock::acquire(&dir)?;
    let (mut stored, backed_up) = match records::read_raw(&path) {
        Ok(stored) => (stored, None),
        Err(StoreError::Corrupt { reason, .. }) => {
            let backup = records::back_up_corrupt(&path, now)?;
            tracing::warn!(file = %path.display(), backup = %backup.display(), %reason, "unparsable deliveries file moved aside");
            (Vec::new(), Some(backup))
        }
        Err(error) => return Err(error),
    };
    let ids = stored_ids(&stored);
    let id = EntityId::next(
        IdKind::Delivery,
        now.unix_seconds(),
        ids.iter().map(String::as_str),
    );
    let delivery = Delivery::create(new, id, now);
    stored.push(records::encode(&delivery, "delivery")?);
    records::write_raw(&path, &stored)?;
    Ok(Appended {
        delivery,
        backed_up,
    })
}

/// The `id` of every stored record that has one.
fn stored_ids(stored: &[RawRecord]) -> Vec<String> {
    #[derive(Deserialize)]
    struct IdOnly {
        id: String,
    }
    stored
        .iter()
        .filter_map(|record| serde_json::from_str::<IdOnly>(record.get()).ok())
        .map(|record| record.id)
        .collect()
}
