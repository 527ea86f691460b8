//! Checking operators: unary and binary, with their types and value bounds.

use super::expr::{Checked, Checker};
use super::tir::TExpr;
use super::types::Ty;
use crate::syntax::ast::{BinaryOp, Expr, UnaryOp};

impl Checker<'_> {
    pub(super) fn check_unary(&mut self, op: UnaryOp, operand: &Expr) -> Checked {
        let checked = self.check(operand);
        let ty = match op {
            UnaryOp::Neg => {
                if !matches!(checked.ty, Ty::Int | Ty::Float | Ty::Error) {
                    self.mismatch(&Ty::Int, &checked.ty, operand.span, "`-` negates a number");
                }
                checked.ty.clone()
            }
            UnaryOp::Not => {
                self.expect_type(&Ty::Bool, &checked.ty, operand.span, "`!` negates a Bool");
                Ty::Bool
            }
        };
        Checked::new(ty, checked.cost, TExpr::Unary(op, Box::new(checked.tir)))
    }

    pub(super) fn check_binary(&mut self, op: BinaryOp, a: &Expr, b: &Expr) -> Checked {
        let left = self.check(a);
        let right = self.check(b);
        let cost = left.cost.plus(&right.cost);
        let numeric = |t: &Ty| matches!(t, Ty::Int | Ty::Float | Ty::Error);
        let ty = match op {
            BinaryOp::And | BinaryOp::Or => {
                self.expect_type(&Ty::Bool, &left.ty, a.span, "`&&` and `||` combine Bools");
                self.expect_type(&Ty::Bool, &right.ty, b.span, "`&&` and `||` combine Bools");
                Ty::Bool
            }
            BinaryOp::Eq | BinaryOp::NotEq => {
                if !left.ty.compatible(&right.ty) {
                    self.mismatch(
                        &left.ty,
                        &right.ty,
                        b.span,
                        "both sides of a comparison have one type",
                    );
                }
                Ty::Bool
            }
            BinaryOp::Lt | BinaryOp::LtEq | BinaryOp::Gt | BinaryOp::GtEq => {
                let ordered = |t: &Ty| {
                    matches!(t, Ty::Int | Ty::Float | Ty::Str | Ty::Error)
                        || matches!(t, Ty::Option(inner) if matches!(**inner, Ty::Int | Ty::Float | Ty::Str))
                };
                if !ordered(&left.ty) {
                    self.mismatch(
                        &Ty::Int,
                        &left.ty,
                        a.span,
                        "`<` and `>` compare numbers and strings",
                    );
                } else if !left.ty.compatible(&right.ty) {
                    self.mismatch(
                        &left.ty,
                        &right.ty,
                        b.span,
                        "both sides of a comparison have one type",
                    );
                }
                Ty::Bool
            }
            BinaryOp::Add if matches!(left.ty, Ty::Str) => {
                self.expect_type(&Ty::Str, &right.ty, b.span, "`+` joins two strings");
                Ty::Str
            }
            _ => {
                if !numeric(&left.ty) {
                    self.mismatch(&Ty::Int, &left.ty, a.span, "arithmetic is on numbers");
                } else if !left.ty.compatible(&right.ty) {
                    self.mismatch(
                        &left.ty,
                        &right.ty,
                        b.span,
                        "both sides of arithmetic have one type (no implicit conversion)",
                    );
                }
                if left.ty.is_error() {
                    right.ty.clone()
                } else {
                    left.ty.clone()
                }
            }
        };
        // Value bounds of sums and products, for sizes computed from parameters.
        let value = match (op, &left.value, &right.value) {
            (BinaryOp::Add, Some(x), Some(y)) => Some(x.plus(y)),
            (BinaryOp::Mul, Some(x), Some(y)) => Some(x.times(y)),
            (BinaryOp::Sub | BinaryOp::Div | BinaryOp::Rem, Some(x), _) => Some(x.clone()),
            _ => None,
        };
        Checked {
            ty,
            cost,
            value,
            tir: TExpr::Binary(op, Box::new(left.tir), Box::new(right.tir)),
        }
    }
}
