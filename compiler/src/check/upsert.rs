//! `upsert T { … }`: the row with the key it names changed to the columns it names, or inserted with the other columns' defaults; its cost is the larger of the two paths.
//!
//! The runtime reads the row by its key once, and that read decides: it
//! is the insert's key check on one path and the update's read of the
//! live row on the other (spec/cost.md §7), so each path costs what an
//! `insert` or an `update` of the columns named costs, no more.

use super::expr::{Checked, Checker};
use super::tir::TExpr;
use super::types::Ty;
use super::writes::write_cost;
use crate::cost::{Cost, Interval, Poly};
use crate::span::Span;
use crate::syntax::ast::{Expr, Path};
use rqc_plan::{ColumnAt, TableSchema};

/// What upserting one row of `table` costs when it names `named` columns:
/// the larger of the insert's cost and the update's of the columns named
/// outside the key.
pub fn upsert_cost(table: &TableSchema, named: &[usize]) -> Cost {
    write_cost(table.upsert_work(named))
}

impl Checker<'_> {
    pub fn check_upsert(&mut self, span: Span, path: &Path, row: &Expr) -> Checked {
        let writable = self.require_mutation(span, "upsert");
        let Some((table, schema, fields)) = self.written_table(path, row) else {
            return Checked::error();
        };
        let mut cost = Cost::zero();
        let mut named: Vec<usize> = Vec::new();
        let mut columns = Vec::new();
        for field in fields {
            let Some(position) = schema.column(&field.name.name) else {
                self.no_column(schema, &field.name);
                continue;
            };
            if named.contains(&position) {
                self.given_twice(&field.name);
                continue;
            }
            let value = self.column_value(schema, position, &field.value);
            cost = cost.plus(&value.cost);
            named.push(position);
            columns.push((
                ColumnAt {
                    position,
                    name: field.name.name.clone(),
                },
                value.tir,
            ));
        }
        let missing_key: Vec<&str> = schema
            .key
            .iter()
            .filter(|c| !named.contains(c))
            .map(|&c| schema.columns[c].name.as_str())
            .collect();
        if !missing_key.is_empty() {
            self.upsert_without_key(schema, &missing_key, row.span);
        }
        let undefaulted: Vec<&str> = schema
            .columns
            .iter()
            .enumerate()
            .filter(|(c, column)| {
                !named.contains(c) && !schema.key.contains(c) && column.left_out().is_none()
            })
            .map(|(_, column)| column.name.as_str())
            .collect();
        if !undefaulted.is_empty() {
            self.upsert_without_default(schema, &undefaulted, row.span);
        }
        if !writable {
            return Checked::error();
        }
        Checked::new(
            // The rows it changed: 0 when the row was already so.
            Ty::Int(Interval::up_to(Poly::constant(1))),
            cost.plus(&upsert_cost(schema, &named)),
            TExpr::Upsert { table, columns },
        )
    }

    /// E0436: an upsert that does not name its row's whole key.
    fn upsert_without_key(&mut self, schema: &TableSchema, missing: &[&str], span: Span) {
        let list = quoted(missing);
        let fix: Vec<String> = missing.iter().map(|c| format!("{c}: …")).collect();
        self.error(
            "E0436",
            format!(
                "an `upsert` of `{}` names its row by key, and lacks {list}",
                schema.name
            ),
            span,
            "the key is not given",
        )
        .help
        .push(format!(
            "give the key's columns (a generated key too: the upsert finds its row by it): add `{}`",
            fix.join(", ")
        ));
    }

    /// E0437: an upsert that leaves out a column with no default, which its
    /// insert path could not fill.
    fn upsert_without_default(&mut self, schema: &TableSchema, missing: &[&str], span: Span) {
        let list = quoted(missing);
        let first = missing[0];
        let declared = schema
            .column(first)
            .map(|c| schema.columns[c].declared())
            .unwrap_or_default();
        self.error(
            "E0437",
            format!(
                "an `upsert` of `{}` leaves out {list}, which has no default: a new row would have no value for it",
                schema.name
            ),
            span,
            "a column left out",
        )
        .help
        .push(format!(
            "give it a value (`{first}: …`), or declare a default in the table (`{first}: {declared} = …`), which a new row takes while a stored row keeps its own"
        ));
    }
}

fn quoted(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
