//! What each write costs with its upkeep (spec/cost.md §7, §7.1): one formula per write, read by the checker, which charges it, and by the runtime's plan verifier, which recomputes it.
//!
//! A write's figures are (seeks, rows, round trips): the point reads its
//! checks make (key, unique values, references and their counters, bound
//! counters, aggregate entries) and one seek per index entry written or
//! removed. Its round trips are its reads: each check reads one entry and
//! counts as one row whether it finds one or not, while the entries it
//! writes go to the store with the commit (§11), and every read is a seek.

use crate::schema::{AggregateKind, AggregateSchema, ExtremePath, TableSchema};

/// A write's seeks, rows and round trips, from its seeks and rows.
fn work(seeks: u64, rows: u64) -> (u64, u64, u64) {
    (seeks, rows, rows.min(seeks))
}

/// Whether a change of `columns` moves one of the aggregate's values: a
/// `by` column (the row changes group) or the column it reads.
pub fn touched_by(aggregate: &AggregateSchema, columns: &[usize]) -> bool {
    aggregate.by.iter().any(|c| columns.contains(c))
        || aggregate.column.is_some_and(|c| columns.contains(&c))
}

impl TableSchema {
    /// What inserting one row costs: the key check; per unique index a
    /// check and its entry; per plain index its entry; per reference the
    /// referenced row's check and its counter; each `bound` and the small
    /// table's counter; one read-modify-write per aggregate's entry (§7.1);
    /// a `key auto` table's key counter, read and written back whether the
    /// key is generated or given (§7.2).
    /// A load on etcd proves a row's commit fits in one request from it.
    pub fn insert_work(&self) -> (u64, u64, u64) {
        let unique = self.indexes.iter().filter(|i| i.unique).count() as u64;
        let plain = self.indexes.len() as u64 - unique;
        let (refs, counters) = (self.references(), self.counters() + u64::from(self.auto));
        let aggregates = self.aggregates.len() as u64;
        work(
            1 + 2 * unique + plain + 2 * refs + counters + aggregates,
            1 + unique + 2 * refs + counters + aggregates,
        )
    }

    /// What deleting one row costs (the row is read again by key; its own
    /// reference counter is read when another table references it).
    pub fn delete_work(&self, referenced: bool) -> (u64, u64, u64) {
        let (refs, bounds) = (self.references(), self.counters());
        let checked = u64::from(referenced);
        let (upkeep_seeks, upkeep_rows) = self.upkeep_delete();
        work(
            1 + self.indexes.len() as u64 + refs + bounds + checked + upkeep_seeks,
            1 + refs + bounds + checked + upkeep_rows,
        )
    }

    /// What changing `columns` of one row costs (the row is read again by
    /// key).
    pub fn update_work(&self, columns: &[usize]) -> (u64, u64, u64) {
        let mut seeks = 1;
        let mut rows = 1;
        for index in &self.indexes {
            let touched = index.columns.iter().any(|c| columns.contains(c));
            if index.unique && touched {
                seeks += 3; // check the new value, remove the old entry, write the new
                rows += 1;
            } else if index.unique {
                seeks += 1; // rewrite the entry's copy of the row
            } else {
                seeks += 2; // remove the old entry, write the new (it holds a copy)
            }
        }
        for &column in columns {
            if self
                .columns
                .get(column)
                .is_some_and(|c| c.references.is_some())
            {
                seeks += 3;
                rows += 3;
            }
        }
        for bound in &self.bounds {
            if bound.columns.iter().any(|c| columns.contains(c)) {
                seeks += 2;
                rows += 2;
            }
        }
        // The old group's and the new group's entries of each aggregate the
        // change touches (§7.1).
        let (upkeep_seeks, upkeep_rows) = self.upkeep_update(columns);
        work(seeks + upkeep_seeks, rows + upkeep_rows)
    }

    /// What upserting one row that names `named` columns costs: the larger
    /// of the insert's work and the update's of the named columns outside
    /// the key. One read by key decides the path, and it is the insert's
    /// key check on one and the update's read of the live row on the other.
    pub fn upsert_work(&self, named: &[usize]) -> (u64, u64, u64) {
        let changed: Vec<usize> = named
            .iter()
            .copied()
            .filter(|c| !self.key.contains(c))
            .collect();
        let (a, b) = (self.insert_work(), self.update_work(&changed));
        (a.0.max(b.0), a.1.max(b.1), a.2.max(b.2))
    }

    /// What finding a `min`/`max` group's next extreme costs: one seek, and
    /// one row through an index or the bounded group's rows.
    fn successor(&self, aggregate: &AggregateSchema) -> (u64, u64) {
        match self.extreme_path(aggregate) {
            None => (0, 0),
            Some((ExtremePath::Index(_), _)) => (1, 1),
            Some((ExtremePath::Group { limit, .. }, _)) => (1, limit),
        }
    }

    /// What the aggregate's upkeep adds to deleting one row: its entry read
    /// and written, and for `min` and `max` the next extreme found (when
    /// the deleted row held it).
    fn upkeep_delete_of(&self, aggregate: &AggregateSchema) -> (u64, u64) {
        let (s, r) = match aggregate.kind {
            AggregateKind::Min | AggregateKind::Max => self.successor(aggregate),
            _ => (0, 0),
        };
        (1 + s, 1 + r)
    }

    fn upkeep_delete(&self) -> (u64, u64) {
        self.aggregates.iter().fold((0, 0), |(s, r), a| {
            let (ds, dr) = self.upkeep_delete_of(a);
            (s + ds, r + dr)
        })
    }

    /// ... and to changing `columns` of one row: the old row leaves its
    /// group (a delete's upkeep) and the new one joins its group (an
    /// insert's), for each aggregate the change touches.
    fn upkeep_update(&self, columns: &[usize]) -> (u64, u64) {
        self.aggregates
            .iter()
            .filter(|a| touched_by(a, columns))
            .fold((0, 0), |(s, r), a| {
                let (ds, dr) = self.upkeep_delete_of(a);
                (s + ds + 1, r + dr + 1)
            })
    }
}
