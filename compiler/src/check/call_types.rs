//! A signature's parameter types at one call: type parameters and measures bound so far put in place, and a function parameter's result held within the type the call bound (E0419).

use super::expr::Checker;
use super::measures::{self, Bindings};
use super::types::Ty;
use crate::span::Span;
use std::collections::BTreeMap;

impl Checker<'_> {
    /// The body may pass what a function parameter gives back to it again
    /// (`f(f(x))` with `f: T -> T`). The lambda was checked with `T` as the
    /// other arguments bound it, so its result must stay within that
    /// binding, or the second application would get a larger value than
    /// the lambda was costed for (E0419).
    pub(super) fn result_within_its_type(
        &mut self,
        pty: &Ty,
        lambda: &Ty,
        generics: &BTreeMap<String, Ty>,
        bindings: &Bindings,
        span: Span,
        callee: &str,
    ) {
        let (Ty::Fn(declared), Ty::Fn(lambda)) = (pty, lambda) else {
            return;
        };
        let names = declared.ret.generics();
        if names.is_empty() || !names.iter().all(|n| generics.contains_key(n)) {
            return;
        }
        let bound = declared
            .ret
            .substitute_generics(generics)
            .map_polys(&|p| measures::instantiate_bound(p, bindings));
        self.fits(
            &lambda.ret,
            &bound,
            span,
            &format!("the value `{callee}` passes back to it"),
        );
    }

    /// A signature's parameter type at this call: type parameters bound,
    /// measures bound so far replaced.
    pub(super) fn expected_param(
        &self,
        pty: &Ty,
        generics: &BTreeMap<String, Ty>,
        bindings: &Bindings,
    ) -> Ty {
        // The caller's measures inside a type parameter's binding are its
        // own, kept, as in the call's result.
        pty.substitute_generics(generics)
            .map_polys(&|p| measures::instantiate_keeping(p, bindings, &self.def_measures))
    }
}
