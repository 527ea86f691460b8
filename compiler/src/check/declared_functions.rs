//! A `let`'s declared function type held by the lambdas its value holds (`let f: Int -> [Int; <= 1] = y => [y, y]` is E0323, `let f: Int -> String = x => x + 1` E0401), each checked once at the declared parameter types, apart from its applications.

use super::applications::Probe;
use super::declared_lengths::constant;
use super::expr::Checker;
use super::types::{FnCandidate, FnTy, Ty};
use crate::cost::Poly;
use crate::span::Span;

impl Checker<'_> {
    /// Holds each lambda in `found` (the `let`'s value, checked where it
    /// is applied) to the function type `declared` gives it at the same
    /// place: at the top, in a record's field, a list's elements or an
    /// option (`let r: {f: Int -> [Int; <= 1]} = {f: y => [y, y]}`). The
    /// declaration is of every argument of the declared types, so the
    /// body is checked once at them (`Checker::probe_delayed`): its result
    /// must be of the declared type (E0401), no longer than it declares
    /// (E0323; a body that cannot be checked there, `y => xs |> take(y)`,
    /// may return any length), and a lambda it returns is held to the
    /// declared result in turn. A lambda taking another number of
    /// parameters than declared is E0401. Each application is still
    /// checked with its own arguments, at what it really returns.
    pub(super) fn declared_function_held(
        &mut self,
        (declared, subject): (&Ty, &str),
        found: &Ty,
        span: Span,
    ) {
        match (declared, found) {
            (Ty::Fn(declared), Ty::Fns(candidates)) => {
                for candidate in candidates {
                    if let FnCandidate::Lambda(lambda) = candidate {
                        self.lambda_held(declared, lambda, subject, span);
                    }
                }
            }
            (Ty::Record(declared), Ty::Record(found)) => {
                for (field, declared) in declared {
                    if let Some((_, found)) = found.iter().find(|(name, _)| name == field) {
                        let subject = format!("field `{field}` of {subject}");
                        self.declared_function_held((declared, &subject), found, span);
                    }
                }
            }
            (Ty::List(declared, ..), Ty::List(found, ..)) => {
                let subject = format!("an element of {subject}");
                self.declared_function_held((declared, &subject), found, span);
            }
            (Ty::Option(declared), Ty::Option(found)) => {
                self.declared_function_held((declared, subject), found, span);
            }
            (Ty::Option(declared), found) => {
                self.declared_function_held((declared, subject), found, span);
            }
            _ => {}
        }
    }

    /// [`Checker::declared_function_held`] for one lambda.
    fn lambda_held(
        &mut self,
        declared: &FnTy,
        lambda: &super::types::DelayedLambda,
        subject: &str,
        span: Span,
    ) {
        if lambda.params.len() != declared.params.len() {
            let (want, got) = (declared.params.len(), lambda.params.len());
            let plural = |n: usize| if n == 1 { "" } else { "s" };
            self.error(
                "E0401",
                format!(
                    "{subject} is declared a function of {want} parameter{}, and this lambda takes {got}",
                    plural(want)
                ),
                span,
                "another number of parameters",
            )
            .help
            .push("give the lambda the parameters the declared type lists, or declare the type it has".into());
            return;
        }
        let holds_a_length =
            |t: &Ty| matches!(t, Ty::List(_, length, _) if constant(length).is_some());
        let returned = match self.probe_delayed(lambda, &declared.params) {
            Probe::Refused => return,
            Probe::Returned(ty) => ty,
            // Of no type there: no length is known.
            Probe::NoType if declared.ret.any(&holds_a_length) => {
                declared.ret.map_polys(&|_| Poly::unbounded("its result"))
            }
            Probe::NoType => return,
        };
        let result = format!("the result of {subject}");
        if !self.expect_type(
            &declared.ret,
            &returned,
            span,
            format!("{result} is declared so"),
        ) {
            return;
        }
        self.within_declared_lengths((&declared.ret, &result), (&returned, "its body"), span);
        // Curried (`Int -> Int -> [Int; <= 1]`): the lambda it returns.
        self.declared_function_held((&declared.ret, &result), &returned, span);
    }
}
