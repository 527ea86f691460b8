//! Sums of named values and constants in the bound pass: what a compared side, a `let`'s value and a call's argument are (`rqc_cost::SideSum`), and a sum computed again narrowed by the facts around it, as the checker's `check/sums.rs` (spec/cost.md §3.1).

use super::abstract_value::Abs;
use super::bounds::Verifier;
use super::narrowing::{plain_int, Named, Side};
use super::scope::{Binding, Scope};
use rqc_cost::{sum_leaves, Interval, SideSum, SumLeaf, SumShape};
use rqc_plan::{BinOp, Node, Op, UnOp, Value};
use std::sync::Arc;

/// Adds the leaves of the side `operand` to `sum`, as the checker's
/// `Checker::add_leaves` does: a sum (`+`, `-`, negation, `rqc_cost::sum_leaves`)
/// of `Int` constants and named values, each with its range (`whole`, the
/// side's, for a side that is one leaf); any other leaf makes the side
/// narrow nothing.
pub(super) fn add_leaves<'p>(
    operand: &'p Node,
    whole: Option<&Interval>,
    scope: &Scope<'p>,
    params: &[Abs<'p>],
    sum: &mut SideSum<Named<'p>>,
) {
    let alone = matches!(sum_shape(operand), SumShape::Leaf);
    sum_leaves(operand, false, &sum_shape, &mut |leaf, negated| {
        match leaf {
            SumLeaf::Literal(c) => sum.literal(c, negated),
            SumLeaf::Value(value) => match Named::of(value, scope) {
                Some(named) => {
                    let range = match alone {
                        true => whole.cloned(),
                        false => named.range(scope, params),
                    };
                    match range {
                        Some(range) => sum.named(named, negated, range),
                        None => sum.fail(),
                    }
                }
                None => sum.fail(),
            },
        }
        !sum.failed()
    });
}

/// The sum of `named` alone: what a parameter or a `let` bound to a named
/// value of another type than a plain `Int` keeps (`ys` given `xs`, `s`
/// given `p.title`), an alias, as the checker's `Local::definition` of
/// one. It is the same value, so a fact proved of a field, a length, a
/// greatest or the elements of the alias is proved of those of what it
/// names too ([`super::narrowing::definition_of`]; spec/cost.md §3.1). Its
/// range is unknown: it is read only for its name.
pub(super) fn alias<'p>(named: Named<'p>) -> Side<'p> {
    let any = Interval::unbounded("a named value");
    let mut sum = SideSum::default();
    sum.named(named, false, any.clone());
    sum.side(any)
}

/// How `node` is made, as far as a sum is concerned
/// (`rqc_cost::sum_leaves`, as the checker's `sum_shape`).
fn sum_shape(node: &Node) -> SumShape<'_, Node> {
    match &node.op {
        Op::Const(Value::Int(c)) => SumShape::Literal(*c),
        Op::Unary(UnOp::Neg, inner) => SumShape::Negated(inner),
        Op::Binary(BinOp::Add, a, b) => SumShape::Plus(a, b),
        Op::Binary(BinOp::Sub, a, b) => SumShape::Minus(a, b),
        Op::Binary(BinOp::Mul, a, b) => match (literal(a), literal(b)) {
            (Some(c), _) => rqc_cost::scaled(c, b),
            (_, Some(c)) => rqc_cost::scaled(c, a),
            _ => SumShape::Leaf,
        },
        _ => SumShape::Leaf,
    }
}

/// The `Int` `node` is when made of constants alone (`3`, `-3`, `2 * 3`,
/// `10 - 4`), as the checker's `literal`.
pub(super) fn literal(node: &Node) -> Option<i64> {
    match &node.op {
        Op::Const(Value::Int(c)) => Some(*c),
        Op::Unary(UnOp::Neg, inner) => literal(inner)?.checked_neg(),
        Op::Binary(op, a, b) => {
            let (a, b) = (literal(a)?, literal(b)?);
            match op {
                BinOp::Add => a.checked_add(b),
                BinOp::Sub => a.checked_sub(b),
                BinOp::Mul => a.checked_mul(b),
                _ => None,
            }
        }
        _ => None,
    }
}

impl<'p> Verifier<'p> {
    /// What `let` binds the plain `Int` `value` (of the node `operand`,
    /// evaluated in `scope`) to, when it is a sum of named values and
    /// literals: its terms (as the checker's `Checker::definition`).
    pub(super) fn definition(
        &self,
        operand: &'p Node,
        value: &Abs<'p>,
        scope: &Scope<'p>,
    ) -> Option<Arc<Side<'p>>> {
        let Some(range) = plain_int(value) else {
            // A value of another type (a list, an `Int?`, a string, a row)
            // that is a named value: that value ([`alias`]), itself, read
            // through where a fact is recorded, as the checker's.
            return Named::of(operand, scope).map(|named| Arc::new(alias(named)));
        };
        let mut sum = SideSum::default();
        add_leaves(operand, Some(&range), scope, &self.params, &mut sum);
        let side = sum.side(range);
        // A `let`-bound sum's name read through once, as the checker's
        // `Checker::definition`.
        let side = side
            .expanded(&|named| super::narrowing::definition_of(named, scope))
            .unwrap_or(side);
        (!side.terms.is_empty()).then(|| Arc::new(side))
    }

    /// `value`, the result of `a + b` or `a - b` (`op`) evaluated in
    /// `scope`, within what the enclosing `if`s' comparisons prove of the
    /// same sum of named values, as the checker's `Checker::narrowed_sum`
    /// ([`rqc_cost::sum_within`]).
    pub(super) fn narrowed_sum(
        &self,
        op: BinOp,
        (a, b): (&'p Node, &'p Node),
        scope: &Scope<'p>,
        value: Abs<'p>,
    ) -> Abs<'p> {
        if !matches!(op, BinOp::Add | BinOp::Sub) {
            return value;
        }
        let Some(interval) = plain_int(&value) else {
            return value;
        };
        let mut sum = rqc_cost::SumNames::default();
        let mut leaf = |leaf: SumLeaf<'p, Node>, negated: bool| {
            match leaf {
                SumLeaf::Literal(c) => sum.literal(c, negated),
                SumLeaf::Value(leaf) => match Named::of(leaf, scope) {
                    Some(named) => sum.named(named, negated),
                    None => sum.fail(),
                },
            }
            !sum.failed()
        };
        if sum_leaves(a, false, &sum_shape, &mut leaf) {
            sum_leaves(b, op == BinOp::Sub, &sum_shape, &mut leaf);
        }
        let definition = |named: &Named<'p>| super::narrowing::definition_of(named, scope);
        let range = |named: &Named<'p>| named.number_range(scope, &self.params);
        Abs::int(sum.within(&self.facts, interval, &definition, &range))
    }

    /// The value of `binding`, a name `let` bound to a sum of named values,
    /// read in `scope` inside a branch: within the sum as its names are
    /// now (a parameter or a binding still the one the sum read, not a
    /// field or a length, at their ranges where the `let` was) and within
    /// what the enclosing comparisons prove of the sum, as the checker's
    /// `Checker::defined_now`. Outside every branch, its value.
    pub(super) fn defined_now(&self, binding: &Binding<'p>, scope: &Scope<'p>) -> Abs<'p> {
        let (Some(definition), Some(known)) = (&binding.definition, plain_int(&binding.value))
        else {
            return binding.value.clone();
        };
        if self.facts.is_empty() {
            return binding.value.clone();
        }
        let current = |named: &Named<'p>| match named.path.is_empty() {
            true => named.range(scope, &self.params),
            false => None,
        };
        let now = rqc_cost::sum_now(
            definition,
            &self.facts,
            &current,
            rqc_cost::Reading::Verifier,
        );
        Abs::int(known.intersect(&now))
    }
}
