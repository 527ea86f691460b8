//! Applying a function value in the bound pass: each lambda it may be, its body evaluated with its parameters bound where it was made, the results joined and the costs the largest; applications nest at most a fixed depth, so no run the verifier passes recurses.

use super::abstract_value::Abs;
use super::bounds::{Eval, Verifier};
use super::narrowing::{Named, Side};
use super::scope::Binding;
use crate::error::Result;
use rqc_plan::Node;
use std::rc::Rc;
use std::sync::Arc;

/// How deep applications may nest in one run: far deeper than any program
/// the checker accepts nests them (its own limit is 16 delayed lambdas),
/// and finite, so a lambda that applies itself is refused, as the checker
/// refuses recursion.
pub const MAX_APPLICATION_NESTING: usize = 64;

impl<'p> Verifier<'p> {
    /// Applies the function value `f` to `args`: each lambda it may be, its
    /// body evaluated with its parameters bound, each keeping the sum its
    /// argument is (`sums`, a call's; empty for a combinator's); the
    /// results joined, the costs the largest. Applications nest at most
    /// [`MAX_APPLICATION_NESTING`] deep.
    pub(super) fn apply(
        &mut self,
        site: &Node,
        f: &Abs<'p>,
        args: Vec<Abs<'p>>,
        sums: Vec<Option<Arc<Side<'p>>>>,
    ) -> Result<Eval<'p>> {
        let closures = match f {
            Abs::Nothing => return Ok(Eval::free(Abs::Nothing)),
            Abs::Fns(closures) => Rc::clone(closures),
            other => {
                return self.fault(
                    "E0625",
                    site,
                    format!("it applies {} as a function", other.kind()),
                )
            }
        };
        let mut result: Option<Eval<'p>> = None;
        for closure in closures.iter() {
            if closure.params.len() != args.len() {
                return self.fault(
                    "E0624",
                    site,
                    format!(
                        "it applies the lambda of operator {} to {} values, and it takes {}",
                        closure.node.id,
                        args.len(),
                        closure.params.len()
                    ),
                );
            }
            self.enter(site, closure.node)?;
            // Made in this evaluation of a body, its bindings are the
            // application's; made in another, the facts and sums of the
            // application reach it only for values with one value here, as
            // the checker's `apply_delayed` (`rqc_cost::Frames`).
            let here = closure.frame == self.frames.current();
            let frames = &self.frames;
            let one_value = |named: &Named<'p>| named.one_value(frames);
            let keep: Option<&dyn Fn(&Named<'p>) -> bool> = match here {
                true => None,
                false => Some(&one_value),
            };
            let around = rqc_cost::facts_around(&closure.facts, &self.facts, keep);
            // Kept over values with one value here (any, where made here):
            // the checker keeps fewer (only where the lambda sees the
            // names, makes a lambda, is a condition or is given a
            // function: its answers are reused, and fresh names would make
            // every application a new one to check), so this proves at
            // least what it proved.
            let kept =
                |sum: &Arc<Side<'p>>| here || sum.terms.iter().all(|term| one_value(&term.name));
            let sums: Vec<_> = sums.iter().map(|sum| sum.clone().filter(kept)).collect();
            self.frames.enter();
            let mut scope = closure.scope.clone();
            let mut bindings = Vec::with_capacity(args.len());
            for (i, (name, value)) in closure.params.iter().zip(&args).enumerate() {
                let id = self.new_binding();
                bindings.push(id);
                scope = Some(Rc::new(Binding {
                    name,
                    value: value.clone(),
                    id,
                    condition: None,
                    definition: sums.get(i).cloned().flatten(),
                    outer: scope,
                }));
            }
            // The body sees the parameters as where the lambda was made,
            // and what it captured as the `if`s around this application
            // prove it (as the checker's `narrow_to_enclosing_facts`),
            // under the facts around where it was made and where it is
            // applied.
            let facts = around.map(|around| std::mem::replace(&mut self.facts, around));
            let outer = std::mem::replace(&mut self.params, Rc::clone(&closure.entry_params));
            let (scope, narrowed) = self.narrowed_around(scope);
            if !narrowed.is_empty() {
                let mut params = (*self.params).clone();
                for (i, value) in narrowed {
                    params[i] = value;
                }
                self.params = Rc::new(params);
            }
            let out = self.eval(closure.body, &scope);
            // Set after the body, whose own applications set it too.
            self.last_lambda_params = bindings;
            self.frames.leave();
            self.params = outer;
            if let Some(facts) = facts {
                self.facts = facts;
            }
            self.applying.pop();
            let out = out?;
            result = Some(match result {
                None => out,
                Some(before) => Eval {
                    value: match before.value.join(&out.value) {
                        Ok(value) => value,
                        Err(clash) => return self.clash(site, clash),
                    },
                    cost: before.cost.max(&out.cost),
                    writes: before.writes || out.writes,
                },
            });
        }
        Ok(result.unwrap_or_else(|| Eval::free(Abs::Nothing)))
    }

    /// One more application of `lambda`, refused past the nesting limit.
    fn enter(&mut self, site: &Node, lambda: &'p Node) -> Result<()> {
        if self.applying.len() >= MAX_APPLICATION_NESTING {
            let again = self
                .applying
                .iter()
                .filter(|l| std::ptr::eq(**l, lambda))
                .count();
            let why = if again > 1 {
                format!(
                    "the lambda of operator {} is applied inside its own application {again} times over: a lambda applied to itself recurses, and its run would not end",
                    lambda.id
                )
            } else {
                format!("applications nest more than {MAX_APPLICATION_NESTING} deep")
            };
            return self.fault(super::TOO_DEEP, site, why);
        }
        self.applying.push(lambda);
        Ok(())
    }
}
