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
use switchboard_model::{EntityId, IdKind, Timestamp};

use crate::{StoreError, lock::DirLock, regular, write_atomic};

/// One record, exactly as stored.
pub(crate) type RawRecord = Box<RawValue>;

/// Reads `path` (inside `within`) as a JSON array of records. A missing
/// file is an empty array.
pub(crate) fn read_raw(within: &Path, path: &Path) -> Result<Vec<RawRecord>, StoreError> {
    let text = match regular::read_to_string_in(within, path, regular::DATA_LIMIT) {
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

/// The records of the inbox data file `name` of `workspace` that decode
/// as `T` (the others are skipped; listing reports them). A missing file
/// is empty.
pub(crate) fn read_decoded<T: DeserializeOwned>(
    workspace: &crate::Workspace,
    name: &str,
) -> Result<Vec<T>, StoreError> {
    let raw = read_raw(workspace.root(), &workspace.inbox_data_dir().join(name))?;
    Ok(decode_all(&raw, name).0)
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

/// A data file loaded for rewriting: loaded through the data directory's
/// lock guard and unable to outlive it, so every rewrite happens under the
/// lock.
pub(crate) struct Editable<'lock> {
    path: PathBuf,
    /// The records, as stored.
    pub(crate) records: Vec<RawRecord>,
    _lock: std::marker::PhantomData<&'lock DirLock>,
}

#[derive(Deserialize)]
struct IdOnly {
    id: String,
}

impl<'lock> Editable<'lock> {
    /// Loads `name` from the directory `lock` holds; an unparsable file is
    /// moved aside (see [`back_up_corrupt`]) and editing starts from an
    /// empty array.
    pub(crate) fn load(
        lock: &'lock DirLock,
        name: &str,
        now: Timestamp,
    ) -> Result<Self, StoreError> {
        let path = lock.file(name);
        let records = match read_raw(lock.within(), &path) {
            Ok(records) => records,
            Err(StoreError::Corrupt { reason, .. }) => {
                let backup = back_up_corrupt(&path, now)?;
                tracing::warn!(file = %path.display(), backup = %backup.display(), %reason, "unparsable data file moved aside");
                Vec::new()
            }
            Err(error) => return Err(error),
        };
        Ok(Self {
            path,
            records,
            _lock: std::marker::PhantomData,
        })
    }

    /// Loads `name` from the directory `lock` holds as it is: an
    /// unparsable file is refused (`Corrupt`) and left where it is, for a
    /// change to what is already there (an answer) that an empty file
    /// could only lose.
    pub(crate) fn load_existing(lock: &'lock DirLock, name: &str) -> Result<Self, StoreError> {
        let path = lock.file(name);
        let records = read_raw(lock.within(), &path)?;
        Ok(Self {
            path,
            records,
            _lock: std::marker::PhantomData,
        })
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

/// Appends one record to the array file `name` in the directory `lock`
/// holds, without re-encoding the records already there: the file is
/// validated as a JSON array, the next id of `kind` at `now` is found by
/// scanning for ids of that second, and the new record is spliced in before
/// the closing bracket, all in one atomic write. An unparsable file is
/// moved aside first.
pub(crate) fn append_one<T: Serialize>(
    lock: &DirLock,
    name: &str,
    now: Timestamp,
    kind: IdKind,
    what: &'static str,
    make: impl FnOnce(EntityId) -> T,
) -> Result<(T, Option<PathBuf>), StoreError> {
    let path = &lock.file(name);
    let (text, backed_up) = match regular::read_in(
        lock.within(),
        path,
        regular::DATA_LIMIT,
        regular::LastLink::Follow,
    ) {
        Ok(bytes) => match validate_array(&bytes) {
            Ok(()) => (bytes, None),
            Err(reason) => {
                let backup = back_up_corrupt(path, now)?;
                tracing::warn!(file = %path.display(), backup = %backup.display(), %reason, "unparsable data file moved aside");
                (Vec::new(), Some(backup))
            }
        },
        Err(error) if error.kind() == ErrorKind::NotFound => (Vec::new(), None),
        Err(error) => return Err(StoreError::io("could not read", path)(error)),
    };
    let id = next_id_in(&text, kind, now);
    let record = make(id);
    let encoded = encode(&record, what)?;
    let body = &text[..text.iter().rposition(|&byte| byte == b']').unwrap_or(0)];
    let body = body.trim_ascii_end();
    let mut out = Vec::with_capacity(text.len() + encoded.get().len() + 8);
    if body.len() <= 1 {
        out.extend_from_slice(b"[\n  ");
    } else {
        out.extend_from_slice(body);
        out.extend_from_slice(b",\n  ");
    }
    out.extend_from_slice(encoded.get().as_bytes());
    out.extend_from_slice(b"\n]\n");
    write_atomic(path, &out)?;
    Ok((record, backed_up))
}

/// Checks that `bytes` is one JSON array (blank counts as empty), without
/// building it.
fn validate_array(bytes: &[u8]) -> Result<(), String> {
    if bytes.trim_ascii().is_empty() {
        return Ok(());
    }
    serde_json::from_slice::<Vec<serde::de::IgnoredAny>>(bytes)
        .map(|_| ())
        .map_err(|error| error.to_string())
}

/// The next free id of `kind` at `now`'s second, from the ids of that
/// second that occur in `text`.
fn next_id_in(text: &[u8], kind: IdKind, now: Timestamp) -> EntityId {
    let seconds = now.unix_seconds();
    let needle = format!("\"{}_{seconds}_", kind.prefix());
    let mut found = Vec::new();
    for at in memchr::memmem::find_iter(text, needle.as_bytes()) {
        let id_start = &text[at + 1..];
        let id_end = memchr::memchr(b'"', id_start).unwrap_or(id_start.len());
        if let Ok(id) = std::str::from_utf8(&id_start[..id_end]) {
            found.push(id.to_owned());
        }
    }
    EntityId::next(kind, seconds, found.iter().map(String::as_str))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn missing_and_blank_files_are_empty() {
        let dir = tempfile::tempdir().unwrap();
        assert!(
            read_raw(dir.path(), &dir.path().join("none.json"))
                .unwrap()
                .is_empty()
        );
        fs::write(dir.path().join("blank.json"), " \n").unwrap();
        assert!(
            read_raw(dir.path(), &dir.path().join("blank.json"))
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn unparsable_files_are_corrupt_with_the_parser_reason() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.json");
        for text in ["[{\"id\":", "{\"not\":\"an array\"}"] {
            fs::write(&path, text).unwrap();
            let error = read_raw(dir.path(), &path).unwrap_err();
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
        let again = read_raw(dir.path(), &path).unwrap();
        write_raw(&path, &again).unwrap();
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            expected,
            "re-writing is stable"
        );
    }

    #[test]
    fn append_one_splices_records_and_allocates_ids() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("list.json");
        let lock = DirLock::acquire(dir.path()).unwrap();
        let now = Timestamp::from_unix_millis(7_000).unwrap();
        let make = |id: EntityId| serde_json::json!({"id": id.to_string()});
        let (first, _) =
            append_one(&lock, "list.json", now, IdKind::Delivery, "test", make).unwrap();
        let (second, _) =
            append_one(&lock, "list.json", now, IdKind::Delivery, "test", make).unwrap();
        assert_eq!(
            (first["id"].as_str(), second["id"].as_str()),
            (Some("d_7_001"), Some("d_7_002"))
        );
        let expected =
            "[\n  {\n    \"id\": \"d_7_001\"\n  },\n  {\n    \"id\": \"d_7_002\"\n  }\n]\n";
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            expected,
            "the JSON.stringify layout"
        );

        // Foreign layout and records are kept byte for byte.
        fs::write(&path, "[{\"id\":\"d_7_009\",\"x\":[1,2]}]").unwrap();
        let (third, _) =
            append_one(&lock, "list.json", now, IdKind::Delivery, "test", make).unwrap();
        assert_eq!(third["id"], "d_7_010");
        let text = fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("[{\"id\":\"d_7_009\",\"x\":[1,2]},\n  {"),
            "{text}"
        );
        assert_eq!(read_raw(dir.path(), &path).unwrap().len(), 2);

        fs::write(&path, "[]").unwrap();
        append_one(&lock, "list.json", now, IdKind::Delivery, "test", make).unwrap();
        assert_eq!(
            read_raw(dir.path(), &path).unwrap().len(),
            1,
            "an empty array takes its first record"
        );
    }

    #[test]
    fn append_one_moves_a_corrupt_file_aside() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("list.json");
        let lock = DirLock::acquire(dir.path()).unwrap();
        fs::write(&path, "{\"not\": \"an array\"}").unwrap();
        let now = Timestamp::from_unix_millis(9_000).unwrap();
        let (_, backup) = append_one(&lock, "list.json", now, IdKind::Session, "test", |id| {
            id.to_string()
        })
        .unwrap();
        let backup = backup.expect("the corrupt file was moved aside");
        assert_eq!(
            fs::read_to_string(backup).unwrap(),
            "{\"not\": \"an array\"}"
        );
        assert_eq!(read_raw(dir.path(), &path).unwrap().len(), 1);
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
