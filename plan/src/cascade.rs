//! Cascading deletes over islands (spec/cost.md §7.3): which rows a delete reaches through `on delete cascade` and `on delete set none`, how they are found, and what the whole delete costs, for the checker, which charges it, and the runtime, which runs and verifies it.
//!
//! A column that declares `on delete` must carry a `bound` over exactly
//! itself: its rows that name one referenced row are an island of at most
//! the bound's limit, found with one range read of the key or index the
//! bound is over. A delete that reaches a table again through cascades (a
//! cycle) has no bound and is refused where the schema is checked.

use crate::schema::{OnDelete, Schema, TableSchema};
use std::collections::HashMap;

/// One column whose rows a delete of a row of the referenced table reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cascade {
    /// The referencing table's position in the schema.
    pub table: usize,
    /// The referencing column's position in that table.
    pub column: usize,
    pub action: OnDelete,
    /// Where its island is read, and how large it may be; `None` when the
    /// column carries no bound over exactly itself (a schema the checker
    /// and the verifier refuse).
    pub island: Option<Island>,
}

/// Where the rows of one referencing value are read: a prefix of the key
/// (`index: None`) or of index `index`, at most `limit` rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Island {
    pub index: Option<usize>,
    pub limit: u64,
}

impl TableSchema {
    /// The island of the rows sharing a value of `column`: the `bound`
    /// over exactly that column, read through the key when it begins with
    /// the column, else through the first index that does.
    pub fn island_of(&self, column: usize) -> Option<Island> {
        let limit = self.bounds.iter().find(|b| b.columns == [column])?.limit;
        if self.key.first() == Some(&column) {
            return Some(Island { index: None, limit });
        }
        let index = self
            .indexes
            .iter()
            .position(|i| i.columns.first() == Some(&column))?;
        Some(Island {
            index: Some(index),
            limit,
        })
    }
}

/// What deleting one row does, in seeks, rows and round trips.
type Work = (u64, u64, u64);

fn plus(a: Work, b: Work) -> Work {
    (
        a.0.saturating_add(b.0),
        a.1.saturating_add(b.1),
        a.2.saturating_add(b.2),
    )
}

fn times(n: u64, a: Work) -> Work {
    (
        a.0.saturating_mul(n),
        a.1.saturating_mul(n),
        a.2.saturating_mul(n),
    )
}

impl Schema {
    /// The columns, in schema order, that declare `on delete` and
    /// reference the table called `table`.
    pub fn cascades_into(&self, table: &str) -> Vec<Cascade> {
        self.cascades_by_target().remove(table).unwrap_or_default()
    }

    /// Every column that declares `on delete`, by the name of the table it
    /// references, in schema order: one pass over the columns (a program
    /// of thousands of tables is not searched once per table).
    pub fn cascades_by_target(&self) -> HashMap<String, Vec<Cascade>> {
        let mut found: HashMap<String, Vec<Cascade>> = HashMap::new();
        for (t, referencing) in self.tables.iter().enumerate() {
            for (c, column) in referencing.columns.iter().enumerate() {
                let (Some(action), Some(target)) = (column.on_delete, &column.references) else {
                    continue;
                };
                found.entry(target.clone()).or_default().push(Cascade {
                    table: t,
                    column: c,
                    action,
                    island: referencing.island_of(c),
                });
            }
        }
        found
    }

    /// A cascade cycle: the tables (by name, the first repeated at the
    /// end) a delete of a row of some table reaches again through
    /// `on delete cascade`, if there is one.
    pub fn cascade_cycle(&self) -> Option<Vec<String>> {
        // 0 unvisited, 1 on the path, 2 done.
        let by_target = self.cascades_by_target();
        if by_target.is_empty() {
            return None;
        }
        let mut state = vec![0u8; self.tables.len()];
        let mut path = Vec::new();
        for start in 0..self.tables.len() {
            if let Some(cycle) = self.cycle_from(&by_target, start, &mut state, &mut path) {
                return Some(cycle.iter().map(|&t| self.tables[t].name.clone()).collect());
            }
        }
        None
    }

    fn cycle_from(
        &self,
        by_target: &HashMap<String, Vec<Cascade>>,
        t: usize,
        state: &mut [u8],
        path: &mut Vec<usize>,
    ) -> Option<Vec<usize>> {
        match state[t] {
            2 => return None,
            1 => {
                let from = path.iter().position(|&p| p == t).unwrap_or(0);
                let mut cycle = path[from..].to_vec();
                cycle.push(t);
                return Some(cycle);
            }
            _ => {}
        }
        state[t] = 1;
        path.push(t);
        let into = by_target.get(&self.tables[t].name).map(Vec::as_slice);
        for cascade in into.unwrap_or_default() {
            if cascade.action == OnDelete::Cascade {
                if let Some(cycle) = self.cycle_from(by_target, cascade.table, state, path) {
                    return Some(cycle);
                }
            }
        }
        path.pop();
        state[t] = 2;
        None
    }

    /// What deleting one row of table `t` costs with everything it
    /// reaches (spec/cost.md §7.3): the row's own delete
    /// ([`TableSchema::delete_work`]), the row read again when anything
    /// cascades into its table, and for each column that cascades
    /// into it one range read of its island (one seek, one round trip, at
    /// most `limit` rows) and, per row of the island, that row's delete
    /// (the same rule, again) or its update to `none`. Figures saturate
    /// (the ceiling then refuses them); a column without an island or a
    /// cycle counts as `u64::MAX`.
    pub fn delete_work_of(&self, t: usize) -> Work {
        let by_target = self.cascades_by_target();
        let mut memo = vec![None; self.tables.len()];
        let mut on_path = vec![false; self.tables.len()];
        self.cascading_work(&by_target, t, &mut memo, &mut on_path)
    }

    fn cascading_work(
        &self,
        by_target: &HashMap<String, Vec<Cascade>>,
        t: usize,
        memo: &mut [Option<Work>],
        on_path: &mut [bool],
    ) -> Work {
        if let Some(work) = memo[t] {
            return work;
        }
        let unbounded = (u64::MAX, u64::MAX, u64::MAX);
        if on_path[t] {
            return unbounded;
        }
        on_path[t] = true;
        let table = &self.tables[t];
        let mut work = table.delete_work(self.is_referenced(&table.name));
        let cascades = by_target
            .get(&table.name)
            .map(Vec::as_slice)
            .unwrap_or_default();
        if !cascades.is_empty() {
            // The row read again once its cascades wrote (a `set none` may
            // have changed it).
            work = plus(work, (1, 1, 1));
        }
        for cascade in cascades {
            let Some(island) = cascade.island else {
                work = unbounded;
                continue;
            };
            let each = match cascade.action {
                OnDelete::Cascade => self.cascading_work(by_target, cascade.table, memo, on_path),
                OnDelete::SetNone => self.tables[cascade.table].update_work(&[cascade.column]),
            };
            let read = (1, island.limit, 1);
            work = plus(work, plus(read, times(island.limit, each)));
        }
        on_path[t] = false;
        memo[t] = Some(work);
        work
    }

    /// The tables a delete of a row of the table called `table` may write
    /// through cascades (not `table` itself unless a cycle reaches it).
    pub fn cascade_reach(&self, table: &str) -> Vec<usize> {
        let by_target = self.cascades_by_target();
        let mut seen = vec![false; self.tables.len()];
        let mut stack = vec![table.to_string()];
        let mut reached = Vec::new();
        while let Some(name) = stack.pop() {
            for cascade in by_target.get(&name).map(Vec::as_slice).unwrap_or_default() {
                if !seen[cascade.table] {
                    seen[cascade.table] = true;
                    reached.push(cascade.table);
                    if cascade.action == OnDelete::Cascade {
                        stack.push(self.tables[cascade.table].name.clone());
                    }
                }
            }
        }
        reached
    }
}
