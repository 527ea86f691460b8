//! A range as the last value of an access (`col < x`, `col >= a && col < b`, `a..b`): its ends checked against the next column's type, costed as the values they are.

use super::expr::Checker;
use super::tir::RangeT;
use super::types::Ty;
use crate::cost::{Cost, Relation};
use crate::syntax::ast::{BinaryOp, Expr, ExprKind};
use crate::syntax::printer::print_expr;

/// A range checked: its ends, what computing them costs, and each end's
/// relation to the keys it reads with the end's type.
pub(super) type CheckedRange = (RangeT, Cost, Vec<(Relation, Ty)>);

impl Checker<'_> {
    /// `col < x`, `col >= x` or `a..b` as the last value of an access: a
    /// range over the next column, and each end's relation to the keys it
    /// reads with the end's type (what a row read holds of the column).
    pub(super) fn range_condition(
        &mut self,
        arg: &Expr,
        table: &str,
        column: &str,
        expected: &Ty,
    ) -> Option<CheckedRange> {
        match &arg.kind {
            ExprKind::Binary(op, lhs, rhs)
                if op.is_comparison() && *op != BinaryOp::Eq && *op != BinaryOp::NotEq =>
            {
                let ExprKind::Name(name) = &lhs.kind else {
                    return None;
                };
                if name.name != column || self.scope_has(column) {
                    return None;
                }
                let value = self.check(rhs);
                self.expect_type(
                    expected,
                    &value.ty,
                    rhs.span,
                    format_args!("`{column}` is `{expected}`"),
                );
                let inclusive = matches!(op, BinaryOp::LtEq | BinaryOp::GtEq);
                let upper = matches!(op, BinaryOp::Lt | BinaryOp::LtEq);
                let ends = vec![(Relation::of_range_end(upper, inclusive), value.ty)];
                let bound = Some((value.tir, inclusive));
                let range = match op {
                    BinaryOp::Lt | BinaryOp::LtEq => RangeT {
                        lower: None,
                        upper: bound,
                        starts_with: false,
                    },
                    _ => RangeT {
                        lower: bound,
                        upper: None,
                        starts_with: false,
                    },
                };
                Some((range, value.cost, ends))
            }
            ExprKind::Range(lo, hi) => {
                let low = self.check(lo);
                let high = self.check(hi);
                self.expect_type(
                    expected,
                    &low.ty,
                    lo.span,
                    format_args!("`{column}` is `{expected}`"),
                );
                self.expect_type(
                    expected,
                    &high.ty,
                    hi.span,
                    format_args!("`{column}` is `{expected}`"),
                );
                Some((
                    RangeT {
                        lower: Some((low.tir, true)),
                        upper: Some((high.tir, false)),
                        starts_with: false,
                    },
                    low.cost.plus(&high.cost),
                    vec![(Relation::AtLeast, low.ty), (Relation::Below, high.ty)],
                ))
            }
            // `col >= a && col < b`: both ends of one range over the next
            // column, as `a..b` is (spec/cost.md §4.5).
            ExprKind::Binary(BinaryOp::And, first, second) => {
                let ends = (range_end(first, column), range_end(second, column));
                let (Some(a), Some(b)) = ends else {
                    return None;
                };
                if self.scope_has(column) {
                    return None;
                }
                if a.upper == b.upper {
                    let side = if a.upper { "upper" } else { "lower" };
                    self.error(
                        "E0430",
                        format!("`{}` gives `{column}` two {side} ends", print_expr(arg)),
                        arg.span,
                        "one range has one lower and one upper end",
                    )
                    .help
                    .push(format!(
                        "give one lower end and one upper end: `{column} >= a && {column} < b` (or `a..b`)"
                    ));
                    return no_range();
                }
                let mut cost = Cost::zero();
                let mut read = Vec::new();
                let mut range = RangeT {
                    lower: None,
                    upper: None,
                    starts_with: false,
                };
                for end in [a, b] {
                    let value = self.check(end.value);
                    self.expect_type(
                        expected,
                        &value.ty,
                        end.value.span,
                        format_args!("`{column}` is `{expected}`"),
                    );
                    cost = cost.plus(&value.cost);
                    read.push((Relation::of_range_end(end.upper, end.inclusive), value.ty));
                    let bound = Some((value.tir, end.inclusive));
                    match end.upper {
                        true => range.upper = bound,
                        false => range.lower = bound,
                    }
                }
                Some((range, cost, read))
            }
            // `starts_with(col, p)`: the entries whose next column begins
            // with `p`, one contiguous key range (spec/cost.md §4.5).
            ExprKind::Call(callee, call_args)
                if matches!(&callee.kind, ExprKind::Name(f) if f.name == "starts_with")
                    && !self.scope_has("starts_with") =>
            {
                let [first, p] = call_args.as_slice() else {
                    return None;
                };
                let ExprKind::Name(name) = &first.kind else {
                    return None;
                };
                if self.scope_has(&name.name) {
                    return None;
                }
                if name.name != column {
                    self.error(
                        "E0319",
                        format!(
                            "`starts_with({}, …)` reads a range of the access's next column, and that is `{column}`",
                            name.name
                        ),
                        first.span,
                        "not the next column",
                    )
                    .help
                    .push(format!(
                        "index the column and read through it: `index by_{0} ({0})` in `{1}`, and `{1}.by_{0}[starts_with({0}, p)] |> take(20)`",
                        name.name, table
                    ));
                    return no_range();
                }
                if !matches!(expected, Ty::Str(_))
                    && !matches!(expected, Ty::Option(inner) if matches!(**inner, Ty::Str(_)))
                {
                    self.error(
                        "E0318",
                        format!("`starts_with` reads a range of Strings, and `{column}` is `{expected}`"),
                        first.span,
                        "not a String column",
                    )
                    .help
                    .push(format!("compare it instead: `{column} >= x` or `x..y`"));
                    return no_range();
                }
                let value = self.check(p);
                self.expect_type(
                    &Ty::string(),
                    &value.ty,
                    p.span,
                    "`starts_with` takes a String prefix",
                );
                Some((
                    RangeT {
                        lower: Some((value.tir, true)),
                        upper: None,
                        starts_with: true,
                    },
                    value.cost,
                    Vec::new(),
                ))
            }
            _ => None,
        }
    }
}

/// One end of a range over `column`, written `column OP value` with `OP`
/// one of `<`, `<=`, `>`, `>=`.
struct RangeEnd<'e> {
    upper: bool,
    inclusive: bool,
    value: &'e Expr,
}

fn range_end<'e>(condition: &'e Expr, column: &str) -> Option<RangeEnd<'e>> {
    let ExprKind::Binary(op, lhs, value) = &condition.kind else {
        return None;
    };
    let ExprKind::Name(name) = &lhs.kind else {
        return None;
    };
    if name.name != column {
        return None;
    }
    let (upper, inclusive) = match op {
        BinaryOp::Lt => (true, false),
        BinaryOp::LtEq => (true, true),
        BinaryOp::Gt => (false, false),
        BinaryOp::GtEq => (false, true),
        _ => return None,
    };
    Some(RangeEnd {
        upper,
        inclusive,
        value,
    })
}

/// What a range reported as wrong reads: nothing, at no cost (the error
/// stands for it).
fn no_range() -> Option<CheckedRange> {
    Some((
        RangeT {
            lower: None,
            upper: None,
            starts_with: false,
        },
        Cost::zero(),
        Vec::new(),
    ))
}
