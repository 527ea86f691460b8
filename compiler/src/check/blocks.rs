//! Checking blocks, `let`s and lambdas: scopes, evaluation once, latent costs.

use super::expr::{Checked, Checker, Local};
use super::tir::TExpr;
use super::types::{FnTy, Ty};
use crate::cost::Cost;
use crate::syntax::ast::{Expr, Ident, Stmt};

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
                    let checked = self.check_expected(value, declared.as_ref());
                    if let Some(declared) = &declared {
                        self.expect_type(
                            declared,
                            &checked.ty,
                            value.span,
                            "declared with this type",
                        );
                    }
                    // A stream is read again by every use; anything else is
                    // evaluated once, here.
                    let reuse_cost = if matches!(checked.ty, Ty::Stream(_)) {
                        checked.cost.clone()
                    } else {
                        cost = cost.plus(&checked.cost);
                        Cost::zero()
                    };
                    names.push((name.name.clone(), checked.tir.clone()));
                    self.scope.push(Local {
                        name: name.name.clone(),
                        span: name.span,
                        ty: checked.ty,
                        value: checked.value,
                        tir: TExpr::Local(name.name.clone()),
                        reuse_cost,
                    });
                }
                Stmt::Expr(expr) => {
                    let checked = self.check(expr);
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
        Checked {
            ty: last.ty,
            cost,
            value: last.value,
            tir: body,
        }
    }
    /// A lambda's type: its parameters' types (from its context) and the
    /// latent cost of one call.
    pub fn check_lambda(&mut self, params: &[Ident], body: &Expr, param_tys: &[Ty]) -> Checked {
        let depth = self.scope.len();
        for (param, ty) in params.iter().zip(param_tys) {
            self.push_local(param, ty.clone(), None, TExpr::Local(param.name.clone()));
        }
        let checked = self.check(body);
        self.scope.truncate(depth);
        Checked::new(
            Ty::Fn(Box::new(FnTy {
                params: param_tys.to_vec(),
                ret: checked.ty,
                latent: checked.cost,
            })),
            Cost::zero(),
            TExpr::Lambda(
                params.iter().map(|p| p.name.clone()).collect(),
                Box::new(checked.tir),
            ),
        )
    }
}
