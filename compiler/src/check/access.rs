//! Access paths: whole-key and unique lookups, prefix and range scans, whole tables.

use super::expr::{Checked, Checker};
use super::island_stream::IslandStream;
use super::modules::Symbol;
use super::schema_types::table_column_ty;
use super::tir::TExpr;
use super::tuple_range::TupleRange;
use super::types::{StreamSource, StreamTy, Ty};
use crate::cost::{Cost, Interval, Poly, Relation, Var, VarKind};
use crate::span::Span;
use crate::syntax::ast::{BinaryOp, Expr, ExprKind};
use crate::syntax::printer::print_expr;
use rqc_plan::TableSchema;

/// The columns an access walks, in order, and what kind of path it is.
struct Path {
    index: Option<String>,
    columns: Vec<usize>,
    /// Each column's direction (a key's are all ascending).
    descending: Vec<bool>,
    /// Whole key or unique index: all columns given means ≤ 1 row.
    unique: bool,
}

impl<'p> Checker<'p> {
    /// `T` alone, or `T.index` alone (the whole index, in its order): a
    /// small table is a bounded list, a large one a stream.
    pub fn check_whole_table(&mut self, table: &str, index: Option<&str>, span: Span) -> Checked {
        let Some(schema) = self.schema.table(table) else {
            return Checked::error(); // its declaration was reported
        };
        let tir = TExpr::Scan {
            table: table.to_string(),
            index: index.map(str::to_string),
            prefix: Vec::new(),
            range: None,
            bounded: schema.small_max.is_some(),
        };
        let access = match index {
            Some(index) => format!("{table}.{index}"),
            None => table.to_string(),
        };
        let row = Ty::row(table.to_string());
        let stream = StreamTy {
            elem: row.clone(),
            open: Cost::constant(1, 0, 1),
            per_element: Cost::constant(0, 1, 0),
            source: StreamSource {
                table: table.to_string(),
                description: format!("every row of {table}"),
                prefix_columns: Vec::new(),
                next_column: None,
                order: super::reverse::whole_order(schema, index),
                skipped: false,
                access,
            },
        };
        match schema.small_max {
            Some(max) => {
                let size = Poly::var(Var::new(VarKind::Small {
                    table: table.to_string(),
                    max,
                }));
                self.island_stream = Some(IslandStream {
                    span,
                    prefix_cost: Cost::zero(),
                    stream,
                });
                Checked::new(
                    Ty::list(row, size.clone()),
                    Cost::new(Poly::constant(1), size, Poly::constant(1)),
                    tir,
                )
            }
            // Nothing is read until a consumer limits it.
            None => Checked::new(Ty::Stream(Box::new(stream)), Cost::zero(), tir),
        }
    }

    /// `T[k…]`, `T.index[v…, col < x]`.
    pub fn check_access(&mut self, expr: &Expr, base: &Expr, args: &[Expr]) -> Checked {
        let Some((schema, path)) = self.access_path(base) else {
            return Checked::error();
        };
        let table = schema.name.clone();
        if args.len() > path.columns.len() {
            let names: Vec<&str> = path
                .columns
                .iter()
                .map(|&c| schema.columns[c].name.as_str())
                .collect();
            let path_text = print_expr(base);
            // `M[r, at >= lo, at < hi]`: a range's two ends as two values.
            let ends: Vec<&Expr> = args
                .iter()
                .filter(|a| {
                    matches!(
                        a.kind,
                        ExprKind::Binary(
                            BinaryOp::Lt | BinaryOp::LtEq | BinaryOp::Gt | BinaryOp::GtEq,
                            ..
                        )
                    )
                })
                .collect();
            let both_ends = match ends[..] {
                [low, high] if args.len() == names.len() + 1 => {
                    let before: Vec<String> = args
                        .iter()
                        .take_while(|a| !std::ptr::eq(*a, low))
                        .map(print_expr)
                        .collect();
                    let mut values = before;
                    values.push(format!("{} && {}", print_expr(low), print_expr(high)));
                    Some(format!(
                        "a range with both ends is one value, its ends joined by `&&`: `{path_text}[{}]`",
                        values.join(", ")
                    ))
                }
                _ => None,
            };
            self.error(
                "E0404",
                format!(
                    "`{path_text}` has {} column{}, and {} values are given",
                    names.len(),
                    if names.len() == 1 { "" } else { "s" },
                    args.len()
                ),
                expr.span,
                "too many values",
            )
            .help
            .push(both_ends.unwrap_or_else(|| {
                format!(
                    "give at most one value per column: `{path_text}[{}]`",
                    names.join(", ")
                )
            }));
            return Checked::error();
        }
        if let Some(misplaced) = args[..args.len() - 1]
            .iter()
            .find(|a| super::predicates::in_condition(a).is_some())
        {
            self.error(
                "E0236",
                "`in` may only be the last value of an access",
                misplaced.span,
                "not the last value",
            )
            .help
            .push(
                "give the other columns single values, and `in` the last one: `T[a, b in xs]`"
                    .into(),
            );
            return Checked::error();
        }
        if args
            .last()
            .is_some_and(|a| super::predicates::in_condition(a).is_some())
        {
            let fanout = self.bound_of(schema, &path.columns[..args.len()]);
            return self.check_in_access(
                expr,
                base,
                args,
                schema,
                &path.columns,
                path.unique,
                fanout,
            );
        }
        let mut cost = Cost::zero();
        let mut prefix = Vec::new();
        let mut range = None;
        // What every row read holds of its columns: each fixed `Int`
        // column its value's range, the range's column within its ends.
        let mut read = Vec::new();
        for (i, arg) in args.iter().enumerate() {
            let column = &schema.columns[path.columns[i]];
            let expected = table_column_ty(&table, column);
            if i + 1 == args.len() {
                let path_name = print_expr(base);
                match self.tuple_range(arg, schema, &path_name, &path.columns, &path.descending, i)
                {
                    TupleRange::NotOne => {}
                    TupleRange::Refused => return Checked::error(),
                    TupleRange::Range(found) => {
                        let (r, c, ends) = *found;
                        range = Some(r);
                        cost = cost.plus(&c);
                        if reads_as_int(&expected) {
                            read.extend(ends.into_iter().map(|(rel, ty)| (&column.name, rel, ty)));
                        }
                        continue;
                    }
                }
                if let Some((r, c, ends)) =
                    self.range_condition(arg, &table, &column.name, &expected)
                {
                    range = Some(r);
                    cost = cost.plus(&c);
                    if reads_as_int(&expected) {
                        read.extend(ends.into_iter().map(|(rel, ty)| (&column.name, rel, ty)));
                    }
                    continue;
                }
            }
            let value = self.check(arg);
            self.expect_type(
                &expected,
                &value.ty,
                arg.span,
                format_args!("`{}.{}` is `{expected}`", table, column.name),
            );
            cost = cost.plus(&value.cost);
            if reads_as_int(&expected) {
                read.push((&column.name, Relation::Equal, value.ty));
            }
            prefix.push(value.tir);
        }
        let row = Ty::Row(table.clone(), rows_read_within(&read));
        let whole = prefix.len() == path.columns.len() && range.is_none();
        if whole && path.unique {
            let (tir, seeks) = match &path.index {
                None => (
                    TExpr::Lookup {
                        table: table.clone(),
                        key: prefix,
                    },
                    1,
                ),
                Some(index) => (
                    TExpr::UniqueLookup {
                        table: table.clone(),
                        index: index.clone(),
                        values: prefix,
                    },
                    // The index entry, then the row it names.
                    2,
                ),
            };
            return Checked::new(
                Ty::option(row),
                cost.plus(&Cost::constant(seeks, 1, 1)),
                tir,
            );
        }
        let eq_columns: Vec<usize> = path.columns[..prefix.len()].to_vec();
        let bounded_by = self.bound_of(schema, &eq_columns);
        let tir = TExpr::Scan {
            table: table.clone(),
            index: path.index.clone(),
            prefix,
            range: range.map(Box::new),
            bounded: bounded_by.is_some(),
        };
        let access = print_expr(expr);
        let stream = StreamTy {
            elem: row.clone(),
            open: Cost::constant(1, 0, 1),
            per_element: Cost::constant(0, 1, 0),
            source: StreamSource {
                table: table.clone(),
                description: format!("the rows of {access}"),
                prefix_columns: eq_columns
                    .iter()
                    .map(|&c| schema.columns[c].name.clone())
                    .collect(),
                next_column: path
                    .columns
                    .get(eq_columns.len())
                    .filter(|_| !matches!(tir, TExpr::Scan { range: Some(_), .. }))
                    .map(|&c| schema.columns[c].name.clone()),
                order: super::reverse::stream_order(
                    schema,
                    &path.columns,
                    &path.descending,
                    eq_columns.len(),
                ),
                skipped: false,
                access,
            },
        };
        match bounded_by {
            Some(size) => {
                self.island_stream = Some(IslandStream {
                    span: expr.span,
                    prefix_cost: cost.clone(),
                    stream: stream.clone(),
                });
                Checked::new(
                    Ty::list(row, size.clone()),
                    cost.plus(&Cost::new(Poly::constant(1), size, Poly::constant(1))),
                    tir,
                )
            }
            // The values of the prefix, now; the seek when read.
            None => Checked::new(Ty::Stream(Box::new(stream)), cost, tir),
        }
    }

    /// The most rows one value of `columns` can have: a `small … max`, or
    /// a declared bound over some of these columns.
    fn bound_of(&self, schema: &TableSchema, columns: &[usize]) -> Option<Poly> {
        if let Some(max) = schema.small_max {
            return Some(Poly::var(Var::new(VarKind::Small {
                table: schema.name.clone(),
                max,
            })));
        }
        schema
            .bounds
            .iter()
            .filter(|b| b.columns.iter().all(|c| columns.contains(c)))
            .min_by_key(|b| b.limit)
            .map(|b| {
                Poly::var(Var::new(VarKind::Fanout {
                    table: schema.name.clone(),
                    columns: b
                        .columns
                        .iter()
                        .map(|&c| schema.columns[c].name.clone())
                        .collect(),
                    max: b.limit,
                }))
            })
    }

    fn access_path(&mut self, base: &Expr) -> Option<(&'p TableSchema, Path)> {
        let (table_name, index_name) = match &base.kind {
            ExprKind::Name(name) => (name, None),
            ExprKind::Field(inner, index) => match &inner.kind {
                ExprKind::Name(name) => (name, Some(index)),
                _ => return self.not_an_access(base),
            },
            _ => return self.not_an_access(base),
        };
        // A local hides a table of its name, as it hides a definition or
        // a module (spec/syntax.md, "Names").
        if self.scope_has(&table_name.name) {
            let hides_a_table = matches!(
                self.index.lookup(self.module, &table_name.name),
                Some(Symbol::Table(_))
            );
            self.not_an_access::<()>(base);
            if hides_a_table {
                let name = &table_name.name;
                let d = self.diagnostics.last_mut().expect("not_an_access reported");
                d.help = vec![format!(
                    "the local `{name}` hides the table `{name}` here: give the local another name"
                )];
            }
            return None;
        }
        let table = match self.index.lookup(self.module, &table_name.name) {
            Some(Symbol::Table(t)) => t.clone(),
            _ => {
                self.unknown_name(table_name);
                return None;
            }
        };
        self.refer(table_name.span, || {
            super::expr::Target::Table(table.clone())
        });
        if let Some(index) = index_name {
            self.refer(index.span, || {
                super::expr::Target::Index(table.clone(), index.name.clone())
            });
        }
        let schema = self.schema.table(&table)?;
        let path = match index_name {
            None => Path {
                index: None,
                columns: schema.key.clone(),
                descending: vec![false; schema.key.len()],
                unique: true,
            },
            Some(index) => match schema.index(&index.name) {
                Some(found) => Path {
                    index: Some(found.name.clone()),
                    columns: found.columns.clone(),
                    descending: found.descending.clone(),
                    unique: found.unique,
                },
                None => {
                    let names = schema.indexes.iter().map(|i| i.name.as_str());
                    let suggestion = super::names::closest_index(&index.name, schema);
                    let suggestion = suggestion.map(str::to_string);
                    let is_column = schema.column(&index.name).is_some();
                    let d = self.error(
                        "E0216",
                        format!("table `{table}` has no index `{}`", index.name),
                        index.span,
                        "unknown index",
                    );
                    d.help.push(match suggestion {
                        Some(close) => format!("did you mean `{table}.{close}`?"),
                        None if is_column => format!(
                            "`{}` is a column without an index; declare one in `{table}`: `index by_{} ({})`",
                            index.name, index.name, index.name
                        ),
                        None if names.len() == 0 => format!("`{table}` has no indexes; read it by key: `{table}[…]`"),
                        None => format!("the indexes of `{table}` are: {}", super::names::listed_from(names)),
                    });
                    if let Some(label) =
                        self.table_label(&table, format!("`{table}` is declared here"))
                    {
                        self.diagnostics
                            .last_mut()
                            .expect("pushed")
                            .secondary
                            .push(label);
                    }
                    return None;
                }
            },
        };
        let schema = self.schema.table(&table)?;
        Some((schema, path))
    }

    pub(super) fn scope_has(&self, name: &str) -> bool {
        self.scope.contains(name)
    }

    fn not_an_access<T>(&mut self, base: &Expr) -> Option<T> {
        let d = self.error(
            "E0411",
            "only tables and their indexes are read with `[…]`",
            base.span,
            "not a table or index",
        );
        d.help.push("write `Table[key]` or `Table.index[values]`; to pick from a list use `|> take(n)` or `|> first()`".into());
        None
    }
}

/// What every row an access reads holds of its `Int` columns (`read`: each
/// column, its relation to a value, and the value's type): a fixed
/// column's value's range, a range's column within its ends
/// (`Interval::read_within`, as the verifier's scan), kept in the row's
/// type by column (`narrowed_types::column_within`).
fn rows_read_within(read: &[(&String, Relation, Ty)]) -> Vec<(String, Interval)> {
    let mut facts: Vec<(String, Interval)> = Vec::new();
    for (column, relation, value) in read {
        let Ty::Int(value) = value else {
            continue;
        };
        let within = Interval::read_within(*relation, value);
        match facts.iter_mut().find(|(known, _)| known == *column) {
            Some((_, known)) => *known = known.intersect(&within),
            None => facts.push(((*column).clone(), within)),
        }
    }
    facts
}

/// Whether a column of type `ty` is narrowed by the values an access reads
/// it at: an `Int`, or an `Int?` (whose `none` sorts below every number,
/// so a range's ends hold of the values it reads, and a `none` row is no
/// number: `narrowed_ty` narrows the value it holds).
fn reads_as_int(ty: &Ty) -> bool {
    match ty {
        Ty::Int(_) => true,
        Ty::Option(inner) => matches!(**inner, Ty::Int(_)),
        _ => false,
    }
}
