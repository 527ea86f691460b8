//! Predicates over indexes: `key in xs` inside an access (one lookup per distinct element, one batch) and `a || b` over two row collections (their union), each built from rules already proved (spec/cost.md §4.5).
//!
//! Neither adds a new kind of read. `T[k in xs]` is checked as
//! `xs |> distinct() |> map(x => T[x]) |> flatten()` over a whole key or
//! unique index (a batched `map`, Lemma 5), or `|> flat_map(x => T.ix[x])`
//! over a bounded prefix; `a || b` as `[a, b] |> flatten() |> distinct()`.
//! So their costs are the sums of their parts by the rules of those
//! combinators, and the planner, runtime and reference evaluator run them
//! as they run the combinators.

use super::expr::{Checked, Checker};
use super::tir::TExpr;
use super::types::Ty;
use crate::cost::{Cost, Poly};
use crate::span::Span;
use crate::syntax::ast::{BinaryOp, Expr, ExprKind, Ident};
use crate::syntax::printer::print_expr;
use rqc_plan::{Builtin, Shape, TableSchema};

/// Names the checker binds for a desugared predicate: `·` never appears in
/// a source name, so they cannot clash with the program's.
const LIST: &str = "in·list";
const ELEMENT: &str = "in·x";

fn name_expr(name: &str, span: Span) -> Expr {
    Expr::new(
        ExprKind::Name(Ident {
            name: name.to_string(),
            span,
        }),
        span,
    )
}

/// The `in` of an access's last value: `col in xs`.
pub fn in_condition(arg: &Expr) -> Option<(&Expr, &Expr)> {
    match &arg.kind {
        ExprKind::Binary(BinaryOp::In, column, list) => Some((column, list)),
        _ => None,
    }
}

impl Checker<'_> {
    /// `T[p…, col in xs]`: the rows whose path values are `p…` and one of
    /// `xs`'s, each once, in the order of their first element in `xs`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn check_in_access(
        &mut self,
        expr: &Expr,
        base: &Expr,
        args: &[Expr],
        schema: &TableSchema,
        path_columns: &[usize],
        unique: bool,
        fanout: Option<Poly>,
    ) -> Checked {
        let (last, prefix_args) = args.split_last().expect("an `in` is the last value");
        let (column_expr, list) = in_condition(last).expect("checked by the caller");
        let table = &schema.name;
        let column = &schema.columns[path_columns[prefix_args.len()]].name;
        let names_column = matches!(&column_expr.kind, ExprKind::Name(n) if n.name == *column && !self.scope_has(column));
        if !names_column {
            self.error(
                "E0236",
                format!(
                    "`in` here must name `{column}`, the next column of `{}`",
                    print_expr(base)
                ),
                column_expr.span,
                "not the access's next column",
            )
            .help
            .push(format!(
                "write `{}[{column} in {}]`",
                print_expr(base),
                print_expr(list)
            ));
            return Checked::error();
        }
        let whole = prefix_args.len() + 1 == path_columns.len() && unique;
        if !whole && fanout.is_none() {
            let d = self.error(
                "E0236",
                format!(
                    "`{column} in …` reads `{}` for each element, and nothing bounds the rows of one",
                    print_expr(base)
                ),
                last.span,
                "each element's rows are unbounded",
            );
            d.help.push(format!(
                "read whole keys or a unique index (`{table}[…]`), or declare a bound on `{table}`: `bound {column} <= 100`"
            ));
            return Checked::error();
        }
        let depth = self.scope.len();
        let mut cost = Cost::zero();
        // Each prefix value is evaluated once, before the lookups, and
        // bound to a name, so every lookup's key is known ahead (Lemma 5).
        let mut lets = Vec::new();
        let mut key_args = Vec::new();
        for (i, arg) in prefix_args.iter().enumerate() {
            let value = self.check(arg);
            cost = cost.plus(&value.cost);
            let name = format!("in·p{i}");
            self.push_local(
                &Ident {
                    name: name.clone(),
                    span: arg.span,
                },
                value.ty,
                TExpr::Local(name.clone()),
            );
            lets.push((name.clone(), value.tir));
            key_args.push(name_expr(&name, arg.span));
        }
        let xs = self.check(list);
        cost = cost.plus(&xs.cost);
        match &xs.ty {
            Ty::List(..) => {}
            Ty::Error => {
                self.scope.truncate(depth);
                return Checked::error();
            }
            Ty::Stream(stream) => {
                self.error(
                    "E0235",
                    format!(
                        "`in` takes a bounded list, and this reads {}",
                        stream.source.description
                    ),
                    list.span,
                    "a stream: nothing bounds its length",
                )
                .help
                .push(format!(
                    "limit it first: `{}[{column} in ({} |> take(n))]` with `n: Int <= 100`",
                    print_expr(base),
                    print_expr(list)
                ));
                self.scope.truncate(depth);
                return Checked::error();
            }
            other => {
                let other = other.to_string();
                self.error(
                    "E0235",
                    format!("`in` takes a list of `{column}` values, and this is `{other}`"),
                    list.span,
                    "not a list",
                )
                .help
                .push(format!(
                    "give a list: `{}[{column} in [a, b]]`, or a parameter `xs: [T; <= 50]`",
                    print_expr(base)
                ));
                self.scope.truncate(depth);
                return Checked::error();
            }
        }
        // The list is evaluated once, where it stands: its uses below are
        // that value.
        self.push_local(
            &Ident {
                name: LIST.into(),
                span: list.span,
            },
            xs.ty.clone(),
            xs.tir,
        );
        key_args.push(name_expr(ELEMENT, list.span));
        // One element's lookup: at no width, so a hover over the access
        // finds the whole access's type, not one lookup's.
        let at = column_expr.span.end as usize;
        let lookup = Expr::new(
            ExprKind::Index(Box::new(base.clone()), key_args),
            Span::new(at, at),
        );
        let lambda = Expr::new(
            ExprKind::Lambda(
                vec![Ident {
                    name: ELEMENT.into(),
                    span: list.span,
                }],
                Box::new(lookup),
            ),
            list.span,
        );
        let span = expr.span;
        // Each step's input is the previous step, inlined: its node's bound
        // is what it and everything below it may read (`acc`).
        let mut acc = xs.cost.clone();
        let mut step = |this: &mut Self, op: Builtin, input: &str, rest: &[&Expr]| -> Checked {
            let input = name_expr(input, list.span);
            let mut all = vec![&input];
            all.extend(rest.iter().copied());
            let name = Ident {
                name: op.name().into(),
                span,
            };
            let checked = this
                .check_builtin(span, &name, &all)
                .expect("a built-in combinator");
            acc = acc.plus(&checked.cost);
            let tir = TExpr::Costed(Box::new(checked.tir), std::sync::Arc::new(acc.clone()));
            Checked::new(checked.ty, checked.cost, tir)
        };
        let distinct = step(self, Builtin::Distinct, LIST, &[]);
        cost = cost.plus(&distinct.cost);
        self.push_local(
            &Ident {
                name: "in·distinct".into(),
                span: list.span,
            },
            distinct.ty.clone(),
            distinct.tir,
        );
        let rows = if whole {
            let found = step(self, Builtin::Map, "in·distinct", &[&lambda]);
            cost = cost.plus(&found.cost);
            self.push_local(
                &Ident {
                    name: "in·found".into(),
                    span: list.span,
                },
                found.ty.clone(),
                found.tir,
            );
            step(self, Builtin::Flatten, "in·found", &[])
        } else {
            step(self, Builtin::FlatMap, "in·distinct", &[&lambda])
        };
        self.scope.truncate(depth);
        let cost = cost.plus(&rows.cost);
        let mut tir = rows.tir;
        for (name, value) in lets.into_iter().rev() {
            tir = TExpr::Let(name, Box::new(value), Box::new(tir));
        }
        Checked::new(rows.ty, cost, tir)
    }

    /// `a || b` over two collections of one table's rows: the rows of
    /// either, each once — `a`'s in order, then `b`'s not in `a`. Each side
    /// must be bounded (a list or an option); the result's length and cost
    /// are the sums of the sides'.
    pub(super) fn check_union(
        &mut self,
        left: Checked,
        right: Checked,
        a: &Expr,
        b: &Expr,
    ) -> Checked {
        let mut table = None;
        let mut size = Poly::zero();
        let mut rows = Vec::new();
        for (side, expr) in [(&left.ty, a), (&right.ty, b)] {
            let (elem, length) = match side {
                Ty::List(elem, length, _) => (&**elem, length.clone()),
                Ty::Option(elem) => (&**elem, Poly::constant(1)),
                Ty::Error => return Checked::error(),
                Ty::Stream(stream) => {
                    self.error(
                        "E0238",
                        format!(
                            "each side of `||` over rows must be bounded, and this reads {}",
                            stream.source.description
                        ),
                        expr.span,
                        "a stream: nothing bounds its length",
                    )
                    .help
                    .push(format!(
                        "limit it first: `{} |> take(n)` with `n: Int <= 100`",
                        print_expr(expr)
                    ));
                    return Checked::error();
                }
                other => {
                    let other = other.to_string();
                    self.error(
                        "E0238",
                        format!("`||` joins two collections of rows, and this is `{other}`"),
                        expr.span,
                        "not rows",
                    )
                    .help
                    .push("write rows on both sides, as `Msg.by_from[u] |> take(20) || Msg.by_to[u] |> take(20)`; `||` of two Bools is a Bool".into());
                    return Checked::error();
                }
            };
            let Ty::Row(name, _) = elem else {
                let elem = elem.to_string();
                self.error(
                    "E0238",
                    format!("`||` joins two collections of rows, and this holds `{elem}`"),
                    expr.span,
                    "not rows",
                )
                .help
                .push("read rows of one table on both sides, then map the union: `(a || b) |> map(r => r.id)`".into());
                return Checked::error();
            };
            match &table {
                Some(first) if first != name => {
                    self.error(
                        "E0239",
                        format!("`||` joins rows of one table, and these are `{first}` and `{name}` rows"),
                        a.span.to(b.span),
                        "rows of two tables",
                    )
                    .help
                    .push("a union holds rows of one table; read each table on its own, in a record: `{ a: …, b: … }`".into());
                    return Checked::error();
                }
                _ => table = Some(name.clone()),
            }
            size = size.plus(&length);
            rows.push(elem.clone());
        }
        // A row of either side: what both proved of a column (`filter`),
        // joined.
        let row = super::join::join_all(rows);
        let cost = left.cost.plus(&right.cost);
        let both = TExpr::List(vec![left.tir, right.tir]);
        let flat = TExpr::Builtin(Builtin::Flatten, Shape::List, vec![both]);
        let union = TExpr::Builtin(Builtin::Distinct, Shape::List, vec![flat]);
        Checked::new(
            Ty::list(row, size),
            cost.clone(),
            TExpr::Costed(Box::new(union), std::sync::Arc::new(cost)),
        )
    }
}
