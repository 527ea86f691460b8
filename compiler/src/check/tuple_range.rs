//! Tuple ranges: `T.index[v…, (a, b) < (x, y)]`, a row-value comparison over the index columns after the equality prefix, as one contiguous range.
//!
//! `(a, b) < (x, y)` compares the tuples of values in their natural order
//! (SQL row-value semantics: `a < x || (a == x && b < y)`), whatever the
//! index's directions. The rows it selects are one contiguous run of the
//! index exactly when its columns are the index's next columns, in order,
//! all ascending or all descending: then they are every entry before (or
//! after) one key. Anything else is refused with a fix (spec/cost.md §4.1).

use super::expr::Checker;
use super::schema_types::table_column_ty;
use super::tir::{RangeT, TExpr};
use crate::cost::{Cost, Relation};
use crate::syntax::ast::{BinaryOp, Expr, ExprKind};
use crate::syntax::printer::print_expr;
use rqc_plan::TableSchema;

/// What a last access value that holds a tuple comparison became.
pub enum TupleRange {
    /// Not a tuple comparison: the caller checks it as before.
    NotOne,
    /// A tuple range over the columns from the one after the prefix, what
    /// checking it cost, and what it says of its first column (boxed
    /// together: the cost is four formulas).
    Range(Box<super::range_conditions::CheckedRange>),
    /// Refused; the diagnostic is reported.
    Refused,
}

impl Checker<'_> {
    /// `arg` as a tuple range over `columns[first..]` of `schema` (the
    /// access path's columns, `descending` their directions).
    pub(super) fn tuple_range(
        &mut self,
        arg: &Expr,
        schema: &TableSchema,
        path_name: &str,
        columns: &[usize],
        descending: &[bool],
        first: usize,
    ) -> TupleRange {
        let ExprKind::Binary(op, lhs, rhs) = &arg.kind else {
            return TupleRange::NotOne;
        };
        let (lhs_items, rhs_items) = match (&lhs.kind, &rhs.kind) {
            (ExprKind::Tuple(l), ExprKind::Tuple(r)) => (l, r),
            (ExprKind::Tuple(_), _) | (_, ExprKind::Tuple(_)) => {
                let d = self.error(
                    "E0233",
                    "a tuple of columns compares with a tuple of values",
                    arg.span,
                    "one side is not a tuple",
                );
                d.help.push(
                    "give one value per column on the right: `(at, id) < (t, i)`".to_string(),
                );
                return TupleRange::Refused;
            }
            _ => return TupleRange::NotOne,
        };
        let next: Vec<&str> = columns[first..]
            .iter()
            .map(|&c| schema.columns[c].name.as_str())
            .collect();
        if matches!(op, BinaryOp::Eq | BinaryOp::NotEq) {
            let d = self.error(
                "E0230",
                format!("a tuple `{}` is no range", op.symbol()),
                arg.span,
                "not a range",
            );
            d.help.push(match op {
                BinaryOp::Eq => format!(
                    "give equal values as the access's values, one per column: `{path_name}[{}{}]`",
                    if first == 0 { "" } else { "…, " },
                    rhs_items
                        .iter()
                        .map(print_expr)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                _ => "a range is `<`, `<=`, `>` or `>=`; `!=` selects two ranges".to_string(),
            });
            return TupleRange::Refused;
        }
        // The columns: names of the index's next columns, in order.
        let named: Vec<Option<&str>> = lhs_items
            .iter()
            .map(|e| match &e.kind {
                ExprKind::Name(n) if !self.scope_has(&n.name) => Some(n.name.as_str()),
                _ => None,
            })
            .collect();
        let fits =
            lhs_items.len() <= next.len() && named.iter().zip(&next).all(|(n, c)| *n == Some(*c));
        let shadowed = lhs_items.iter().find_map(|e| match &e.kind {
            ExprKind::Name(n) if self.scope_has(&n.name) => Some(n.name.clone()),
            _ => None,
        });
        if let (false, Some(name)) = (fits, &shadowed) {
            let d = self.error(
                "E0231",
                format!(
                    "`{name}` in `{}` is a name in scope here, not the column `{name}`",
                    print_expr(lhs)
                ),
                lhs.span,
                "a name in scope",
            );
            d.help.push(format!(
                "rename the parameter or `let` called `{name}`: in an access's tuple, names are the index's columns"
            ));
            return TupleRange::Refused;
        }
        if !fits {
            let wanted = next[..lhs_items.len().min(next.len())].join(", ");
            let written = print_expr(lhs);
            let d = self.error(
                "E0231",
                format!(
                    "`{written}` is not a run of `{path_name}`'s columns after its equality values"
                ),
                lhs.span,
                "not the index's next columns, in order",
            );
            d.help.push(if next.is_empty() {
                format!("every column of `{path_name}` is given a value already; drop the tuple")
            } else if lhs_items.len() > next.len() {
                format!(
                    "`{path_name}` has {} column{} after the equality values ({}): compare no more, or declare an index with the others after them",
                    next.len(),
                    if next.len() == 1 { "" } else { "s" },
                    next.join(", ")
                )
            } else {
                format!(
                    "name the columns in the index's order: `({wanted}) {} (…)`, or declare an index whose columns run in this order",
                    op.symbol()
                )
            });
            return TupleRange::Refused;
        }
        if lhs_items.len() != rhs_items.len() {
            let d = self.error(
                "E0233",
                format!(
                    "{} column{} compared with {} value{}",
                    lhs_items.len(),
                    if lhs_items.len() == 1 { "" } else { "s" },
                    rhs_items.len(),
                    if rhs_items.len() == 1 { "" } else { "s" }
                ),
                rhs.span,
                "one value per column",
            );
            d.help.push(format!(
                "give one value per column: `{} {} (…)`",
                print_expr(lhs),
                op.symbol()
            ));
            return TupleRange::Refused;
        }
        // Hover and go-to-definition know the columns named.
        for item in lhs_items {
            if let ExprKind::Name(n) = &item.kind {
                self.refer(n.span, || {
                    super::expr::Target::Column(schema.name.clone(), n.name.clone())
                });
            }
        }
        let directions = &descending[first..first + lhs_items.len()];
        if directions.iter().any(|d| *d != directions[0]) {
            let spelled: Vec<String> = next[..lhs_items.len()]
                .iter()
                .zip(directions)
                .map(|(c, d)| format!("{c} {}", if *d { "desc" } else { "asc" }))
                .collect();
            let d = self.error(
                "E0232",
                format!(
                    "`{}` over `{}` is not one contiguous range: its columns run in mixed directions",
                    print_expr(arg),
                    spelled.join(", ")
                ),
                arg.span,
                "mixed directions",
            );
            d.help.push(format!(
                "declare an index whose columns `{}` run one way (all `desc` or all ascending), and read through it",
                next[..lhs_items.len()].join(", ")
            ));
            return TupleRange::Refused;
        }
        let mut cost = Cost::zero();
        let mut values = Vec::with_capacity(rhs_items.len());
        // The first column of every key read lies within the end's first
        // value, the value itself allowed (`(a, b) < (x, y)` reads `a == x`).
        let upper = matches!(op, BinaryOp::Lt | BinaryOp::LtEq);
        let mut first_end = Vec::new();
        for (k, value_expr) in rhs_items.iter().enumerate() {
            let column = &schema.columns[columns[first + k]];
            let expected = table_column_ty(&schema.name, column);
            let value = self.check(value_expr);
            self.expect_type(
                &expected,
                &value.ty,
                value_expr.span,
                format_args!("`{}` is `{expected}`", column.name),
            );
            cost = cost.plus(&value.cost);
            if k == 0 {
                first_end.push((Relation::of_range_end(upper, true), value.ty));
            }
            values.push(value.tir);
        }
        let end = Some((
            TExpr::Tuple(values),
            matches!(op, BinaryOp::LtEq | BinaryOp::GtEq),
        ));
        let range = match op {
            BinaryOp::Lt | BinaryOp::LtEq => RangeT {
                lower: None,
                upper: end,
                starts_with: false,
            },
            _ => RangeT {
                lower: end,
                upper: None,
                starts_with: false,
            },
        };
        TupleRange::Range(Box::new((range, cost, first_end)))
    }
}
