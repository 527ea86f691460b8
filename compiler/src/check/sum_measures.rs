//! A count that is a sum of a function's parameters (`take(n - m)`): measured by one variable of its own, bound at each call to what the call's facts prove of the sum its arguments are, so `if n - m <= 5 { page(u, n, m) }` reads at most 5 (spec/cost.md §3.1).
//!
//! A function is costed by its parameters' measures, each apart: the upper
//! end of `n - m` is `n + lo(m)`, and a call where `n` and `m` are
//! unbounded but `n - m ≤ 5` is known would be refused (E0302). So where a
//! `take` or `skip` count in a function's body is a sum of two or more of
//! its plain `Int` parameters and literals whose upper end is no number,
//! the count's upper end is a variable of its own (`VarKind::Generic`,
//! named by the sum), and the signature keeps, for it, the sum as a
//! template over the parameters' positions and the upper end it stood for
//! (`FnSig::sum_measures`). A call binds the variable to the lesser of
//! that upper end with the call's measures and what the facts around the
//! call prove of the sum the arguments are (`rqc_cost::sum_now`), where
//! each argument is a sum of named values or a number. Sound as a
//! parameter's measure is: the variable stands for an upper end of the
//! count's value, and each binding is one: the parameters are the
//! arguments' values, computed once before the body runs.

use super::expr::Checker;
use super::guards::{filled_side, template_side};
use super::narrowing::Side;
use super::types::Ty;
use crate::cost::{Interval, Poly, SumLeaf, Var, VarKind};
use crate::syntax::ast::Expr;
use std::sync::Arc;

/// A count's upper end kept as a variable of its own: the sum it is, over
/// the parameters' positions, and the upper end it stood for.
#[derive(Clone, Debug, PartialEq)]
pub struct SumMeasure {
    pub var: Var,
    pub sum: Side,
    pub fallback: Poly,
}

impl Checker<'_> {
    /// The count `count`, just checked as `checked`, with its upper end a
    /// variable of its own where it is a sum of two or more of this
    /// function's parameters whose upper end is no number, plus values of
    /// known upper end (a lambda's parameter over a list of numbers, a
    /// parameter narrowed here: `if i <= 2 { take(n - m + i) }`), which add
    /// that end.
    pub(super) fn count_over_params(&mut self, count: &Expr, checked: Ty) -> Ty {
        let Ty::Int(interval) = &checked else {
            return checked;
        };
        if self.fn_params.is_empty() || interval.hi.max_value().is_some() {
            return checked;
        }
        let Some(split) = self.params_sum(count) else {
            return checked;
        };
        let hi = self.measure_split(split, interval.hi.clone());
        Ty::Int(Interval::new(
            hi,
            interval.lo.clone(),
            interval.least,
            interval.most,
        ))
    }

    /// `e` as a template over this function's parameters' positions (a
    /// sum of two or more of them, unbounded above, and literals), the
    /// upper end that part has here, and the range of the rest (values
    /// whose upper end is a number); `None` where any value is neither.
    fn params_sum(&self, e: &Expr) -> Option<(Side, Poly, Interval)> {
        let mut sum = crate::cost::SideSum::default();
        let walked =
            crate::cost::sum_leaves(e, false, &super::sums::sum_shape, &mut |leaf, negated| {
                match leaf {
                    SumLeaf::Literal(c) => sum.literal(c, negated),
                    SumLeaf::Value(value) => match self.named(value) {
                        // A name of one value (`let extra = 2`) is that
                        // number.
                        Some((name, _)) if self.one_number(&name).is_some() => {
                            sum.literal(self.one_number(&name).unwrap_or(0), negated)
                        }
                        Some(named) if !named.0.contains('.') => {
                            sum.named(named, negated, Interval::exact(0))
                        }
                        _ => sum.fail(),
                    },
                }
                !sum.failed()
            });
        if !walked || sum.failed() {
            return None;
        }
        // A `let`-bound sum read as the sum it was bound to (`let d = n -
        // m; take(d)`).
        let side = sum.side(Interval::exact(0));
        let side = side
            .expanded(&|named| self.definition_of(named))
            .unwrap_or(side);
        let (template, part, rest) = self.split_sum(&side)?;
        (template.terms.len() >= 2).then_some((template, part, rest))
    }

    /// The one number a plain `Int` name in scope holds, if it holds one.
    fn one_number(&self, name: &str) -> Option<i64> {
        let Ty::Int(range) = &self.local(name)?.ty else {
            return None;
        };
        range.constant()
    }

    /// What a call binds `measure` to: the lesser of its upper end with the
    /// call's measures (`fallback`, instantiated) and what the facts here
    /// prove of the sum the arguments `sums` are.
    pub(super) fn bound_sum_measure(
        &mut self,
        measure: &SumMeasure,
        sums: &[Option<Arc<Side>>],
        fallback: Poly,
    ) -> Poly {
        let Some(filled) = filled_side(&measure.sum, sums, &|_| false) else {
            return fallback;
        };
        let bound = self.known_sum_bound(&filled, fallback);
        if bound.max_value().is_some() {
            return bound;
        }
        // A sum of this function's own parameters (a function that passes
        // its parameters on): a count of its own, bound at its calls, plus
        // the upper end of values whose end is a number here (`if c <= 2
        // { page(u, a + c, b) }`).
        match self.split_sum(&filled) {
            Some(split) if split.0.terms.len() >= 2 => self.measure_split(split, bound),
            _ => bound,
        }
    }

    /// The upper end of a sum split by [`Checker::split_sum`]: its
    /// parameters' part measured by a variable of this function's own, plus
    /// the rest's upper end. With no rest, `whole` (the sum's upper end as
    /// known here, narrowed by this function's facts) stands for the
    /// part's; else the part's own.
    fn measure_split(&mut self, (sum, part, rest): (Side, Poly, Interval), whole: Poly) -> Poly {
        let fallback = match rest == Interval::exact(0) {
            true => whole,
            false => part,
        };
        self.own_sum_measure(sum, fallback).plus(&rest.hi)
    }

    /// `side` (of named values here) as a template over this function's
    /// parameters' positions (those unbounded above, and its literals),
    /// the upper end that part has here, and the range of the rest (values
    /// whose upper end is a number here); `None` where a value is neither.
    fn split_sum(&self, side: &Side) -> Option<(Side, Poly, Interval)> {
        let mut params = crate::cost::SideSum::default();
        params.literal(side.offset, false);
        let mut part = Interval::exact(side.offset);
        let mut rest = Interval::exact(0);
        for term in &side.terms {
            let range = self.range_now(&term.name)?;
            let signed = match term.negated {
                true => range.negate(),
                false => range,
            };
            match signed.hi.max_value() {
                Some(_) => rest = rest.plus(&signed),
                None if self.fn_params.contains(&term.name) => {
                    params.named(term.name.clone(), term.negated, Interval::exact(0));
                    part = part.plus(&signed);
                }
                None => return None,
            }
        }
        let template = template_side(&params.side(Interval::exact(0)), &self.fn_params)?;
        Some((template, part.hi, rest))
    }

    /// The variable this function measures the sum `sum` of its
    /// parameters by, made on first use with the upper end `fallback`.
    fn own_sum_measure(&mut self, sum: Side, fallback: Poly) -> Poly {
        let label = sum_label(&sum);
        let var = Var::new(VarKind::Generic(label));
        match self.sum_measures.iter().find(|m| m.var == var) {
            // Two counts of one sum: the larger upper end stands for both.
            Some(_) => {
                if let Some(m) = self.sum_measures.iter_mut().find(|m| m.var == var) {
                    m.fallback = m.fallback.max(&fallback);
                }
            }
            None => {
                // One of this definition's own measures: kept where a
                // call's result holds it, and a callee's named apart.
                self.def_measures.insert(var);
                self.sum_measures.push(SumMeasure { var, sum, fallback })
            }
        }
        Poly::var(var)
    }

    /// The lesser of `fallback` and what the facts here prove of the sum
    /// `filled` (of named values here) as its names are now.
    fn known_sum_bound(&self, filled: &Side, fallback: Poly) -> Poly {
        let now = crate::cost::sum_now(
            filled,
            &self.branch_facts,
            &|n| self.range_now(n),
            crate::cost::Reading::Checker,
        )
        .hi;
        match (now.max_value(), fallback.max_value()) {
            (Some(now_most), Some(most)) if now_most < most => now,
            (Some(_), None) => now,
            _ => fallback,
        }
    }
}

/// A sum over parameters' positions as it reads (`n - m + 1`), naming its
/// variable: the same sum, the same name.
fn sum_label(sum: &Side) -> String {
    let mut label = String::new();
    for (i, term) in sum.terms.iter().enumerate() {
        match (i, term.negated) {
            (0, false) => {}
            (0, true) => label.push('-'),
            (_, false) => label.push_str(" + "),
            (_, true) => label.push_str(" - "),
        }
        label.push_str(&term.name.0);
    }
    match sum.offset {
        0 => {}
        c if c > 0 => label.push_str(&format!(" + {c}")),
        c => label.push_str(&format!(" - {}", c.unsigned_abs())),
    }
    label
}
