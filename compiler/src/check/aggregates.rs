//! Maintained aggregates: their declarations checked into the schema, their reads typed and costed, their upkeep's cost per write.
//!
//! `aggregate likes_of = count(Like) by post` keeps, per group of `Like`
//! rows sharing `post`, its row count in a tree of its own keyed by the
//! group; `sum(Order.total)` keeps the group's total. Reading one is one
//! point read whatever the group's size (spec/cost.md §4.1, [aggregate]);
//! every write of the table keeps it up to date (§7.1).

use super::expr::{Checked, Checker, Target};
use super::modules::{ProgramIndex, Symbol};
use super::schema::unknown_column;
use super::schema_types::{column_ty, table_column_ty};
use super::tir::TExpr;
use super::types::Ty;
use super::SourceModule;
use crate::cost::Cost;
use crate::diagnostics::{Diagnostic, Label};
use crate::span::Span;
use crate::syntax::ast::{self, Expr, Item};
use rqc_plan::{AggregateKind, AggregateSchema, ColumnType, Schema, TableSchema};

/// Checks every `aggregate` of the user's files and adds the valid ones to
/// their tables in `schema`. A broken one is left out with a diagnostic,
/// and the tables it may be over are answered: their writes would keep it
/// (`broken.rs`), so no write of them gets a bound.
pub fn build_aggregates(
    sources: &[SourceModule],
    index: &ProgramIndex,
    schema: &mut Schema,
    diagnostics: &mut Vec<Diagnostic>,
) -> std::collections::BTreeSet<String> {
    let mut refused = std::collections::BTreeSet::new();
    // Each name's first declaration: its file and span.
    let mut seen: std::collections::HashMap<&str, (&str, Span)> = std::collections::HashMap::new();
    for source in sources {
        let module = index
            .module_id(&source.module_name())
            .filter(|&m| !index.modules[m].is_prelude);
        for item in &source.module.items {
            let Item::Aggregate(decl) = item else {
                continue;
            };
            let name = &decl.name.name;
            if let Some(&(file, first)) = seen.get(name.as_str()) {
                if file == source.file {
                    continue; // one module's duplicates are reported with its definitions
                }
                diagnostics.push(
                    Diagnostic::error(
                        "E0203",
                        format!("aggregate `{name}` is declared twice"),
                        &source.file,
                        decl.name.span,
                        "second declaration",
                    )
                    .with_secondary(Label::new(file, first, "first declared here"))
                    .with_help("rename one of them; a database keeps one aggregate per name"),
                );
                continue;
            }
            seen.insert(name, (&source.file, decl.name.span));
            if schema.table(name).is_some() {
                diagnostics.push(
                    Diagnostic::error(
                        "E0203",
                        format!("`{name}` names both a table and an aggregate"),
                        &source.file,
                        decl.name.span,
                        "also a table",
                    )
                    .with_help("rename the aggregate, e.g. `{name}_count`"),
                );
                continue;
            }
            let Some(module) = module else { continue };
            let errors = diagnostics.len();
            if let Some((table, aggregate)) =
                aggregate_schema(&source.file, index, module, schema, decl, diagnostics)
            {
                let added = schema.add_aggregate(&table, aggregate);
                assert!(
                    added,
                    "the aggregate's table was resolved in the schema above"
                );
            } else if diagnostics[errors..].iter().any(Diagnostic::is_error) {
                // `count(T)` or `sum(T.column)`, the table perhaps reached
                // through a module: its name is the last segment or the
                // one before (both kept when the function is unknown).
                let segments = &decl.source.segments;
                let last = segments.len().saturating_sub(1);
                for segment in segments.iter().skip(last.saturating_sub(1)) {
                    refused.insert(segment.name.clone());
                }
            }
        }
    }
    refused
}

/// One declaration, checked: the table it is over and its schema.
fn aggregate_schema(
    file: &str,
    index: &ProgramIndex,
    module: usize,
    schema: &Schema,
    decl: &ast::Aggregate,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<(String, AggregateSchema)> {
    let kind = match decl.function.name.as_str() {
        "count" => AggregateKind::Count,
        "sum" => AggregateKind::Sum,
        "min" => AggregateKind::Min,
        "max" => AggregateKind::Max,
        other => {
            let segments: Vec<&str> = decl
                .source
                .segments
                .iter()
                .map(|s| s.name.as_str())
                .collect();
            let table = match segments.len() {
                1 => segments[0].to_string(),
                n => segments[..n - 1].join("."),
            };
            diagnostics.push(
                Diagnostic::error(
                    "E0220",
                    format!("`{other}` is not an aggregate rqc can maintain"),
                    file,
                    decl.function.span,
                    "not count, sum, min or max",
                )
                .with_help(format!(
                    "write `count(T)`, `sum(T.column)`, `min(T.column)` or `max(T.column)`: `aggregate {} = count({table}) by …`",
                    decl.name.name,
                )),
            );
            return None;
        }
    };
    let segments = &decl.source.segments;
    // `count(T)` names a table; the others `T.column` (the table may be
    // reached through a module: `social.Like`).
    let (table_segments, column) = match kind {
        AggregateKind::Count => (&segments[..], None),
        _ if segments.len() < 2 => {
            diagnostics.push(
                Diagnostic::error(
                    "E0221",
                    format!("`{}` needs a column, not a table", kind.name()),
                    file,
                    decl.source.span,
                    "a table",
                )
                .with_help(format!(
                    "name the column it reads: `{}({}.column)`",
                    kind.name(),
                    decl.source.dotted()
                )),
            );
            return None;
        }
        _ => (&segments[..segments.len() - 1], segments.last()),
    };
    let table = resolve_table(
        file,
        index,
        module,
        schema,
        table_segments,
        kind,
        diagnostics,
    )?;
    let column = match column {
        None => None,
        Some(ident) => {
            let position = column_position(file, table, ident, diagnostics)?;
            let ty = &table.columns[position].ty;
            if kind == AggregateKind::Sum && !summable(ty) {
                diagnostics.push(not_summable(file, ident, &table.name, ty));
                return None;
            }
            Some(position)
        }
    };
    let mut by = Vec::new();
    for ident in &decl.by {
        let position = column_position(file, table, ident, diagnostics)?;
        if by.contains(&position) {
            diagnostics.push(
                Diagnostic::error(
                    "E0203",
                    format!("`{}` is named twice after `by`", ident.name),
                    file,
                    ident.span,
                    "named again",
                )
                .with_help("name each column of the group once"),
            );
            return None;
        }
        by.push(position);
    }
    let aggregate = AggregateSchema {
        name: decl.name.name.clone(),
        kind,
        column,
        by,
    };
    if matches!(kind, AggregateKind::Min | AggregateKind::Max) {
        let column = aggregate.column.expect("min and max name a column");
        if let ColumnType::Optional(inner) = &table.columns[column].ty {
            let name = &table.columns[column].name;
            diagnostics.push(
                Diagnostic::error(
                    "E0225",
                    format!(
                        "`{}` is kept over a column that is never `none`, and `{}.{name}` is `{}`",
                        kind.name(),
                        table.name,
                        table.columns[column].ty.name()
                    ),
                    file,
                    decl.source.span,
                    "an optional column",
                )
                .with_help(format!(
                    "declare the column `{name}: {}` (rows without a value then need one), or keep the extreme in a column of its own",
                    inner.name()
                )),
            );
            return None;
        }
        if table.extreme_path(&aggregate).is_none() {
            diagnostics.push(extreme_not_maintained(file, decl, table, &aggregate));
            return None;
        }
    }
    Some((table.name.clone(), aggregate))
}

fn resolve_table<'s>(
    file: &str,
    index: &ProgramIndex,
    module: usize,
    schema: &'s Schema,
    segments: &[ast::Ident],
    kind: AggregateKind,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<&'s TableSchema> {
    let found = match segments {
        [name] => match index.lookup(module, &name.name) {
            Some(Symbol::Table(table)) => Some(table.clone()),
            _ => None,
        },
        [module_name, name] => match index.lookup(module, &module_name.name) {
            Some(Symbol::Module(m)) => match index.scopes[*m].get(&name.name) {
                Some(Symbol::Table(table)) => Some(table.clone()),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    };
    let span = segments
        .first()
        .map(|s| s.span.to(segments.last().expect("non-empty").span))
        .unwrap_or_default();
    let written: Vec<&str> = segments.iter().map(|s| s.name.as_str()).collect();
    let written = written.join(".");
    match found.as_deref().and_then(|t| schema.table(t)) {
        Some(table) => Some(table),
        None if found.is_some() => None, // the table's own errors were reported
        None => {
            let known = schema.tables.iter().map(|t| t.name.as_str());
            let mut d = Diagnostic::error(
                "E0201",
                format!("`{written}` names no table in scope"),
                file,
                span,
                "unknown table",
            );
            let last = segments.last().map(|s| s.name.as_str()).unwrap_or("");
            d = match crate::check::names::closest_of(last, known, schema.near_tables()) {
                Some(close) if kind == AggregateKind::Count => {
                    d.with_help(format!("did you mean `count({close})`?"))
                }
                Some(close) => d.with_help(format!("did you mean `{close}`?")),
                None => match index.home_of(module, last) {
                    Some(home) if segments.len() == 1 => {
                        d.with_help(super::fields::import_help(home, last))
                    }
                    _ => d.with_help(super::fields::no_table_help(&written)),
                },
            };
            diagnostics.push(d);
            None
        }
    }
}

/// The column types a sum keeps exactly: `Int`, optional or not (`none`
/// adds nothing). A `Float` sum kept by additions and subtractions would
/// drift from a recount, so it is refused.
fn summable(ty: &ColumnType) -> bool {
    match ty {
        ColumnType::Int => true,
        ColumnType::Optional(inner) => summable(inner),
        _ => false,
    }
}

fn not_summable(file: &str, column: &ast::Ident, table: &str, ty: &ColumnType) -> Diagnostic {
    let float = matches!(ty, ColumnType::Float)
        || matches!(ty, ColumnType::Optional(inner) if **inner == ColumnType::Float);
    let d = Diagnostic::error(
        "E0222",
        format!(
            "`sum` keeps a total of `Int` values, and `{table}.{}` is `{}`",
            column.name,
            ty.name()
        ),
        file,
        column.span,
        format!("`{}`", ty.name()),
    );
    if float {
        d.with_note("a `Float` total kept by adding and subtracting each write's value drifts from a recount of the rows (rounding), so rqc does not keep one")
            .with_help("store the amount in its smallest unit as an `Int` (cents, not dollars) and sum that")
    } else {
        d.with_help("sum an `Int` column; to count the rows, write `count(T)`")
    }
}

/// E0223: a `min`/`max` whose next extreme nothing finds within a bound;
/// the help names the index and the bound that would.
fn extreme_not_maintained(
    file: &str,
    decl: &ast::Aggregate,
    table: &TableSchema,
    aggregate: &AggregateSchema,
) -> Diagnostic {
    let names = |cols: &[usize]| -> Vec<String> {
        cols.iter()
            .map(|&c| table.columns[c].name.clone())
            .collect()
    };
    let by = names(&aggregate.by);
    let mut index_columns = by.clone();
    index_columns.extend(aggregate.column.map(|c| table.columns[c].name.clone()));
    let index_name = format!("by_{}", index_columns.join("_"));
    let bound_columns = if by.len() == 1 {
        by[0].clone()
    } else {
        format!("({})", by.join(", "))
    };
    Diagnostic::error(
        "E0223",
        format!(
            "`{}` of a group of `{}` cannot be kept within a bound: deleting the extreme row would leave its successor to be found among any number of rows",
            aggregate.kind.name(),
            table.name
        ),
        file,
        decl.function.span,
        "no index or bound finds the next extreme",
    )
    .with_help(format!(
        "declare `index {index_name} ({})` in `{}` (the next extreme is then one seek), or bound the group: `bound {bound_columns} <= 1000` over a key or index prefix (a recount then reads at most that many rows)",
        index_columns.join(", "),
        table.name,
    ))
}

/// The type an aggregate reads as: `Int` for a count and a sum, the
/// column's type as an option for `min` and `max` (`none` of an empty group).
pub fn value_ty(table: &TableSchema, aggregate: &AggregateSchema) -> Ty {
    let label = format!("{}[…]", aggregate.name);
    match (aggregate.kind, aggregate.column) {
        (AggregateKind::Min | AggregateKind::Max, Some(c)) => {
            let column = &table.columns[c];
            Ty::option(column_ty(&column.ty, &label, column.max_len))
        }
        _ => column_ty(&ColumnType::Int, &label, None),
    }
}

/// A count is never negative: its interval is `[0, ∞)`.
fn read_ty(table: &TableSchema, aggregate: &AggregateSchema) -> Ty {
    let ty = value_ty(table, aggregate);
    match (aggregate.kind, ty) {
        (AggregateKind::Count, Ty::Int(interval)) => Ty::Int(interval.non_negative()),
        (_, ty) => ty,
    }
}

impl Checker<'_> {
    /// Whether the aggregate `name` is kept for the whole table (no `by`):
    /// it is read by its name alone.
    pub(super) fn whole_table(&self, name: &str) -> bool {
        self.schema
            .aggregate(name)
            .is_some_and(|(_, aggregate)| aggregate.by.is_empty())
    }

    /// `likes_of[p]`: one point read of the aggregate's tree, one value per
    /// `by` column; `questions`, a whole table's, with none (`span` is the
    /// whole read's).
    pub fn check_aggregate_read(
        &mut self,
        span: Span,
        name: &ast::Ident,
        args: &[Expr],
    ) -> Checked {
        // Borrowed from the schema, which outlives the checker's own
        // borrow: a read copies neither the table nor the aggregate.
        let schema = self.schema;
        let Some((table, aggregate)) = schema.aggregate(&name.name) else {
            return Checked::error(); // its declaration was reported
        };
        self.refer(name.span, || Target::Aggregate(aggregate.name.clone()));
        let by: Vec<&str> = aggregate
            .by
            .iter()
            .map(|&c| table.columns[c].name.as_str())
            .collect();
        if by.is_empty() && !args.is_empty() {
            self.error(
                "E0224",
                format!(
                    "`{}` is kept for the whole table, and {} value{} {} given",
                    aggregate.name,
                    args.len(),
                    if args.len() == 1 { "" } else { "s" },
                    if args.len() == 1 { "is" } else { "are" }
                ),
                span,
                "no group to give",
            )
            .help
            .push(format!(
                "read it by its name alone: `{}`; to keep it per group, declare `aggregate {} = … by column`",
                aggregate.name, aggregate.name
            ));
            return Checked::error();
        }
        if args.len() != aggregate.by.len() {
            self.error(
                "E0224",
                format!(
                    "`{}` is kept per {} ({} value{}), and {} {} given",
                    aggregate.name,
                    by.join(", "),
                    by.len(),
                    if by.len() == 1 { "" } else { "s" },
                    args.len(),
                    if args.len() == 1 { "is" } else { "are" }
                ),
                span,
                "wrong number of values",
            )
            .help
            .push(format!(
                "give one value per group column: `{}[{}]`",
                aggregate.name,
                by.join(", ")
            ));
            return Checked::error();
        }
        let mut cost = Cost::zero();
        let mut key = Vec::new();
        for (arg, &column) in args.iter().zip(&aggregate.by) {
            let column = &table.columns[column];
            let expected = table_column_ty(&table.name, column);
            let value = self.check_expected(arg, Some(&expected));
            self.expect_type(
                &expected,
                &value.ty,
                arg.span,
                format_args!(
                    "`{}` is kept per `{}.{}`, a `{expected}`",
                    aggregate.name, table.name, column.name
                ),
            );
            cost = cost.plus(&value.cost);
            key.push(value.tir);
        }
        // One point read of the aggregate's tree (the caller keeps the
        // cost in the typed form as the operator's bound).
        Checked::new(
            read_ty(table, aggregate),
            cost.plus(&Cost::constant(1, 1, 1)),
            TExpr::AggregateRead {
                aggregate: aggregate.name.clone(),
                key,
            },
        )
    }
}

/// The position of `ident`'s column in `table`, or `None` with the
/// unknown column reported.
fn column_position(
    file: &str,
    table: &TableSchema,
    ident: &ast::Ident,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let position = table.column(&ident.name);
    if position.is_none() {
        let near = table.near_columns();
        let d = unknown_column(file, &table.name, ident, &table.columns, near);
        diagnostics.push(d);
    }
    position
}
