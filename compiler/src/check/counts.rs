//! `take` and `skip`: a count bounded by its value's upper end reads (or passes) at most that many; a count with none is E0302, whose help names the fix.

use super::builtins::Input;
use super::expr::{Checked, Checker};
use super::tir::TExpr;
use super::types::{StreamTy, Ty};
use crate::cost::Poly;
use crate::syntax::ast::{Expr, ExprKind};
use rqc_plan::{Builtin, Shape};

impl Checker<'_> {
    pub(super) fn take(
        &mut self,
        input: Checked,
        shape: Input,
        count: &Expr,
        island: Option<super::island_stream::IslandStream>,
    ) -> Checked {
        let mut n = self.check(count);
        self.expect_type(&Ty::any_int("?"), &n.ty, count.span, "`take` takes a count");
        n.ty = self.count_over_params(count, n.ty);
        // A count of at most zero takes nothing.
        let (upper, why) = count_upper(&n.ty);
        // An island taken below its bound is read as a stream: `k` rows.
        let (input, shape) = match (&shape, island, upper.as_ref().and_then(Poly::max_value)) {
            (Input::List(_, size), Some(island), Some(k))
                if size.max_value().is_none_or(|size| k < size) =>
            {
                match island.checked(input.tir.clone()) {
                    Some(Checked {
                        ty: Ty::Stream(stream),
                        cost,
                        tir,
                    }) => (
                        Checked::new(Ty::Stream(stream.clone()), cost, tir),
                        Input::Stream(stream),
                    ),
                    _ => (input, shape),
                }
            }
            _ => (input, shape),
        };
        let cost = input.cost.plus(&n.cost);
        match shape {
            Input::List(elem, size) => {
                // Both are upper bounds of min(size, n); keep the smaller.
                let size = match &upper {
                    Some(n)
                        if n.max_value().unwrap_or(u64::MAX)
                            < size.max_value().unwrap_or(u64::MAX) =>
                    {
                        n.clone()
                    }
                    _ => size,
                };
                let tir = TExpr::Builtin(Builtin::Take, Shape::List, vec![input.tir, n.tir]);
                Checked::new(Ty::list(elem, size), cost, tir)
            }
            Input::Stream(stream) => {
                let tir = TExpr::Builtin(Builtin::Take, Shape::Stream, vec![input.tir, held(n)]);
                match upper {
                    Some(k) => Checked::new(
                        Ty::list(stream.elem.clone(), k.clone()),
                        cost.plus(&stream.open).plus(&stream.per_element.times(&k)),
                        tir,
                    ),
                    None => {
                        self.unbounded_count(count, &stream, why);
                        // Refused: no length, so that nothing after it is
                        // refused again for it; but a probe of the length
                        // a lambda returns reads it as any.
                        let length = match self.lambda_checks.probing_lengths {
                            0 => Poly::zero(),
                            _ => Poly::unbounded("an unbounded take"),
                        };
                        Checked::new(Ty::list(stream.elem, length), cost, tir)
                    }
                }
            }
            Input::Option(elem) => Checked::new(
                Ty::option(elem),
                cost,
                TExpr::Builtin(Builtin::Take, Shape::Option, vec![input.tir, n.tir]),
            ),
            Input::Error => Checked::error(),
        }
    }

    /// `skip(k)`: on a list or an option, what is left after the first `k`
    /// (no read); on a stream, a stream that reads and drops `k` rows when
    /// it is read, so its opening cost grows by `k` elements' (spec/cost.md,
    /// "Combinators"). A count of at most zero skips nothing.
    pub(super) fn skip(&mut self, input: Checked, shape: Input, count: &Expr) -> Checked {
        let mut n = self.check(count);
        self.expect_type(&Ty::any_int("?"), &n.ty, count.span, "`skip` takes a count");
        n.ty = self.count_over_params(count, n.ty);
        let cost = input.cost.plus(&n.cost);
        let (upper, why) = count_upper(&n.ty);
        let kind = shape.kind();
        match shape {
            Input::List(elem, size) => Checked::new(
                Ty::list(elem, size),
                cost,
                TExpr::Builtin(Builtin::Skip, kind, vec![input.tir, n.tir]),
            ),
            Input::Option(elem) => Checked::new(
                Ty::option(elem),
                cost,
                TExpr::Builtin(Builtin::Skip, kind, vec![input.tir, n.tir]),
            ),
            Input::Stream(stream) => {
                let tir = TExpr::Builtin(Builtin::Skip, kind, vec![input.tir, held(n)]);
                let Some(k) = upper else {
                    self.unbounded_skip(count, why);
                    return Checked::new(Ty::Stream(stream), cost, tir);
                };
                let mut skipped = (*stream).clone();
                skipped.open = stream.open.plus(&stream.per_element.times(&k));
                // Rows dropped from its start: not readable from the other end.
                skipped.source.skipped = true;
                skipped.source.order = None;
                Checked::new(Ty::Stream(Box::new(skipped)), cost, tir)
            }
            Input::Error => Checked::error(),
        }
    }

    /// E0310: `skip(count)` on a stream, where the count has no maximum.
    fn unbounded_skip(&mut self, count: &Expr, why: Option<String>) {
        let shown = crate::syntax::printer::print_expr(count);
        let parameter = self.named_parameter(count);
        let d = self.error(
            "E0310",
            format!("`skip({shown})` may read unboundedly many rows: `{shown}` has no upper bound"),
            count.span,
            "unbounded count",
        );
        d.help.push(match (&count.kind, parameter) {
            (crate::syntax::ast::ExprKind::Name(n), true) => {
                format!(
                    "declare a bound on the parameter: `{}: Int <= 1000`",
                    n.name
                )
            }
            (crate::syntax::ast::ExprKind::Name(n), false) => format!(
                "bound `{}` where it is made: from a parameter declared with a bound (`k: Int <= 1000`), or tested (`if {} <= 1000 {{ … }}`)",
                n.name, n.name
            ),
            _ => "skip a literal count, or a parameter declared with a bound: `k: Int <= 1000`"
                .into(),
        });
        if let Some(why) = why {
            d.notes.push(format!("{why}, so the count may be any size"));
        }
    }

    /// Whether `expr` names an entry point's parameter (which a bound can
    /// be declared on), not a `let` or a lambda's parameter.
    fn named_parameter(&self, expr: &Expr) -> bool {
        match &expr.kind {
            ExprKind::Name(n) => self
                .scope
                .get(&n.name)
                .is_some_and(|local| matches!(local.tir, TExpr::Param(_))),
            _ => false,
        }
    }

    /// The entry point's `String` parameter whose length `count` is
    /// (`length(s)`, `length(upper(s))`): a bound on it bounds the count.
    fn measured_string_parameter(&self, count: &Expr) -> Option<String> {
        use crate::syntax::ast::UnaryOp;
        // `f(x)` of a built-in function of one value (`length(s)`: the
        // parser writes them as calls).
        fn applied(e: &Expr) -> Option<(UnaryOp, &Expr)> {
            let ExprKind::Call(callee, args) = &e.kind else {
                return None;
            };
            let (ExprKind::Name(f), [arg]) = (&callee.kind, args.as_slice()) else {
                return None;
            };
            Some((UnaryOp::function(&f.name)?, arg))
        }
        let (UnaryOp::Length, mut inner) = applied(count)? else {
            return None;
        };
        while let Some((UnaryOp::Lower | UnaryOp::Upper, mapped)) = applied(inner) {
            inner = mapped;
        }
        match &inner.kind {
            ExprKind::Name(n) if self.named_parameter(inner) => Some(n.name.clone()),
            _ => None,
        }
    }

    /// E0302: `take(count)` on a stream, where the count has no maximum.
    fn unbounded_count(&mut self, count: &Expr, stream: &StreamTy, why: Option<String>) {
        let shown = crate::syntax::printer::print_expr(count);
        let parameter = self.named_parameter(count);
        let string = self.measured_string_parameter(count);
        // Where the checker computed it once already (`repeated_calls.rs`),
        // naming it would change nothing.
        let shared = |count: &Expr| match &count.kind {
            ExprKind::If(c, t, e) => self.shared_if(count, (c, t, e)).is_some(),
            _ => false,
        };
        let repeated = repeated_call(count).filter(|_| !shared(count));
        let d = self.error(
            "E0302",
            format!("`take({shown})` bounds nothing: `{shown}` has no upper bound"),
            count.span,
            "unbounded count",
        );
        match &count.kind {
            crate::syntax::ast::ExprKind::Name(n) if parameter => d.help.push(format!(
                "declare a bound on the parameter: `{}: Int <= 100`",
                n.name
            )),
            crate::syntax::ast::ExprKind::Name(n) => d.help.push(format!(
                "bound `{}` where it is made: from a parameter declared with a bound (`n: Int <= 100`), or tested (`if {} <= 100 {{ … }}`)",
                n.name, n.name
            )),
            _ if string.is_some() => {
                let s = string.as_deref().unwrap_or_default();
                d.help.push(format!(
                    "declare a bound on the string: `{s}: String <= 100` (`length` counts its characters, at most its bytes; a case mapping at most triples them)"
                ));
            }
            _ if repeated.is_some() => {
                let call = repeated.unwrap_or_default();
                let named = shown.replace(&call, "l");
                d.help.push(format!(
                    "compute `{call}` once and test the name: `let l = {call};`, then `take({named})` (the checker computes such a call once itself only in a definition that cannot write, and only a call of a definition made wherever the condition is; otherwise each call is a value of its own to it, so a test of one bounds no other)"
                ));
            }
            _ => {
                d.help.push(
                    "take a literal count, or a parameter declared with a bound: `n: Int <= 100`"
                        .into(),
                );
                if let Some(why) = why {
                    d.notes.push(format!("{why}, so the count may be any size"));
                }
            }
        }
        // A stream that is no access written here (a parameter's, a
        // list's) is named by its description.
        d.notes.push(match stream.source.access.as_str() {
            // Its length is not carried once read as a stream.
            "" if stream.source.description == super::island_stream::LIST_READ_AS_STREAM => {
                "a list read as a stream is bounded by the count alone, not by its length: take from the list itself (`xs |> take(n)`) to be bounded by its length".to_string()
            }
            "" => format!("{} may hold any number of rows", stream.source.description),
            access => format!("`{access}` may hold any number of rows"),
        });
    }
}

/// A call (`limit_of(n)`) that an `if` inside `count` compares in its
/// condition and also gives as a branch, written the same: the shape of
/// `take(if limit_of(n) > 50 { 50 } else { limit_of(n) })`, printed.
fn repeated_call(count: &Expr) -> Option<String> {
    use crate::syntax::ast::BinaryOp::{Gt, GtEq, Lt, LtEq};
    use crate::syntax::printer::print_expr;
    let ExprKind::If(cond, then, otherwise) = &count.kind else {
        return None;
    };
    let ExprKind::Binary(Lt | LtEq | Gt | GtEq, a, b) = &cond.kind else {
        return None;
    };
    let branches = [print_expr(then), print_expr(otherwise)];
    [a, b]
        .into_iter()
        .filter(|side| matches!(side.kind, ExprKind::Call(..) | ExprKind::Pipe(..)))
        .map(|side| print_expr(side))
        .find(|shown| branches.contains(shown))
}

/// A count's upper end, when it has one, and otherwise why not (for the
/// message); a count that is not an `Int` was reported already.
fn count_upper(ty: &Ty) -> (Option<Poly>, Option<String>) {
    match ty {
        Ty::Int(interval) => {
            // In a function, `n: Int <= 10` is a measure its callers fix
            // and, meanwhile, at most 10: their least bounds the count.
            let declared = interval.most.filter(|_| interval.hi.fixed_by_callers());
            let hi = match declared {
                Some(most) => Poly::least_of([
                    interval.hi.clone(),
                    Poly::constant(most.max(0).unsigned_abs()),
                ]),
                None => interval.hi.clone(),
            };
            // In a function a function returns, the count may grow with
            // the returned function's own argument (`n => … take(n)`): the
            // rows are then a formula in it, fixed wherever the function is
            // applied (`returned.rs`), and refused there if unbounded.
            let bounded = interval.bounded_above() || super::returned::bounded_but_own(&hi);
            (bounded.then_some(hi), interval.why_unbounded())
        }
        _ => (Some(Poly::zero()), None),
    }
}

/// A stream's `take` or `skip` count `n`, held by the run to the maximum
/// the plan verifier recomputes, exactly (E0633): in a function, a
/// declared end is no such number (each call's argument is), so the count
/// goes unheld there, proved within it at each call.
fn held(n: Checked) -> TExpr {
    let max = match &n.ty {
        Ty::Int(interval) if interval.bounded_above() => interval.hi.max_value(),
        Ty::Int(_) => None,
        _ => Some(0),
    };
    TExpr::Limit(Box::new(n.tir), max)
}
