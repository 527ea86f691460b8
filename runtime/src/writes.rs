//! Evaluating the write operators — `insert`, `update` (its changes computed once, or for each row from the row as read), `upsert` and `delete` — each through the checks and upkeep of `constraints.rs`.
//!
//! Every write names its row by key and acts on the row as it is at that
//! point of the mutation (spec/cost.md §7): an update or delete of a key
//! already gone does nothing, and a second write of a row sees the first
//! one's result.
//!
//! A dry read-ahead pass stops at a write operator ([`Halt::DryWrite`])
//! before anything of it is evaluated: the data layer is never entered dry.

use crate::bound::BoundTable;
use crate::constraints::{delete_row, insert_row, live_row, rewrite_row, update_row, upsert_row};
use crate::error::{Result, RuntimeError};
use crate::halt::{Eval, Halt};
use crate::interp::{internal, Interp};
use crate::rows::record_key;
use crate::values::{Env, Val};
use rqc_plan::{ColumnAt, Node, Record, TableSchema, Value};

impl<'p> Interp<'p, '_> {
    /// [`Halt::DryWrite`] in a dry pass (`batch`), which gives up reading
    /// ahead and evaluates its elements one by one.
    fn write_not_dry(&self) -> Eval<()> {
        if self.session.dry() {
            return Err(Halt::DryWrite);
        }
        Ok(())
    }

    pub(crate) fn insert(
        &mut self,
        node: &'p Node,
        row: &'p [Node],
        generated: bool,
        env: &Env<'p>,
    ) -> Eval<Val<'p>> {
        self.write_not_dry()?;
        let (table, _) = self.access(node)?;
        if generated && table.auto.is_none() {
            return Err(internal("a generated key for a table without `key auto`").into());
        }
        let row = self.values(row, env)?;
        let key = insert_row(self.session, self.bound, table, row, generated)?;
        self.within_deadline()?;
        // A `key auto` table's insert is its row's key.
        Ok(Val::Data(Value::Int(key.unwrap_or(1))))
    }

    /// `update`: the rows of `target`, each by its key as it is now; the
    /// value counts the rows changed. Without `named_row`, the changes are
    /// computed once, first; with it, for each row found, from the row
    /// as read (`as r`, `c += e`: bound in slot 0), between that read and
    /// its write.
    pub(crate) fn update(
        &mut self,
        node: &'p Node,
        target: &'p Node,
        changes: &'p [(ColumnAt, Node)],
        named_row: bool,
        env: &Env<'p>,
    ) -> Eval<Val<'p>> {
        self.write_not_dry()?;
        let (table, _) = self.access(node)?;
        let rows = self.value(target, env)?.into_items();
        let positions = changes
            .iter()
            .map(|(column, _)| position(table, column))
            .collect::<Result<Vec<usize>>>()?;
        let mut updated = 0;
        if !named_row {
            let mut resolved = Vec::with_capacity(changes.len());
            for (&position, (_, value)) in positions.iter().zip(changes) {
                resolved.push((position, self.value(value, env)?));
            }
            for listed in &rows {
                let key = record_key(&table.schema, listed)?;
                updated += i64::from(update_row(
                    self.session,
                    self.bound,
                    table,
                    &key,
                    &resolved,
                )?);
            }
            return Ok(Val::Data(Value::Int(updated)));
        }
        for listed in &rows {
            let key = record_key(&table.schema, listed)?;
            let Some(live) = live_row(self.session, table, &key)? else {
                continue;
            };
            // Under the table's shared names: a row as any read makes it.
            let read = Record::with_names(table.columns.clone(), live.clone());
            let bound = env.bind(Val::Data(Value::Record(read)));
            let written = self.session.entries_written();
            let mut resolved = Vec::with_capacity(changes.len());
            for (&position, (_, value)) in positions.iter().zip(changes) {
                let new = self.value(value, &bound).map_err(|halt| {
                    halt.map_error(|e| overflowed(e, &table.schema, position, &live))
                })?;
                resolved.push((position, new));
            }
            // Computing the changes wrote (a nested write, a call): the
            // row may have changed or gone since it was read, so it is
            // read again (the checker charged this read, spec/cost.md §7).
            let live = if self.session.entries_written() == written {
                live
            } else {
                match live_row(self.session, table, &key)? {
                    Some(again) => again,
                    None => continue,
                }
            };
            updated += i64::from(rewrite_row(
                self.session,
                self.bound,
                table,
                &key,
                live,
                &resolved,
            )?);
        }
        Ok(Val::Data(Value::Int(updated)))
    }

    /// `upsert`: the columns named, evaluated in order, the others'
    /// defaults filled in; 1 when it inserted or changed the row, 0 when
    /// the row was already so.
    pub(crate) fn upsert(
        &mut self,
        node: &'p Node,
        columns: &'p [(ColumnAt, Node)],
        env: &Env<'p>,
    ) -> Eval<Val<'p>> {
        self.write_not_dry()?;
        let (table, _) = self.access(node)?;
        let mut row: Vec<Option<Value>> = vec![None; table.schema.columns.len()];
        let mut named = Vec::with_capacity(columns.len());
        for (column, value) in columns {
            let position = position(table, column)?;
            row[position] = Some(self.value(value, env)?);
            named.push(position);
        }
        let row = with_defaults(table, row)?;
        let changed = upsert_row(self.session, self.bound, table, row, &named)?;
        self.within_deadline()?;
        Ok(Val::Data(Value::Int(i64::from(changed))))
    }

    pub(crate) fn delete(
        &mut self,
        node: &'p Node,
        target: &'p Node,
        env: &Env<'p>,
    ) -> Eval<Val<'p>> {
        self.write_not_dry()?;
        let (table, _) = self.access(node)?;
        let rows = self.value(target, env)?.into_items();
        let mut deleted = 0;
        for row in &rows {
            let key = record_key(&table.schema, row)?;
            deleted += i64::from(delete_row(self.session, self.bound, table, &key)?);
        }
        Ok(Val::Data(Value::Int(deleted)))
    }
}

/// The position of a column a write names, resolved at lowering and held
/// to the schema by the verifier (E0627): past the table's columns it is
/// a bug (E0594), never a panic.
fn position(table: &BoundTable, column: &ColumnAt) -> Result<usize> {
    if column.position < table.schema.columns.len() {
        return Ok(column.position);
    }
    Err(internal(&format!(
        "a write of column {} of `{}`, which has {}",
        column.position,
        table.schema.name,
        table.schema.columns.len()
    )))
}

/// An upsert's row: each column named, or its default (`none` for an
/// optional column); a column with neither the checker refused (E0437).
fn with_defaults(table: &BoundTable, row: Vec<Option<Value>>) -> Result<Vec<Value>> {
    row.into_iter()
        .zip(&table.schema.columns)
        .map(|(value, column)| {
            value
                .or_else(|| column.left_out())
                .ok_or_else(|| internal("an upsert without a column that has no default"))
        })
        .collect()
}

/// An update's change that overflowed (E0530, E0538): the same code, its
/// message naming the column and the value it held before the change (the
/// stored one, or what an earlier write of the mutation left). Nothing is written: the
/// mutation fails as a whole.
fn overflowed(
    error: RuntimeError,
    table: &TableSchema,
    column: usize,
    old: &[Value],
) -> RuntimeError {
    if !matches!(error.code, "E0530" | "E0538") {
        return error;
    }
    let name = &table.columns[column].name;
    RuntimeError::new(
        error.code,
        format!(
            "{}: the new value of `{}.{name}` (from {}) is out of range; nothing was written",
            error.message, table.name, old[column]
        ),
        error.help,
    )
}
