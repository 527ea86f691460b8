//! Checking blocks and `let`s: scopes, each statement evaluated once, in order.

use super::expr::{Checked, Checker, Local};
use super::narrowing::Condition;
use super::tir::TExpr;
use super::types::Ty;
use crate::cost::Cost;
use crate::syntax::ast::{Expr, Stmt};

impl Checker<'_> {
    pub(super) fn check_block(
        &mut self,
        stmts: &[Stmt],
        result: &Expr,
        expected: Option<&Ty>,
    ) -> Checked {
        let depth = self.scope.len();
        let mut cost = Cost::zero();
        let mut tirs = Vec::new();
        let mut names = Vec::new();
        for stmt in stmts {
            match stmt {
                Stmt::Let { name, ty, value } => {
                    let declared = ty.as_ref().map(|t| self.resolve_type(t, None));
                    let mark = self.begin_condition();
                    self.island_stream = None;
                    let mut checked = self.check_expected(value, declared.as_ref());
                    // A list or an island declared a stream is read as one
                    // where nothing may write, as when given to a stream
                    // parameter (`calls.rs`).
                    if let (Some(Ty::Stream(_)), Ty::List(..), false) =
                        (&declared, &checked.ty, self.may_write)
                    {
                        checked = self.read_as_stream_at(checked, value.span);
                    }
                    // An `Int` keeps the sum it is, a `Bool` what it says of
                    // the integers it compared, for an `if` that tests the
                    // name.
                    let definition = self.definition(value, &checked.ty);
                    let condition = self.condition(value, mark);
                    // One past `MAX_KEPT_CONDITION` parts says nothing.
                    let condition = (matches!(checked.ty, Ty::Bool)
                        && condition != Condition::Opaque
                        && condition.fits_within(crate::cost::MAX_KEPT_CONDITION))
                    .then(|| std::sync::Arc::new(condition));
                    if let Some(declared) = &declared {
                        if self.expect_type(
                            declared,
                            &checked.ty,
                            value.span,
                            "declared with this type",
                        ) {
                            let subject = format!("`{}`", name.name);
                            let found = (&checked.ty, "its value");
                            self.within_declared_lengths((declared, &subject), found, value.span);
                            let lambda = (declared, subject.as_str());
                            self.declared_function_held(lambda, &checked.ty, value.span);
                            checked.ty = checked.ty.with_declared_options(declared);
                        }
                    }
                    // Evaluated once, here. A stream is not read here: each
                    // use that consumes it pays for reading it.
                    cost = cost.plus(&checked.cost);
                    names.push((name.name.clone(), checked.tir.clone()));
                    let mut local = Local::new(
                        name.name.clone(),
                        name.span,
                        checked.ty,
                        TExpr::Local(name.name.clone()),
                    );
                    local.condition = condition;
                    local.definition = definition;
                    local.in_condition = self.conditions_open > 0;
                    self.bind_local(local);
                }
                Stmt::Expr(expr) => {
                    let checked = self.check(expr);
                    if checked.ty.holds_stream() {
                        self.discarded_stream(expr.span);
                    }
                    cost = cost.plus(&checked.cost);
                    tirs.push((None, checked.tir));
                }
            }
            if let Some((name, tir)) = names.pop() {
                tirs.push((Some(name), tir));
            }
        }
        let last = self.check_expected(result, expected);
        self.scope.truncate(depth);
        cost = cost.plus(&last.cost);
        // Nest lets around the rest, in order.
        let mut body = last.tir;
        let mut pending: Vec<TExpr> = Vec::new();
        for (name, tir) in tirs.into_iter().rev() {
            match name {
                Some(name) => {
                    let rest = if pending.is_empty() {
                        body
                    } else {
                        let mut seq: Vec<TExpr> = pending.drain(..).rev().collect();
                        seq.push(body);
                        TExpr::Seq(seq)
                    };
                    body = TExpr::Let(name, Box::new(tir), Box::new(rest));
                }
                None => pending.push(tir),
            }
        }
        if !pending.is_empty() {
            let mut seq: Vec<TExpr> = pending.into_iter().rev().collect();
            seq.push(body);
            body = TExpr::Seq(seq);
        }
        Checked::new(last.ty, cost, body)
    }

    /// E0301: a statement whose value holds a stream that nothing reads.
    fn discarded_stream(&mut self, span: crate::Span) {
        self.error(
            "E0301",
            "this statement's stream is never read",
            span,
            "a stream, discarded",
        )
        .help
        .push("read what you need, `… |> take(n)` or `|> first()`, or remove the statement".into());
    }
}
