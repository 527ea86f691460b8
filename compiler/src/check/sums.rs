//! Sums of named values and literals: what a compared side, a `let`'s value and a call's argument are (`rqc_cost::SideSum`), and a sum computed again narrowed by the facts around it (spec/cost.md §3.1).
//!
//! A sum is walked over `+`, `-` and negation (`rqc_cost::sum_leaves`); its leaves
//! are integer literals and named values (a name, a field of one, the
//! length of either: [`Checker::named_value`]). The ranges of the leaves
//! of a compared side are those they had where the condition was checked
//! ([`Checker::record_leaf`]).

use super::expr::{Checker, Local};
use super::narrowing::{Named, Side, LENGTH};
use super::types::Ty;
use crate::cost::{sum_leaves, Interval, SideSum, SumLeaf, SumShape};
use crate::span::Span;
use crate::syntax::ast::{BinaryOp, Expr, ExprKind, UnaryOp};
use std::sync::Arc;

impl Checker<'_> {
    /// Adds the leaves of the side `e` to `sum`: a side is a sum (`+`,
    /// `-`, negation, `rqc_cost::sum_leaves`) of integer literals and named values
    /// ([`Checker::named_value`]), each with its range where the condition
    /// was checked (`whole`, the side's, for a side that is one leaf; else
    /// [`Checker::leaf_range`]); any other leaf (a product, a call) makes
    /// the side narrow nothing. The side is a plain `Int` (else nothing is
    /// recorded), so each operand of its sums is one too.
    pub(super) fn add_leaves(&self, e: &Expr, whole: Option<&Interval>, sum: &mut SideSum<Named>) {
        let alone = matches!(sum_shape(e), SumShape::Leaf);
        sum_leaves(e, false, &sum_shape, &mut |leaf, negated| {
            match leaf {
                SumLeaf::Literal(c) => sum.literal(c, negated),
                SumLeaf::Value(value) => {
                    let range = match alone {
                        true => whole.cloned(),
                        false => self.leaf_range(value.span),
                    };
                    // A list's greatest or least narrows the list only as
                    // a side of its own (as the verifier reads it).
                    let extreme = !alone && self.extreme_argument(value).is_some();
                    match (self.named_value(value), range) {
                        (Some(name), Some(range)) if !extreme => sum.named(name, negated, range),
                        _ => sum.fail(),
                    }
                }
            }
            !sum.failed()
        });
    }

    /// `a + b` or `a - b` (`op`), a plain `Int` in `interval` by interval
    /// arithmetic, within what the enclosing `if`s' comparisons prove of
    /// the same sum of named values ([`crate::cost::sum_within`]): `if n -
    /// m <= 5 { take(n - m) }` reads at most 5.
    pub(super) fn narrowed_sum(
        &self,
        op: BinaryOp,
        (a, b): (&Expr, &Expr),
        interval: Interval,
    ) -> Interval {
        let mut sum = crate::cost::SumNames::default();
        let mut leaf = |leaf: SumLeaf<'_, Expr>, negated: bool| {
            match leaf {
                SumLeaf::Literal(c) => sum.literal(c, negated),
                SumLeaf::Value(value) => match self.named_value(value) {
                    Some(name) => sum.named(name, negated),
                    None => sum.fail(),
                },
            }
            !sum.failed()
        };
        if sum_leaves(a, false, &sum_shape, &mut leaf) {
            sum_leaves(b, op == BinaryOp::Sub, &sum_shape, &mut leaf);
        }
        sum.within(
            &self.branch_facts,
            interval,
            &|named| self.definition_of(named),
            &|named| self.range_now(named),
        )
    }

    /// The sum the name `named` (still that binding) was bound to by
    /// `let` (`let d = n - 5`) or as a parameter, if it was; for a field, a
    /// length or a greatest of a binding that is an alias of another named
    /// value ([`alias`]), the same of that value (a greatest only of a
    /// name's own list, as [`Checker::named_value`] reads one).
    pub(super) fn definition_of(&self, (path, binding): &Named) -> Option<Arc<Side>> {
        let (root, below) = match path.split_once('.') {
            Some((root, below)) => (root, Some(below)),
            None => (path.as_str(), None),
        };
        let local = self.local(root).filter(|l| l.binding == *binding)?;
        let definition = local.definition.clone()?;
        let Some(below) = below else {
            return Some(definition);
        };
        Some(Arc::new(alias(below_alias(&definition, below)?)))
    }

    /// The range a plain name (still the binding `named` read) has here.
    pub(super) fn range_now(&self, (name, binding): &Named) -> Option<Interval> {
        self.local(name)
            .filter(|l| l.binding == *binding && !name.contains('.'))
            .and_then(|l| l.ty.interval().cloned())
    }

    /// The type of `local`, a name `let` bound to a sum of named values
    /// (`let d = n - m`), read inside a branch: within the sum as its
    /// names are now (each plain name narrowed since, where it is still
    /// the binding the sum read; a field or a length at its range where
    /// the `let` was) and within what the enclosing comparisons prove of
    /// the sum ([`crate::cost::sum_within`]): `let d = n - m; if n - m <=
    /// 5 { take(d) }` reads at most 5. Outside every branch, its type.
    pub(super) fn defined_now(&self, local: &Local) -> Ty {
        let (Some(definition), Ty::Int(known)) = (&local.definition, &local.ty) else {
            return local.ty.clone();
        };
        if self.branch_facts.is_empty() {
            return local.ty.clone();
        }
        let now = crate::cost::sum_now(
            definition,
            &self.branch_facts,
            &|n| self.range_now(n),
            crate::cost::Reading::Checker,
        );
        Ty::Int(known.intersect(&now))
    }

    /// What `let` binds an `Int` to, when it is a sum of named values and
    /// literals (checked just now, inside the condition `let` opens for
    /// its value): its terms (a comparison reads on through those that are
    /// `let`-bound sums themselves, `rqc_cost::compared`).
    pub(super) fn definition(&self, value: &Expr, ty: &Ty) -> Option<Arc<Side>> {
        let Ty::Int(range) = ty else {
            // A value of another type that is a named value: that value
            // ([`alias`]), itself, so that a fact proved through the alias
            // narrows each binding on the way (`let zs = ys` with `ys`
            // given `xs`: `zs`, `ys` and `xs`), read through where the
            // fact is recorded (`Condition::through_aliases`).
            let holds_facts = matches!(
                ty,
                Ty::List(..) | Ty::Option(_) | Ty::Str(_) | Ty::Row(..) | Ty::Record(_) | Ty::Bool
            );
            return Some(Arc::new(alias(self.named(value).filter(|_| holds_facts)?)));
        };
        let mut sum = SideSum::default();
        self.add_leaves(value, Some(range), &mut sum);
        let side = sum.side(range.clone());
        // A name that is a `let`-bound sum itself stands for its sum, read
        // through once here (its own was read through when it was bound):
        // `let a = n; let b = a` binds `b` to `n`, so a fact about `n`
        // bounds `b` where `a` was never narrowed.
        let side = side
            .expanded(&|named| self.definition_of(named))
            .unwrap_or(side);
        (!side.terms.is_empty()).then(|| Arc::new(side))
    }

    /// What a leaf of a side names: a name in scope, a field of one, or
    /// the length of either ([`LENGTH`]).
    pub(super) fn named_value(&self, e: &Expr) -> Option<Named> {
        if let Some((list, extreme)) = self.extreme_argument(e) {
            // A list bound to a name, not a field of one (`elements.rs`).
            let (path, binding) = self.named(list).filter(|(path, _)| !path.contains('.'))?;
            return Some((format!("{path}.{extreme}"), binding));
        }
        match self.length_argument(e) {
            Some(string) => {
                let (path, binding) = self.named(string)?;
                Some((format!("{path}.{LENGTH}"), binding))
            }
            None => self.named(e),
        }
    }

    /// The range an `Int` leaf of an open condition had where it was
    /// checked ([`Checker::record_leaf`]).
    pub(super) fn leaf_range(&self, span: Span) -> Option<Interval> {
        self.leaves
            .iter()
            .rev()
            .find(|(at, _)| *at == span)
            .map(|(_, range)| range.clone())
    }

    /// Keeps the range of `expr`, just checked inside an open condition,
    /// when it is an `Int` that may be a leaf of a compared side (a name, a
    /// field, a call): at most [`MAX_LEAVES`] of them, past which a side
    /// reading one more narrows nothing.
    pub(super) fn record_leaf(&mut self, expr: &Expr, ty: &Ty) {
        if self.conditions_open == 0 || self.leaves.len() >= MAX_LEAVES {
            return;
        }
        let leaf = matches!(
            expr.kind,
            ExprKind::Name(_) | ExprKind::Field(..) | ExprKind::Call(..) | ExprKind::Pipe(..)
        );
        if let (true, Ty::Int(range)) = (leaf, ty) {
            self.leaves.push((expr.span, range.clone()));
        }
    }
}

/// How `e` is made, as far as a sum is concerned (`rqc_cost::sum_leaves`).
pub(super) fn sum_shape(e: &Expr) -> SumShape<'_, Expr> {
    match &e.kind {
        ExprKind::Int(c) => SumShape::Literal(*c),
        ExprKind::Unary(UnaryOp::Neg, inner) => SumShape::Negated(inner),
        ExprKind::Binary(BinaryOp::Add, a, b) => SumShape::Plus(a, b),
        ExprKind::Binary(BinaryOp::Sub, a, b) => SumShape::Minus(a, b),
        ExprKind::Binary(BinaryOp::Mul, a, b) => match (literal(a), literal(b)) {
            (Some(c), _) => crate::cost::scaled(c, b),
            (_, Some(c)) => crate::cost::scaled(c, a),
            _ => SumShape::Leaf,
        },
        _ => SumShape::Leaf,
    }
}

/// The sum of `named` alone: what a parameter or a `let` bound to a named
/// value of another type than an `Int` keeps (`ys` given `xs`, `s` given
/// `p.title`), an alias. It is the same value, so a fact proved of a field,
/// a length, a greatest or the elements of the alias is proved of those of
/// what it names too ([`Checker::definition_of`]; spec/cost.md §3.1). Its
/// range is unknown: it is read only for its name.
pub(super) fn alias(named: Named) -> Side {
    let any = Interval::unbounded("a named value");
    let mut sum = SideSum::default();
    sum.named(named, false, any.clone());
    sum.side(any)
}

/// The field, length or greatest `below` (`at`, `length()`, `max(0)`) of
/// the named value `side` is when it is an alias (a sum of that value
/// alone, [`alias`]); a greatest only of a name's own list, as
/// [`Checker::named_value`] reads one. `None` for any other side.
pub(super) fn below_alias(side: &Side, below: &str) -> Option<Named> {
    let (path, binding) = side.alias_of()?;
    let extreme = super::narrowing::extreme_field(below).is_some();
    if extreme && path.contains('.') {
        return None;
    }
    Some((format!("{path}.{below}"), *binding))
}

/// The integer `e` is when made of literals alone (`3`, `-3`, `2 * 3`,
/// `10 - 4`); none past `Int`'s range, as evaluating it would fail.
pub(super) fn literal(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Int(c) => Some(*c),
        ExprKind::Unary(UnaryOp::Neg, inner) => literal(inner)?.checked_neg(),
        ExprKind::Binary(op, a, b) => {
            let (a, b) = (literal(a)?, literal(b)?);
            match op {
                BinaryOp::Add => a.checked_add(b),
                BinaryOp::Sub => a.checked_sub(b),
                BinaryOp::Mul => a.checked_mul(b),
                _ => None,
            }
        }
        _ => None,
    }
}

/// At most this many leaf ranges are kept for the conditions open at once
/// (a lambda applied inside a condition is checked again at each
/// application).
const MAX_LEAVES: usize = 4096;
