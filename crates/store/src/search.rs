//! One full-text index (tantivy) over the workspace's knowledge: learnings
//! entries, playbook bullets, profiles, memories and spec files. It lives
//! in `.switchboard/search-index/` and is brought up to date incrementally:
//! [`SearchIndex::sync`] re-indexes only files whose size or modification
//! time changed and drops files that are gone. Hits are ranked as Delia
//! ranks: relevance × utility^0.5 × recency^0.3.

use std::{
    collections::{BTreeMap, HashSet},
    path::{Path, PathBuf},
    time::UNIX_EPOCH,
};

use serde::{Deserialize, Serialize};
use switchboard_model::{
    Timestamp,
    knowledge::{
        document::SPEC_DIRS,
        learning::{self, LEARNING_DIRS},
        playbook::{self, MEMORY_DIR, PLAYBOOK_DIR, PROFILE_DIR},
        rank,
        search::{HitKind, SearchHit, SearchQuery, SearchResults},
    },
};
use tantivy::{
    Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term,
    collector::TopDocs,
    directory::MmapDirectory,
    query::QueryParser,
    schema::{Field, INDEXED, STORED, STRING, Schema, TEXT, Value},
    snippet::SnippetGenerator,
};

use crate::{StoreError, Workspace, knowledge::relative, write_atomic};

/// The index folder, relative to the workspace.
pub const INDEX_DIR: &str = ".switchboard/search-index";
/// Bumped whenever the schema or the way files are split changes: an index
/// of another version is rebuilt.
const INDEX_VERSION: u32 = 1;
/// Memory the index writer may use while updating.
const WRITER_MEMORY: usize = 15_000_000;
/// Characters of text shown around a match.
const SNIPPET_CHARS: usize = 180;

/// The schema's fields.
#[derive(Debug, Clone, Copy)]
struct Fields {
    path: Field,
    kind: Field,
    title: Field,
    body: Field,
    line: Field,
    task_type: Field,
    bullet_id: Field,
    helpful: Field,
    harmful: Field,
    time: Field,
}

fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let fields = Fields {
        path: builder.add_text_field("path", STRING | STORED),
        kind: builder.add_text_field("kind", STRING | STORED),
        title: builder.add_text_field("title", TEXT | STORED),
        body: builder.add_text_field("body", TEXT | STORED),
        line: builder.add_u64_field("line", STORED),
        task_type: builder.add_text_field("task_type", STRING | STORED),
        bullet_id: builder.add_text_field("bullet_id", STRING | STORED),
        helpful: builder.add_u64_field("helpful", STORED),
        harmful: builder.add_u64_field("harmful", STORED),
        time: builder.add_i64_field("time", STORED | INDEXED),
    };
    (builder.build(), fields)
}

/// A file's identity for change detection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Stamp {
    size: u64,
    modified_ns: u128,
}

/// What the index holds: which version, and each file's stamp.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Manifest {
    version: u32,
    files: BTreeMap<String, Stamp>,
    /// Why files could not be indexed, kept until they change.
    #[serde(default)]
    problems: BTreeMap<String, String>,
}

/// What one [`SearchIndex::sync`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncReport {
    /// Files (re)indexed.
    pub indexed: Vec<String>,
    /// Files dropped from the index.
    pub removed: Vec<String>,
    /// Entries written.
    pub entries: usize,
    /// Every file that could not be read or parsed (now or at an earlier
    /// sync, while it has not changed since), in words.
    pub warnings: Vec<String>,
}

impl SyncReport {
    /// Whether the index changed.
    pub fn changed(&self) -> bool {
        !self.indexed.is_empty() || !self.removed.is_empty()
    }
}

/// A knowledge file found on disk.
struct Found {
    relative: String,
    absolute: PathBuf,
    kind: HitKind,
    stamp: Stamp,
}

/// The index of one workspace.
pub struct SearchIndex {
    root: PathBuf,
    dir: PathBuf,
    index: Index,
    reader: IndexReader,
    fields: Fields,
    manifest: Manifest,
}

fn search_error(dir: &Path) -> impl Fn(tantivy::TantivyError) -> StoreError + '_ {
    move |error| StoreError::Search {
        path: dir.to_owned(),
        reason: error.to_string(),
    }
}

fn stamp(path: &Path) -> Option<Stamp> {
    let metadata = std::fs::metadata(path).ok()?;
    let modified_ns = metadata
        .modified()
        .ok()
        .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |since| since.as_nanos());
    Some(Stamp {
        size: metadata.len(),
        modified_ns,
    })
}

fn knowledge_files(workspace: &Workspace) -> Vec<Found> {
    let root = workspace.root();
    let mut found = Vec::new();
    let mut add = |kind: HitKind, paths: Vec<PathBuf>| {
        for absolute in paths {
            if let Some(stamp) = stamp(&absolute) {
                found.push(Found {
                    relative: relative(workspace, &absolute),
                    absolute,
                    kind,
                    stamp,
                });
            }
        }
    };
    let listed = |dir: &str, extension: &str| {
        crate::knowledge::files_in(&root.join(dir), extension).unwrap_or_default()
    };
    for dir in LEARNING_DIRS {
        add(HitKind::Learning, listed(dir, "md"));
    }
    add(HitKind::Bullet, listed(PLAYBOOK_DIR, "json"));
    add(HitKind::Profile, listed(PROFILE_DIR, "md"));
    add(HitKind::Memory, listed(MEMORY_DIR, "md"));
    for dir in SPEC_DIRS {
        add(
            HitKind::Spec,
            crate::knowledge::markdown_under(&root.join(dir)),
        );
    }
    found
}

fn file_title(path: &Path, text: &str) -> String {
    text.lines()
        .find_map(|line| line.strip_prefix("# "))
        .map(|title| title.trim().to_owned())
        .unwrap_or_else(|| {
            path.file_stem()
                .map(|stem| stem.to_string_lossy().into_owned())
                .unwrap_or_default()
        })
}

/// A knowledge index opened at its first use and kept for the next, as
/// each long-lived process (the shell, the MCP server, the sidecar per
/// workspace) holds one.
#[derive(Default)]
pub struct LazyIndex(Option<SearchIndex>);

impl LazyIndex {
    /// The index of `workspace`, opened now if it is not yet.
    pub fn get(&mut self, workspace: &Workspace) -> Result<&mut SearchIndex, StoreError> {
        match &mut self.0 {
            Some(index) => Ok(index),
            empty => Ok(empty.insert(SearchIndex::open(workspace)?)),
        }
    }

    /// Closes the index (another workspace is used now); the next use
    /// opens it again.
    pub fn close(&mut self) {
        self.0 = None;
    }
}

/// A [`LazyIndex`] shared between threads. A thread that panicked while
/// holding it leaves it closed, to be opened afresh, not poisoned.
#[derive(Default, Clone)]
pub struct SharedIndex(std::sync::Arc<std::sync::Mutex<LazyIndex>>);

impl SharedIndex {
    /// Runs `work` on the index of `workspace`, opening it if need be.
    pub fn with<T>(
        &self,
        workspace: &Workspace,
        work: impl FnOnce(&mut SearchIndex) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut slot = self.0.lock().unwrap_or_else(|poisoned| {
            let mut slot = poisoned.into_inner();
            slot.close();
            slot
        });
        work(slot.get(workspace)?)
    }

    /// Runs `work` on the index only if it is open (a watcher keeping an
    /// index in step need not open one nobody searched).
    pub fn if_open<T>(&self, work: impl FnOnce(&mut SearchIndex) -> T) -> Option<T> {
        let mut slot = self.0.lock().ok()?;
        slot.0.as_mut().map(work)
    }

    /// Closes the index; the next use opens it again.
    pub fn close(&self) {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .close();
    }
}

impl SearchIndex {
    /// Opens (or creates) the index of `workspace`; an index written by
    /// another version is rebuilt from scratch.
    pub fn open(workspace: &Workspace) -> Result<Self, StoreError> {
        let root = workspace.root().to_owned();
        let dir = root.join(INDEX_DIR);
        crate::own_folders::create_dir_all(&dir)?;
        let ignore = dir.join(".gitignore");
        if !ignore.exists() {
            write_atomic(
                &ignore,
                b"# Switchboard's search index: rebuilt from the files.\n*\n",
            )?;
        }
        let manifest_path = dir.join("files.json");
        let manifest: Manifest =
            crate::regular::read_to_string_in(&dir, &manifest_path, crate::regular::DATA_LIMIT)
                .ok()
                .and_then(|text| serde_json::from_str(&text).ok())
                .filter(|manifest: &Manifest| manifest.version == INDEX_VERSION)
                .unwrap_or_default();
        let (schema, fields) = schema();
        let opened = MmapDirectory::open(&dir)
            .map_err(|error| StoreError::Search {
                path: dir.clone(),
                reason: error.to_string(),
            })
            .and_then(|directory| {
                Index::open_or_create(directory, schema.clone()).map_err(search_error(&dir))
            });
        let (index, manifest) = match opened {
            Ok(index) if manifest.version == INDEX_VERSION => (index, manifest),
            // Another version, a changed schema or a damaged index: it is
            // only a cache of the files, so start it again.
            _ => (Self::recreate(&dir, schema)?, Manifest::default()),
        };
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(search_error(&dir))?;
        Ok(Self {
            root,
            dir,
            index,
            reader,
            fields,
            manifest,
        })
    }

    fn recreate(dir: &Path, schema: Schema) -> Result<Index, StoreError> {
        if let Ok(entries) = std::fs::read_dir(dir) {
            for entry in entries.flatten() {
                if entry.file_name() != ".gitignore" {
                    let path = entry.path();
                    let removed = if path.is_dir() {
                        std::fs::remove_dir_all(&path)
                    } else {
                        std::fs::remove_file(&path)
                    };
                    removed.map_err(StoreError::io("could not clear", &path))?;
                }
            }
        }
        let directory = MmapDirectory::open(dir).map_err(|error| StoreError::Search {
            path: dir.to_owned(),
            reason: error.to_string(),
        })?;
        Index::open_or_create(directory, schema).map_err(search_error(dir))
    }

    /// Brings the index up to date with the files: re-indexes what changed,
    /// drops what is gone. Fails with [`StoreError::Search`] when another
    /// process is updating the index at the same moment.
    pub fn sync(&mut self, workspace: &Workspace) -> Result<SyncReport, StoreError> {
        let found = knowledge_files(workspace);
        let present: HashSet<&str> = found.iter().map(|f| f.relative.as_str()).collect();
        let mut report = SyncReport {
            removed: self
                .manifest
                .files
                .keys()
                .filter(|path| !present.contains(path.as_ref() as &str))
                .cloned()
                .collect(),
            ..SyncReport::default()
        };
        let changed: Vec<&Found> = found
            .iter()
            .filter(|f| self.manifest.files.get(&f.relative) != Some(&f.stamp))
            .collect();
        if changed.is_empty() && report.removed.is_empty() {
            report.warnings = self.manifest.problems.values().cloned().collect();
            return Ok(report);
        }
        let mut writer: IndexWriter<TantivyDocument> = self
            .index
            .writer_with_num_threads(1, WRITER_MEMORY)
            .map_err(search_error(&self.dir))?;
        for path in &report.removed {
            writer.delete_term(Term::from_field_text(self.fields.path, path));
            self.manifest.files.remove(path);
            self.manifest.problems.remove(path);
        }
        for file in changed {
            writer.delete_term(Term::from_field_text(self.fields.path, &file.relative));
            match self.documents(file) {
                Ok(documents) => {
                    self.manifest.problems.remove(&file.relative);
                    report.entries += documents.len();
                    for document in documents {
                        writer
                            .add_document(document)
                            .map_err(search_error(&self.dir))?;
                    }
                }
                Err(warning) => {
                    self.manifest
                        .problems
                        .insert(file.relative.clone(), warning);
                }
            }
            // A file that does not parse is remembered too, so it is not
            // re-read until it changes; its warning comes with the change.
            self.manifest
                .files
                .insert(file.relative.clone(), file.stamp);
            report.indexed.push(file.relative.clone());
        }
        writer.commit().map_err(search_error(&self.dir))?;
        drop(writer);
        self.reader.reload().map_err(search_error(&self.dir))?;
        report.warnings = self.manifest.problems.values().cloned().collect();
        self.manifest.version = INDEX_VERSION;
        let manifest = serde_json::to_vec(&self.manifest).map_err(|source| StoreError::Encode {
            what: "search manifest",
            source,
        })?;
        write_atomic(&self.dir.join("files.json"), &manifest)?;
        Ok(report)
    }

    /// The index documents of one file; a sentence when it cannot be read.
    fn documents(&self, file: &Found) -> Result<Vec<TantivyDocument>, String> {
        let text = crate::contain::read_inside(&self.root, &file.absolute)
            .map_err(|error| format!("{}: {error}", file.relative))?;
        let modified = Timestamp::from_unix_millis(
            i64::try_from(file.stamp.modified_ns / 1_000_000).unwrap_or(0),
        )
        .unwrap_or(Timestamp::EPOCH);
        let f = self.fields;
        let base = |title: &str, body: &str, line: usize, time: Timestamp| {
            let mut document = TantivyDocument::default();
            document.add_text(f.path, &file.relative);
            document.add_text(f.kind, file.kind.as_str());
            document.add_text(f.title, title);
            document.add_text(f.body, body);
            document.add_u64(f.line, line as u64);
            document.add_i64(f.time, time.unix_millis());
            document
        };
        match file.kind {
            HitKind::Learning => {
                let category = file
                    .absolute
                    .file_stem()
                    .map(|stem| stem.to_string_lossy().into_owned())
                    .unwrap_or_default();
                Ok(learning::parse(&category, &text)
                    .entries
                    .iter()
                    .map(|entry| {
                        base(
                            &entry.title,
                            &entry.body,
                            entry.line,
                            entry.date.unwrap_or(modified),
                        )
                    })
                    .collect())
            }
            HitKind::Bullet => {
                let task_type = file
                    .absolute
                    .file_stem()
                    .map(|stem| stem.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let loaded = playbook::parse(&task_type, &text)
                    .map_err(|error| format!("{}: {error}", file.relative))?;
                let updated = Timestamp::parse_lenient(&loaded.playbook.updated_at);
                Ok(loaded
                    .playbook
                    .bullets
                    .iter()
                    .filter(|bullet| bullet.content.is_some())
                    .map(|bullet| {
                        let time = [&bullet.last_used, &bullet.created_at]
                            .into_iter()
                            .flatten()
                            .find_map(|text| Timestamp::parse_lenient(text))
                            .or(updated)
                            .unwrap_or(modified);
                        let title = bullet.section.as_deref().unwrap_or(&task_type);
                        let mut document = base(title, bullet.text(), 0, time);
                        document.add_text(f.task_type, &task_type);
                        if let Some(id) = &bullet.id {
                            document.add_text(f.bullet_id, id);
                        }
                        document.add_u64(f.helpful, u64::from(bullet.helpful_count));
                        document.add_u64(f.harmful, u64::from(bullet.harmful_count));
                        document
                    })
                    .collect())
            }
            HitKind::Profile | HitKind::Memory | HitKind::Spec => Ok(vec![base(
                &file_title(&file.absolute, &text),
                &text,
                0,
                modified,
            )]),
        }
    }

    /// The best hits for `query` at `now`, ranked by relevance ×
    /// utility^0.5 × recency^0.3.
    pub fn search(&self, query: &SearchQuery, now: Timestamp) -> Result<SearchResults, StoreError> {
        let mut results = SearchResults::default();
        if query.text.trim().is_empty() || query.limit == 0 {
            return Ok(results);
        }
        let f = self.fields;
        let mut parser = QueryParser::for_index(&self.index, vec![f.title, f.body]);
        parser.set_field_boost(f.title, 2.0);
        let (parsed, errors) = parser.parse_query_lenient(&query.text);
        if !errors.is_empty() {
            results.warnings.push(format!(
                "parts of the query were read as plain words: {}",
                errors[0]
            ));
        }
        let searcher = self.reader.searcher();
        // Ranking re-orders by utility and age, so look past the limit.
        let wanted = (query.limit * 5).max(50);
        let top = searcher
            .search(&parsed, &TopDocs::with_limit(wanted).order_by_score())
            .map_err(search_error(&self.dir))?;
        let mut snippets = SnippetGenerator::create(&searcher, &*parsed, f.body)
            .map_err(search_error(&self.dir))?;
        snippets.set_max_num_chars(SNIPPET_CHARS);
        for (relevance, address) in top {
            let document: TantivyDocument =
                searcher.doc(address).map_err(search_error(&self.dir))?;
            let text = |field| {
                document
                    .get_first(field)
                    .and_then(|value| value.as_str().map(str::to_owned))
            };
            let number = |field| {
                document
                    .get_first(field)
                    .and_then(|value| value.as_u64())
                    .unwrap_or(0)
            };
            let Some(kind) = text(f.kind).as_deref().and_then(HitKind::from_name) else {
                continue;
            };
            if !query.kinds.is_empty() && !query.kinds.contains(&kind) {
                continue;
            }
            let helpful = u32::try_from(number(f.helpful)).unwrap_or(u32::MAX);
            let harmful = u32::try_from(number(f.harmful)).unwrap_or(u32::MAX);
            let date = document
                .get_first(f.time)
                .and_then(|value| value.as_i64())
                .and_then(Timestamp::from_unix_millis);
            let age = date.map_or(0.0, |date| date.days_until(now));
            let relevance = f64::from(relevance);
            let snippet = snippets.snippet_from_doc(&document);
            let (snippet_text, highlights) = if snippet.fragment().is_empty() {
                let body = text(f.body).unwrap_or_default();
                (body.chars().take(SNIPPET_CHARS).collect(), Vec::new())
            } else {
                (
                    snippet.fragment().to_owned(),
                    snippet
                        .highlighted()
                        .iter()
                        .map(|range| (range.start, range.end))
                        .collect(),
                )
            };
            results.hits.push(SearchHit {
                kind,
                path: text(f.path).unwrap_or_default(),
                line: usize::try_from(number(f.line)).unwrap_or(0),
                title: text(f.title).unwrap_or_default(),
                task_type: text(f.task_type),
                bullet_id: text(f.bullet_id),
                snippet: snippet_text,
                highlights,
                relevance,
                score: rank::score(relevance, rank::ranking_utility(helpful, harmful), age),
                helpful,
                harmful,
                date,
                text: if query.with_text { text(f.body) } else { None },
            });
        }
        results.hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.path.cmp(&b.path))
        });
        results.hits.truncate(query.limit);
        Ok(results)
    }

    /// Brings the index up to date, then searches. When another process is
    /// updating the index at that moment, the search runs on the index as
    /// it is, with a warning; files that could not be indexed are warnings
    /// too.
    pub fn sync_and_search(
        &mut self,
        workspace: &Workspace,
        query: &SearchQuery,
        now: Timestamp,
    ) -> Result<SearchResults, StoreError> {
        let synced = self.sync(workspace);
        let mut results = self.search(query, now)?;
        match synced {
            Ok(report) => results.warnings.extend(report.warnings),
            Err(error) => results.warnings.push(format!(
                "the index could not be brought up to date: {error}"
            )),
        }
        Ok(results)
    }

    /// The workspace this index belongs to.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

/// Opens the index and [`SearchIndex::sync_and_search`]es: what the CLI and
/// a single question need.
pub fn search_workspace(
    workspace: &Workspace,
    query: &SearchQuery,
    now: Timestamp,
) -> Result<SearchResults, StoreError> {
    SearchIndex::open(workspace)?.sync_and_search(workspace, query, now)
}
