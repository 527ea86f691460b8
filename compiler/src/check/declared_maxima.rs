//! A call's arguments within the list lengths its callee's parameters declare (E0321): a list parameter's (`xs: [Int; <= 5]`), a record field's, and a function parameter's result's (`g: Int -> [Int; <= 1]`), this last once the call has resolved the function given.

use super::call_functions::CallSite;
use super::expr::Checker;
use super::parameters::{length_measure, ELEMENTS, RESULT};
use super::types::Ty;
use crate::cost::{Poly, Var};
use crate::span::Span;

impl Checker<'_> {
    /// Each of `declared` (the lengths the callee's parameter declares,
    /// `parameters::declared_list_maxima`, by path) that `ty`, the
    /// argument, must keep, checked as an entry point's list parameter is
    /// (E0321): those through a function's result where `results` is
    /// true (the function resolved), the others where it is false. `at` is
    /// the callee's name, the parameter's and the argument's span.
    pub(super) fn within_declared_maxima(
        &mut self,
        (callee, param, span): (&str, &str, Span),
        declared: &[(Vec<String>, u64)],
        ty: &Ty,
        results: bool,
    ) {
        for (fields, max) in declared
            .iter()
            .filter(|(f, _)| through_a_result(f) == results)
        {
            let measure = length_measure(param, fields);
            let path = measure.trim_matches('|').to_string();
            let most = Ty::list(Ty::Error, Poly::var(Var::param(&measure, Some(*max))));
            // An option's list (`[Int; <= 5]?`) has the list's length; a
            // record's field, its own; a function's result, its result's.
            // None where an error was reported already; else a list of no
            // known length, which is refused.
            let unknown = Ty::list(Ty::Error, Poly::unbounded(&path));
            let list = match field_list(ty, fields) {
                Some(list) => list,
                None if ty.any(&|t| t.is_error()) => continue,
                None => &unknown,
            };
            self.within_declared_ends(&most, list, span, callee, &path);
        }
    }

    /// The results of the functions a call was given (`given`, as the call
    /// resolved each, by position) within the lengths its parameters
    /// declare (`fn a5(g: Int -> [Int; <= 1])`: `a5(x => [x, x])` is
    /// refused), which the callee's body relies on (E0323 reads `g(5)` as
    /// at most 1 long). A value holding a function that resolved to none
    /// was reported where it was.
    pub(super) fn results_within_declared(&mut self, site: &CallSite<'_>, given: &[Option<Ty>]) {
        for (i, (param, _)) in site.sig.params.iter().enumerate() {
            let Some(declared) = site.sig.list_maxima.get(i) else {
                continue;
            };
            let Some(ty) = given[i].as_ref().or(site.arg_tys[i].as_ref()) else {
                continue;
            };
            let at = (site.name, param.as_str(), site.args[i].span);
            self.within_declared_maxima(at, declared, ty, true);
        }
    }
}

/// Whether a path of `parameters::declared_list_maxima` passes through a
/// function's result (`g()`, `r.f()`).
fn through_a_result(fields: &[String]) -> bool {
    fields.iter().any(|step| step == RESULT)
}

/// The list `fields` reach in `ty` (through options, records, lists'
/// elements and functions' results: `parameters::declared_list_maxima`),
/// seen through an option; `None` where the type holds none there (an
/// error reported already, or a function not resolved to one).
fn field_list<'t>(ty: &'t Ty, fields: &[String]) -> Option<&'t Ty> {
    let ty = match ty {
        Ty::Option(inner) => inner,
        other => other,
    };
    let Some((first, rest)) = fields.split_first() else {
        return matches!(ty, Ty::List(..)).then_some(ty);
    };
    // A list's elements (`rs[].xs`): each holds the field, so their
    // joined type does, at its longest.
    if first == ELEMENTS {
        let Ty::List(elem, _, _) = ty else {
            return None;
        };
        return field_list(elem, rest);
    }
    if first == RESULT {
        let Ty::Fn(function) = ty else {
            return None;
        };
        return field_list(&function.ret, rest);
    }
    let Ty::Record(record) = ty else {
        return None;
    };
    let (_, field) = record.iter().find(|(name, _)| name == first)?;
    field_list(field, rest)
}
