//! Reading a checked `Bool` expression as a condition: its comparisons' records found again by their spans, under `!`, `&&`, `||`, `==` of two `Bool`s, an `if` choosing between two, a block's `let`s, a name's flag and what its `let` said (spec/cost.md §3.1).

use super::expr::Checker;
use super::narrowing::{Comparison, Condition, ConditionMark};
use super::types::Ty;
use crate::cost::Hidden;
use crate::syntax::ast::{BinaryOp, Expr, ExprKind, Stmt, UnaryOp};
use std::sync::Arc;

impl Checker<'_> {
    /// `cond` (just checked, its comparisons recorded since `mark`) as a
    /// [`Condition`]; the records are dropped.
    pub(super) fn condition(&mut self, cond: &Expr, mark: ConditionMark) -> Condition {
        self.closed_condition(cond, mark, &Hidden::none())
    }

    /// [`Checker::condition`] of the body of a predicate given by name,
    /// applied since `mark` (its comparisons recorded by the application's
    /// check), its names its own scope's, not this one's, but for its
    /// parameter `param`, the element: a part of it (`x.f`) reads what
    /// the application's check recorded of it, every other name nothing
    /// (as the verifier's `condition_of_predicate` reads the plan).
    pub(super) fn condition_of_predicate(
        &mut self,
        body: &Expr,
        mark: ConditionMark,
        param: &str,
    ) -> Condition {
        self.closed_condition(body, mark, &Hidden::EveryBut(vec![param]))
    }

    /// Closes the condition opened at `mark` and reads `cond` over its
    /// records, the names `hidden` proving nothing; the records are dropped.
    fn closed_condition(&mut self, cond: &Expr, mark: ConditionMark, hidden: &Hidden) -> Condition {
        self.conditions_open = self.conditions_open.saturating_sub(1);
        self.leaves.truncate(mark.leaves);
        let recorded = self
            .comparisons
            .split_off(mark.comparisons.min(self.comparisons.len()));
        self.read_condition_within(cond, &recorded, hidden)
    }

    /// [`Checker::condition`] of a part of a condition (an `if`'s own),
    /// whose records stay for a condition it is part of, if one is open.
    pub(super) fn condition_kept(&mut self, cond: &Expr, mark: ConditionMark) -> Condition {
        let from = mark.comparisons.min(self.comparisons.len());
        let says = self.read_condition(cond, &self.comparisons[from..]);
        self.close_kept(mark);
        says
    }

    /// Closes the condition opened at `mark`, its records kept for one
    /// still open, and dropped if none is.
    pub(super) fn close_kept(&mut self, mark: ConditionMark) {
        self.conditions_open = self.conditions_open.saturating_sub(1);
        self.leaves.truncate(mark.leaves);
        if self.conditions_open == 0 {
            self.comparisons.truncate(mark.comparisons);
        }
    }

    pub(super) fn read_condition(&self, cond: &Expr, recorded: &[Comparison]) -> Condition {
        self.read_condition_within(cond, recorded, &Hidden::none())
    }

    /// [`Checker::read_condition`] inside blocks whose `let`s bind
    /// `hidden`: a `Bool` name they bind is not the one in scope (their
    /// bindings are gone), and proves nothing here; [`Hidden::Every`]
    /// hides them all (a lambda's body, whose names are not the scope's
    /// here).
    pub(super) fn read_condition_within(
        &self,
        cond: &Expr,
        recorded: &[Comparison],
        hidden: &Hidden,
    ) -> Condition {
        let read = |e: &Expr| Box::new(self.read_condition_within(e, recorded, hidden));
        // `c == true` is `c`, `c == false` is `!c` (`!=` the other way).
        if let Some((tested, itself)) = bool_literal_test(cond) {
            return match itself {
                true => *read(tested),
                false => Condition::Not(read(tested)),
            };
        }
        match &cond.kind {
            ExprKind::Unary(UnaryOp::Not, inner) => Condition::Not(read(inner)),
            ExprKind::Binary(BinaryOp::And, a, b) => Condition::And(read(a), read(b)),
            ExprKind::Binary(BinaryOp::Or, a, b) => Condition::Or(read(a), read(b)),
            ExprKind::Bool(value) => Condition::Constant(*value),
            ExprKind::Binary(op, a, b) => {
                let found = recorded
                    .iter()
                    .rev()
                    .find(|c| c.operands == (a.span, b.span));
                match (found, op) {
                    (Some(compared), _) => compared.says.clone(),
                    // Of two `Bool`s (no comparison of integers was
                    // recorded): the outcomes each side says.
                    (None, BinaryOp::Eq | BinaryOp::NotEq) => {
                        Condition::equal_outcomes(*read(a), *read(b), *op == BinaryOp::Eq)
                    }
                    (None, _) => Condition::Opaque,
                }
            }
            // A call of a `Bool` function whose signature says what it
            // proves of its parameters (`guards.rs`), by the span the call
            // is checked at (a pipe's stage).
            ExprKind::Call(..) | ExprKind::Pipe(..) => {
                let at = match &cond.kind {
                    ExprKind::Pipe(_, stage) => stage.span,
                    _ => cond.span,
                };
                recorded
                    .iter()
                    .rev()
                    .find(|c| c.operands == (at, at))
                    .map_or(Condition::Opaque, |c| c.says.clone())
            }
            // A lambda's body's names (`Hidden::Every`) prove nothing
            // here, as the plan verifier reads them (`applied_as_condition`).
            ExprKind::Name(_) if hidden.hides_unlisted() => Condition::Opaque,
            // Bound by a block's `let` (out of scope now): what it said
            // where it was checked, if it was bound to a condition.
            ExprKind::Name(ident) if hidden.hides(&ident.name) => recorded
                .iter()
                .rev()
                .find(|c| c.operands == (cond.span, cond.span))
                .map_or(Condition::Opaque, |c| c.says.clone()),
            // A `Bool` name: true where it held (`Condition::flag`), and,
            // bound by `let` to a condition, what that says too.
            ExprKind::Name(ident) => {
                let Some(local) = self.local(&ident.name).filter(|l| matches!(l.ty, Ty::Bool))
                else {
                    return Condition::Opaque;
                };
                if local.in_condition {
                    return local
                        .condition
                        .as_ref()
                        .map_or(Condition::Opaque, |c| Condition::Named(Arc::clone(c)));
                }
                let flag =
                    self.through_aliases(&Condition::flag((ident.name.clone(), local.binding)));
                Condition::of_bool_name(flag, local.condition.as_ref())
            }
            // A `Bool` field of a name (`p.active`), recorded where it was
            // checked (`check_field`): true where it held.
            ExprKind::Field(..) => {
                let mut root = cond;
                while let ExprKind::Field(base, _) = &root.kind {
                    root = base;
                }
                match &root.kind {
                    ExprKind::Name(ident) if !hidden.hides(&ident.name) => recorded
                        .iter()
                        .rev()
                        .find(|c| c.operands == (cond.span, cond.span))
                        .map_or(Condition::Opaque, |c| c.says.clone()),
                    _ => Condition::Opaque,
                }
            }
            // A `Bool` chosen by an `if`: `(c && a) || (!c && b)`, each
            // read as a condition over the records its check kept
            // (`condition_kept`), as the verifier reads the plan's `If`.
            ExprKind::If(c, a, b) => {
                Condition::chosen(*read(c), *read(a), *read(b), crate::cost::Reading::Checker)
            }
            // A block of `let`s is its last expression, whose comparisons
            // were recorded as it was checked (`{ let q = z; n <= 5 }`).
            ExprKind::Block(stmts, last) => {
                let mut names = hidden.clone();
                for stmt in stmts {
                    match stmt {
                        Stmt::Let { name, .. } => names = names.and(&name.name),
                        _ => return Condition::Opaque,
                    }
                }
                self.read_condition_within(last, recorded, &names)
            }
            _ => Condition::Opaque,
        }
    }
}

/// `c == b` or `c != b` (either way round) with `b` a `Bool` literal: `c`
/// and whether the test is `c` itself (`c == true`, `c != false`) or its
/// negation (the verifier's `bool_literal_test` reads a plan alike).
fn bool_literal_test(cond: &Expr) -> Option<(&Expr, bool)> {
    let ExprKind::Binary(op @ (BinaryOp::Eq | BinaryOp::NotEq), a, b) = &cond.kind else {
        return None;
    };
    let (tested, literal) = match (&a.kind, &b.kind) {
        (_, ExprKind::Bool(literal)) => (&**a, *literal),
        (ExprKind::Bool(literal), _) => (&**b, *literal),
        _ => return None,
    };
    Some((tested, (*op == BinaryOp::Eq) == literal))
}
