//! Which argument leaves a call's cost unbounded, said at the argument (E0302): the one whose measure, at 0, bounds the cost, else each unbounded one the cost reads.

use super::expr::{Checker, FnSig};
use super::measures::{self, Bindings};
use crate::cost::Var;
use crate::span::Span;

impl Checker<'_> {
    /// E0302 at each argument of a call of `name` (its signature `sig`)
    /// through whose measures (`origins`, each argument's bindings and
    /// span; `bindings`, all of them) the call's cost is unbounded.
    pub(super) fn blame_unbounded_arguments(
        &mut self,
        name: &str,
        sig: &FnSig,
        bindings: &Bindings,
        origins: Vec<(Bindings, Span)>,
    ) {
        // A measure the cost mentions, itself or through a count measured
        // as a sum of the parameters (`sum_measures.rs`).
        let uses = |var: &Var| {
            sig.cost.measures().iter().any(|(_, p)| {
                p.mentions(var)
                    || sig
                        .sum_measures
                        .iter()
                        .any(|m| p.mentions(&m.var) && m.fallback.mentions(var))
            })
        };
        let unbounded = |value: &crate::cost::Poly| value.grows_for_good();
        // The arguments the cost is unbounded through: with the measure at
        // 0 it is bounded (`min(x, k) + y` with `y` unbounded blames `y`,
        // not `x`); when no one measure is, every unbounded one.
        let bounded_without = |var: &Var| {
            let mut without = bindings.clone();
            without.insert(*var, crate::cost::Poly::zero());
            for measure in &sig.sum_measures {
                let fallback = measures::instantiate(&measure.fallback, &without);
                without.insert(measure.var, fallback);
            }
            sig.cost
                .measures()
                .iter()
                .all(|(_, p)| !measures::instantiate(p, &without).grows_for_good())
        };
        let decisive = |own: &Bindings| {
            own.iter()
                .find(|(var, value)| uses(var) && unbounded(value) && bounded_without(var))
                .map(|(var, value)| (*var, value.clone()))
        };
        let any_decisive = origins.iter().any(|(own, _)| decisive(own).is_some());
        for (own, arg_span) in origins {
            let culprit = if any_decisive {
                decisive(&own)
            } else {
                own.iter()
                    .find(|(var, value)| uses(var) && unbounded(value))
                    .map(|(var, value)| (*var, value.clone()))
            };
            if let Some((var, value)) = culprit {
                // A count the callee reads as a sum of its parameters.
                let sum = sig
                    .sum_measures
                    .iter()
                    .find(|m| m.fallback.mentions(&var))
                    .map(|m| m.var.to_string());
                let d = self.error(
                    "E0302",
                    format!(
                        "`{name}`'s cost depends on `{var}`, and this argument leaves it unbounded"
                    ),
                    arg_span,
                    "unbounded",
                );
                d.help.push(format!(
                "pass a value with a bound (here it may reach `{value}`): a literal, or a parameter declared with a bound such as `n: Int <= 100`"
            ));
                if let Some(sum) = sum {
                    d.help.push(format!(
                    "or call `{name}` where a test bounds the count `{sum}` it reads, with the arguments in place of its parameters (`if {sum} <= 100 {{ … }}`)"
                ));
                }
            }
        }
    }
}
