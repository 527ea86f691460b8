//! `on delete cascade` and `on delete set none`: each allowed only on a `ref` column whose rows form an island (a `bound` over exactly it), never around a cycle (E0243–E0246).
//!
//! The island is what keeps a delete's printed bound finite: deleting one
//! referenced row reads the rows that name it with one range read of at
//! most the bound's limit, and deletes or updates each
//! (`rqc_plan::cascade`, spec/cost.md §7.3). A column that breaks a rule
//! keeps its `ref` without the action, so its table's other uses are still
//! checked.

use super::schema::TableSource;
use crate::diagnostics::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{FieldModifier, OnDeleteAction, TableMember};
use rqc_plan::{ColumnType, OnDelete, Schema};

/// The plan's form of an `on delete` action.
pub fn plan_action(action: OnDeleteAction) -> OnDelete {
    match action {
        OnDeleteAction::Cascade => OnDelete::Cascade,
        OnDeleteAction::SetNone => OnDelete::SetNone,
    }
}

/// Checks every `on delete` of the program's tables against the schema
/// built from them; an action that breaks a rule is taken out of
/// `schema` after its diagnostic.
pub fn check_cascades(
    tables: &[TableSource<'_>],
    schema: &mut Schema,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let mut spans: Vec<(String, String, &str, Span)> = Vec::new();
    for source in tables {
        let table = &source.table.name.name;
        for member in &source.table.members {
            let TableMember::Field(field) = member else {
                continue;
            };
            for modifier in &field.modifiers {
                let FieldModifier::OnDelete(action, span) = modifier else {
                    continue;
                };
                let Some(t) = schema.tables.iter().position(|t| &t.name == table) else {
                    continue;
                };
                let Some(c) = schema.tables[t].column(&field.name.name) else {
                    continue;
                };
                match refused(schema, t, c, *action) {
                    Some(d) => {
                        diagnostics.push(d.into_diagnostic(source.file, *span));
                        schema.tables[t].columns[c].on_delete = None;
                    }
                    None => {
                        spans.push((table.clone(), field.name.name.clone(), source.file, *span))
                    }
                }
            }
        }
    }
    if let Some(cycle) = schema.cascade_cycle() {
        // Reported on the first cascading column of the cycle: the one of
        // its second table that references its first.
        let (from, to) = (&cycle[0], &cycle[1]);
        let at = spans.iter().find(|(table, column, ..)| {
            table == to
                && schema.table(table).is_some_and(|t| {
                    t.column(column).is_some_and(|c| {
                        t.columns[c].references.as_deref() == Some(from.as_str())
                            && t.columns[c].on_delete == Some(OnDelete::Cascade)
                    })
                })
        });
        // Every edge of the cycle is a cascade `spans` holds.
        if let Some((table, column, file, span)) = at.or(spans.first()) {
            let path = cycle.join(" → ");
            diagnostics.push(
                Diagnostic::error(
                    "E0246",
                    format!("cascading deletes go around a cycle: {path}"),
                    file,
                    *span,
                    "a delete here reaches its own table again",
                )
                .with_help(format!(
                    "a delete that reaches its own table again has no bound: make one reference of the cycle a plain `ref` (drop `on delete cascade` from `{table}.{column}`, or write `on delete set none` on an optional column) and delete those rows first"
                )),
            );
            for table in &mut schema.tables {
                for column in &mut table.columns {
                    if column.on_delete == Some(OnDelete::Cascade) {
                        column.on_delete = None;
                    }
                }
            }
        }
    }
}

/// Why `on delete` on column `c` of table `t` is refused, if it is.
enum Refusal {
    NoReference(String),
    NotOptional(String, String),
    /// `set none` on a column of the key: the row would move to another
    /// key (a key names its row for good).
    KeyColumn(String, String),
    NoIsland {
        table: String,
        column: String,
        target: String,
        action: OnDeleteAction,
        /// Whether the key or an index begins with the column (else the
        /// bound needs one).
        has_path: bool,
    },
}

fn refused(schema: &Schema, t: usize, c: usize, action: OnDeleteAction) -> Option<Refusal> {
    let table = &schema.tables[t];
    let column = &table.columns[c];
    let Some(target) = &column.references else {
        return Some(Refusal::NoReference(column.name.clone()));
    };
    if action == OnDeleteAction::SetNone && !matches!(column.ty, ColumnType::Optional(_)) {
        return Some(Refusal::NotOptional(column.name.clone(), column.ty.name()));
    }
    if action == OnDeleteAction::SetNone && table.key.contains(&c) {
        return Some(Refusal::KeyColumn(table.name.clone(), column.name.clone()));
    }
    if table.island_of(c).is_none() {
        return Some(Refusal::NoIsland {
            table: table.name.clone(),
            column: column.name.clone(),
            target: target.clone(),
            action,
            has_path: table.key.first() == Some(&c)
                || table.indexes.iter().any(|i| i.columns.first() == Some(&c)),
        });
    }
    None
}

impl Refusal {
    fn into_diagnostic(self, file: &str, span: Span) -> Diagnostic {
        match self {
            Refusal::NoReference(column) => Diagnostic::error(
                "E0243",
                format!("`on delete` on `{column}`, which references no table"),
                file,
                span,
                "no `ref` before it",
            )
            .with_help(format!(
                "write it after the column's reference: `{column}: Int ref T on delete cascade`, or remove it"
            )),
            Refusal::NotOptional(column, ty) => Diagnostic::error(
                "E0244",
                format!("`on delete set none` on `{column}`, which is `{ty}` and cannot hold `none`"),
                file,
                span,
                "not an optional column",
            )
            .with_help(format!(
                "declare the column optional (`{column}: {ty}? ref …`), or delete its rows with the referenced row: `on delete cascade`"
            )),
            Refusal::KeyColumn(table, column) => Diagnostic::error(
                "E0244",
                format!("`on delete set none` on `{table}.{column}`, a column of the key"),
                file,
                span,
                "a key column cannot change",
            )
            .with_help(format!(
                "a key names its row for good: write `on delete cascade` to delete the `{table}` rows with the referenced row, or key `{table}` by other columns"
            )),
            Refusal::NoIsland {
                table,
                column,
                target,
                action,
                has_path,
            } => Diagnostic::error(
                "E0245",
                format!(
                    "`on delete {}` on `{table}.{column}`, whose rows are not an island: nothing bounds how many rows one `{target}` row has, so neither does the delete",
                    action.text()
                ),
                file,
                span,
                "no `bound` over exactly this column",
            )
            .with_help(format!(
                "declare the island, `bound {column} <= 1000`{}, so the delete reads at most that many `{table}` rows per `{target}` row; or remove `on delete {}` and delete the `{table}` rows before their `{target}` row",
                if has_path {
                    String::new()
                } else {
                    format!(" with `index by_{column} ({column})`")
                },
                action.text()
            )),
        }
    }
}
