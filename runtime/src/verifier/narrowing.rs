//! What an `if`'s condition says in each branch of the bound pass: a parameter or a name compared (`<`, `<=`, `>`, `>=`, `==`) with a value whose interval is known has its interval narrowed there, through `!`, `&&` in the then branch and `||` in the else branch, as the checker narrows it (spec/decisions: "if narrows a name in its branches").
//!
//! Sound because the run evaluates a branch only when its condition held
//! (or failed), and a parameter or a `let`-bound name keeps one value for
//! the whole run: every read in the branch sees a value within the
//! narrowed interval.

use super::abstract_value::{Abs, Kind};
use super::bounds::{Binding, Scope, Verifier};
use rqc_cost::{Interval, Poly};
use rqc_plan::{BinOp, Node, Op, UnOp};
use std::rc::Rc;

/// What a branch narrows: the scope with its names narrowed, and the
/// parameters narrowed (by position).
pub(super) struct Narrowed<'p> {
    pub scope: Scope<'p>,
    pub params: Vec<(usize, Interval)>,
}

/// `a op b` holds, with `op` one of `<`, `<=`, `>`, `>=`, `==`.
#[derive(Clone, Copy, PartialEq)]
enum Relation {
    Lt,
    LtEq,
    Gt,
    GtEq,
    Eq,
}

impl Relation {
    fn of(op: BinOp) -> Option<Relation> {
        Some(match op {
            BinOp::Lt => Relation::Lt,
            BinOp::LtEq => Relation::LtEq,
            BinOp::Gt => Relation::Gt,
            BinOp::GtEq => Relation::GtEq,
            BinOp::Eq => Relation::Eq,
            _ => return None,
        })
    }

    /// The relation when the comparison failed (`==` failing says nothing).
    fn negated(self) -> Option<Relation> {
        Some(match self {
            Relation::Lt => Relation::GtEq,
            Relation::LtEq => Relation::Gt,
            Relation::Gt => Relation::LtEq,
            Relation::GtEq => Relation::Lt,
            Relation::Eq => return None,
        })
    }

    /// `b op' a` for `a op b`.
    fn flipped(self) -> Relation {
        match self {
            Relation::Lt => Relation::Gt,
            Relation::LtEq => Relation::GtEq,
            Relation::Gt => Relation::Lt,
            Relation::GtEq => Relation::LtEq,
            Relation::Eq => Relation::Eq,
        }
    }
}

/// The smaller of two ends, where both are numbers (else the known one).
fn smaller(a: &Poly, b: Option<u64>) -> Poly {
    match (a.max_value(), b) {
        (Some(x), Some(y)) => Poly::constant(x.min(y)),
        (None, Some(y)) => Poly::constant(y),
        _ => a.clone(),
    }
}

impl<'p> Verifier<'p> {
    /// What `condition` holding (`holds`) or failing narrows in a branch.
    pub(super) fn narrowed(
        &mut self,
        condition: &'p Node,
        holds: bool,
        scope: &Scope<'p>,
    ) -> Narrowed<'p> {
        let mut narrowed = Narrowed {
            scope: scope.clone(),
            params: Vec::new(),
        };
        self.facts(condition, holds, &mut narrowed);
        narrowed
    }

    fn facts(&mut self, condition: &'p Node, holds: bool, into: &mut Narrowed<'p>) {
        match &condition.op {
            Op::Unary(UnOp::Not, inner) => self.facts(inner, !holds, into),
            Op::Binary(BinOp::And, a, b) if holds => {
                self.facts(a, true, into);
                self.facts(b, true, into);
            }
            Op::Binary(BinOp::Or, a, b) if !holds => {
                self.facts(a, false, into);
                self.facts(b, false, into);
            }
            Op::Binary(op, a, b) => {
                let Some(relation) = Relation::of(*op) else {
                    return;
                };
                let Some(relation) = (if holds {
                    Some(relation)
                } else {
                    relation.negated()
                }) else {
                    return;
                };
                self.fact(a, relation, b, into);
                self.fact(b, relation.flipped(), a, into);
            }
            _ => {}
        }
    }

    /// `target relation other` holds: narrows `target` when it is a
    /// parameter or a name holding an `Int`, and `other` reads nothing.
    fn fact(
        &mut self,
        target: &'p Node,
        relation: Relation,
        other: &'p Node,
        into: &mut Narrowed<'p>,
    ) {
        if !reads_nothing(other) {
            return;
        }
        let Some(current) = self.int_of(target, &into.scope, &into.params) else {
            return;
        };
        let Ok(bound) = self.eval(other, &into.scope) else {
            return;
        };
        let Some(by) = bound.value.interval() else {
            return;
        };
        let (hi, lo) = (by.hi.max_value(), by.lo.max_value());
        let narrowed = match relation {
            Relation::LtEq => Interval {
                hi: smaller(&current.hi, hi),
                lo: current.lo,
            },
            Relation::Lt => Interval {
                hi: smaller(&current.hi, hi.map(|h| h.saturating_sub(1))),
                lo: current.lo,
            },
            Relation::GtEq => Interval {
                hi: current.hi,
                lo: smaller(&current.lo, lo),
            },
            Relation::Gt => Interval {
                hi: current.hi,
                lo: smaller(&current.lo, lo.map(|l| l.saturating_sub(1))),
            },
            Relation::Eq => Interval {
                hi: smaller(&current.hi, hi),
                lo: smaller(&current.lo, lo),
            },
        };
        match &target.op {
            Op::Param(i) => into.params.push((*i, narrowed)),
            Op::Var(name) => {
                into.scope = Some(Rc::new(Binding {
                    name,
                    value: Abs::int(narrowed),
                    outer: into.scope.clone(),
                }))
            }
            _ => {}
        }
    }

    /// The interval of a parameter or a name that holds a plain `Int`.
    fn int_of(
        &self,
        target: &Node,
        scope: &Scope<'p>,
        params: &[(usize, Interval)],
    ) -> Option<Interval> {
        let value = match &target.op {
            Op::Param(i) => {
                if let Some((_, int)) = params.iter().rev().find(|(p, _)| p == i) {
                    return Some(int.clone());
                }
                self.param_value(*i)?
            }
            Op::Var(name) => super::bounds::lookup(scope, name)?,
            _ => return None,
        };
        match value {
            Abs::Scalar(s) if s.kind == Kind::Int => Some(s.int.clone()),
            _ => None,
        }
    }
}

/// Whether evaluating `node` reads nothing and applies nothing: constants,
/// parameters, names and operators over them.
fn reads_nothing(node: &Node) -> bool {
    match &node.op {
        Op::Const(_) | Op::Param(_) | Op::Var(_) => true,
        Op::Unary(_, a) => reads_nothing(a),
        Op::Binary(_, a, b) => reads_nothing(a) && reads_nothing(b),
        _ => false,
    }
}
