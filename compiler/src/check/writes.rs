//! Mutations: `insert`, `update` and `delete`, with the cost of every check and index write.
//!
//! Each write's cost counts the point reads its checks make (key, unique
//! values, references and their counters, bound counters) and one seek per
//! index entry written or removed; spec/cost.md states the rules.

use super::expr::{Checked, Checker};
use super::schema_types::table_column_ty;
use super::tir::TExpr;
use super::types::Ty;
use crate::cost::Interval;
use crate::cost::{Cost, Poly};
use crate::span::Span;
use crate::syntax::ast::{BinaryOp, DefKind, Expr, ExprKind, Ident, Path, RecordField, Step};
use rqc_plan::{ColumnAt, ColumnType, TableSchema};

/// The name `c += e` reads the row by when the update names none: no
/// program can write it (a name has no space).
pub const STEPPED_ROW: &str = "the row";

/// What inserting one row of `table` costs (`rqc_plan::write_work`, one
/// formula with the runtime's plan verifier).
pub fn insert_cost(table: &TableSchema) -> Cost {
    write_cost(table.insert_work())
}

/// What deleting one row of `table` costs (the row is read again by key),
/// with every row its cascades reach (`rqc_plan::cascade`, spec/cost.md
/// §7.3).
pub fn delete_cost(schema: &rqc_plan::Schema, table: &TableSchema) -> Cost {
    let position = schema.tables.iter().position(|t| t.name == table.name);
    match position {
        Some(t) => write_cost(schema.delete_work_of(t)),
        None => write_cost(table.delete_work(schema.is_referenced(&table.name))),
    }
}

/// What changing `columns` of one row costs (the row is read again by key).
pub fn update_cost(table: &TableSchema, columns: &[usize]) -> Cost {
    write_cost(table.update_work(columns))
}

/// A write's (seeks, rows, round trips) as a cost (spec/cost.md §7, §11).
pub(super) fn write_cost((seeks, rows, trips): (u64, u64, u64)) -> Cost {
    Cost::constant(seeks, rows, trips)
}

impl<'p> Checker<'p> {
    pub(super) fn require_mutation(&mut self, span: Span, what: &str) -> bool {
        if self.kind == DefKind::Mutation {
            return true;
        }
        let kind = self.kind.keyword();
        self.error("E0406", format!("a {kind} cannot {what}"), span, "a write")
            .help
            .push("only mutations write: declare it as `mutation name(…) = …`".into());
        false
    }

    /// The table an `insert` or `upsert` writes (its name resolved, each
    /// field's column referred to), and the row's fields.
    pub(super) fn written_table<'e>(
        &mut self,
        path: &Path,
        row: &'e Expr,
    ) -> Option<(String, &'p TableSchema, &'e [RecordField])> {
        let name = path.segments.last().expect("a path has a segment");
        let table = match self.index.lookup(self.module, &name.name) {
            Some(super::modules::Symbol::Table(t)) => t.clone(),
            _ => {
                self.unknown_name(name);
                return None;
            }
        };
        self.refer(name.span, || super::expr::Target::Table(table.clone()));
        let schema = self.schema.table(&table)?;
        let ExprKind::Record(fields) = &row.kind else {
            return None;
        };
        for field in fields {
            self.refer(field.name.span, || {
                super::expr::Target::Column(table.clone(), field.name.name.clone())
            });
        }
        Some((table, schema, fields))
    }

    pub fn check_insert(&mut self, span: Span, path: &Path, row: &Expr) -> Checked {
        let writable = self.require_mutation(span, "insert");
        let Some((table, schema, fields)) = self.written_table(path, row) else {
            return Checked::error();
        };
        let mut cost = Cost::zero();
        let mut values: Vec<Option<TExpr>> = vec![None; schema.columns.len()];
        for field in fields {
            let Some(position) = schema.column(&field.name.name) else {
                self.no_column(schema, &field.name);
                continue;
            };
            if values[position].is_some() {
                self.given_twice(&field.name);
                continue;
            }
            let value = self.column_value(schema, position, &field.value);
            cost = cost.plus(&value.cost);
            values[position] = Some(value.tir);
        }
        let mut missing = Vec::new();
        // A generated key left out: a placeholder the store replaces by the
        // table's next key (spec/types.md).
        let key = schema.key[0];
        let generated = schema.auto && values[key].is_none();
        if generated {
            values[key] = Some(TExpr::Const(rqc_plan::Value::Null));
        }
        let row_tir: Vec<TExpr> = values
            .into_iter()
            .zip(&schema.columns)
            .map(|(value, column)| match value {
                Some(v) => v,
                None => match column.left_out() {
                    Some(value) => TExpr::Const(value),
                    None => {
                        missing.push(column.name.clone());
                        TExpr::Error
                    }
                },
            })
            .collect();
        if !missing.is_empty() {
            let fix: Vec<String> = missing.iter().map(|m| format!("{m}: …")).collect();
            self.error(
                "E0402",
                format!(
                    "the row for `{table}` lacks {}",
                    missing
                        .iter()
                        .map(|m| format!("`{m}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                row.span,
                "missing columns",
            )
            .help
            .push(format!(
                "give every column that is neither optional (`?`) nor defaulted (`= …`) a value: add `{}`",
                fix.join(", ")
            ));
        }
        if !writable {
            return Checked::error();
        }
        // Only an insert into a `key auto` table evaluates to its key (the
        // one given or generated); any other to the rows written.
        let ty = if schema.auto {
            table_column_ty(&schema.name, &schema.columns[key])
        } else {
            Ty::Int(Interval::exact(1))
        };
        Checked::new(
            ty,
            cost.plus(&insert_cost(schema)),
            TExpr::Insert {
                table,
                row: row_tir,
                generated,
            },
        )
    }

    /// A value for column `position`, checked against the column's type.
    pub(super) fn column_value(
        &mut self,
        schema: &TableSchema,
        position: usize,
        value: &Expr,
    ) -> Checked {
        let column = &schema.columns[position];
        let expected = table_column_ty(&schema.name, column);
        let checked = self.check_expected(value, Some(&expected));
        self.expect_type(
            &expected,
            &checked.ty,
            value.span,
            format_args!("`{}.{}` is `{expected}`", schema.name, column.name),
        );
        checked
    }

    pub(super) fn no_column(&mut self, table: &TableSchema, name: &crate::syntax::ast::Ident) {
        let names = table.columns.iter().map(|c| c.name.as_str());
        let near = table.near_columns();
        let help = super::names::unknown_column_help(&table.name, &name.name, names, near);
        let d = self.error(
            "E0202",
            format!("table `{}` has no column `{}`", table.name, name.name),
            name.span,
            "unknown column",
        );
        d.help.push(help);
    }

    /// The rows a write visits: one (by key) or a bounded list; a stream is
    /// rejected. Returns the table, the number of rows and the target.
    fn write_target(
        &mut self,
        op: &str,
        span: Span,
        target: &Expr,
    ) -> Option<(&'p TableSchema, Poly, Checked)> {
        let checked = self.check(target);
        let (table, count) = match &checked.ty {
            Ty::Option(inner) => match &**inner {
                Ty::Row(t, _) => (t.clone(), Poly::constant(1)),
                _ => return self.not_rows(op, target),
            },
            Ty::List(inner, size, _) => match &**inner {
                Ty::Row(t, _) => (t.clone(), size.clone()),
                _ => return self.not_rows(op, target),
            },
            Ty::Stream(stream) => {
                let stream = (**stream).clone();
                self.reject_unbounded_write(op, span, &stream);
                return None;
            }
            Ty::Error => return None,
            _ => return self.not_rows(op, target),
        };
        let schema = self.schema.table(&table)?;
        Some((schema, count, checked))
    }

    fn not_rows<T>(&mut self, op: &str, target: &Expr) -> Option<T> {
        self.error(
            "E0401",
            format!("`{op}` takes the rows of a table"),
            target.span,
            "not table rows",
        )
        .help
        .push(format!(
            "name rows by key or bounded prefix: `{op} Follow[u]`"
        ));
        None
    }

    pub fn check_update(
        &mut self,
        span: Span,
        target: &Expr,
        row: Option<&Ident>,
        changes: &Expr,
    ) -> Checked {
        let writable = self.require_mutation(span, "update");
        let Some((schema, count, checked)) = self.write_target("update", span, target) else {
            return Checked::error();
        };
        let ExprKind::Record(fields) = &changes.kind else {
            return Checked::error();
        };
        // `as r` names the row as it is before the change; `c += e` reads
        // it too, under a name no program can write when none is given.
        let stepped = fields.iter().any(|f| f.step.is_some());
        let binding = match row {
            Some(row) => Some(row.clone()),
            None if stepped => Some(Ident {
                name: STEPPED_ROW.to_string(),
                span: changes.span,
            }),
            None => None,
        };
        let depth = self.scope.len();
        if let Some(binding) = &binding {
            let row = updated_row(schema, &checked.ty);
            self.push_local(binding, row, TExpr::Local(binding.name.clone()));
        }
        // A column's name alone keeps its meaning (a parameter or a `let`):
        // where it names nothing, its help proposes the row's value.
        let outer = self.updating.replace(schema.name.clone());
        let mut per_row = Cost::zero();
        let mut changed = Vec::new();
        let mut tirs = Vec::new();
        for field in fields {
            let Some(position) = schema.column(&field.name.name) else {
                self.no_column(schema, &field.name);
                continue;
            };
            if schema.key.contains(&position) {
                self.error(
                    "E0407",
                    format!(
                        "`{}` is part of the key of `{}` and cannot be updated",
                        field.name.name, schema.name
                    ),
                    field.name.span,
                    "a key column",
                )
                .help
                .push(
                    "a key names its row for good: delete the row and insert it under the new key"
                        .into(),
                );
                continue;
            }
            if changed.contains(&position) {
                self.given_twice(&field.name);
                continue;
            }
            let value = match (field.step, &binding) {
                (Some(step), Some(binding)) => {
                    self.stepped_value(schema, position, step, &binding.name, field)
                }
                _ => self.column_value(schema, position, &field.value),
            };
            per_row = per_row.plus(&value.cost);
            changed.push(position);
            tirs.push((
                ColumnAt {
                    position,
                    name: field.name.name.clone(),
                },
                value.tir,
            ));
        }
        self.updating = outer;
        self.scope.truncate(depth);
        if !writable {
            return Checked::error();
        }
        // Without a row, the changes are computed once, before the rows are
        // changed; with one, once per row, between its read and its write.
        // A change that may write (a nested write, a call) may change the
        // row in between: the runtime then reads it again (§7), charged
        // here. (Counted per row either way: at most the rows given.)
        let mut write = update_cost(schema, &changed);
        if binding.is_some() && tirs.iter().any(|(_, t)| super::batch::may_write(t)) {
            write = write.plus(&write_cost((1, 1, 1)));
        }
        let cost = checked.cost.plus(&per_row.plus(&write).times(&count));
        // The rows actually changed: at most the rows given.
        Checked::new(
            Ty::Int(Interval::up_to(count.clone())),
            cost,
            TExpr::Update {
                table: schema.name.clone(),
                target: Box::new(checked.tir),
                row: binding.map(|b| b.name),
                changes: tirs,
            },
        )
    }

    /// E0203: a column given a second value in one write.
    pub(super) fn given_twice(&mut self, name: &Ident) {
        self.error(
            "E0203",
            format!("column `{}` is given twice", name.name),
            name.span,
            "second value",
        )
        .help
        .push("give each column one value".into());
    }

    /// `c += e` or `c -= e`: `row.c + e` (or `-`), over an `Int` or `Float`
    /// column (E0435 on another), `e` of the column's type.
    fn stepped_value(
        &mut self,
        schema: &TableSchema,
        position: usize,
        step: Step,
        row: &str,
        field: &RecordField,
    ) -> Checked {
        let column = &schema.columns[position];
        let value = self.column_value(schema, position, &field.value);
        if !matches!(column.ty, ColumnType::Int | ColumnType::Float) {
            let op = step.text();
            self.error(
                "E0435",
                format!(
                    "`{op}` steps a number, and `{}.{}` is `{}`",
                    schema.name,
                    column.name,
                    column.ty.name()
                ),
                field.name.span,
                "not an `Int` or `Float` column",
            )
            .help
            .push(match &column.ty {
                ColumnType::Optional(inner)
                    if matches!(**inner, ColumnType::Int | ColumnType::Float) =>
                {
                    format!(
                        "it may be `none`: name the row and say what `none` becomes, `update … as r {{ {c}: (r.{c} |> unwrap_or(0)) + … }}`",
                        c = column.name
                    )
                }
                _ => format!(
                    "name the row and give the new value: `update … as r {{ {c}: … r.{c} … }}`",
                    c = column.name
                ),
            });
            return Checked::error();
        }
        let op = match step {
            Step::Add => BinaryOp::Add,
            Step::Sub => BinaryOp::Sub,
        };
        let stored = TExpr::Column(
            Box::new(TExpr::Local(row.to_string())),
            ColumnAt {
                position,
                name: column.name.clone(),
            },
        );
        Checked::new(
            table_column_ty(&schema.name, column),
            value.cost,
            TExpr::Binary(op, Box::new(stored), Box::new(value.tir)),
        )
    }

    pub fn check_delete(&mut self, span: Span, target: &Expr) -> Checked {
        let writable = self.require_mutation(span, "delete");
        let Some((schema, count, checked)) = self.write_target("delete", span, target) else {
            return Checked::error();
        };
        if !writable {
            return Checked::error();
        }
        Checked::new(
            Ty::Int(Interval::up_to(count.clone())),
            checked
                .cost
                .plus(&delete_cost(self.schema, schema).times(&count)),
            TExpr::Delete {
                table: schema.name.clone(),
                target: Box::new(checked.tir),
            },
        )
    }
}

/// The type of the row an `update … as r` binds, of the rows `target` (a
/// write target's type) reads: what the access proved of its key columns
/// (`Post[i]`: `id` is `i`; `Follow[a]`: `follower` is `a`), nothing of
/// the others. The runtime reads each row again by its key before its
/// changes are computed, and an earlier row's changes may have written
/// this row (a nested write): only its key, which no update changes, is
/// still what the access read.
fn updated_row(schema: &TableSchema, target: &Ty) -> Ty {
    let read = match target {
        Ty::Option(inner) | Ty::List(inner, ..) => &**inner,
        _ => return Ty::row(schema.name.clone()),
    };
    let Ty::Row(table, facts) = read else {
        return Ty::row(schema.name.clone());
    };
    let key = |column: &str| {
        schema
            .key
            .iter()
            .any(|&position| schema.columns[position].name == column)
    };
    let kept = facts
        .iter()
        .filter(|(column, _)| key(column))
        .cloned()
        .collect();
    Ty::Row(table.clone(), kept)
}
