//! `verify`: every entry's checksum, every row's key, every index against its table, every counter and aggregate against its rows, every reference against its target, every changelog entry.
//!
//! It reads one committed state (one read transaction) and lists what does
//! not hold, rather than stopping at the first: a user deciding what to
//! restore wants the whole picture. A tree whose entries cannot be read
//! (damage, E0591) is listed once and its checks are skipped. A `-0.0`
//! an older rqc stored in a key or a row is listed (E0552, naming the tree
//! and the keys; `rqc upgrade` rewrites it) and read as `0.0` by the other
//! checks, as this rqc reads it.

use crate::catalog;
use crate::encoding::key::{canonical_key, encode_key};
use crate::encoding::row::{decode_row, encode_row};
use crate::error::{Result, RuntimeError};
use crate::rows::{bound_tree, primary_key, refcount_tree, small_tree, table_tree};
use crate::store::{ReadTxn, Salvaging, Store, SALVAGE_CHUNK};
use rqc_plan::{Schema, TableSchema, Value};
use std::collections::{BTreeMap, BTreeSet};

mod indexes;
mod minus_zero;

use indexes::IndexTally;
pub(crate) use minus_zero::canonical_entries;
use minus_zero::MinusZero;

type Entries = BTreeMap<Vec<u8>, Vec<u8>>;
/// A chunk of a tree's readable entries, in key order.
type Chunk = Vec<(Vec<u8>, Vec<u8>)>;
type Counters = BTreeMap<String, BTreeMap<Vec<u8>, u64>>;

/// What `verify` found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verification {
    /// Rows read, over every table.
    pub rows: u64,
    /// Index entries and counters compared.
    pub entries: u64,
    /// Everything that does not hold, one line each; empty when all do.
    pub problems: Vec<String>,
    /// Each problem's code, in the same order: E0527 for an aggregate
    /// that differs from a recount, E0552 for a stored `-0.0` (an older
    /// rqc's; `rqc upgrade` rewrites it), E0591 for the rest (damage).
    pub codes: Vec<&'static str>,
}

impl Verification {
    /// Whether everything holds: no problem was found.
    pub fn is_sound(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Checks the database in `store` against `schema` (see the module's doc).
/// Errors only when no read transaction can begin.
pub fn verify(store: &dyn Store, schema: &Schema) -> Result<Verification> {
    let txn = store.begin_read()?;
    let mut check = Check {
        store,
        txn: txn.as_ref(),
        found: Verification::default(),
        minus_zero_keys: BTreeMap::new(),
    };
    let catalog_tree = catalog::catalog(store);
    match catalog::check_format(check.txn, catalog_tree)
        .and_then(|()| catalog::installed_program(check.txn, catalog_tree).map(|_| ()))
    {
        // A program of an older plan format is no damage: it is installed
        // again (E0513 says so where it would run), its rows kept.
        Err(error) if error.code != "E0513" => {
            check.problem(format!("the catalog: {}", error.message))
        }
        _ => {}
    }
    // The catalog is not chained: a schema entry moved or cut out by
    // damage reads as missing (and an install would take the database for
    // a fresh one), so it is read whole here, every entry opened.
    match catalog::installed_schema(check.txn, catalog_tree) {
        Ok(Some(_)) => {}
        Ok(None) => check.problem("the catalog: it holds no schema".into()),
        Err(error) => check.problem(format!("the catalog: {}", error.message)),
    }
    check.entries(catalog::CATALOG);
    let mut counters = Counters::new();
    for table in &schema.tables {
        check.table(table, &mut counters);
    }
    check.counters(schema, counters);
    check.references(schema);
    // The changelog: every commit reads its head, so damage there stops
    // every write with E0591, whose help says to run `verify`.
    if let Some(log) = check.entries(crate::live::changelog::LOG_TREE) {
        check.found.entries += log.len() as u64;
        for problem in crate::live::changelog::problems(&log) {
            check.problem(problem);
        }
    }
    Ok(check.found)
}

struct Check<'a> {
    store: &'a dyn Store,
    txn: &'a dyn ReadTxn,
    found: Verification,
    /// By table, the keys (as this rqc reads them) of the rows an older
    /// rqc stored with `-0.0` in their key: few, and found by no point
    /// read of the key this rqc encodes.
    minus_zero_keys: BTreeMap<String, BTreeSet<Vec<u8>>>,
}

impl Check<'_> {
    fn problem(&mut self, problem: String) {
        self.problem_coded("E0591", problem);
    }

    fn problem_coded(&mut self, code: &'static str, problem: String) {
        self.found.problems.push(problem);
        self.found.codes.push(code);
    }

    /// Every aggregate's entries against its recount from the table's rows.
    fn aggregates(&mut self, table: &TableSchema, recounts: Vec<Result<BTreeMap<Vec<u8>, Value>>>) {
        for (aggregate, expected) in table.aggregates.iter().zip(recounts) {
            let tree = crate::rows::aggregate_tree(&table.name, &aggregate.name);
            let Some(stored) = self.entries(&tree) else {
                continue;
            };
            let stored = self.canonical(&tree, stored, &[], Some(1));
            self.found.entries += stored.len() as u64;
            let expected = match expected {
                Ok(expected) => expected,
                Err(e) => {
                    self.problem_coded(
                        "E0527",
                        format!("aggregate `{}`: {}", aggregate.name, e.message),
                    );
                    continue;
                }
            };
            let actual = match crate::aggregates::stored(stored.into_iter().collect()) {
                Ok(actual) => actual,
                Err(e) => {
                    self.problem(format!("aggregate `{}`: {}", aggregate.name, e.message));
                    continue;
                }
            };
            let wrong = differing(&expected, &actual);
            if wrong > 0 {
                self.problem_coded(
                    "E0527",
                    format!(
                        "aggregate `{}` over `{}`: {wrong} group{} differ{} from a recount of the rows",
                        aggregate.name,
                        table.name,
                        if wrong == 1 { "" } else { "s" },
                        if wrong == 1 { "s" } else { "" }
                    ),
                );
            }
        }
    }

    /// Reads the tree called `tree` a chunk at a time, handing each
    /// chunk's readable entries to `each` (each damaged one is listed, if
    /// `listed`); false (listed) when the tree cannot be read to its end.
    /// What `verify` holds of a tree is one chunk.
    fn each_chunk(
        &mut self,
        tree: &str,
        listed: bool,
        each: &mut dyn FnMut(&mut Self, Chunk),
    ) -> bool {
        let handle = self.store.tree(tree);
        let mut from = Salvaging::default();
        while !from.done() {
            let chunk = match self.txn.salvage(handle, &mut from, SALVAGE_CHUNK) {
                Ok(chunk) => chunk,
                Err(error) => {
                    if listed {
                        self.problem(format!("tree `{tree}`: {}", error.message));
                    }
                    return false;
                }
            };
            let mut readable = Vec::with_capacity(chunk.len());
            for (key, value) in chunk {
                match value {
                    Ok(value) => readable.push((key, value)),
                    Err(error) if listed => self.problem(error.message),
                    Err(_) => {}
                }
            }
            each(self, readable);
        }
        true
    }

    /// Every readable entry of the tree called `tree` (each damaged one is
    /// listed), or `None` (listed) when the tree cannot be read at all.
    fn entries(&mut self, tree: &str) -> Option<Entries> {
        let salvaged = crate::store::salvage_all(self.txn, self.store.tree(tree));
        let salvaged = match salvaged {
            Ok(salvaged) => salvaged,
            Err(error) => {
                self.problem(format!("tree `{tree}`: {}", error.message));
                return None;
            }
        };
        let mut entries = Entries::new();
        for (key, value) in salvaged {
            match value {
                Ok(value) => {
                    entries.insert(key, value);
                }
                Err(error) => self.problem(error.message),
            }
        }
        Some(entries)
    }

    /// A table's rows, a chunk at a time: each row checked and counted,
    /// its index entries looked up (one batch per index and chunk), its
    /// aggregates recounted; then each index's entries against what the
    /// rows found of them.
    fn table(&mut self, table: &TableSchema, counters: &mut Counters) {
        let width = table.columns.len();
        // Each index first: its entries counted, damage and -0.0 listed.
        let mut indexes: Vec<IndexTally> = table
            .indexes
            .iter()
            .map(|index| self.index_tally(table, index))
            .collect();
        let tree = table_tree(&table.name);
        let mut recounts: Vec<crate::aggregates::Recount> = table
            .aggregates
            .iter()
            .map(|aggregate| crate::aggregates::Recount::new(table, aggregate))
            .collect();
        let mut recount_failed: Vec<Option<RuntimeError>> = vec![None; recounts.len()];
        let mut minus_zero = MinusZero::default();
        let mut minus_zero_keys = BTreeSet::new();
        // A `key auto` table's counter must be past every stored key.
        let mut largest_key = 0u64;
        let read = self.each_chunk(&tree, true, &mut |check, chunk| {
            let (rows, found) = canonical_entries(chunk.into_iter().collect(), &[], Some(width));
            for key in &found {
                minus_zero_keys.insert(canonical_key(key, &[]).unwrap_or_else(|| key.clone()));
            }
            minus_zero.note(found);
            let mut decoded = Vec::with_capacity(rows.len());
            for (key, bytes) in rows {
                check.found.rows += 1;
                let row = match check.row(table, &key, &bytes) {
                    Ok(row) => row,
                    Err(problem) => {
                        check.problem(problem);
                        continue;
                    }
                };
                if table.auto {
                    largest_key = crate::rows::auto_counter_past(largest_key, &row[table.key[0]]);
                }
                if let Err(e) = count_row(table, &row, counters) {
                    check.problem(format!("`{}`: {}", table.name, e.message));
                }
                for (recount, failed) in recounts.iter_mut().zip(&mut recount_failed) {
                    if failed.is_none() {
                        *failed = recount.add(&row).err();
                    }
                }
                decoded.push((key, bytes, row));
            }
            for (index, tally) in table.indexes.iter().zip(&mut indexes) {
                check.index_chunk(table, index, tally, &decoded);
            }
        });
        self.minus_zero(&tree, &minus_zero, &[]);
        self.minus_zero_keys
            .insert(table.name.clone(), minus_zero_keys);
        if !read {
            return;
        }
        let recounts = recounts
            .into_iter()
            .zip(recount_failed)
            .map(|(recount, failed)| match failed {
                Some(error) => Err(error),
                None => recount.finish(),
            })
            .collect();
        self.aggregates(table, recounts);
        if table.auto {
            self.auto_counter(table, largest_key);
        }
        for (index, tally) in table.indexes.iter().zip(indexes) {
            let Some(entries) = tally.entries else {
                continue;
            };
            self.found.entries += entries;
            let (missing, stale) = (tally.missing, tally.stale);
            let extra = entries.saturating_sub(tally.found);
            if missing + extra + stale > 0 {
                self.problem(format!(
                    "index `{}.{}`: {missing} entries missing, {extra} without a row, {stale} holding another row than the table",
                    table.name, index.name
                ));
            }
        }
    }

    /// A `key auto` table's counter, at least `largest_key` (a smaller one
    /// would generate a key already taken).
    fn auto_counter(&mut self, table: &TableSchema, largest_key: u64) {
        let tree = crate::rows::auto_tree(&table.name);
        let Some(stored) = self.entries(&tree) else {
            return;
        };
        let stored = self.canonical(&tree, stored, &[], None);
        self.found.entries += stored.len() as u64;
        let counter = match stored.into_iter().collect::<Vec<_>>().as_slice() {
            [] => Some(0),
            [(key, value)] if key.is_empty() => <[u8; 8]>::try_from(value.as_slice())
                .ok()
                .map(u64::from_be_bytes),
            _ => None,
        };
        match counter {
            Some(counter) if counter >= largest_key => {}
            Some(counter) => self.problem(format!(
                "`{}`: the generated key counter is at {counter}, below the stored key {largest_key}: the next insert would be refused (E0501)",
                table.name
            )),
            None => self.problem(format!(
                "`{}`: the generated key counter `{tree}` holds entries that are not one counter",
                table.name
            )),
        }
    }

    /// The row stored under `key`, checked: it decodes, is stored under
    /// its own key, and re-encodes to the same bytes.
    fn row(
        &self,
        table: &TableSchema,
        key: &[u8],
        bytes: &[u8],
    ) -> std::result::Result<Vec<Value>, String> {
        let row = decode_row(bytes, table.columns.len())
            .map_err(|e| format!("`{}`: a row does not decode: {}", table.name, e.message))?;
        let primary = primary_key(table, &row).map_err(|e| e.message)?;
        let encoded = encode_row(&row).map_err(|e| e.message)?;
        if primary != key || encoded != bytes {
            return Err(format!(
                "`{}`: a row is stored under another key than its own",
                table.name
            ));
        }
        // A value past its length bound (written by a process that held
        // an older schema, or by hand) breaks what the bound promises.
        for (column, value) in table.columns.iter().zip(&row) {
            if let (Some(max), Value::Str(text)) = (column.max_len, value) {
                if text.len() as u64 > max {
                    return Err(format!(
                        "`{}.{}`: a stored value has {} bytes, past its bound `<= {max}`",
                        table.name,
                        column.name,
                        text.len()
                    ));
                }
            }
        }
        Ok(row)
    }

    /// Every counter tree the schema has (including ones no row counts)
    /// against the counts of the rows.
    fn counters(&mut self, schema: &Schema, mut expected: Counters) {
        for table in &schema.tables {
            for i in 0..table.bounds.len() {
                expected.entry(bound_tree(&table.name, i)).or_default();
            }
            if table.small_max.is_some() {
                expected.entry(small_tree(&table.name)).or_default();
            }
            expected.entry(refcount_tree(&table.name)).or_default();
        }
        let bound_trees: std::collections::HashSet<String> = schema
            .tables
            .iter()
            .flat_map(|t| (0..t.bounds.len()).map(|i| bound_tree(&t.name, i)))
            .collect();
        for (tree, expected) in expected {
            let Some(stored) = self.entries(&tree) else {
                continue;
            };
            let mut stored = self.canonical(&tree, stored, &[], None);
            if bound_trees.contains(&tree) {
                // A group holding `none`, which an rqc before cascades
                // counted: no write reads or moves it now.
                stored.retain(|k, _| {
                    crate::encoding::key::stored_components(k, &[])
                        .is_none_or(|values| !values.contains(&Value::Null))
                });
            }
            self.found.entries += stored.len() as u64;
            let actual: BTreeMap<Vec<u8>, u64> = stored
                .into_iter()
                .map(|(k, v)| {
                    let count =
                        <[u8; 8]>::try_from(v.as_slice()).map_or(u64::MAX, u64::from_be_bytes);
                    (k, count)
                })
                .collect();
            let wrong = differing(&expected, &actual);
            if wrong > 0 {
                self.problem(format!(
                    "counters `{tree}`: {wrong} differ from the counts of the rows"
                ));
            }
        }
    }

    /// Every reference points at a row of its target table: the counted
    /// keys read a chunk at a time, each chunk's looked up in the table in
    /// one batch (the rows an older rqc keyed with `-0.0` by the keys the
    /// table's read kept). Damage was listed when each tree was read.
    fn references(&mut self, schema: &Schema) {
        for table in &schema.tables {
            let rows = self.store.tree(&table_tree(&table.name));
            let legacy = self.minus_zero_keys.remove(&table.name).unwrap_or_default();
            let mut dangling = 0u64;
            self.each_chunk(&refcount_tree(&table.name), false, &mut |check, chunk| {
                let (counted, _) = canonical_entries(chunk.into_iter().collect(), &[], None);
                let keys: Vec<&[u8]> = counted.keys().map(Vec::as_slice).collect();
                let found = check.txn.get_many(rows, &keys).unwrap_or_else(|_| {
                    keys.iter()
                        .map(|key| check.txn.get(rows, key).ok().flatten())
                        .collect()
                });
                for (key, row) in keys.iter().zip(found) {
                    if row.is_none() && !legacy.contains(*key) {
                        dangling += 1;
                    }
                }
            });
            if dangling > 0 {
                self.problem(format!(
                    "`{}`: {dangling} referenced rows are missing",
                    table.name
                ));
            }
        }
    }
}

/// Adds one row to the counters its table keeps: per bound group, the
/// small table's size, and per referenced row.
pub(crate) fn count_row(
    table: &TableSchema,
    row: &[Value],
    counters: &mut Counters,
) -> std::result::Result<(), RuntimeError> {
    let mut add = |tree: String, key: Vec<u8>| {
        *counters.entry(tree).or_default().entry(key).or_default() += 1;
    };
    for (i, bound) in table.bounds.iter().enumerate() {
        // `none` is no group of any bound: such a row is not counted.
        if crate::constraints::in_no_group(bound, row) {
            continue;
        }
        let values: Vec<Value> = bound.columns.iter().map(|&c| row[c].clone()).collect();
        add(bound_tree(&table.name, i), encode_key(&values, &[])?);
    }
    if table.small_max.is_some() {
        add(small_tree(&table.name), Vec::new());
    }
    for (column, spec) in table.columns.iter().enumerate() {
        if let (Some(target), false) = (spec.references.as_deref(), row[column] == Value::Null) {
            let key = encode_key(std::slice::from_ref(&row[column]), &[])?;
            add(refcount_tree(target), key);
        }
    }
    Ok(())
}

/// How many keys `expected` and `actual` disagree on: a value differs, or
/// one of them lacks the key.
fn differing<V: PartialEq>(
    expected: &BTreeMap<Vec<u8>, V>,
    actual: &BTreeMap<Vec<u8>, V>,
) -> usize {
    expected
        .keys()
        .chain(actual.keys())
        .filter(|k| expected.get(*k) != actual.get(*k))
        .collect::<BTreeSet<_>>()
        .len()
}
