//! Checking operators: unary and binary, with their types and value ranges.

use super::expr::{Checked, Checker};
use super::tir::TExpr;
use super::types::Ty;
use crate::cost::Interval;
use crate::cost::Poly;
use crate::span::Span;
use crate::syntax::ast::{BinaryOp, Expr, UnaryOp};
use crate::syntax::printer::print_expr;

impl Checker<'_> {
    pub(super) fn check_unary(&mut self, op: UnaryOp, operand: &Expr) -> Checked {
        let checked = self.check(operand);
        let ty = match op {
            UnaryOp::Neg => match &checked.ty {
                Ty::Int(interval) => Ty::Int(interval.negate()),
                Ty::Float | Ty::Error => checked.ty.clone(),
                other => {
                    self.mismatch(
                        &Ty::any_int("?"),
                        other,
                        operand.span,
                        "`-` negates a number",
                    );
                    Ty::Error
                }
            },
            UnaryOp::Not => {
                self.expect_type(&Ty::Bool, &checked.ty, operand.span, "`!` negates a Bool");
                Ty::Bool
            }
            UnaryOp::Length => {
                let length = self.scalar_function(op, &checked.ty, operand.span);
                self.narrowed_length(operand, length)
            }
            UnaryOp::Lower | UnaryOp::Upper | UnaryOp::ToFloat => {
                self.scalar_function(op, &checked.ty, operand.span)
            }
        };
        // `length` reads the string whole, a case mapping reads it and
        // writes another: a step per 4 KiB each (`string_steps`).
        let passes = match op {
            UnaryOp::Length => 1,
            UnaryOp::Lower | UnaryOp::Upper => 2,
            _ => 0,
        };
        let cost = checked.cost.plus(&crate::cost::Cost::steps(Poly::constant(
            passes * string_steps(&checked.ty),
        )));
        Checked::new(ty, cost, TExpr::Unary(op, Box::new(checked.tir)))
    }

    /// `length(s)`, `lower(s)`, `upper(s)` of a `String`, `float(n)` of an
    /// `Int`; of an option, an option (`none` stays `none`).
    fn scalar_function(&mut self, op: UnaryOp, ty: &Ty, span: crate::span::Span) -> Ty {
        if let Ty::Option(inner) = ty {
            return Ty::option(self.scalar_function(op, inner, span));
        }
        // Of a value whose type is not known (a lambda's parameter, checked
        // once before it is applied): not known either, not any `Int`,
        // which `take(length(s))` would refuse before `s` is known.
        if ty.is_error() {
            return Ty::Error;
        }
        // A string's characters are no more than its bytes; a case mapping
        // may lengthen a string (`ß` to `SS`), to at most three times its
        // bytes (`CASE_MAPPING_GROWTH`).
        let (takes, gives) = match (op, ty) {
            (UnaryOp::Length, Ty::Str(bytes)) => {
                (Ty::string(), Ty::Int(Interval::up_to(bytes.clone())))
            }
            (UnaryOp::Length, _) => (
                Ty::string(),
                Ty::Int(Interval::up_to(Poly::unbounded("length"))),
            ),
            (UnaryOp::Lower | UnaryOp::Upper, Ty::Str(bytes)) => (
                Ty::string(),
                Ty::Str(bytes.times(&Poly::constant(crate::cost::CASE_MAPPING_GROWTH))),
            ),
            (UnaryOp::Lower | UnaryOp::Upper, _) => (Ty::string(), Ty::string()),
            _ => (Ty::any_int("?"), Ty::Float),
        };
        match (ty, &takes) {
            (Ty::Error, _) | (Ty::Str(_), Ty::Str(_)) | (Ty::Int(_), Ty::Int(_)) => gives,
            (other, _) => {
                self.mismatch(
                    &takes,
                    other,
                    span,
                    format!(
                        "`{}` takes {}",
                        op.written(),
                        if matches!(takes, Ty::Str(_)) {
                            "a String"
                        } else {
                            "an Int"
                        }
                    ),
                );
                Ty::Error
            }
        }
    }

    pub(super) fn check_binary(&mut self, op: BinaryOp, a: &Expr, b: &Expr) -> Checked {
        let (left, right) = match op {
            BinaryOp::And | BinaryOp::Or => self.check_after_condition(op == BinaryOp::And, a, b),
            _ => (self.check(a), self.check(b)),
        };
        if op == BinaryOp::Or && (left.ty.holds_rows() || right.ty.holds_rows()) {
            return self.check_union(left, right, a, b);
        }
        let mut cost = left.cost.plus(&right.cost);
        if op.is_comparison() {
            self.record_comparison(op, a, b, &left.ty, &right.ty);
            // A comparison walks both values whole: a step per value.
            let walked = self
                .note_value_size(&left.ty, a.span)
                .plus(&self.note_value_size(&right.ty, b.span))
                .plus(&Poly::constant(
                    string_steps(&left.ty) + string_steps(&right.ty),
                ));
            cost = cost.plus(&crate::cost::Cost::steps(walked));
        }
        if op == BinaryOp::StartsWith {
            // The prefix is compared with the string's start: its length.
            cost = cost.plus(&crate::cost::Cost::steps(Poly::constant(string_steps(
                &right.ty,
            ))));
        }
        // A number, or an optional one (`none` on either side gives
        // `none`, in either order: `o + n` as `n + o`).
        let numeric = |t: &Ty| match t {
            Ty::Option(inner) => matches!(**inner, Ty::Int(_) | Ty::Float | Ty::Error),
            _ => matches!(t, Ty::Int(_) | Ty::Float | Ty::Error),
        };
        let ty = match op {
            BinaryOp::In => {
                self.error(
                    "E0237",
                    "`in` reads keys inside an access, and this is not one",
                    a.span.to(b.span),
                    "not inside `[…]`",
                )
                .help
                .push(format!(
                    "to read rows write `Table[key in {}]`; to test membership write `{} |> contains({})`",
                    print_expr(b),
                    print_expr(b),
                    print_expr(a)
                ));
                return Checked::error();
            }
            BinaryOp::StartsWith => {
                self.starts_with_operand(&left.ty, a.span);
                self.starts_with_operand(&right.ty, b.span);
                Ty::Bool
            }
            BinaryOp::And | BinaryOp::Or => {
                self.expect_type(&Ty::Bool, &left.ty, a.span, "`&&` and `||` combine Bools");
                self.expect_type(&Ty::Bool, &right.ty, b.span, "`&&` and `||` combine Bools");
                Ty::Bool
            }
            BinaryOp::Eq | BinaryOp::NotEq => {
                self.inspect(&left.ty, a.span, "compare");
                self.inspect(&right.ty, b.span, "compare");
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
                if !left.ty.is_ordered() {
                    self.mismatch(
                        &Ty::any_int("?"),
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
            BinaryOp::Add if matches!(left.ty, Ty::Str(_)) => {
                self.expect_type(&Ty::string(), &right.ty, b.span, "`+` joins two strings");
                let joined = match (&left.ty, &right.ty) {
                    (Ty::Str(a), Ty::Str(b)) => Ty::Str(a.plus(b)),
                    _ => Ty::string(),
                };
                // The join copies both strings: a step per 4 KiB.
                cost = cost.plus(&crate::cost::Cost::steps(Poly::constant(string_steps(
                    &joined,
                ))));
                joined
            }
            _ => {
                if !numeric(&left.ty) {
                    self.mismatch(
                        &Ty::any_int("?"),
                        &left.ty,
                        a.span,
                        "arithmetic is on numbers",
                    );
                } else if !left.ty.compatible(&right.ty) {
                    self.mismatch(
                        &left.ty,
                        &right.ty,
                        b.span,
                        "both sides of arithmetic have one type (no implicit conversion)",
                    );
                }
                // The number either side is (a `none` of no type yet is
                // the other's), optional where either side is.
                let number = |t: &Ty| match t {
                    Ty::Option(inner) => (**inner).clone(),
                    other => other.clone(),
                };
                let number = match number(&left.ty) {
                    Ty::Error => number(&right.ty),
                    found => found,
                };
                let optional =
                    matches!(left.ty, Ty::Option(_)) || matches!(right.ty, Ty::Option(_));
                match optional {
                    true => Ty::option(number),
                    false => number,
                }
            }
        };
        // The value range of integer arithmetic (spec/cost.md, "Values");
        // none on either side gives none.
        let ty = match (left.ty.interval(), right.ty.interval()) {
            (Some(x), Some(y)) if ty.interval().is_some() => {
                if matches!(op, BinaryOp::Div | BinaryOp::Rem) && y.constant() == Some(0) {
                    self.divides_by_zero(op, b);
                }
                let optional =
                    matches!(left.ty, Ty::Option(_)) || matches!(right.ty, Ty::Option(_));
                // A sum of `Int?`s is interval arithmetic alone, as the plan
                // verifier reads it (its `narrowed_sum` takes plain `Int`s).
                let interval = match op {
                    BinaryOp::Add if !optional => self.narrowed_sum(op, (a, b), x.plus(y)),
                    BinaryOp::Sub if !optional => self.narrowed_sum(op, (a, b), x.minus(y)),
                    BinaryOp::Add => x.plus(y),
                    BinaryOp::Sub => x.minus(y),
                    BinaryOp::Mul => x.times(y),
                    BinaryOp::Div => x.divided_by(y),
                    _ => x.remainder(y),
                };
                if optional {
                    Ty::option(Ty::Int(interval))
                } else {
                    Ty::Int(interval)
                }
            }
            _ => ty,
        };
        Checked::new(
            ty,
            cost,
            TExpr::Binary(op, Box::new(left.tir), Box::new(right.tir)),
        )
    }

    /// E0322: `x / 0` or `x % 0`, whose every run would stop (E0531).
    fn divides_by_zero(&mut self, op: BinaryOp, divisor: &Expr) {
        let what = if op == BinaryOp::Div {
            "divides"
        } else {
            "takes a remainder"
        };
        self.error(
            "E0322",
            format!("this {what} by `{}`, which is always 0", print_expr(divisor)),
            divisor.span,
            "always zero",
        )
        .help
        .push("divide by a value that is never 0: a literal such as `10`, or a parameter declared `>= 1`".into());
    }

    /// `starts_with(s, p)` of two `String`s (either may be optional: `none`
    /// starts with nothing and nothing starts with `none`).
    pub(super) fn starts_with_operand(&mut self, ty: &Ty, span: Span) {
        let string = match ty {
            Ty::Option(inner) => matches!(**inner, Ty::Str(_) | Ty::Error),
            other => matches!(other, Ty::Str(_) | Ty::Error),
        };
        if !string {
            self.mismatch(
                &Ty::string(),
                ty,
                span,
                "`starts_with` compares two Strings",
            );
        }
    }

    /// An operation that reads a whole value (a comparison, `distinct`, a
    /// group key): it may not hold a stream (comparing would read it) or a
    /// function; a type parameter here is marked, so that no call binds it
    /// to one of those.
    pub(super) fn inspect(&mut self, ty: &Ty, span: Span, what: &str) {
        for generic in ty.generics() {
            self.inspected.insert(generic);
        }
        if ty.holds_stream() {
            self.error(
                "E0301",
                format!("to {what} this value would read a stream in full"),
                span,
                "holds a stream",
            )
            .help
            .push("limit the stream first, `|> take(n)`, and use the list".into());
        } else if ty.holds_fn() {
            self.error(
                "E0401",
                format!("functions cannot be {what}d"),
                span,
                "holds a function",
            )
            .help
            .push(format!("{what} the values the functions give instead"));
        }
    }
}

/// The steps of copying or comparing a string of type `ty` whole
/// (`rqc_cost::string_steps`); none for another type.
fn string_steps(ty: &Ty) -> u64 {
    match ty {
        Ty::Str(bytes) => crate::cost::string_steps(bytes.max_value()),
        Ty::Option(inner) => string_steps(inner),
        _ => 0,
    }
}
