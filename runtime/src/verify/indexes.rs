//! `verify`'s index checks: an index's entries counted a chunk at a time, then each chunk of rows looking its entries up in one batch.

use super::minus_zero::MinusZero;
use super::{canonical_entries, Check, Entries};
use crate::encoding::key::canonical_key;
use crate::encoding::row::{decode_row, encode_row, row_holds_minus_zero};
use crate::rows::{index_entry, index_tree};
use crate::store::Tree;
use rqc_plan::{IndexSchema, TableSchema, Value};

/// What the rows of a table found of one index's entries.
pub(super) struct IndexTally {
    pub(super) tree: Tree,
    /// Its readable entries, or `None` when it could not be read to its end.
    pub(super) entries: Option<u64>,
    pub(super) found: u64,
    pub(super) missing: u64,
    pub(super) stale: u64,
    /// The entries an older rqc stored with `-0.0`, by the key this rqc
    /// reads (no point read of that key finds them).
    pub(super) minus_zero: Entries,
}

impl Check<'_> {
    /// An index's entries read a chunk at a time: counted, each damaged
    /// one and each `-0.0` listed, and the few an older rqc stored with
    /// `-0.0` kept under the key this rqc reads (no point read finds them).
    pub(super) fn index_tally(&mut self, table: &TableSchema, index: &IndexSchema) -> IndexTally {
        let name = index_tree(&table.name, &index.name);
        let width = table.columns.len();
        let mut tally = IndexTally {
            tree: self.store.tree(&name),
            entries: None,
            found: 0,
            missing: 0,
            stale: 0,
            minus_zero: Entries::new(),
        };
        let mut counted = 0u64;
        let mut minus_zero = MinusZero::default();
        let read = self.each_chunk(&name, true, &mut |_, chunk| {
            let (entries, found) =
                canonical_entries(chunk.into_iter().collect(), &index.descending, Some(width));
            counted += entries.len() as u64;
            for key in &found {
                let canonical =
                    canonical_key(key, &index.descending).unwrap_or_else(|| key.clone());
                if let Some(value) = entries.get(&canonical) {
                    tally.minus_zero.insert(canonical, value.clone());
                }
            }
            minus_zero.note(found);
        });
        self.minus_zero(&name, &minus_zero, &index.descending);
        tally.entries = read.then_some(counted);
        tally
    }

    /// The entries a chunk of rows (`(key, bytes, row)`, as this rqc reads
    /// them) gives `index`, looked up in one batch: each found holding
    /// its row, or missing, or holding another.
    pub(super) fn index_chunk(
        &mut self,
        table: &TableSchema,
        index: &IndexSchema,
        tally: &mut IndexTally,
        rows: &[(Vec<u8>, Vec<u8>, Vec<Value>)],
    ) {
        let mut expected: Vec<(Vec<u8>, &[u8])> = Vec::with_capacity(rows.len());
        for (key, bytes, row) in rows {
            match index_entry(index, row, key) {
                Ok(entry) => expected.push((entry, bytes)),
                Err(e) => self.problem(format!(
                    "`{}`: a row has no entry in index `{}`: {}",
                    table.name, index.name, e.message
                )),
            }
        }
        let keys: Vec<&[u8]> = expected.iter().map(|(entry, _)| entry.as_slice()).collect();
        // A damaged entry fails the batch: then one at a time, the damaged
        // one missing (the index's read listed it).
        let stored = self.txn.get_many(tally.tree, &keys).unwrap_or_else(|_| {
            keys.iter()
                .map(|key| self.txn.get(tally.tree, key).ok().flatten())
                .collect()
        });
        let width = table.columns.len();
        for ((entry, bytes), stored) in expected.iter().zip(stored) {
            let stored = match stored {
                Some(value) if row_holds_minus_zero(&value, width) => decode_row(&value, width)
                    .and_then(|row| encode_row(&row))
                    .unwrap_or(value),
                Some(value) => value,
                None => match tally.minus_zero.get(entry) {
                    Some(value) => value.clone(),
                    None => {
                        tally.missing += 1;
                        continue;
                    }
                },
            };
            tally.found += 1;
            if stored != *bytes {
                tally.stale += 1;
            }
        }
    }
}
