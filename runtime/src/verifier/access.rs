//! The bound pass's reads and writes: point reads, aggregate reads, scans (a stream, or a range a declared bound or a small table limits) and inserts, updates and deletes with the upkeep the schema demands, each costed by spec/cost.md §4.1 and §7.
//!
//! A write's upkeep is decided at run time from the schema
//! (`constraints.rs`, `aggregates.rs`), so a plan cannot leave it out; its
//! cost is `rqc_plan::write_work`'s, the formula the checker charges, per
//! row of the target, and the target must be rows of the written table in
//! a number something bounds.

use super::abstract_value::{Abs, Kind, RecordAbs, StreamAbs};
use super::bounds::{Eval, Verifier};
use super::named::Step;
use super::narrowed_values::narrow_at;
use super::narrowing::plain_int;
use super::scope::{Binding, Scope};
use rqc_cost::{Cost, Interval, Poly, Relation};
use rqc_plan::{AggregateKind, ColumnType, Node, Op, RangeEnd};
use std::rc::Rc;

/// One point read: a descent, an entry, a call (spec/cost.md §4.1, §11).
fn point(seeks: u64) -> Cost {
    Cost::constant(seeks, 1, 1)
}

impl<'p> Verifier<'p> {
    /// The position of table `name` (resolved by `shapes.rs` already).
    fn table_position(&self, node: &Node, name: &str) -> crate::error::Result<usize> {
        match self.schema.tables.iter().position(|t| t.name == name) {
            Some(t) => Ok(t),
            None => self.fault("E0620", node, format!("no table `{name}` in the schema")),
        }
    }

    pub(super) fn access(
        &mut self,
        node: &'p Node,
        scope: &Scope<'p>,
    ) -> crate::error::Result<Eval<'p>> {
        Ok(match &node.op {
            // The row found holds its key at the values given (as a
            // scan's fixed columns).
            Op::Get { table, key } => {
                let t = self.table_position(node, table)?;
                let (found, mut out) = self.all_data(key, scope)?;
                out.cost = out.cost.plus(&point(1));
                let read = fixed_within(&self.schema.tables[t].key, &found);
                out.value = Abs::Opt(Box::new(rows_read_within(self.row(t), &read)));
                out
            }
            // The index entry holds the row (the calculus charges the
            // descent to the entry and to the row).
            Op::GetUnique {
                table,
                index,
                values,
            } => {
                let t = self.table_position(node, table)?;
                let (found, mut out) = self.all_data(values, scope)?;
                out.cost = out.cost.plus(&point(2));
                let schema = &self.schema.tables[t];
                let Some(index) = schema.indexes.iter().find(|i| &i.name == index) else {
                    return self.fault("E0620", node, format!("no index `{index}`"));
                };
                let read = fixed_within(&index.columns, &found);
                out.value = Abs::Opt(Box::new(rows_read_within(self.row(t), &read)));
                out
            }
            Op::Aggregate { aggregate, key } => {
                let (_, mut out) = self.all_data(key, scope)?;
                out.cost = out.cost.plus(&point(1));
                out.value = self.aggregate_value(node, aggregate)?;
                out
            }
            Op::Scan { .. } => self.scan(node, scope)?,
            Op::Insert {
                table,
                row,
                generated,
            } => {
                let t = self.table_position(node, table)?;
                let (values, mut out) = self.all_data(row, scope)?;
                let schema = &self.schema.tables[t];
                let key = schema.key[0];
                for (c, value) in values.iter().enumerate() {
                    // A generated key's place holds `none` (shapes.rs).
                    if !(*generated && c == key) {
                        self.fits_column(node, t, c, value)?;
                    }
                }
                let (s, r, trips) = schema.insert_work();
                out.cost = out.cost.plus(&Cost::constant(s, r, trips));
                // A `key auto` table's insert evaluates to the row's key.
                out.value = if schema.auto {
                    Abs::int(Interval::unbounded(&format!(
                        "{}.{}",
                        schema.name, schema.columns[key].name
                    )))
                } else {
                    Abs::int(Interval::exact(1))
                };
                out.writes = true;
                out
            }
            Op::Update {
                table,
                target,
                changes,
                row,
            } => {
                let t = self.table_position(node, table)?;
                let (rows, mut out) = self.target(node, t, target, scope)?;
                // With a row, the changes are evaluated once per row, read
                // between its read and its write, with the row bound to
                // its name; without, once (charged per row all the same, as
                // the checker does).
                let inner = match row {
                    Some(name) => Some(Rc::new(Binding {
                        name,
                        value: self.updated_row(t, &out.value),
                        id: self.new_binding(),
                        condition: None,
                        definition: None,
                        outer: scope.clone(),
                    })),
                    None => scope.clone(),
                };
                let mut columns = Vec::with_capacity(changes.len());
                let mut per_row = Cost::zero();
                let mut changes_write = false;
                for (column, value) in changes {
                    let change = self.eval(value, &inner)?;
                    self.data(value, &change)?;
                    let position = self.column_position(node, t, column)?;
                    self.fits_column(node, t, position, &change.value)?;
                    columns.push(position);
                    per_row = per_row.plus(&change.cost);
                    changes_write |= change.writes;
                }
                let (s, r, trips) = self.schema.tables[t].update_work(&columns);
                let mut write = Cost::constant(s, r, trips);
                // A change that writes may change the row between its read
                // and its write: the runtime reads it again.
                if row.is_some() && changes_write {
                    write = write.plus(&Cost::constant(1, 1, 1));
                }
                out.cost = out.cost.plus(&per_row.plus(&write).times(&rows));
                out.value = Abs::int(Interval::up_to(rows));
                out.writes = true;
                out
            }
            Op::Upsert { table, columns } => {
                let t = self.table_position(node, table)?;
                let mut out = Eval::free(Abs::Null);
                let mut named = Vec::with_capacity(columns.len());
                for (column, value) in columns {
                    let given = self.eval(value, scope)?;
                    self.data(value, &given)?;
                    let position = self.column_position(node, t, column)?;
                    self.fits_column(node, t, position, &given.value)?;
                    named.push(position);
                    out.cost = out.cost.plus(&given.cost);
                    out.writes |= given.writes;
                }
                let (s, r, trips) = self.schema.tables[t].upsert_work(&named);
                out.cost = out.cost.plus(&Cost::constant(s, r, trips));
                out.value = Abs::int(Interval::up_to(Poly::constant(1)));
                out.writes = true;
                out
            }
            Op::Delete { table, target } => {
                let t = self.table_position(node, table)?;
                let (rows, mut out) = self.target(node, t, target, scope)?;
                // With every row its cascades reach (spec/cost.md §7.3).
                let (s, r, trips) = self.schema.delete_work_of(t);
                out.cost = out.cost.plus(&Cost::constant(s, r, trips).times(&rows));
                out.value = Abs::int(Interval::up_to(rows));
                out.writes = true;
                out
            }
            _ => return self.fault("E0621", node, "not a read or a write".into()),
        })
    }

    /// A value written to column `c` of table `t` is of its type (`none`
    /// only in an optional column): the executor would refuse it row by
    /// row; the checker never writes one.
    fn fits_column(
        &self,
        node: &Node,
        t: usize,
        c: usize,
        value: &Abs<'p>,
    ) -> crate::error::Result<()> {
        let table = &self.schema.tables[t];
        let column = &table.columns[c];
        let optional = matches!(column.ty, ColumnType::Optional(_));
        let fits = match value.scalar_kind() {
            Err(_) => false,
            Ok(None) => optional || matches!(value, Abs::Nothing),
            Ok(Some(kind)) => {
                kind == Kind::of(&column.ty) && (optional || !matches!(value, Abs::Opt(_)))
            }
        };
        if fits {
            return Ok(());
        }
        self.fault(
            "E0625",
            node,
            format!(
                "it writes {} into `{}.{}`, which is `{}`",
                match value {
                    Abs::Opt(_) => "a value that may be none",
                    Abs::Scalar(s) => s.kind.name(),
                    other => other.kind(),
                },
                table.name,
                column.name,
                column.ty.name()
            ),
        )
    }

    /// What an aggregate's read gives: a count in `[0, ∞)`, a sum, or an
    /// extreme of its column (none of an empty group).
    fn aggregate_value(&self, node: &Node, name: &str) -> crate::error::Result<Abs<'p>> {
        let found = self
            .schema
            .tables
            .iter()
            .enumerate()
            .find_map(|(t, table)| {
                let aggregate = table.aggregates.iter().find(|a| a.name == name)?;
                Some((t, aggregate))
            });
        let Some((t, aggregate)) = found else {
            return self.fault(
                "E0620",
                node,
                format!("no aggregate `{name}` in the schema"),
            );
        };
        Ok(match aggregate.kind {
            AggregateKind::Count => Abs::int(Interval::up_to(Poly::unbounded(name))),
            AggregateKind::Sum => Abs::int(Interval::unbounded(name)),
            AggregateKind::Min | AggregateKind::Max => {
                let column = aggregate
                    .column
                    .and_then(|c| self.schema.tables[t].columns.get(c));
                let value = match (&self.row(t), column) {
                    (Abs::Record(row), Some(column)) => row
                        .fields
                        .iter()
                        .find(|(n, _)| n == &column.name)
                        .map(|(_, v)| v.clone())
                        .unwrap_or_else(|| Abs::unknown(Kind::Int, name)),
                    _ => Abs::unknown(Kind::Int, name),
                };
                Abs::Opt(Box::new(value))
            }
        })
    }

    /// A write's target: rows of table `t`, at most `rows` of them (a
    /// number something bounds), and the cost of reading them.
    /// The row of table `t` an `update … as r` binds, of the rows
    /// `target` holds: what the access proved of its key columns, its
    /// table's row elsewhere (as the checker's `updated_row`: the run
    /// reads each row again by key before its changes, and an earlier
    /// row's nested write may have changed any column but the key).
    fn updated_row(&self, t: usize, target: &Abs<'p>) -> Abs<'p> {
        let row = self.row(t);
        let (Some((Abs::Record(read), _)), Abs::Record(table_row)) = (target.items(), &row) else {
            return row;
        };
        let mut fields = table_row.fields.clone();
        for &position in &self.schema.tables[t].key {
            if let (Some(field), Some((_, value))) =
                (fields.get_mut(position), read.fields.get(position))
            {
                field.1 = value.clone();
            }
        }
        Abs::Record(Rc::new(RecordAbs {
            fields,
            table: table_row.table,
        }))
    }

    fn target(
        &mut self,
        node: &Node,
        t: usize,
        target: &'p Node,
        scope: &Scope<'p>,
    ) -> crate::error::Result<(Poly, Eval<'p>)> {
        let out = self.eval(target, scope)?;
        let Some((element, rows)) = out.value.items() else {
            return self.fault(
                "E0630",
                node,
                "it writes the rows of a stream, which nothing limits".into(),
            );
        };
        let of_table = match &element {
            Abs::Nothing => true,
            Abs::Record(record) => record.table == Some(t),
            _ => false,
        };
        if !of_table {
            return self.fault(
                "E0625",
                node,
                format!(
                    "it writes `{}` through {}, not rows of that table",
                    self.schema.tables[t].name,
                    element.kind()
                ),
            );
        }
        if rows.max_value().is_none() {
            return self.fault(
                "E0630",
                node,
                format!(
                    "it writes a list of rows whose length nothing bounds ({})",
                    rows.unbounded_params().join(", ")
                ),
            );
        }
        Ok((rows, out))
    }

    /// A scan: a stream (read by its consumer), or a range read whole,
    /// which a `bound` over the columns its prefix fixes, or the small
    /// table's `max`, must limit.
    fn scan(&mut self, node: &'p Node, scope: &Scope<'p>) -> crate::error::Result<Eval<'p>> {
        let Op::Scan {
            table,
            index,
            prefix,
            lower,
            upper,
            stream,
            starts_with,
        } = &node.op
        else {
            return self.fault("E0621", node, "not a scan".into());
        };
        let t = self.table_position(node, table)?;
        let schema = &self.schema.tables[t];
        let columns: &[usize] = match index {
            None => &schema.key,
            Some(name) => match schema.indexes.iter().find(|i| &i.name == name) {
                Some(found) => &found.columns,
                None => return self.fault("E0620", node, format!("no index `{name}`")),
            },
        };
        let (fixed_values, mut out) = self.all_data(prefix, scope)?;
        // What every row read holds of its `Int` columns: a fixed one its
        // value's range, the range's column within its ends (as the
        // checker's `rows_read_within`, by `Interval::read_within`).
        let mut read = fixed_within(columns, &fixed_values);
        for (end, upper) in [(lower, false), (upper, true)] {
            let Some(RangeEnd { value, inclusive }) = end else {
                continue;
            };
            let values: &'p [Node] = match &value.op {
                Op::Tuple(items) => items,
                _ => std::slice::from_ref(&**value),
            };
            let (found, ends) = self.all_data(values, scope)?;
            // A tuple's end bounds its first column, the value itself
            // allowed (`(a, b) < (x, y)` reads `a == x`), as the checker's.
            let tuple = matches!(&value.op, Op::Tuple(_));
            let next = columns.get(prefix.len());
            if let (false, Some(first), Some(column)) = (*starts_with, found.first(), next) {
                if let Some(first) = plain_int(first) {
                    let relation = Relation::of_range_end(upper, *inclusive || tuple);
                    read.push((*column, relation, first));
                }
            }
            if *starts_with && !matches!(found[0].scalar_kind(), Ok(None | Some(Kind::Str))) {
                return self.fault(
                    "E0625",
                    node,
                    "its `starts_with` prefix is no String".into(),
                );
            }
            out.cost = out.cost.plus(&ends.cost);
            out.writes |= ends.writes;
        }
        let row = rows_read_within(self.row(t), &read);
        if *stream {
            out.value = Abs::Stream(Rc::new(StreamAbs {
                element: row,
                open: Cost::constant(1, 0, 1),
                each: Cost::constant(0, 1, 0),
                skipped: false,
                writes: false,
            }));
            return Ok(out);
        }
        let fixed = &columns[..prefix.len().min(columns.len())];
        let limit = schema
            .bounds
            .iter()
            .filter(|b| b.columns.iter().all(|c| fixed.contains(c)))
            .map(|b| b.limit)
            .chain(schema.small_max)
            .min();
        let Some(limit) = limit else {
            return self.fault(
                "E0630",
                node,
                format!(
                    "it reads a range of `{}` whole, and no `bound` over the columns it fixes (nor a small table's `max`) limits it",
                    schema.name
                ),
            );
        };
        out.cost = out.cost.plus(&Cost::constant(1, limit, 1));
        out.value = Abs::list(row, Poly::constant(limit));
        Ok(out)
    }
}

/// What every row read by the values `found` of `columns` holds: each
/// column whose value is a plain `Int`, equal to it.
fn fixed_within(columns: &[usize], found: &[Abs<'_>]) -> Vec<(usize, Relation, Interval)> {
    columns
        .iter()
        .zip(found)
        .filter_map(|(column, value)| Some((*column, Relation::Equal, plain_int(value)?)))
        .collect()
}

/// `row`, a row of a table, with each `Int` column `read` names narrowed
/// to where every row the access reads holds it (`Interval::read_within`).
fn rows_read_within<'p>(row: Abs<'p>, read: &[(usize, Relation, Interval)]) -> Abs<'p> {
    read.iter().fold(row, |row, (column, relation, value)| {
        let within = Interval::read_within(*relation, value);
        narrow_at(&row, &[Step::Column(*column)], &within).unwrap_or(row)
    })
}
