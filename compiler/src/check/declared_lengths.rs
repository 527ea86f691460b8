//! E0323: a definition whose body may return a list longer than its declared result type says (`fn three(x: Int) -> [Int; <= 3] = [x, x, x, x]`), or a `let` whose value may be longer than its declared type, which a reader of the declaration would be misled by (a `let`'s lambdas: `declared_functions.rs`).

use super::expr::Checker;
use super::types::{FnCandidate, Ty};
use crate::cost::Poly;
use crate::span::Span;

impl Checker<'_> {
    /// Reports E0323 where a list in `found` may be
    /// longer than the constant length `declared` gives it at the same
    /// place (through options, lists' elements and records' fields): the
    /// type the signature prints is the body's, so a declaration it does
    /// not keep would read as a promise the result breaks.
    /// `declared` is `subject`'s (`the result of \`three\``, `` `xs` ``),
    /// `found` is `value`'s (`its body`, `its value`).
    pub(super) fn within_declared_lengths(
        &mut self,
        (declared, subject): (&Ty, &str),
        (found, value): (&Ty, &str),
        span: Span,
    ) {
        if let Some((most, may)) = self.longer_than_declared(declared, found) {
            let elements = |n: u64| match n {
                1 => "1 element".to_string(),
                n => format!("{n} elements"),
            };
            let may = may.map_or("any number of elements".to_string(), elements);
            self.error(
                "E0323",
                format!(
                    "{subject} is declared a list of at most {}, and {value} may hold {may}",
                    elements(most)
                ),
                span,
                "may be longer than declared",
            )
            .help
            .push(format!(
                "limit the list where it is made (`|> take({most})`), or declare the length it may have"
            ));
        }
    }

    /// The first list in `found` that may be longer than the constant
    /// length `declared` gives it: that length and the most `found` may
    /// hold (`None`: no bound).
    pub(super) fn longer_than_declared(
        &self,
        declared: &Ty,
        found: &Ty,
    ) -> Option<(u64, Option<u64>)> {
        match (declared, found) {
            (Ty::Option(d), Ty::Option(f)) => self.longer_than_declared(d, f),
            (Ty::Option(d), f) => self.longer_than_declared(d, f),
            (Ty::List(d_elem, d_len, _), Ty::List(f_elem, f_len, _)) => {
                if let Some(most) = constant(d_len) {
                    // A list parameter declared `<= n` is at most `n` long.
                    let f_len = f_len.substitute_all(&|var| {
                        self.declared_sizes.get(var).map(|n| Poly::constant(*n))
                    });
                    let may = f_len.max_value();
                    if may.is_none_or(|m| m > most) {
                        return Some((most, may));
                    }
                }
                self.longer_than_declared(d_elem, f_elem)
            }
            // A function's result (`-> Int -> [Int; <= 1]`), once resolved;
            // of each of several an `if` chose between.
            (Ty::Fn(d), Ty::Fn(f)) => self.longer_than_declared(&d.ret, &f.ret),
            (Ty::Fn(d), Ty::Fns(candidates)) => candidates.iter().find_map(|c| match c {
                FnCandidate::Known(f) => self.longer_than_declared(&d.ret, &f.ret),
                FnCandidate::Lambda(_) => None,
            }),
            (Ty::Record(d), Ty::Record(f)) => d.iter().find_map(|(field, d_ty)| {
                let (_, f_ty) = f.iter().find(|(name, _)| name == field)?;
                self.longer_than_declared(d_ty, f_ty)
            }),
            _ => None,
        }
    }
}

/// The number `poly` is, when it is one.
pub(super) fn constant(poly: &Poly) -> Option<u64> {
    poly.vars().is_empty().then(|| poly.max_value()).flatten()
}
