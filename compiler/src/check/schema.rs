//! Table declarations to a validated schema, with a diagnostic for each inconsistency.

use super::schema_columns::{
    auto_key_refused, bad_auto, bad_default, default_literal, length_bound, long_default,
    past_any_string,
};
use crate::cost::CEILING;
use crate::diagnostics::{Diagnostic, Label};
use crate::syntax::ast::{self, FieldModifier, TableMember, TypeKind};
use rqc_plan::near::{NearIndex, INDEXED};
use rqc_plan::schema::BoundSchema;
use rqc_plan::{Column, ColumnType, IndexSchema, Literal, Schema, TableSchema};

/// A table declaration with the file it came from, for labels.
pub struct TableSource<'a> {
    pub file: &'a str,
    pub table: &'a ast::Table,
}

/// Builds the schema of all tables of a program. A table with errors is left
/// out (its uses then report it as unknown only if it was never declared).
pub fn build_schema(tables: &[TableSource<'_>], diagnostics: &mut Vec<Diagnostic>) -> Schema {
    let mut schema = Schema::default();
    // By name (a program of thousands of tables searched a list per table).
    let mut seen: std::collections::HashMap<&str, (&str, crate::Span)> =
        std::collections::HashMap::with_capacity(tables.len());
    for source in tables {
        let table = source.table;
        if let Some((file, span)) = seen.get(table.name.name.as_str()) {
            diagnostics.push(
                Diagnostic::error(
                    "E0203",
                    format!("table `{}` is declared twice", table.name.name),
                    source.file,
                    table.name.span,
                    "second declaration",
                )
                .with_secondary(Label::new(*file, *span, "first declared here"))
                .with_help("rename one of the tables; a database has one table per name"),
            );
            continue;
        }
        seen.insert(&table.name.name, (source.file, table.name.span));
        if let Some(built) = build_table(source, diagnostics) {
            schema.tables.push(built);
        }
    }
    check_references(tables, &schema, diagnostics);
    super::cascades::check_cascades(tables, &mut schema, diagnostics);
    schema
}

fn column_type(ty: &ast::Type) -> Option<ColumnType> {
    match &ty.kind {
        TypeKind::Named(name) => match name.name.as_str() {
            "Int" => Some(ColumnType::Int),
            "Float" => Some(ColumnType::Float),
            "String" => Some(ColumnType::String),
            "Bool" => Some(ColumnType::Bool),
            _ => None,
        },
        TypeKind::Option(inner) => match column_type(inner)? {
            ColumnType::Optional(_) => None,
            inner => Some(ColumnType::Optional(Box::new(inner))),
        },
        _ => None,
    }
}

fn build_table(source: &TableSource<'_>, diagnostics: &mut Vec<Diagnostic>) -> Option<TableSchema> {
    let file = source.file;
    let table = source.table;
    let before = diagnostics.len();
    let mut columns: Vec<Column> = Vec::new();
    // Their positions by name, for the duplicate check and the key's and
    // indexes' columns (a search of `columns` per name grew with the square
    // of a wide table's columns).
    let mut column_names: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut key: Option<(Vec<usize>, crate::Span)> = None;
    let mut indexes: Vec<IndexSchema> = Vec::new();
    let mut index_spans: Vec<crate::Span> = Vec::new();
    let mut pending: Vec<&ast::TableMember> = Vec::new();
    // `key auto` was declared (on a key column, checked below).
    let mut auto = false;

    for member in &table.members {
        let TableMember::Field(field) = member else {
            pending.push(member);
            continue;
        };
        if column_names.contains_key(field.name.name.as_str()) {
            diagnostics.push(
                Diagnostic::error(
                    "E0203",
                    format!(
                        "column `{}` is declared twice in `{}`",
                        field.name.name, table.name.name
                    ),
                    file,
                    field.name.span,
                    "second declaration",
                )
                .with_help("give each column of a table its own name"),
            );
            continue;
        }
        let Some(ty) = column_type(&field.ty) else {
            diagnostics.push(
                Diagnostic::error(
                    "E0401",
                    format!(
                        "a column cannot have type `{}`",
                        crate::syntax::printer::print_type(&field.ty)
                    ),
                    file,
                    field.ty.span,
                    "not a column type",
                )
                .with_help(
                    "columns are `Int`, `Float`, `String` or `Bool`, or one of them with `?`",
                ),
            );
            continue;
        };
        let position = columns.len();
        let mut references = None;
        let mut on_delete = None;
        let mut default = None;
        let mut auto_span = None;
        for modifier in &field.modifiers {
            match modifier {
                FieldModifier::Auto(span) => auto_span = Some(*span),
                FieldModifier::Key(span) => {
                    if let Some((_, first)) = &key {
                        diagnostics.push(two_keys(file, &table.name.name, *span, *first));
                    } else {
                        key = Some((vec![position], *span));
                    }
                }
                FieldModifier::Unique(span) => {
                    index_spans.push(*span);
                    indexes.push(IndexSchema {
                        name: field.name.name.clone(),
                        columns: vec![position],
                        descending: vec![false],
                        unique: true,
                    })
                }
                FieldModifier::Ref(path, _) => references = Some(path.dotted()),
                FieldModifier::OnDelete(action, _) => {
                    on_delete = Some(super::cascades::plan_action(*action))
                }
                FieldModifier::Default(value, span) => match default_literal(value, &ty) {
                    // No string longer than any string may be (E0458): a
                    // row would hold it, and a restore refuse it.
                    Some(Literal::String(text))
                        if text.len() as u64 > rqc_cost::MAX_STRING_BYTES =>
                    {
                        diagnostics.push(
                            Diagnostic::error(
                                "E0458",
                                past_any_string("this default", text.len()),
                                file,
                                *span,
                                "too long",
                            )
                            .with_help("give a short default (such as `\"\"`) and keep large text in a table of its own"),
                        );
                    }
                    Some(literal) => default = Some(literal),
                    None => diagnostics.push(bad_default(file, &ty, *span)),
                },
            }
        }
        if let Some(span) = auto_span {
            let keyed = field
                .modifiers
                .iter()
                .any(|m| matches!(m, FieldModifier::Key(_)));
            match auto_key_refused(keyed, &ty, default.is_some()) {
                Some(why) => diagnostics.push(bad_auto(file, &field.name.name, why, span)),
                None => auto = true,
            }
        }
        let max_len = field
            .max_len
            .and_then(|(n, span)| length_bound(file, &field.name.name, &ty, n, span, diagnostics));
        if let (Some(max), Some((_, span)), Some(Literal::String(text))) =
            (max_len, field.max_len, &default)
        {
            if text.len() as u64 > max {
                diagnostics.push(long_default(file, text.len(), max, span));
            }
        }
        column_names.insert(field.name.name.as_str(), position);
        columns.push(Column {
            name: field.name.name.clone(),
            ty,
            references,
            default,
            max_len,
            on_delete,
        });
    }

    // Built on the first unknown column of a wide table: a table of
    // thousands of columns may have as many indexes on misspelt ones.
    let near = std::cell::OnceCell::new();
    let resolve = |names: &[ast::Ident], diagnostics: &mut Vec<Diagnostic>| -> Option<Vec<usize>> {
        let mut positions = Vec::new();
        for name in names {
            match column_names.get(name.name.as_str()) {
                // The verifier refuses a column named twice (E0612).
                Some(&p) if positions.contains(&p) => {
                    diagnostics.push(column_twice(file, &table.name.name, name));
                    return None;
                }
                Some(&p) => positions.push(p),
                None => {
                    let near = (columns.len() > INDEXED).then(|| {
                        near.get_or_init(|| {
                            NearIndex::build(columns.iter().map(|c| c.name.as_str()).zip(0..))
                        })
                    });
                    let d = unknown_column(file, &table.name.name, name, &columns, near);
                    diagnostics.push(d);
                    return None;
                }
            }
        }
        Some(positions)
    };

    let mut bounds = Vec::new();
    let mut bound_decls = Vec::new();
    let mut key_unresolved = false;
    for member in pending {
        match member {
            TableMember::Field(_) => {}
            TableMember::Key(cols) => {
                if let Some((_, first)) = &key {
                    diagnostics.push(two_keys(file, &table.name.name, cols.span, *first));
                } else if let Some(positions) = resolve(&cols.columns, diagnostics) {
                    key = Some((positions, cols.span));
                } else {
                    // Declared, with its error said: not also "no key".
                    key_unresolved = true;
                }
            }
            TableMember::Unique(cols) => {
                if let Some(positions) = resolve(&cols.columns, diagnostics) {
                    let names: Vec<&str> = cols.columns.iter().map(|c| c.name.as_str()).collect();
                    index_spans.push(cols.span);
                    indexes.push(IndexSchema {
                        name: names.join("_"),
                        descending: vec![false; positions.len()],
                        columns: positions,
                        unique: true,
                    });
                }
            }
            TableMember::Index(index) => {
                let names: Vec<ast::Ident> = index.columns.iter().map(|c| c.name.clone()).collect();
                if let Some(positions) = resolve(&names, diagnostics) {
                    index_spans.push(index.name.span);
                    indexes.push(IndexSchema {
                        name: index.name.name.clone(),
                        columns: positions,
                        descending: index.columns.iter().map(|c| c.descending).collect(),
                        unique: false,
                    });
                }
            }
            TableMember::Bound(bound) => bound_decls.push(bound),
        }
    }

    // Each index (a `unique` column, `unique (…)`, `index name (…)`) is
    // its own B-tree, found by its name: two of one name would share one.
    let mut first_of: std::collections::HashMap<&str, usize> =
        std::collections::HashMap::with_capacity(indexes.len());
    for (i, index) in indexes.iter().enumerate() {
        if let Some(&first) = first_of.get(index.name.as_str()) {
            diagnostics.push(
                Diagnostic::error(
                    "E0203",
                    format!(
                        "two indexes of `{}` are named `{}`",
                        table.name.name, index.name
                    ),
                    file,
                    index_spans[i],
                    "second index of this name",
                )
                .with_secondary(Label::new(file, index_spans[first], "first one"))
                .with_help(format!(
                    "give each index its own name: `index {}_2 (…)` (a `unique (a, b)` is named `a_b`, a `unique` column after the column)",
                    index.name
                )),
            );
        }
        first_of.entry(index.name.as_str()).or_insert(i);
    }

    // A key names one row: `none` equals no value (spec/types.md), so a
    // key holding it would name none, and reads by it find nothing, while
    // the store would still keep one row per such key (`T[none, 1]` found
    // a row that `T[none]` and `delete T[none]` did not: adversary).
    if let Some((positions, span)) = &key {
        for &position in positions {
            let column = &columns[position];
            if let ColumnType::Optional(inner) = &column.ty {
                diagnostics.push(
                    Diagnostic::error(
                        "E0247",
                        format!(
                            "the key column `{}.{}` is optional: a key holds a value in every row",
                            table.name.name, column.name
                        ),
                        file,
                        *span,
                        "a key over an optional column",
                    )
                    .with_help(format!(
                        "declare it `{}: {}` (give every row a value, such as 0 or \"\"), or keep the optional column out of the key and index it: `index by_{} ({}, …)`",
                        column.name,
                        inner.name(),
                        column.name,
                        column.name
                    )),
                );
            }
        }
    }
    let Some((key, _)) = key else {
        if key_unresolved {
            return None;
        }
        diagnostics.push(
            Diagnostic::error(
                "E0204",
                format!("table `{}` has no key", table.name.name),
                file,
                table.name.span,
                "declared without a key",
            )
            .with_help(format!(
                "mark a column as the key, as in `id: Int key`, or declare a composite key: `key ({})`",
                columns.iter().take(2).map(|c| c.name.as_str()).collect::<Vec<_>>().join(", ")
            )),
        );
        return None;
    };

    let mut bound_spans = Vec::new();
    for bound in bound_decls {
        let Some(positions) = resolve(&bound.columns, diagnostics) else {
            continue;
        };
        let is_prefix = |cols: &[usize]| {
            cols.len() >= positions.len() && cols[..positions.len()] == positions[..]
        };
        if !is_prefix(&key) && !indexes.iter().any(|i| is_prefix(&i.columns)) {
            let names: Vec<&str> = bound.columns.iter().map(|c| c.name.as_str()).collect();
            diagnostics.push(
                Diagnostic::error(
                    "E0206",
                    format!(
                        "`bound {}` is not over a prefix of the key or of an index",
                        names.join(", ")
                    ),
                    file,
                    bound.span,
                    "the runtime could not count these rows with one range read",
                )
                .with_help(format!(
                    "add an index that starts with these columns: `index by_{} ({})`",
                    names.join("_"),
                    names.join(", ")
                )),
            );
            continue;
        }
        if bound.limit < 1 {
            diagnostics.push(
                Diagnostic::error(
                    "E0207",
                    "a bound must be at least 1",
                    file,
                    bound.limit_span,
                    "here",
                )
                .with_help("write a positive limit, as in `bound follower <= 5000`"),
            );
            continue;
        }
        if bound.limit as u64 > CEILING {
            diagnostics.push(over_ceiling(file, bound.limit_span, "a bound"));
            continue;
        }
        if let Some(first) = bounds
            .iter()
            .position(|b: &BoundSchema| b.columns == positions)
        {
            diagnostics.push(bound_twice(file, bound.span, bound_spans[first]));
            continue;
        }
        bound_spans.push(bound.span);
        bounds.push(BoundSchema {
            columns: positions,
            limit: bound.limit as u64,
        });
    }

    let small_max = match table.small_max {
        Some((max, span)) if max < 1 => {
            diagnostics.push(
                Diagnostic::error(
                    "E0207",
                    "a small table's maximum must be at least 1",
                    file,
                    span,
                    "here",
                )
                .with_help("write a positive size, as in `small table Country max 300`"),
            );
            None
        }
        Some((max, span)) if max as u64 > CEILING => {
            diagnostics.push(over_ceiling(file, span, "a small table's maximum"));
            None
        }
        Some((max, _)) => Some(max as u64),
        None => None,
    };

    if diagnostics.len() > before {
        return None;
    }
    Some(TableSchema {
        name: table.name.name.clone(),
        columns,
        key,
        indexes,
        bounds,
        small_max,
        auto,
        // Declared apart, at the top level: added by `aggregates.rs`.
        aggregates: Vec::new(),
        lookups: Default::default(),
    })
}

/// E0248: a column named twice in a key's, an index's or a bound's list.
fn column_twice(file: &str, table: &str, name: &ast::Ident) -> Diagnostic {
    Diagnostic::error(
        "E0248",
        format!("column `{}` of `{table}` is named twice in this list", name.name),
        file,
        name.span,
        "named again",
    )
    .with_help("name each column once: rows are ordered (or counted) by a column once, and a second time adds nothing")
}

/// E0249: two `bound`s over the same columns.
fn bound_twice(file: &str, span: crate::Span, first: crate::Span) -> Diagnostic {
    Diagnostic::error(
        "E0249",
        "a `bound` over these columns is declared twice",
        file,
        span,
        "second bound over them",
    )
    .with_secondary(Label::new(file, first, "first one"))
    .with_help("keep one `bound` over these columns, with the limit you mean")
}

/// E0308: a declared bound above the ceiling proves nothing.
fn over_ceiling(file: &str, span: crate::Span, what: &str) -> Diagnostic {
    Diagnostic::error(
        "E0308",
        format!("{what} above {CEILING} proves nothing"),
        file,
        span,
        "above the ceiling",
    )
    .with_help(format!(
        "declare a limit of at most {CEILING} (2^32); a group that large is not an island"
    ))
}

fn two_keys(file: &str, table: &str, span: crate::Span, first: crate::Span) -> Diagnostic {
    Diagnostic::error(
        "E0205",
        format!("table `{table}` declares its key twice"),
        file,
        span,
        "second key",
    )
    .with_secondary(Label::new(file, first, "first key"))
    .with_help("a table has one key; for several columns write one `key (a, b)`, and use `unique` or `index` for other access paths")
}

/// `name` is not a column of `table`, whose columns are `columns`, or
/// `near` when they are indexed.
pub fn unknown_column(
    file: &str,
    table: &str,
    name: &ast::Ident,
    columns: &[Column],
    near: Option<&NearIndex>,
) -> Diagnostic {
    let names = columns.iter().map(|c| c.name.as_str());
    Diagnostic::error(
        "E0202",
        format!("table `{table}` has no column `{}`", name.name),
        file,
        name.span,
        "unknown column",
    )
    .with_help(crate::check::names::unknown_column_help(
        table, &name.name, names, near,
    ))
}

/// `ref T` must name a table whose key is one column of the same type.
fn check_references(
    tables: &[TableSource<'_>],
    schema: &Schema,
    diagnostics: &mut Vec<Diagnostic>,
) {
    for source in tables {
        for member in &source.table.members {
            let TableMember::Field(field) = member else {
                continue;
            };
            for modifier in &field.modifiers {
                let FieldModifier::Ref(path, span) = modifier else {
                    continue;
                };
                let target_name = path.segments.last().map(|s| s.name.as_str()).unwrap_or("");
                let Some(target) = schema.table(target_name) else {
                    // A table declared with errors is left out of the
                    // schema: its own diagnostics say what to fix, and
                    // this reference stands (the referencing table's
                    // definitions get no bound, `broken.rs`).
                    if tables.iter().any(|t| t.table.name.name == target_name) {
                        continue;
                    }
                    let known = schema.tables.iter().map(|t| t.name.as_str());
                    let close =
                        crate::check::names::closest_of(target_name, known, schema.near_tables());
                    let mut d = Diagnostic::error(
                        "E0201",
                        format!("`ref {}` names no table", path.dotted()),
                        source.file,
                        path.span,
                        "unknown table",
                    );
                    d = match close {
                        Some(close) => d.with_help(format!("did you mean `ref {close}`?")),
                        None => {
                            d.with_help("declare the table, or import the module that declares it")
                        }
                    };
                    diagnostics.push(d);
                    continue;
                };
                let field_ty = column_type(&field.ty);
                let key_ty = (target.key.len() == 1).then(|| &target.columns[target.key[0]].ty);
                let matches = match (&field_ty, key_ty) {
                    (Some(ColumnType::Optional(inner)), Some(key)) => **inner == *key,
                    (Some(ty), Some(key)) => ty == key,
                    _ => false,
                };
                if !matches {
                    let key_desc = match key_ty {
                        Some(ty) => format!("its key is one `{}` column", ty.name()),
                        None => format!("its key has {} columns", target.key.len()),
                    };
                    diagnostics.push(
                        Diagnostic::error(
                            "E0208",
                            format!("`{}` cannot reference `{}`", field.name.name, target.name),
                            source.file,
                            *span,
                            key_desc.to_string(),
                        )
                        .with_help("a reference holds the whole key of the referenced row: give the column the key's type, and reference only tables with a one-column key"),
                    );
                }
            }
        }
    }
}
