//! JSON-array data files: reading them tolerantly, writing them back intact.
//!
//! Each file is an array of records. Records are held as raw JSON, so a
//! write reproduces every record it did not change byte for byte, including
//! records this version cannot decode. Decoding into typed records happens
//! per record: one bad record is a warning, not a lost inbox.

use std::{
    fs,
    io::ErrorKind,
    path::{Path, PathBuf},
};

use serde::{Deserialize, Serialize, de::DeserializeOwned};
use serde_json::value::RawValue;
use switchboard_model::Timestamp;

use crate::{StoreError, write_atomic};

/// One record, exactly as stored.
pub(crate) type RawRecord = Box<RawValue>;

/// Reads `path` as a JSON array of records. A missing file is an empty array.
pub(crate) fn read_raw(path: &Path) -> Result<Vec<RawRecord>, StoreError> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(StoreError::io("could not read", path)(error)),
    };
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    serde_json::from_str(&text).map_err(|error| StoreError::Corrupt {
        path: path.to_owned(),
        reason: error.to_string(),
    })
}

/// Decodes each record, collecting a warning for each one that does not fit
/// `T` instead of failing the whole file.
pub(crate) fn decode_all<T: DeserializeOwned>(
    raw: &[RawRecord],
    file_label: &str,
) -> (Vec<T>, Vec<String>) {
    let mut decoded = Vec::with_capacity(raw.len());
    let mut warnings = Vec::new();
    for (index, record) in raw.iter().enumerate() {
        match serde_json::from_str::<T>(record.get()) {
            Ok(value) => decoded.push(value),
            Err(error) => warnings.push(format!(
                "{file_label}: record {} was skipped (kept on disk): {error}",
                index + 1
            )),
        }
    }
    (decoded, warnings)
}

/// Encodes a new record in the layout `write_raw` uses.
pub(crate) fn encode<T: Serialize>(
    record: &T,
    what: &'static str,
) -> Result<RawRecord, StoreError> {
    let pretty = serde_json::to_string_pretty(record)
        .map_err(|source| StoreError::Encode { what, source })?;
    // Records sit one level deep in the array, so their inner lines get two
    // more spaces. JSON strings cannot hold raw newlines, so this touches
    // layout only.
    RawValue::from_string(pretty.replace('\n', "\n  "))
        .map_err(|source| StoreError::Encode { what, source })
}

/// Atomically writes `records` as a pretty-printed JSON array, in the layout
/// of JavaScript's `JSON.stringify(records, null, 2)`.
pub(crate) fn write_raw(path: &Path, records: &[RawRecord]) -> Result<(), StoreError> {
    let total: usize = records.iter().map(|record| record.get().len() + 4).sum();
    let mut text = String::with_capacity(total + 4);
    text.push('[');
    for (index, record) in records.iter().enumerate() {
        text.push_str(if index == 0 { "\n  " } else { ",\n  " });
        text.push_str(record.get());
    }
    text.push_str(if records.is_empty() { "]\n" } else { "\n]\n" });
    write_atomic(path, text.as_bytes())
}

/// Moves an unparsable file aside as `<name>.corrupted.<unix millis>`, the
/// name visual-delivery uses, and returns the new path.
pub(crate) fn back_up_corrupt(
    path: &Path,
    now: Timestamp,
) -> Result<std::path::PathBuf, StoreError> {
    let mut backup = path.as_os_str().to_owned();
    backup.push(format!(".corrupted.{}", now.unix_millis()));
    let backup = std::path::PathBuf::from(backup);
    fs::rename(path, &backup).map_err(StoreError::io("could not back up", path))?;
    Ok(backup)
}

/// A data file loaded for rewriting. Only build one while holding the data
/// directory's lock.
pub(crate) struct Editable {
    path: PathBuf,
    /// The records, as stored.
    pub(crate) records: Vec<RawRecord>,
    /// Where an unparsable file was moved before starting afresh.
    pub(crate) backed_up: Option<PathBuf>,
}

#[derive(Deserialize)]
struct IdOnly {
    id: String,
}

impl Editable {
    /// Loads `path`; an unparsable file is moved aside (see
    /// [`back_up_corrupt`]) and editing starts from an empty array.
    pub(crate) fn load(path: PathBuf, now: Timestamp) -> Result<Self, StoreError> {
        let (records, backed_up) = match read_raw(&path) {
            Ok(records) => (records, None),
            Err(StoreError::Corrupt { reason, .. }) => {
                let backup = back_up_corrupt(&path, now)?;
                tracing::warn!(file = %path.display(), backup = %backup.display(), %reason, "unparsable data file moved aside");
                (Vec::new(), Some(backup))
            }
            Err(error) => return Err(error),
        };
        Ok(Self {
            path,
            records,
            backed_up,
        })
    }

    /// The `id` of every record that has one.
    pub(crate) fn ids(&self) -> Vec<String> {
        self.records
            .iter()
            .filter_map(|record| serde_json::from_str::<IdOnly>(record.get()).ok())
            .map(|record| record.id)
            .collect()
    }

    /// The index of the record with `id`.
    pub(crate) fn position(&self, id: &str) -> Option<usize> {
        self.records.iter().position(|record| {
            serde_json::from_str::<IdOnly>(record.get()).is_ok_and(|record| record.id == id)
        })
    }

    /// Decodes the record at `index`.
    pub(crate) fn decode<T: DeserializeOwned>(&self, index: usize) -> Result<T, StoreError> {
        serde_json::from_str(self.records[index].get()).map_err(|error| StoreError::Corrupt {
            path: self.path.clone(),
            reason: format!("record {}: {error}", index + 1),
        })
    }

    /// Decodes every record that fits `T`, with its index; others are skipped.
    pub(crate) fn decode_each<T: DeserializeOwned>(&self) -> impl Iterator<Item = (usize, T)> + '_ {
        self.records
            .iter()
            .enumerate()
            .filter_map(|(index, record)| {
                serde_json::from_str(record.get())
                    .ok()
                    .map(|value| (index, value))
            })
    }

    /// Appends a record.
    pub(crate) fn push<T: Serialize>(
        &mut self,
        record: &T,
        what: &'static str,
    ) -> Result<(), StoreError> {
        self.records.push(encode(record, what)?);
        Ok(())
    }

    /// Replaces the record at `index`.
    pub(crate) fn replace<T: Serialize>(
        &mut self,
        index: usize,
        record: &T,
        what: &'static str,
    ) -> Result<(), StoreError> {
        self.records[index] = encode(record, what)?;
        Ok(())
    }

    /// Writes the records back atomically.
    pub(crate) fn save(&self) -> Result<(), StoreError> {
        write_raw(&self.path, &self.records)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_and_blank_files_are_empty() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read_raw(&dir.path().join("none.json")).unwrap().is_empty());
        fs::write(dir.path().join("blank.json"), " \n").unwrap();
        assert!(read_raw(&dir.path().join("blank.json")).unwrap().is_empty());
    }

    #[test]
    fn unparsable_files_are_corrupt_with_the_parser_reason() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.json");
        for text in ["[{\"id\":", "{\"not\":\"an array\"}"] {
            fs::write(&path, text).unwrap();
            let error = read_raw(&path).unwrap_err();
            assert!(
                matches!(error, StoreError::Corrupt { .. }),
                "{text}: {error}"
            );
        }
    }

    #[test]
    fn writes_what_json_stringify_with_two_spaces_writes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        let records = vec![
            encode(
                &serde_json::json!({"id": "x", "nested": {"a": [1]}}),
                "test",
            )
            .unwrap(),
            encode(&serde_json::json!({"id": "y"}), "test").unwrap(),
        ];
        write_raw(&path, &records).unwrap();
        let expected = "[\n  {\n    \"id\": \"x\",\n    \"nested\": {\n      \"a\": [\n        1\n      ]\n    }\n  },\n  {\n    \"id\": \"y\"\n  }\n]\n";
        assert_eq!(fs::read_to_string(&path).unwrap(), expected);
        let again = read_raw(&path).unwrap();
        write_raw(&path, &again).unwrap();
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            expected,
            "re-writing is stable"
        );
    }

    #[test]
    fn undecodable_records_become_warnings() {
        let raw: Vec<RawRecord> = serde_json::from_str(r#"[{"n":1},{"n":"two"},{"n":3}]"#).unwrap();
        #[derive(serde::Deserialize)]
        struct N {
            n: u32,
        }
        let (decoded, warnings) = decode_all::<N>(&raw, "numbers.json");
        assert_eq!(decoded.iter().map(|d| d.n).collect::<Vec<_>>(), [1, 3]);
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].starts_with("numbers.json: record 2"),
            "{}",
            warnings[0]
        );
    }
}
